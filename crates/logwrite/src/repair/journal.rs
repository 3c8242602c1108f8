//! A repair as a journal in a quarantine directory: stage, commit, undo.
//!
//! Layout of one repair, `<quarantine>/<id>/`:
//!
//! ```text
//! manifest.json        what the repair does, step by step, and how far it got
//! manifest.done.json   the manifest as it will say `done`, written before the
//!                      commit (gone once renamed over manifest.json)
//! files/<path>         originals: removed files, and files before replacement
//! tails/<path>         bytes cut from truncated files
//! new/<path>           staged new contents (gone once committed)
//! ```
//!
//! `<path>` is the file's path inside the log dir. The quarantine must not be
//! inside the log dir (Kafka 3.9 refuses to start on a log dir holding a
//! directory that is not a partition). By default it is
//! `<log dir>.logtool-quarantine` beside it, on its filesystem: moves are
//! renames. A quarantine on another filesystem (to free the space at once)
//! is only where a *done* repair goes: it is journaled beside the log dir
//! as always, then copied there whole under `.moving-<id>`, renamed to
//! `<id>` and removed from beside the log dir ([`Repair::commit`]); its
//! undo copies each file back (to a temporary name, fsync, rename).
//!
//! Order of work, and what a crash at any point leaves:
//!
//! 1. *Staging* (state `staging`): new contents and cut tails are written and
//!    fsynced inside the repair's directory. The log dir is untouched; a crash
//!    leaves it untouched.
//! 2. *Committing* (state `committing`, fsynced before the first step): each
//!    step is atomic and idempotent: `remove` renames the file into `files/`;
//!    `truncate` cuts a file whose tail is already in `tails/` (checked by
//!    size); `write` hard-links the original into `files/`, then renames the
//!    staged file over it; `rename` renames a file an earlier step created
//!    (done once the source is gone; undone only once the original it
//!    replaces has left, so a crash before that never moves the original).
//!    A crash between steps leaves some done; the next
//!    [`Repair::begin`] on the same log dir finishes them (roll forward), and
//!    [`undo`] reverts them.
//! 3. *Done*: state `done`, fsynced. The `done` manifest is written and
//!    fsynced before the first change (`manifest.done.json`), so marking the
//!    repair done is a rename that needs no free space: a disk that fills
//!    during the commit fails it before the log dir changes, never after
//!    every change is in place.
//!
//! Every file write is a temporary file, fsync, rename, fsync of the
//! directory.
//!
//! **Exclusive.** A repair holds the log dir's `.lock` ([`DirLock`]) from
//! before it plans until it is done, as a broker does while it runs: a
//! second logtool repair, an `undo` and a broker starting meanwhile are all
//! refused, so no repair ever "finishes" another whose process is alive (only
//! a repair whose process died leaves its journal in `committing`, and the
//! next one rolls it forward). `undo` holds the lock too, and puts back the
//! modification times of the files it restores (Kafka's time-based retention
//! reads them).

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::{Change, Changes, Note, Op, describe};
use crate::lock::{DirLock, LockError};
use crate::write::file::{fsync_dir, write_atomic};
use logfmt::error::{Error, Result};
use logfmt::lock::Holder;

use logfmt::journal::{JournalError, MANIFEST_VERSION};
pub use logfmt::journal::{Manifest, QUARANTINE_SUFFIX, State, Step, default_quarantine};

/// Why a repair could not start or go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepairError {
    /// A live broker (or another repair) holds the log dir.
    #[error(
        "{0}: a live process, {1}, holds this log dir's .lock (a running broker, or another logtool repair); nothing was done"
    )]
    Locked(PathBuf, Holder),
    /// The quarantine would be inside the log dir.
    #[error(
        "the quarantine {0} is inside the log dir {1}: Kafka refuses to start on a log dir holding other directories"
    )]
    QuarantineInsideLogDir(PathBuf, PathBuf),
    /// The log dir's own filesystem has no place for the journal outside
    /// the log dir (the log dir is a mount point).
    #[error(
        "{0} is not on the log dir's filesystem (the log dir is a mount point?): a repair is journaled on the log dir's filesystem outside it, where files move by rename; nothing was done"
    )]
    OtherFilesystem(PathBuf),
    /// A done repair could not be moved to the quarantine on another
    /// filesystem; it stays beside the log dir.
    #[error(
        "the repair {id} is complete, but moving its quarantine to {to} failed ({error}): it stays at {kept}, on the log dir's filesystem (`logtool quarantine` lists it there; `logtool undo` reverts it from there)",
        to = .to.display(),
        kept = .kept.display()
    )]
    NotMoved {
        /// The repair.
        id: String,
        /// Where it stays.
        kept: PathBuf,
        /// The quarantine it was to move to.
        to: PathBuf,
        /// What failed.
        error: Box<RepairError>,
    },
    /// A file changed since the repair was planned.
    #[error("{0} changed since the repair was planned ({1}); nothing more was done")]
    Changed(PathBuf, String),
    /// A file to change is not inside the log dir.
    #[error("{0} is not inside the log dir {1}")]
    Outside(PathBuf, PathBuf),
    /// No repair to undo.
    #[error("no repair of {0} to undo in {1}")]
    NothingToUndo(PathBuf, PathBuf),
    /// No repair of that id.
    #[error("no repair {0} in {1}")]
    NoSuchRepair(String, PathBuf),
    /// The repair named is not applied (undone already, or never committed).
    #[error("repair {0} is {1}: nothing of it to undo")]
    NotApplied(String, &'static str),
    /// A manifest that cannot be read.
    #[error("{0}: unreadable repair manifest: {1}")]
    BadManifest(PathBuf, String),
    /// An earlier repair of the log dir stopped part way (its process died
    /// during its commit, or its undo): nothing is done until it is undone
    /// or finished.
    #[error("{0}: {1}; nothing was done")]
    Unfinished(PathBuf, String),
    /// A step failed; every step already applied was reverted.
    #[error(
        "{error}; nothing was changed: the {applied} step(s) of repair {id} already applied were reverted, the log dir {log_dir} is as before the repair",
        log_dir = .log_dir.display()
    )]
    RolledBack {
        /// The log dir.
        log_dir: PathBuf,
        /// The repair.
        id: String,
        /// Steps applied before the failure (and reverted).
        applied: usize,
        /// What failed.
        error: Box<RepairError>,
    },
    /// A step failed and reverting the steps already applied failed too.
    #[error("{error}; reverting the steps already applied failed too ({revert}): {advice}")]
    Partial {
        /// What failed.
        error: Box<RepairError>,
        /// What failed while reverting.
        revert: Box<RepairError>,
        /// What to run (`logfmt::journal::unfinished_advice`).
        advice: String,
    },
    /// An undo stopped part way.
    #[error("{0}: {1}")]
    UndoStopped(Box<RepairError>, String),
    /// Every step is applied, but the journal could not say so.
    #[error(
        "{error}: the repair {id} is complete (every change is in place in {log_dir}), but its journal could not be marked done: `verify` will report it unfinished until `logtool undo` (which still restores the old files) or a re-run of the same repair marks it",
        log_dir = .log_dir.display()
    )]
    CompleteUnrecorded {
        /// The log dir.
        log_dir: PathBuf,
        /// The repair.
        id: String,
        /// What failed.
        error: Box<RepairError>,
    },
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] Error),
}

