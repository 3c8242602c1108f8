//! A log dir's `.lock`: who holds it, and holding it ourselves.
//!
//! A running broker holds an exclusive lock on `<log dir>/.lock`
//! (`FileLock.java`: `FileChannel.tryLock`, a POSIX `fcntl` record lock on
//! Linux) for as long as it runs, and deletes the file on a clean shutdown.
//! Other tools may lock it differently: an open-file-description (`F_OFD_SETLK`)
//! lock conflicts with the broker's kind, a `flock` lock does not (Linux keeps
//! the two apart).
//!
//! * [`log_dir_lock`] looks without locking (for commands that only read):
//!   `/proc/locks` lists every lock with its kind and the file's device and
//!   inode; POSIX and `flock` entries name the holder's pid, open-file-
//!   description locks show -1, so their holder is found in
//!   `/proc/<pid>/fdinfo/<fd>` (which lists the locks of each open file).
//! * [`DirLock::acquire`] takes the lock for a command that writes: a POSIX
//!   write lock (so a broker starting meanwhile is refused, and so is any
//!   tool taking either fcntl kind) *and* a `flock` lock (so is a tool taking
//!   that kind), then checks that `.lock` still names the file it locked
//!   (else it opens again). It creates `.lock` if it is missing and unlinks
//!   it again while still holding it, leaving the log dir as it found it
//!   (Kafka's `FileLock.destroy` deletes it at a clean shutdown too, after
//!   unlocking). Every logtool writer - the repairs, `undo`, the broker -
//!   takes it this way; the check is what makes the unlink safe among them.
//!   A Kafka broker does not check: one that opened `.lock` just before a
//!   logtool writer unlinked it could lock the unlinked file a moment
//!   later, as it could after another Kafka broker's clean shutdown.
//!
//! A POSIX lock belongs to the process and is released when *any* descriptor
//! of the file is closed: nothing else in logtool opens `.lock`.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::spec::names::LOCK;

/// The kind of lock a process holds on `.lock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    /// A POSIX `fcntl` record lock (what a Kafka broker takes).
    Posix,
    /// An open-file-description lock (`F_OFD_SETLK`).
    OpenFileDescription,
    /// A BSD `flock` lock.
    Flock,
}

impl LockKind {
    /// Words for messages.
    pub fn describe(self) -> &'static str {
        match self {
            LockKind::Posix => "a POSIX fcntl lock (as a Kafka broker takes)",
            LockKind::OpenFileDescription => "an open-file-description lock",
            LockKind::Flock => "a flock lock",
        }
    }
}

/// Who holds a log dir's `.lock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Holder {
    /// How.
    pub kind: LockKind,
    /// The holder's pid, when the kernel tells (0 when it is in another pid
    /// namespace).
    pub pid: Option<u32>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pid {
            Some(pid) => write!(f, "pid {pid} ({})", self.kind.describe()),
            None => write!(f, "a process the kernel does not name ({})", self.kind.describe()),
        }
    }
}

/// The lock state of a log dir.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockState {
    /// There is no `.lock` file (a clean shutdown removes it).
    NoLockFile,
    /// The file exists and no process holds a lock on it.
    Free,
    /// A process holds a lock on it: a live broker (or another tool).
    Held(Holder),
    /// Could not tell (not Linux, or `/proc/locks` unreadable).
    Unknown,
}

/// The lock state of the log dir `dir`, without locking anything.
pub fn log_dir_lock(dir: &Path) -> LockState {
    let path = dir.join(LOCK);
    let Ok(meta) = std::fs::metadata(&path) else {
        return LockState::NoLockFile;
    };
    match std::fs::read_to_string("/proc/locks") {
        Ok(locks) => holder(&locks, &meta).map_or(LockState::Free, LockState::Held),
        Err(_) => LockState::Unknown,
    }
}

#[cfg(unix)]
fn dev_ino(meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt;
    let dev = meta.dev();
    // Linux's dev_t encoding (gnu_dev_major / gnu_dev_minor)
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    format!("{major:02x}:{minor:02x}:{}", meta.ino())
}

