//! Is a live broker using this log dir?
//!
//! A running broker holds an exclusive lock on `<log dir>/.lock`
//! (`FileLock.java`: `FileChannel.tryLock`, a POSIX `fcntl` record lock on
//! Linux) and deletes the file on a clean shutdown. `flock`-style checks cannot
//! see `fcntl` locks, so on Linux we look the file up in `/proc/locks`, which
//! lists every lock with the holder's pid and the file's device and inode.
//! Elsewhere the answer is [`LockState::Unknown`].

use std::path::Path;

use crate::spec::names::LOCK;

/// Who holds a log dir's `.lock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockState {
    /// There is no `.lock` file (a clean shutdown removes it).
    NoLockFile,
    /// The file exists and no process holds a lock on it.
    Free,
    /// A process holds a lock on it: a live broker (or another tool).
    Held {
        /// The holder's pid, as `/proc/locks` shows it (0 when it is in another
        /// pid namespace).
        pid: u32,
    },
    /// Could not tell (not Linux, or `/proc/locks` unreadable).
    Unknown,
}

/// Who holds a lock, in words.
pub fn describe_holder(pid: u32) -> String {
    format!("pid {pid}")
}

/// The lock state of the log dir `dir`.
pub fn log_dir_lock(dir: &Path) -> LockState {
    let path = dir.join(LOCK);
    let Ok(meta) = std::fs::metadata(&path) else {
        return LockState::NoLockFile;
    };
    match std::fs::read_to_string("/proc/locks") {
        Ok(locks) => holder(&locks, &meta).map_or(LockState::Free, |pid| LockState::Held { pid }),
        Err(_) => LockState::Unknown,
    }
}

#[cfg(unix)]
fn holder(locks: &str, meta: &std::fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let dev = meta.dev();
    // Linux's dev_t encoding (gnu_dev_major / gnu_dev_minor)
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let want = format!("{major:02x}:{minor:02x}:{}", meta.ino());
    parse_holder(locks, &want)
}

#[cfg(not(unix))]
fn holder(_locks: &str, _meta: &std::fs::Metadata) -> Option<u32> {
    None
}

/// The pid holding a lock on the file `dev_ino` (`MAJ:MIN:INODE`, as in
/// `/proc/locks`). Lines of blocked waiters (`->`) are ignored.
fn parse_holder(locks: &str, dev_ino: &str) -> Option<u32> {
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // "1: POSIX ADVISORY WRITE 10562 fe:00:10036688 0 EOF"
        match fields.as_slice() {
            [_, kind, _, _, pid, file, ..] if *kind != "->" && *file == dev_ino => pid.parse().ok(),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_locks_lines() {
        let locks = "1: POSIX  ADVISORY  WRITE 10562 fe:00:10036688 0 EOF\n\
                     2: -> POSIX  ADVISORY  WRITE 999 fe:00:10036688 0 EOF\n\
                     3: FLOCK  ADVISORY  WRITE 7 fe:00:9986049 0 EOF\n";
        assert_eq!(parse_holder(locks, "fe:00:10036688"), Some(10562));
        assert_eq!(parse_holder(locks, "fe:00:9986049"), Some(7));
        assert_eq!(parse_holder(locks, "fe:00:1"), None);
    }

    #[test]
    fn no_lock_file() {
        assert_eq!(log_dir_lock(Path::new("/nonexistent/logtool")), LockState::NoLockFile);
    }
}