fn io(e: std::io::Error, path: &Path) -> Error {
    Error::io(e, Some(path))
}

/// Test hooks at each crash point of a repair, or of `logtool fixture`
/// (counting from 1):
///
/// * `LOGTOOL_TEST_KILL_AT=N`: the process kills itself with SIGKILL at point
///   N, to test that every point leaves a recoverable state;
/// * `LOGTOOL_TEST_PAUSE_AT=N` with `LOGTOOL_TEST_PAUSE_DIR=DIR`: at point N
///   it creates `DIR/paused` and waits until `DIR/resume` exists, to test
///   what others see while a repair is under way;
/// * `LOGTOOL_TEST_FAIL_AT=N`: at point N of a repair's commit (or undo) an
///   I/O error is injected, as a full disk or a read-only file system would
///   give there ([`fail_point`]), to test that every error leaves the dir as
///   before or completely repaired.
pub fn crash_point() {
    point();
}

/// The number of this point, counted from 1 (0 when no test hook is set).
fn point() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let point = |var: &str| std::env::var(var).ok().and_then(|v| v.parse::<u64>().ok());
    let (kill, pause, fail) =
        (point("LOGTOOL_TEST_KILL_AT"), point("LOGTOOL_TEST_PAUSE_AT"), point("LOGTOOL_TEST_FAIL_AT"));
    if kill.is_none() && pause.is_none() && fail.is_none() {
        return 0;
    }
    let n = COUNT.fetch_add(1, Ordering::SeqCst).saturating_add(1);
    if kill == Some(n) {
        let pid = std::process::id().to_string();
        let _ = std::process::Command::new("kill").args(["-KILL", &pid]).status();
        std::process::abort();
    }
    if pause == Some(n)
        && let Some(dir) = std::env::var_os("LOGTOOL_TEST_PAUSE_DIR").map(PathBuf::from)
    {
        let _ = File::create(dir.join("paused"));
        while !dir.join("resume").exists() {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    n
}

/// A crash point where an I/O error can be injected (`LOGTOOL_TEST_FAIL_AT`,
/// see [`crash_point`]); the error names `path`.
pub fn fail_point(path: &Path) -> Result<()> {
    let n = point();
    let fail = std::env::var("LOGTOOL_TEST_FAIL_AT").ok().and_then(|v| v.parse::<u64>().ok());
    if n != 0 && fail == Some(n) {
        let e = std::io::Error::other(format!("injected fault at crash point {n} (LOGTOOL_TEST_FAIL_AT)"));
        return Err(io(e, path));
    }
    Ok(())
}

/// A file's modification time in ns since the epoch.
fn modified_ns(path: &Path) -> Option<u64> {
    let t = fs::metadata(path).ok()?.modified().ok()?;
    u64::try_from(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos()).ok()
}

/// Give `path` back its modification time.
fn set_modified(path: &Path, ns: Option<u64>) -> Result<()> {
    let Some(ns) = ns else { return Ok(()) };
    let Some(t) = std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_nanos(ns)) else { return Ok(()) };
    let f = OpenOptions::new().write(true).open(path).map_err(|e| io(e, path))?;
    f.set_modified(t).map_err(|e| io(e, path))
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// A repair being staged or committed. It holds the log dir's `.lock` until
/// it is dropped.
#[derive(Debug)]
pub struct Repair {
    log_dir: PathBuf,
    dir: PathBuf,
    manifest: Manifest,
    /// A quarantine on another filesystem the repair moves to once done
    /// (journaled meanwhile in the default one, on the log dir's).
    move_to: Option<PathBuf>,
    _lock: std::sync::Arc<DirLock>,
    /// The changes staged, for output.
    pub changes: Vec<Change>,
    /// Notes from the planner.
    pub notes: Vec<Note>,
    /// Unfinished repairs found and rolled forward when this one began.
    pub rolled_forward: Vec<String>,
}

fn save(dir: &Path, m: &Manifest) -> std::result::Result<(), RepairError> {
    save_as(dir, m, "manifest.json")
}

/// The manifest as it will say `done`, prepared before the commit.
const DONE_MANIFEST: &str = "manifest.done.json";

fn save_as(dir: &Path, m: &Manifest, name: &str) -> std::result::Result<(), RepairError> {
    let text = serde_json::to_vec_pretty(m).map_err(|e| RepairError::BadManifest(dir.to_path_buf(), e.to_string()))?;
    write_atomic(&dir.join(name), &text)?;
    Ok(())
}

/// Mark `m` done: rename the `done` manifest prepared before the commit over
/// `manifest.json` (no free space needed), or, for a journal that has none
/// (one an older logtool began), write it.
fn mark_done(dir: &Path, m: &Manifest) -> std::result::Result<(), RepairError> {
    let prepared = dir.join(DONE_MANIFEST);
    if !prepared.is_file() {
        return save(dir, m);
    }
    let manifest = dir.join("manifest.json");
    fs::rename(&prepared, &manifest).map_err(|e| io(e, &manifest))?;
    fsync_dir(dir)?;
    Ok(())
}

/// Every repair recorded in `quarantine` for `log_dir`, oldest first.
pub fn repairs(quarantine: &Path, log_dir: &Path) -> std::result::Result<Vec<(PathBuf, Manifest)>, RepairError> {
    Ok(logfmt::journal::repairs(quarantine, log_dir)?)
}

impl From<JournalError> for RepairError {
    fn from(e: JournalError) -> RepairError {
        match e {
            JournalError::BadManifest(p, why) => RepairError::BadManifest(p, why),
            JournalError::Io(e) => RepairError::Io(e),
            other => RepairError::BadManifest(PathBuf::new(), other.to_string()),
        }
    }
}

/// The absolute, symlink-free form of a path that may not exist yet: its
/// nearest existing ancestor canonicalised, with the rest appended.
fn resolve_nonexistent(path: &Path) -> Result<PathBuf> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_err(|e| io(e, path))?.join(path)
    };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(p), Some(n)) => {
                rest.push(n.to_os_string());
                existing = p;
            }
            _ => break,
        }
    }
    let mut out = fs::canonicalize(existing).map_err(|e| io(e, existing))?;
    for n in rest.iter().rev() {
        out.push(n);
    }
    Ok(out)
}

/// Take the log dir's `.lock` (see the module docs).
fn lock(log_dir: &Path) -> std::result::Result<DirLock, RepairError> {
    DirLock::acquire(log_dir).map_err(|e| match e {
        LockError::Held(h) => RepairError::Locked(log_dir.to_path_buf(), h),
        LockError::Io(e) => RepairError::Io(io(e, &log_dir.join(logfmt::spec::names::LOCK))),
    })
}