#[cfg(unix)]
fn holder(locks: &str, meta: &std::fs::Metadata) -> Option<Holder> {
    let want = dev_ino(meta);
    let mut h = parse_holder(locks, &want, Some(std::process::id()))?;
    if h.kind == LockKind::OpenFileDescription && h.pid.is_none() {
        h.pid = ofd_holder(&want);
    }
    Some(h)
}

#[cfg(not(unix))]
fn holder(_locks: &str, _meta: &std::fs::Metadata) -> Option<Holder> {
    None
}

/// The lock on the file `dev_ino` (`MAJ:MIN:INODE`, as in `/proc/locks`)
/// held by another process than `ours`. Lines of blocked waiters (`->`) are
/// ignored; a pid of -1 (an open-file-description lock) is `None`.
fn parse_holder(locks: &str, dev_ino: &str, ours: Option<u32>) -> Option<Holder> {
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // "1: POSIX ADVISORY WRITE 10562 fe:00:10036688 0 EOF"
        match fields.as_slice() {
            [_, kind, _, _, pid, file, ..]
                if *kind != "->" && *file == dev_ino && pid.parse::<u32>().ok().is_none_or(|p| Some(p) != ours) =>
            {
                let kind = match *kind {
                    "POSIX" => LockKind::Posix,
                    "OFDLCK" => LockKind::OpenFileDescription,
                    "FLOCK" => LockKind::Flock,
                    _ => return None,
                };
                Some(Holder { kind, pid: pid.parse().ok() })
            }
            _ => None,
        }
    })
}

/// The pid whose open files hold an open-file-description lock on
/// `dev_ino`: `/proc/<pid>/fdinfo/<fd>` lists each open file's locks.
fn ofd_holder(dev_ino: &str) -> Option<u32> {
    let procs = std::fs::read_dir("/proc").ok()?;
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(fds) = std::fs::read_dir(p.path().join("fdinfo")) else { continue };
        for fd in fds.flatten() {
            let Ok(info) = std::fs::read_to_string(fd.path()) else { continue };
            if info.lines().any(|l| l.starts_with("lock:") && l.contains("OFDLCK") && l.contains(dev_ino)) {
                return Some(pid);
            }
        }
    }
    None
}

/// Why a log dir could not be locked.
#[derive(Debug)]
pub enum LockError {
    /// Another process holds it.
    Held(Holder),
    /// `.lock` could not be opened or locked.
    Io(std::io::Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Held(h) => {
                write!(f, "a live process, {h}, holds its .lock (a running broker, or a logtool repair)")
            }
            LockError::Io(e) => write!(f, "cannot lock its .lock: {e}"),
        }
    }
}

/// An exclusive lock on a log dir's `.lock`, held until dropped.
#[derive(Debug)]
pub struct DirLock {
    file: File,
    path: PathBuf,
    /// We created the file: it goes when we let go, as after a clean
    /// shutdown (`FileLock.destroy`).
    created: bool,
}

/// How often [`DirLock::acquire`] opens `.lock` again when the file it
/// locked is no longer the one the path names.
const LOCK_ATTEMPTS: u32 = 100;

/// Whether two metadata name one file.
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    true
}

impl DirLock {
    /// Lock the log dir `dir` as a broker does (see the module docs), by one
    /// protocol every logtool writer follows: open (creating it if missing),
    /// lock, then check that the path still names the file locked - a
    /// holder that created `.lock` unlinks it before it lets go, so a lock
    /// won on a file no longer there (opened before the unlink) is worth
    /// nothing: open again. A live holder is refused, named by pid.
    pub fn acquire(dir: &Path) -> Result<DirLock, LockError> {
        let path = dir.join(LOCK);
        for _ in 0..LOCK_ATTEMPTS {
            let (file, created) = match OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
                Ok(f) => (f, true),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    match OpenOptions::new().read(true).write(true).open(&path) {
                        Ok(f) => (f, false),
                        // unlinked between the two opens: again
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                        Err(e) => return Err(LockError::Io(e)),
                    }
                }
                Err(e) => return Err(LockError::Io(e)),
            };
            test_gap();
            if let Err(e) = lock_both(&file) {
                if created && !matches!(e, LockError::Held(_)) {
                    // (held: the holder opened what we created; it stays)
                    let _ = std::fs::remove_file(&path);
                }
                return Err(e);
            }
            match (std::fs::metadata(&path), file.metadata()) {
                (Ok(named), Ok(locked)) if same_file(&named, &locked) => {
                    return Ok(DirLock { file, path, created });
                }
                // the file we locked was unlinked (and maybe replaced) meanwhile
                _ => {
                    let _ = file.unlock();
                    continue;
                }
            }
        }
        Err(LockError::Io(std::io::Error::other(format!(
            "{}: the file kept changing while it was being locked ({LOCK_ATTEMPTS} attempts)",
            path.display()
        ))))
    }
}

