//! The repair journal's format, read side: where a log dir's repairs are
//! kept and what their manifests say.
//!
//! `logwrite::repair::journal` writes and executes journals; this module
//! only reads them, so that every command - `verify`, the broker's start,
//! the repairs themselves - can tell that a repair of a log dir stopped
//! part way (state `committing` or `undoing`: some of its steps done, the
//! dir neither as before nor as repaired).
//!
//! Layout of one repair, `<quarantine>/<id>/`:
//!
//! ```text
//! manifest.json        what the repair does, step by step, and how far it got
//! files/<path>         originals: removed files, and files before replacement
//! tails/<path>         bytes cut from truncated files
//! new/<path>           staged new contents (gone once committed)
//! ```
//!
//! The default quarantine of a log dir is beside it,
//! `<log dir>.logtool-quarantine` ([`default_quarantine`]); only that one is
//! looked at by commands not told another (`--quarantine`; one on another
//! filesystem holds done repairs only: `logwrite` journals every repair
//! beside the log dir and moves it there once done).

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The suffix of the default quarantine directory beside a log dir.
pub const QUARANTINE_SUFFIX: &str = ".logtool-quarantine";

/// Manifest format version (2: steps record the files' modification times).
pub const MANIFEST_VERSION: u32 = 2;

/// The default quarantine of a log dir: beside it, `<name>.logtool-quarantine`.
/// `log_dir` should be absolute and without `.`/`..` (a relative `.` has no
/// name: its quarantine would land inside it).
pub fn default_quarantine(log_dir: &Path) -> PathBuf {
    let name = log_dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "log-dir".into());
    log_dir.parent().unwrap_or(Path::new("/")).join(format!("{name}{QUARANTINE_SUFFIX}"))
}

/// How far a repair got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Staging; the log dir is untouched.
    Staging,
    /// Steps are being applied.
    Committing,
    /// All steps applied.
    Done,
    /// Being reverted.
    Undoing,
    /// Reverted.
    Undone,
    /// Staging was abandoned; the log dir was never touched.
    Abandoned,
}

impl State {
    /// Name used in output.
    pub fn name(self) -> &'static str {
        match self {
            State::Staging => "staging",
            State::Committing => "committing",
            State::Done => "done",
            State::Undoing => "undoing",
            State::Undone => "undone",
            State::Abandoned => "abandoned",
        }
    }

    /// Some steps may be applied and others not: the log dir is neither as
    /// before the repair nor as repaired.
    pub fn unfinished(self) -> bool {
        matches!(self, State::Committing | State::Undoing)
    }
}

/// One step, with what identifies its before and after states.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Step {
    /// Move `file` into `files/`.
    Remove {
        /// Path inside the log dir.
        file: String,
        /// Its size.
        size: u64,
    },
    /// Cut `file` from `from_size` to `to_size`; the cut bytes are in `tails/`.
    Truncate {
        /// Path inside the log dir.
        file: String,
        /// Size before.
        from_size: u64,
        /// Size after.
        to_size: u64,
        /// Its modification time before, in ns since the epoch.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        modified_ns: Option<u64>,
    },
    /// Replace (or create) `file` with `new/<file>`.
    Write {
        /// Path inside the log dir.
        file: String,
        /// Size before, if the file existed.
        old_size: Option<u64>,
        /// Size after.
        new_size: u64,
        /// Its modification time before, in ns since the epoch.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        modified_ns: Option<u64>,
    },
    /// Rename `from` to `to` (a file an earlier step created).
    Rename {
        /// Path inside the log dir.
        from: String,
        /// Path inside the log dir; must not exist when the step is applied.
        to: String,
        /// A file of that name existed when the repair was planned (an
        /// earlier step of the repair removes it): until that removal is
        /// done, the file there is the original, never renamed back.
        #[serde(default)]
        replaces: bool,
    },
}

impl Step {
    /// The file the step leaves changed (a rename's target).
    pub fn file(&self) -> &str {
        match self {
            Step::Remove { file, .. } | Step::Truncate { file, .. } | Step::Write { file, .. } => file,
            Step::Rename { to, .. } => to,
        }
    }
}

/// The journal of one repair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format version.
    pub version: u32,
    /// Unique id (also the directory name).
    pub id: String,
    /// The command that made it.
    pub command: String,
    /// The log dir repaired (absolute).
    pub log_dir: PathBuf,
    /// Creation time, epoch milliseconds.
    pub created_ms: u64,
    /// How far it got.
    pub state: State,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// Why the journals could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JournalError {
    /// A manifest that cannot be read.
    #[error("{0}: unreadable repair manifest: {1}")]
    BadManifest(PathBuf, String),
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] Error),
}

/// Read one manifest.
pub fn read_manifest(path: &Path) -> Result<Manifest, JournalError> {
    let text = fs::read(path).map_err(|e| Error::io(e, Some(path)))?;
    serde_json::from_slice(&text).map_err(|e| JournalError::BadManifest(path.to_path_buf(), e.to_string()))
}

/// Every repair recorded in `quarantine` for `log_dir`, oldest first (none
/// when the quarantine does not exist).
pub fn repairs(quarantine: &Path, log_dir: &Path) -> Result<Vec<(PathBuf, Manifest)>, JournalError> {
    let log_dir = fs::canonicalize(log_dir).map_err(|e| Error::io(e, Some(log_dir)))?;
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(quarantine) else { return Ok(out) };
    for e in rd.flatten() {
        // (a repair being purged: `.purging-<id>`)
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let manifest = e.path().join("manifest.json");
        if manifest.is_file() {
            let m = read_manifest(&manifest)?;
            if m.log_dir == log_dir {
                out.push((e.path(), m));
            }
        }
    }
    out.sort_by(|a, b| a.1.id.cmp(&b.1.id));
    Ok(out)
}

/// The repairs of `log_dir` in its default quarantine that stopped part way
/// (`committing` or `undoing`), oldest first.
pub fn unfinished(log_dir: &Path) -> Result<Vec<(PathBuf, Manifest)>, JournalError> {
    let log_dir = fs::canonicalize(log_dir).map_err(|e| Error::io(e, Some(log_dir)))?;
    let quarantine = default_quarantine(&log_dir);
    Ok(repairs(&quarantine, &log_dir)?.into_iter().filter(|(_, m)| m.state.unfinished()).collect())
}

/// What to run about an unfinished repair, in words: the repair, how far
/// it got, and the two ways out.
pub fn unfinished_advice(log_dir: &Path, m: &Manifest) -> String {
    let undo = format!("logtool undo {} --id {} --execute", log_dir.display(), m.id);
    if m.state == State::Undoing {
        return format!(
            "repair {} ({}): its undo stopped part way, so this log dir is neither as before nor as repaired; run `{undo}` again to finish putting it back",
            m.id, m.command
        );
    }
    let redo = match m.command.as_str() {
        "broker" => "start `logtool broker` on it again to finish it".to_string(),
        c => format!("re-run `logtool {c} ... --execute` to finish it"),
    };
    format!(
        "repair {} ({}): it stopped part way through its commit, so this log dir is neither as before nor as repaired; run `{undo}` to put it back as it was, or {redo}",
        m.id, m.command
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_quarantine_is_beside_the_log_dir() {
        assert_eq!(default_quarantine(Path::new("/data/logs")), PathBuf::from("/data/logs.logtool-quarantine"));
    }

    #[test]
    fn no_quarantine_no_repairs() {
        let dir = std::env::temp_dir();
        assert!(repairs(Path::new("/nonexistent/q"), &dir).unwrap().is_empty());
    }
}