#[cfg(unix)]
fn same_filesystem(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_filesystem(_a: &Path, _b: &Path) -> bool {
    true
}

/// Whether `quarantine` (which may not exist yet: its nearest existing
/// ancestor counts) is on another filesystem than `log_dir`, so that a
/// repair's kept bytes leave the log dir's filesystem once it is done.
pub fn other_filesystem(quarantine: &Path, log_dir: &Path) -> bool {
    let mut q = quarantine;
    while !q.exists() {
        match q.parent() {
            Some(p) if !p.as_os_str().is_empty() => q = p,
            _ => return false,
        }
    }
    !same_filesystem(q, log_dir)
}

impl Repair {
    /// Start a repair of `log_dir` by `command`, journaled in `quarantine`:
    /// take the log dir's `.lock` (refused when a live broker or another
    /// repair holds it), then look at earlier repairs of the same log dir
    /// (in `quarantine` and in the default one): one that stopped part way
    /// through its commit is finished (rolled forward) when it was made by
    /// the same command, and refuses this one otherwise, as does one whose
    /// undo stopped part way ([`RepairError::Unfinished`], naming the fix).
    pub fn begin(log_dir: &Path, quarantine: &Path, command: &str) -> std::result::Result<Repair, RepairError> {
        let log_dir = fs::canonicalize(log_dir).map_err(|e| io(e, log_dir))?;
        let dir_lock = std::sync::Arc::new(lock(&log_dir)?);
        Self::begin_locked(dir_lock, &log_dir, quarantine, command)
    }

    /// [`Repair::begin`] under a lock the caller already holds on `log_dir`
    /// (the broker's, held from before it looks at the dir until it stops:
    /// a second lock in one process would be released with the first's file).
    pub fn begin_locked(
        dir_lock: std::sync::Arc<DirLock>,
        log_dir: &Path,
        quarantine: &Path,
        command: &str,
    ) -> std::result::Result<Repair, RepairError> {
        let log_dir = fs::canonicalize(log_dir).map_err(|e| io(e, log_dir))?;
        // check where the quarantine would be before creating anything
        let resolved = resolve_nonexistent(quarantine)?;
        if resolved.starts_with(&log_dir) {
            return Err(RepairError::QuarantineInsideLogDir(resolved, log_dir));
        }
        let default = default_quarantine(&log_dir);
        let mut earlier = repairs(&default, &log_dir)?;
        if resolve_nonexistent(&default)? != resolved {
            earlier.extend(repairs(&resolved, &log_dir)?);
        }
        for (_, m) in &earlier {
            if m.state == State::Undoing || (m.state == State::Committing && m.command != command) {
                let advice = logfmt::journal::unfinished_advice(&log_dir, m);
                return Err(RepairError::Unfinished(log_dir, advice));
            }
        }
        fs::create_dir_all(quarantine).map_err(|e| io(e, quarantine))?;
        let mut quarantine = fs::canonicalize(quarantine).map_err(|e| io(e, quarantine))?;
        let mut move_to = None;
        if !same_filesystem(&quarantine, &log_dir) {
            // another filesystem: journaled beside the log dir (moves are
            // renames there), moved over once done
            discard_if_empty(&quarantine);
            let beside = default_quarantine(&log_dir);
            fs::create_dir_all(&beside).map_err(|e| io(e, &beside))?;
            if !same_filesystem(&beside, &log_dir) {
                // (the log dir is a mount point: nowhere on its filesystem
                // outside it)
                discard_if_empty(&beside);
                return Err(RepairError::OtherFilesystem(beside));
            }
            move_to = Some(quarantine);
            quarantine = beside;
        }
        let mut rolled_forward = Vec::new();
        for (dir, m) in earlier {
            match m.state {
                State::Committing => {
                    commit_steps(&log_dir, &dir, m.clone())?;
                    rolled_forward.push(m.id);
                }
                State::Staging => {
                    // staging never touched the log dir
                    discard(&dir)?;
                }
                _ => {}
            }
        }
        let created_ms = now_ms();
        let id = format!("{created_ms:013}-{}-{}", command.replace(' ', "-"), std::process::id());
        let dir = quarantine.join(&id);
        let manifest = Manifest {
            version: MANIFEST_VERSION,
            id,
            command: command.to_string(),
            log_dir: log_dir.clone(),
            created_ms,
            state: State::Staging,
            steps: Vec::new(),
        };
        let made = fs::create_dir_all(&dir)
            .map_err(|e| RepairError::from(io(e, &dir)))
            .and_then(|()| save(&dir, &manifest))
            .and_then(|()| Ok(fsync_dir(&quarantine)?));
        if let Err(e) = made {
            // nothing of this repair stays behind (a full disk)
            let _ = fs::remove_dir_all(&dir);
            discard_if_empty(&quarantine);
            return Err(e);
        }
        Ok(Repair {
            log_dir,
            dir,
            manifest,
            move_to,
            _lock: dir_lock,
            changes: Vec::new(),
            notes: Vec::new(),
            rolled_forward,
        })
    }

    /// The repair's id.
    pub fn id(&self) -> &str {
        &self.manifest.id
    }

    /// The repair's directory in the quarantine.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the repair's directory is once committed: in the quarantine
    /// on another filesystem it moves to, else where it is now.
    pub fn final_dir(&self) -> PathBuf {
        match &self.move_to {
            Some(q) => q.join(&self.manifest.id),
            None => self.dir.clone(),
        }
    }

    /// Whether the quarantine is on another filesystem than the log dir (a
    /// done repair's kept bytes leave the log dir's filesystem).
    pub fn elsewhere(&self) -> bool {
        self.move_to.is_some()
    }

    fn rel(&self, file: &Path) -> std::result::Result<String, RepairError> {
        let abs = if file.is_absolute() {
            file.to_path_buf()
        } else {
            std::env::current_dir().map_err(|e| io(e, file))?.join(file)
        };
        let parent = abs.parent().and_then(|p| fs::canonicalize(p).ok()).unwrap_or_default();
        let full = parent.join(abs.file_name().unwrap_or_default());
        full.strip_prefix(&self.log_dir)
            .map(|r| r.to_string_lossy().into_owned())
            .map_err(|_| RepairError::Outside(file.to_path_buf(), self.log_dir.clone()))
    }

    fn stage(&mut self, step: Step, change: Change) -> Result<()> {
        let file = self.log_dir.join(step.file());
        self.manifest.steps.push(step);
        self.changes.push(change);
        fail_point(&file)
    }

    /// Apply every staged step (under the lock taken by [`Repair::begin`]).
    /// Returns the finished manifest.
    /// On an error before the last step is in place, every step already
    /// applied is reverted and the repair's directory removed
    /// ([`RepairError::RolledBack`]); where reverting fails too, the journal
    /// stays `committing` or `undoing` ([`RepairError::Partial`]).
    ///
    /// With a quarantine on another filesystem, the done repair is then
    /// copied there and removed from beside the log dir ([`relocate`]); a
    /// copy that fails leaves it beside the log dir, done
    /// ([`RepairError::NotMoved`]).
    pub fn commit(self) -> std::result::Result<Manifest, RepairError> {
        let m = commit_with(&self.log_dir, &self.dir, self.manifest, true)?;
        if let Some(to) = &self.move_to {
            relocate(&self.dir, to).map_err(|error| RepairError::NotMoved {
                id: m.id.clone(),
                kept: self.dir.clone(),
                to: to.clone(),
                error: Box::new(error),
            })?;
        }
        Ok(m)
    }

    /// Give up before committing: the log dir was never touched.
    /// Its directory in the quarantine goes (it holds only copies), and the
    /// quarantine too when nothing else is in it.
    pub fn abandon(mut self) -> std::result::Result<(), RepairError> {
        if discard(&self.dir).is_err() {
            // what could not be removed is marked, and goes with the next repair
            self.manifest.state = State::Abandoned;
            save(&self.dir, &self.manifest)?;
        }
        Ok(())
    }
}

/// Whether a repair in `state` may be purged (its kept bytes deleted for
/// good): done, undone, abandoned, or staged by a process that died (the
/// log dir was never touched). One that stopped part way through its commit
/// or its undo may not: its journal is what finishes or reverts it.
pub fn purgeable(state: State) -> bool {
    !state.unfinished()
}

/// The disk space a repair's directory in the quarantine takes: what its
/// files and directories have allocated (as `du` counts it; apparent sizes
/// where the platform has no block counts), a tree at most
/// [`PURGE_DEPTH`] deep.
pub fn kept_bytes(dir: &Path) -> u64 {
    let mut total = fs::symlink_metadata(dir).map_or(0, |m| allocated(&m));
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let Ok(m) = fs::symlink_metadata(e.path()) else { continue };
            total = total.saturating_add(allocated(&m));
            if m.is_dir() && depth < PURGE_DEPTH {
                stack.push((e.path(), depth.saturating_add(1)));
            }
        }
    }
    total
}