/// Test hook: `LOGTOOL_TEST_LOCK_GAP_MS` widens the gap between opening
/// `.lock` and locking it, to test that a lock won on a file unlinked
/// meanwhile is not taken for the log dir's.
fn test_gap() {
    if let Some(ms) = std::env::var("LOGTOOL_TEST_LOCK_GAP_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// A POSIX write lock and a `flock` lock on `file`, both or neither.
fn lock_both(file: &File) -> Result<(), LockError> {
    let refused = |file: &File, kind: LockKind| {
        let meta = file.metadata().ok();
        let probed = std::fs::read_to_string("/proc/locks").ok().zip(meta).and_then(|(l, m)| holder(&l, &m));
        probed.unwrap_or(Holder { kind, pid: None })
    };
    match rustix::fs::fcntl_lock(file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => {}
        // a POSIX or an open-file-description lock
        Err(e) if e == rustix::io::Errno::AGAIN || e == rustix::io::Errno::ACCESS => {
            return Err(LockError::Held(refused(file, LockKind::Posix)));
        }
        Err(e) => return Err(LockError::Io(e.into())),
    }
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => {
            let h = refused(file, LockKind::Flock);
            let _ = rustix::fs::fcntl_lock(file, rustix::fs::FlockOperation::Unlock);
            Err(LockError::Held(h))
        }
        Err(std::fs::TryLockError::Error(e)) => {
            let _ = rustix::fs::fcntl_lock(file, rustix::fs::FlockOperation::Unlock);
            Err(LockError::Io(e))
        }
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        if self.created {
            // unlinked while still locked: a process that opened it
            // meanwhile finds, once it wins the lock, that the path no
            // longer names it, and opens again
            let _ = std::fs::remove_file(&self.path);
        }
        let _ = rustix::fs::fcntl_lock(&self.file, rustix::fs::FlockOperation::Unlock);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_locks_lines() {
        let locks = "1: POSIX  ADVISORY  WRITE 10562 fe:00:10036688 0 EOF\n\
                     2: -> POSIX  ADVISORY  WRITE 999 fe:00:10036688 0 EOF\n\
                     3: FLOCK  ADVISORY  WRITE 7 fe:00:9986049 0 EOF\n\
                     4: OFDLCK ADVISORY  WRITE -1 fe:00:42 0 EOF\n";
        let holder = |f| parse_holder(locks, f, Some(1));
        assert_eq!(holder("fe:00:10036688"), Some(Holder { kind: LockKind::Posix, pid: Some(10562) }));
        assert_eq!(holder("fe:00:9986049"), Some(Holder { kind: LockKind::Flock, pid: Some(7) }));
        assert_eq!(holder("fe:00:42"), Some(Holder { kind: LockKind::OpenFileDescription, pid: None }));
        assert_eq!(holder("fe:00:1"), None);
        // our own lock is not someone else's
        assert_eq!(parse_holder(locks, "fe:00:9986049", Some(7)), None);
    }

    #[test]
    fn no_lock_file() {
        assert_eq!(log_dir_lock(Path::new("/nonexistent/logtool")), LockState::NoLockFile);
    }

    #[test]
    fn a_lock_is_exclusive_and_leaves_no_file_behind() {
        let dir = std::env::temp_dir().join(format!("logfmt-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let l = DirLock::acquire(&dir).unwrap();
        assert!(dir.join(LOCK).exists());
        // a flock from another open file description in this process conflicts
        let other = File::open(dir.join(LOCK)).unwrap();
        assert!(matches!(other.try_lock(), Err(std::fs::TryLockError::WouldBlock)));
        drop(other);
        drop(l);
        assert!(!dir.join(LOCK).exists(), "the .lock logtool created is removed");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