/// The bytes a file has allocated on disk.
pub fn allocated(m: &fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        m.blocks().saturating_mul(512)
    }
    #[cfg(not(unix))]
    {
        m.len()
    }
}

/// How deep [`kept_bytes`] looks (a repair keeps `files/<partition>/<file>`).
const PURGE_DEPTH: usize = 16;

/// The name a repair's directory takes while it is deleted: a crash part
/// way leaves no half repair that `undo` would try (listings skip names
/// starting with `.`), and the next purge finishes it.
const PURGING: &str = ".purging-";

/// Delete the repairs `ids` of `log_dir` from `quarantine` for good (no
/// undo after), holding the log dir's `.lock` (refused while a broker or
/// another repair holds it). Every id must name a purgeable repair of this
/// log dir, else nothing is deleted. Returns the bytes freed.
pub fn purge(quarantine: &Path, log_dir: &Path, ids: &[String]) -> std::result::Result<u64, RepairError> {
    let log_dir_abs = fs::canonicalize(log_dir).map_err(|e| io(e, log_dir))?;
    let _lock = lock(&log_dir_abs)?;
    purge_locked(quarantine, &log_dir_abs, ids)
}

/// [`purge`] by a caller that holds the log dir's `.lock` (the broker).
pub fn purge_locked(quarantine: &Path, log_dir: &Path, ids: &[String]) -> std::result::Result<u64, RepairError> {
    let all = repairs(quarantine, log_dir)?;
    let mut chosen = Vec::new();
    for id in ids {
        match all.iter().find(|(_, m)| m.id == *id) {
            Some((dir, m)) if purgeable(m.state) => chosen.push(dir.clone()),
            Some((_, m)) => {
                return Err(RepairError::Unfinished(
                    log_dir.to_path_buf(),
                    logfmt::journal::unfinished_advice(log_dir, m),
                ));
            }
            None => return Err(RepairError::NoSuchRepair(id.clone(), quarantine.to_path_buf())),
        }
    }
    let mut freed = 0u64;
    for dir in chosen {
        freed = freed.saturating_add(kept_bytes(&dir));
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let doomed = quarantine.join(format!("{PURGING}{name}"));
        fs::rename(&dir, &doomed).map_err(|e| io(e, &dir))?;
        fsync_dir(quarantine)?;
        fs::remove_dir_all(&doomed).map_err(|e| io(e, &doomed))?;
    }
    // what an earlier purge that died left
    if let Ok(rd) = fs::read_dir(quarantine) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(PURGING) || name.starts_with(MOVING) {
                freed = freed.saturating_add(kept_bytes(&e.path()));
                fs::remove_dir_all(e.path()).map_err(|err| io(err, &e.path()))?;
            }
        }
    }
    fsync_dir(quarantine)?;
    discard_if_empty(quarantine);
    Ok(freed)
}

/// The name a repair is copied under while it moves to a quarantine on
/// another filesystem (`.moving-<id>`; skipped by every reader).
const MOVING: &str = ".moving-";

/// Move a done repair's directory `dir` into `to`, a quarantine on another
/// filesystem: copied under `.moving-<id>` (each file fsynced, with its
/// modification time), renamed to `<id>`, then removed from where it was
/// (renamed `.purging-<id>` first). A crash before the rename leaves the
/// repair where it was (and a leftover `.moving-` the next move or purge
/// removes); after it, both places hold the whole repair until the old one
/// is gone.
fn relocate(dir: &Path, to: &Path) -> std::result::Result<(), RepairError> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let moving = to.join(format!("{MOVING}{name}"));
    let copied = (|| -> std::result::Result<(), RepairError> {
        if moving.exists() {
            fs::remove_dir_all(&moving).map_err(|e| io(e, &moving))?;
        }
        copy_tree(dir, &moving)?;
        sync_tree(&moving)?;
        fail_point(&moving)?;
        Ok(())
    })();
    if let Err(e) = copied {
        // (a full disk there: nothing of the copy stays)
        let _ = fs::remove_dir_all(&moving);
        discard_if_empty(to);
        return Err(e);
    }
    let target = to.join(&name);
    fs::rename(&moving, &target).map_err(|e| io(e, &moving))?;
    fsync_dir(to)?;
    // (the quarantine itself may be new: its entry too)
    if let Some(parent) = to.parent() {
        fsync_dir(parent)?;
    }
    let from = dir.parent().unwrap_or(Path::new("/"));
    let doomed = from.join(format!("{PURGING}{name}"));
    fs::rename(dir, &doomed).map_err(|e| io(e, dir))?;
    fsync_dir(from)?;
    fs::remove_dir_all(&doomed).map_err(|e| io(e, &doomed))?;
    discard_if_empty(from);
    Ok(())
}

/// Copy the tree `from` to `to` (a new directory), file by file with
/// their modification times (Kafka's time-based retention reads them once
/// `undo` puts them back), each file fsynced.
fn copy_tree(from: &Path, to: &Path) -> std::result::Result<(), RepairError> {
    fs::create_dir_all(to).map_err(|e| io(e, to))?;
    for e in fs::read_dir(from).map_err(|e| io(e, from))? {
        let e = e.map_err(|e| io(e, from))?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().map_err(|err| io(err, &src))?.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            copy_file(&src, &dst)?;
        }
    }
    Ok(())
}

/// Copy one file with its modification time, fsynced.
fn copy_file(src: &Path, dst: &Path) -> std::result::Result<(), RepairError> {
    fs::copy(src, dst).map_err(|e| io(e, dst))?;
    let f = OpenOptions::new().write(true).open(dst).map_err(|e| io(e, dst))?;
    if let Ok(t) = fs::metadata(src).and_then(|m| m.modified()) {
        f.set_modified(t).map_err(|e| io(e, dst))?;
    }
    f.sync_all().map_err(|e| io(e, dst))?;
    Ok(())
}

/// Rename `from` to `to`; where they are on two filesystems (a repair in a
/// quarantine on another), copy to `to`'s temporary name with the
/// modification time, fsync, rename over `to`, fsync its directory, then
/// remove `from`. Either way `to` appears whole or not at all, and `from`
/// goes only once `to` is durable.
fn move_file(from: &Path, to: &Path) -> std::result::Result<(), RepairError> {
    match fs::rename(from, to) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices => {
            let temp = crate::write::file::temp_path(to);
            ensure_parent(to)?;
            copy_file(from, &temp)?;
            fs::rename(&temp, to).map_err(|e| io(e, &temp))?;
            fsync_dir(to.parent().unwrap_or(Path::new("/")))?;
            fs::remove_file(from).map_err(|e| io(e, from))?;
            Ok(())
        }
        Err(e) => Err(io(e, from).into()),
    }
}

/// Remove an abandoned repair's directory (staged copies only), and the
/// quarantine when it is left empty.
fn discard(dir: &Path) -> std::result::Result<(), RepairError> {
    fs::remove_dir_all(dir).map_err(|e| io(e, dir))?;
    if let Some(q) = dir.parent() {
        discard_if_empty(q);
    }
    Ok(())
}

/// Remove the quarantine when nothing is in it.
fn discard_if_empty(quarantine: &Path) {
    if fs::read_dir(quarantine).is_ok_and(|mut r| r.next().is_none()) {
        let _ = fs::remove_dir(quarantine);
    }
}

fn to_repair_error(e: RepairError) -> Error {
    match e {
        RepairError::Io(e) => e,
        other => Error::malformed(0, "repair", other.to_string()),
    }
}

impl Changes for Repair {
    fn remove(&mut self, file: &Path, why: &str) -> Result<()> {
        let rel = self.rel(file).map_err(to_repair_error)?;
        let size = fs::metadata(file).map_err(|e| io(e, file))?.len();
        let change = describe((Op::Remove, file), None, why);
        self.stage(Step::Remove { file: rel, size }, change)
    }

    fn truncate(&mut self, file: &Path, len: u64, why: &str) -> Result<()> {
        let rel = self.rel(file).map_err(to_repair_error)?;
        let mut f = File::open(file).map_err(|e| io(e, file))?;
        let size = f.metadata().map_err(|e| io(e, file))?.len();
        let tail = self.dir.join("tails").join(&rel);
        fs::create_dir_all(tail.parent().unwrap_or(&self.dir)).map_err(|e| io(e, &tail))?;
        {
            // copy the bytes to be cut, streaming
            f.seek(SeekFrom::Start(len)).map_err(|e| io(e, file))?;
            let mut out = File::create(&tail).map_err(|e| io(e, &tail))?;
            std::io::copy(&mut f.take(size.saturating_sub(len)), &mut out).map_err(|e| io(e, &tail))?;
            out.sync_all().map_err(|e| io(e, &tail))?;
        }
        let change = describe((Op::Truncate, file), Some(len), why);
        self.stage(Step::Truncate { file: rel, from_size: size, to_size: len, modified_ns: modified_ns(file) }, change)
    }

    fn write(&mut self, file: &Path, content: &[u8], why: &str) -> Result<()> {
        let rel = self.rel(file).map_err(to_repair_error)?;
        let old_size = fs::metadata(file).ok().map(|m| m.len());
        let staged = self.dir.join("new").join(&rel);
        fs::create_dir_all(staged.parent().unwrap_or(&self.dir)).map_err(|e| io(e, &staged))?;
        {
            let mut f = File::create(&staged).map_err(|e| io(e, &staged))?;
            f.write_all(content).map_err(|e| io(e, &staged))?;
            f.sync_all().map_err(|e| io(e, &staged))?;
        }
        let op = if old_size.is_some() { Op::Replace } else { Op::Create };
        let change = describe((op, file), Some(content.len() as u64), why);
        let step = Step::Write { file: rel, old_size, new_size: content.len() as u64, modified_ns: modified_ns(file) };
        self.stage(step, change)
    }

    fn write_with(
        &mut self,
        file: &Path,
        modified_ms: Option<i64>,
        why: &str,
        fill: &mut dyn FnMut(&mut dyn Write) -> Result<()>,
    ) -> Result<u64> {
        let rel = self.rel(file).map_err(to_repair_error)?;
        let old_size = fs::metadata(file).ok().map(|m| m.len());
        let staged = self.dir.join("new").join(&rel);
        fs::create_dir_all(staged.parent().unwrap_or(&self.dir)).map_err(|e| io(e, &staged))?;
        let new_size = {
            let f = File::create(&staged).map_err(|e| io(e, &staged))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            fill(&mut w)?;
            let f = w.into_inner().map_err(|e| io(e.into_error(), &staged))?;
            if let Some(ms) = modified_ms.and_then(|ms| u64::try_from(ms).ok()) {
                let t = std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_millis(ms));
                if let Some(t) = t {
                    f.set_modified(t).map_err(|e| io(e, &staged))?;
                }
            }
            f.sync_all().map_err(|e| io(e, &staged))?;
            f.metadata().map_err(|e| io(e, &staged))?.len()
        };
        let op = if old_size.is_some() { Op::Replace } else { Op::Create };
        let change = describe((op, file), Some(new_size), why);
        let step = Step::Write { file: rel, old_size, new_size, modified_ns: modified_ns(file) };
        self.stage(step, change)?;
        Ok(new_size)
    }

    fn rename(&mut self, from: &Path, to: &Path, why: &str) -> Result<()> {
        let from_rel = self.rel(from).map_err(to_repair_error)?;
        let to_rel = self.rel(to).map_err(to_repair_error)?;
        let mut change = describe((Op::Rename, to), None, why);
        change.size_before = None;
        change.why = format!("{why} (from {})", from.file_name().unwrap_or_default().to_string_lossy());
        let replaces = to.exists();
        self.stage(Step::Rename { from: from_rel, to: to_rel, replaces }, change)
    }

    fn note(&mut self, note: Note) {
        self.notes.push(note);
    }

    fn executing(&self) -> bool {
        true
    }
}

fn size(path: &Path) -> Option<u64> {
    fs::symlink_metadata(path).ok().map(|m| m.len())
}

/// Apply the steps of `m` (idempotently: steps already done are skipped),
/// a journal of a process that died rolled forward.
fn commit_steps(log_dir: &Path, dir: &Path, m: Manifest) -> std::result::Result<Manifest, RepairError> {
    commit_with(log_dir, dir, m, false)
}

/// Apply the steps of `m`; on an error before the journal says `done`,
/// revert what was applied (then remove the repair's directory when
/// `discard_reverted`: it holds only copies once every original is back).
fn commit_with(
    log_dir: &Path,
    dir: &Path,
    mut m: Manifest,
    discard_reverted: bool,
) -> std::result::Result<Manifest, RepairError> {
    let applied = std::cell::Cell::new(0usize);
    let run = |m: &mut Manifest| -> std::result::Result<(), RepairError> {
        if m.state == State::Staging {
            // every staged file was fsynced as it was written; make their
            // directory entries durable before the first change
            for sub in ["new", "tails"] {
                sync_tree(&dir.join(sub))?;
            }
            // the last word written now, while nothing has changed
            // (no crash point of its own: a kill here is one at the end of
            // staging, the journal still `staging`)
            let done = Manifest { state: State::Done, ..m.clone() };
            save_as(dir, &done, DONE_MANIFEST)?;
        }
        m.state = State::Committing;
        save(dir, m)?;
        fail_point(&dir.join("manifest.json"))?;
        let mut touched = Vec::new();
        for step in &m.steps {
            // counted before it is tried: a step that failed may be half done
            applied.set(applied.get().saturating_add(1));
            apply(log_dir, dir, step)?;
            let live = log_dir.join(step.file());
            touched.push(live.parent().map(Path::to_path_buf).unwrap_or_default());
            fail_point(&live)?;
        }
        fsync_dirs(touched)?;
        sync_tree(&dir.join("files"))?;
        Ok(())
    };
    if let Err(error) = run(&mut m) {
        return Err(roll_back(log_dir, dir, &mut m, applied.get(), error, discard_reverted));
    }
    m.state = State::Done;
    let marked = fail_point(&dir.join("manifest.json")).map_err(RepairError::from).and_then(|()| mark_done(dir, &m));
    if let Err(error) = marked {
        return Err(RepairError::CompleteUnrecorded {
            log_dir: log_dir.to_path_buf(),
            id: m.id.clone(),
            error: Box::new(error),
        });
    }
    Ok(m)
}

/// Revert the first `applied` steps of `m` after `error`, newest first.
fn roll_back(
    log_dir: &Path,
    dir: &Path,
    m: &mut Manifest,
    applied: usize,
    error: RepairError,
    discard_reverted: bool,
) -> RepairError {
    m.state = State::Undoing;
    // best effort: a journal left `committing` is as unfinished to every
    // reader as one `undoing`
    let _ = save(dir, m);
    let _ = fs::remove_file(dir.join(DONE_MANIFEST));
    let revert_all = || -> std::result::Result<(), RepairError> {
        let mut touched = Vec::new();
        for step in m.steps.iter().take(applied).rev() {
            revert(log_dir, dir, step)?;
            touched.push(log_dir.join(step.file()).parent().map(Path::to_path_buf).unwrap_or_default());
        }
        fsync_dirs(touched)?;
        Ok(())
    };
    if let Err(revert) = revert_all() {
        return RepairError::Partial {
            error: Box::new(error),
            revert: Box::new(revert),
            advice: logfmt::journal::unfinished_advice(log_dir, m),
        };
    }
    m.state = State::Undone;
    if !discard_reverted || discard(dir).is_err() {
        let _ = save(dir, m);
    }
    RepairError::RolledBack { log_dir: log_dir.to_path_buf(), id: m.id.clone(), applied, error: Box::new(error) }
}

/// fsync each of `dirs` once (the directories steps changed entries of).
fn fsync_dirs(mut dirs: Vec<PathBuf>) -> Result<()> {
    dirs.sort();
    dirs.dedup();
    for d in dirs {
        fsync_dir(&d)?;
    }
    Ok(())
}

/// fsync every directory of a tree (files were fsynced when written).
fn sync_tree(root: &Path) -> Result<()> {
    if !root.is_dir() {
        return Ok(());
    }
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).map_err(|e| io(e, &d))?.flatten() {
            if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                stack.push(e.path());
            }
        }
        fsync_dir(&d)?;
    }
    Ok(())
}

fn ensure_parent(path: &Path) -> Result<()> {
    match path.parent() {
        Some(p) => fs::create_dir_all(p).map_err(|e| io(e, p)),
        None => Ok(()),
    }
}

fn apply(log_dir: &Path, dir: &Path, step: &Step) -> std::result::Result<(), RepairError> {
    match step {
        Step::Remove { file, size: expected } => {
            let live = log_dir.join(file);
            let kept = dir.join("files").join(file);
            match (size(&live), kept.exists()) {
                // done (a later step may have put a new file under the name)
                (_, true) => Ok(()),
                (Some(s), false) if s == *expected => {
                    ensure_parent(&kept)?;
                    fs::rename(&live, &kept).map_err(|e| io(e, &live))?;
                    Ok(())
                }
                (found, _) => Err(RepairError::Changed(live, format!("expected {expected} bytes, found {found:?}"))),
            }
        }
        Step::Truncate { file, from_size, to_size, .. } => {
            let live = log_dir.join(file);
            match size(&live) {
                Some(s) if s == *to_size => Ok(()),
                Some(s) if s == *from_size => {
                    let f = OpenOptions::new().write(true).open(&live).map_err(|e| io(e, &live))?;
                    f.set_len(*to_size).map_err(|e| io(e, &live))?;
                    f.sync_all().map_err(|e| io(e, &live))?;
                    Ok(())
                }
                found => Err(RepairError::Changed(live, format!("expected {from_size} bytes, found {found:?}"))),
            }
        }
        Step::Write { file, old_size, .. } => {
            let live = log_dir.join(file);
            let staged = dir.join("new").join(file);
            let kept = dir.join("files").join(file);
            if !staged.exists() {
                return Ok(()); // done: the staged file was renamed into place
            }
            if old_size.is_some() && !kept.exists() {
                if size(&live) != *old_size {
                    return Err(RepairError::Changed(live, format!("expected {old_size:?} bytes")));
                }
                ensure_parent(&kept)?;
                // keep the original under a second name; copy if links are refused
                if fs::hard_link(&live, &kept).is_err() {
                    fs::copy(&live, &kept).map_err(|e| io(e, &live))?;
                    File::open(&kept).and_then(|f| f.sync_all()).map_err(|e| io(e, &kept))?;
                }
            }
            ensure_parent(&live)?;
            fs::rename(&staged, &live).map_err(|e| io(e, &live))?;
            Ok(())
        }
        Step::Rename { from, to, .. } => {
            let (src, dst) = (log_dir.join(from), log_dir.join(to));
            match (src.exists(), dst.exists()) {
                (false, true) => Ok(()), // done
                (true, false) => fs::rename(&src, &dst).map_err(|e| RepairError::Io(io(e, &src))),
                (s, d) => {
                    Err(RepairError::Changed(dst, format!("rename from {from}: source exists {s}, target exists {d}")))
                }
            }
        }
    }
}

/// Revert one step (idempotently).
fn revert(log_dir: &Path, dir: &Path, step: &Step) -> std::result::Result<(), RepairError> {
    match step {
        Step::Remove { file, .. } => {
            let live = log_dir.join(file);
            let kept = dir.join("files").join(file);
            if kept.exists() && !live.exists() {
                ensure_parent(&live)?;
                move_file(&kept, &live)?;
            }
            Ok(())
        }
        Step::Truncate { file, from_size, to_size, modified_ns } => {
            let live = log_dir.join(file);
            let tail = dir.join("tails").join(file);
            match size(&live) {
                // never cut, or put back whole: its time back where it differs
                // (a file never cut is left alone: it may be read-only)
                Some(s) if s == *from_size => {
                    if modified_ns.is_some() && self::modified_ns(&live) != *modified_ns {
                        set_modified(&live, *modified_ns)?;
                    }
                    Ok(())
                }
                Some(s) if s >= *to_size && s < *from_size => {
                    // put the cut bytes back (after a partial append, start over)
                    let mut f = OpenOptions::new().write(true).open(&live).map_err(|e| io(e, &live))?;
                    f.set_len(*to_size).map_err(|e| io(e, &live))?;
                    crash_point();
                    f.seek(SeekFrom::Start(*to_size)).map_err(|e| io(e, &live))?;
                    let mut t = File::open(&tail).map_err(|e| io(e, &tail))?;
                    std::io::copy(&mut t, &mut f).map_err(|e| io(e, &live))?;
                    f.sync_all().map_err(|e| io(e, &live))?;
                    drop(f);
                    set_modified(&live, *modified_ns)?;
                    Ok(())
                }
                found => Err(RepairError::Changed(live, format!("expected {to_size} bytes, found {found:?}"))),
            }
        }
        Step::Write { file, old_size, modified_ns, .. } => {
            let live = log_dir.join(file);
            let staged = dir.join("new").join(file);
            let kept = dir.join("files").join(file);
            if staged.exists() && old_size.is_some() && size(&live) == *old_size {
                // never committed: the original is still in place
                return Ok(());
            }
            match old_size {
                Some(_) => {
                    if kept.exists() {
                        move_file(&kept, &live)?;
                        // (a copy, where links were refused, has a new time)
                        set_modified(&live, *modified_ns)?;
                    }
                }
                None => {
                    // the file was created: keep the created one aside (a
                    // rename reverted before this put it back under its name)
                    if !staged.exists() && live.exists() {
                        let aside = dir.join("created").join(file);
                        ensure_parent(&aside)?;
                        move_file(&live, &aside)?;
                    }
                }
            }
            Ok(())
        }
        Step::Rename { from, to, replaces } => {
            let (src, dst) = (log_dir.join(from), log_dir.join(to));
            // the original is still in place when its removal was not done
            let original_in_place = *replaces && !dir.join("files").join(to).exists();
            if dst.exists() && !src.exists() && !original_in_place {
                fs::rename(&dst, &src).map_err(|e| io(e, &dst))?;
            }
            Ok(())
        }
    }
}

/// Revert the latest finished (or interrupted) repair of `log_dir` in
/// `quarantine`, or the one named `id`. With `execute` false, only returns
/// what would be reverted.
pub fn undo(
    quarantine: &Path,
    log_dir: &Path,
    id: Option<&str>,
    execute: bool,
) -> std::result::Result<Manifest, RepairError> {
    let log_dir_abs = fs::canonicalize(log_dir).map_err(|e| io(e, log_dir))?;
    // a repair under way holds the lock: never look at its journal meanwhile
    let _lock = if execute { Some(lock(&log_dir_abs)?) } else { None };
    let all = repairs(quarantine, &log_dir_abs)?;
    let found = match id {
        Some(id) => all.into_iter().find(|(_, m)| m.id == id),
        None => {
            all.into_iter().rev().find(|(_, m)| matches!(m.state, State::Done | State::Committing | State::Undoing))
        }
    };
    let Some((dir, mut m)) = found else {
        return Err(RepairError::NothingToUndo(log_dir_abs, quarantine.to_path_buf()));
    };
    // (an id named: a repair already undone, or never applied, has nothing
    // left to revert)
    if matches!(m.state, State::Undone | State::Abandoned | State::Staging) {
        return Err(RepairError::NotApplied(m.id.clone(), m.state.name()));
    }
    if !execute {
        return Ok(m);
    }
    m.state = State::Undoing;
    save(&dir, &m)?;
    let run = || -> std::result::Result<(), RepairError> {
        fail_point(&dir.join("manifest.json"))?;
        let mut touched = Vec::new();
        for step in m.steps.iter().rev() {
            revert(&log_dir_abs, &dir, step)?;
            let live = log_dir_abs.join(step.file());
            fail_point(&live)?;
            touched.push(live.parent().map(Path::to_path_buf).unwrap_or_default());
        }
        fsync_dirs(touched)?;
        fail_point(&dir.join("manifest.json"))?;
        Ok(())
    };
    if let Err(e) = run() {
        // every revert is idempotent: running undo again finishes it
        return Err(RepairError::UndoStopped(Box::new(e), logfmt::journal::unfinished_advice(&log_dir_abs, &m)));
    }
    m.state = State::Undone;
    save(&dir, &m)?;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(test: &str) -> (PathBuf, PathBuf, PathBuf) {
        let root = std::env::temp_dir().join(format!("logfmt-journal-{}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let logs = root.join("logs");
        fs::create_dir_all(logs.join("t-0")).unwrap();
        fs::write(logs.join("t-0/a.log"), b"0123456789").unwrap();
        fs::write(logs.join("t-0/b.index"), b"old index").unwrap();
        fs::write(logs.join("t-0/c.snapshot"), b"snap").unwrap();
        fs::write(logs.join("hw"), b"0\n0\n").unwrap();
        let q = default_quarantine(&logs);
        (root, logs, q)
    }

    fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap().flatten() {
                if e.path().is_dir() {
                    stack.push(e.path());
                } else if e.file_name() != ".lock" {
                    // (.lock is taken while a repair runs, as a broker takes it)
                    out.push((e.path().strip_prefix(dir).unwrap().display().to_string(), fs::read(e.path()).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn commit_then_undo_restores_every_byte() {
        let (root, logs, q) = setup("undo");
        let before = snapshot(&logs);
        let mut r = Repair::begin(&logs, &q, "test").unwrap();
        r.truncate(&logs.join("t-0/a.log"), 4, "cut").unwrap();
        r.write(&logs.join("t-0/b.index"), b"new", "rebuilt").unwrap();
        r.write(&logs.join("t-0/d.txnindex"), b"", "created").unwrap();
        r.remove(&logs.join("t-0/c.snapshot"), "beyond the end").unwrap();
        // staging changed nothing
        assert_eq!(snapshot(&logs), before);
        let m = r.commit().unwrap();
        assert_eq!(m.state, State::Done);
        assert_eq!(fs::read(logs.join("t-0/a.log")).unwrap(), b"0123");
        assert_eq!(fs::read(logs.join("t-0/b.index")).unwrap(), b"new");
        assert!(!logs.join("t-0/c.snapshot").exists());
        assert!(logs.join("t-0/d.txnindex").exists());
        // the quarantine is outside the log dir
        assert!(!q.starts_with(&logs));
        let m = undo(&q, &logs, None, true).unwrap();
        assert_eq!(m.state, State::Undone);
        assert_eq!(snapshot(&logs), before);
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn an_interrupted_commit_is_finished_by_the_next_repair() {
        let (root, logs, q) = setup("roll-forward");
        let mut r = Repair::begin(&logs, &q, "test").unwrap();
        r.truncate(&logs.join("t-0/a.log"), 4, "cut").unwrap();
        r.write(&logs.join("t-0/b.index"), b"new", "rebuilt").unwrap();
        // simulate a crash after the first step: apply it by hand, leave state committing
        let mut m = r.manifest.clone();
        m.state = State::Committing;
        save(&r.dir, &m).unwrap();
        apply(&r.log_dir, &r.dir, &m.steps[0]).unwrap();
        // the process dies: its lock goes with it
        drop(r);
        let again = Repair::begin(&logs, &q, "test").unwrap();
        assert_eq!(again.rolled_forward, vec![m.id.clone()]);
        again.abandon().unwrap();
        assert_eq!(fs::read(logs.join("t-0/b.index")).unwrap(), b"new");
        assert_eq!(fs::read(logs.join("t-0/a.log")).unwrap(), b"0123");
        undo(&q, &logs, None, true).unwrap();
        assert_eq!(fs::read(logs.join("t-0/a.log")).unwrap(), b"0123456789");
        assert_eq!(fs::read(logs.join("t-0/b.index")).unwrap(), b"old index");
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_second_repair_is_refused_while_the_first_holds_the_lock() {
        let (root, logs, q) = setup("exclusive");
        let r = Repair::begin(&logs, &q, "first").unwrap();
        let err = Repair::begin(&logs, &q, "second").unwrap_err();
        assert!(matches!(err, RepairError::Locked(..)), "{err}");
        assert!(matches!(
            undo(&q, &logs, None, true),
            Err(RepairError::Locked(..)) | Err(RepairError::NothingToUndo(..))
        ));
        r.abandon().unwrap();
        // released: the next one goes ahead, and the .lock logtool made is gone
        assert!(!logs.join(".lock").exists());
        Repair::begin(&logs, &q, "third").unwrap().abandon().unwrap();
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn undo_gives_back_modification_times() {
        let (root, logs, q) = setup("mtime");
        let a = logs.join("t-0/a.log");
        let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        fs::OpenOptions::new().write(true).open(&a).unwrap().set_modified(old).unwrap();
        let mut r = Repair::begin(&logs, &q, "test").unwrap();
        r.truncate(&a, 4, "cut").unwrap();
        r.commit().unwrap();
        assert_ne!(fs::metadata(&a).unwrap().modified().unwrap(), old);
        undo(&q, &logs, None, true).unwrap();
        assert_eq!(fs::metadata(&a).unwrap().modified().unwrap(), old);
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_swap_in_is_undone_whole_and_never_moves_an_original_it_did_not_remove() {
        let (root, logs, q) = setup("swap");
        let before = snapshot(&logs);
        let (log, swap) = (logs.join("t-0/a.log"), logs.join("t-0/a.log.swap"));
        let stage = |logs: &Path| {
            let mut r = Repair::begin(logs, &q, "test").unwrap();
            let n = r
                .write_with(&swap, Some(1_700_000_000_000), "cleaned", &mut |w| {
                    w.write_all(b"cleaned").map_err(|e| Error::io(e, None))
                })
                .unwrap();
            assert_eq!(n, 7);
            r.remove(&log, "cleaned into the new segment").unwrap();
            r.rename(&swap, &log, "swapped in").unwrap();
            r
        };
        // committed: the new content under the old name, with the mtime given
        stage(&logs).commit().unwrap();
        assert_eq!(fs::read(&log).unwrap(), b"cleaned");
        assert!(!swap.exists());
        let mtime = fs::metadata(&log).unwrap().modified().unwrap();
        assert_eq!(mtime, std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_700_000_000_000));
        undo(&q, &logs, None, true).unwrap();
        assert_eq!(snapshot(&logs), before);
        // killed right after the commit began: nothing applied, and undo moves nothing
        let r = stage(&logs);
        let mut m = r.manifest.clone();
        m.state = State::Committing;
        save(&r.dir, &m).unwrap();
        drop(r);
        undo(&q, &logs, None, true).unwrap();
        assert_eq!(snapshot(&logs), before, "the original a.log stays where it is");
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_quarantine_inside_the_log_dir_is_refused() {
        let (root, logs, _) = setup("inside");
        let err = Repair::begin(&logs, &logs.join("q"), "test").unwrap_err();
        assert!(matches!(err, RepairError::QuarantineInsideLogDir(..)));
        assert!(!logs.join("q").exists(), "nothing may be created in the log dir");
        fs::remove_dir_all(root).unwrap();
    }

    /// A directory on another filesystem than the temp dir (`/dev/shm`, a
    /// tmpfs), or `None` where there is none.
    fn elsewhere(test: &str) -> Option<PathBuf> {
        let shm = Path::new("/dev/shm");
        let dir = shm.join(format!("logfmt-journal-{}-{test}", std::process::id()));
        (shm.is_dir() && !same_filesystem(shm, &std::env::temp_dir()) && fs::create_dir_all(&dir).is_ok())
            .then_some(dir)
    }

    #[test]
    fn a_quarantine_on_another_filesystem_gets_the_done_repair_and_undo_copies_it_back() {
        let (root, logs, beside) = setup("elsewhere");
        let Some(other) = elsewhere("elsewhere") else {
            eprintln!("no second filesystem here (/dev/shm): skipped");
            return fs::remove_dir_all(root).unwrap();
        };
        let q = other.join("q");
        let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        for f in ["t-0/b.index", "t-0/c.snapshot"] {
            fs::OpenOptions::new().write(true).open(logs.join(f)).unwrap().set_modified(old).unwrap();
        }
        let before = snapshot(&logs);
        assert!(other_filesystem(&q, &logs));
        let mut r = Repair::begin(&logs, &q, "test").unwrap();
        assert!(r.elsewhere());
        assert_eq!(r.final_dir(), fs::canonicalize(&other).unwrap().join("q").join(r.id()));
        r.truncate(&logs.join("t-0/a.log"), 4, "cut").unwrap();
        r.write(&logs.join("t-0/b.index"), b"new", "rebuilt").unwrap();
        r.write(&logs.join("t-0/d.txnindex"), b"", "created").unwrap();
        r.remove(&logs.join("t-0/c.snapshot"), "beyond the end").unwrap();
        let m = r.commit().unwrap();
        assert_eq!(m.state, State::Done);
        assert!(!logs.join("t-0/c.snapshot").exists());
        // done: nothing is left beside the log dir, the repair is whole over there
        assert!(!beside.exists(), "the default quarantine goes once empty");
        let there = repairs(&q, &logs).unwrap();
        assert_eq!(there.len(), 1);
        assert_eq!(fs::read(there[0].0.join("files/t-0/c.snapshot")).unwrap(), b"snap");
        assert!(fs::read_dir(&q).unwrap().flatten().all(|e| !e.file_name().to_string_lossy().starts_with('.')));
        // undo copies each byte back, with the files' times
        let m = undo(&q, &logs, None, true).unwrap();
        assert_eq!(m.state, State::Undone);
        assert_eq!(snapshot(&logs), before);
        for f in ["t-0/b.index", "t-0/c.snapshot"] {
            assert_eq!(fs::metadata(logs.join(f)).unwrap().modified().unwrap(), old, "{f}");
        }
        assert!(
            fs::read_dir(logs.join("t-0"))
                .unwrap()
                .flatten()
                .all(|e| !e.file_name().to_string_lossy().ends_with(".tmp")),
            "no temporary file left in the log dir"
        );
        fs::remove_dir_all(root).unwrap();
        fs::remove_dir_all(other).unwrap();
    }
}
