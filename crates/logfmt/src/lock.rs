//! A log dir's `.lock`: who holds it. (Holding it ourselves is
//! `logwrite::lock::DirLock`'s: reading never writes, and taking the lock
//! creates and unlinks the file.)
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
//!   The kernel makes `/proc/locks` a page at a time from a list other
//!   processes' locks come and go in, so one reading can miss a line: a
//!   reading that finds no holder is made again ([`LOCKS_READINGS`] in all).
//! * `logwrite::lock::DirLock::acquire` takes the lock for a command that writes: a POSIX
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

use std::fs::File;
use std::path::Path;

use crate::spec::names::LOCK;

/// Who else holds a lock on `file` (an open `.lock`), as `/proc/locks`
/// says: what a writer that was refused its lock names.
pub fn holder_of(file: &File) -> Option<Holder> {
    let meta = file.metadata().ok()?;
    (0..LOCKS_READINGS).find_map(|_| std::fs::read_to_string("/proc/locks").ok().and_then(|l| holder(&l, &meta)))
}

/// How many times `/proc/locks` is read before a lock is taken as not
/// there (a reading made while other locks change can skip lines).
pub const LOCKS_READINGS: usize = 3;

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
    let mut state = LockState::Unknown;
    for _ in 0..LOCKS_READINGS {
        if let Ok(locks) = std::fs::read_to_string("/proc/locks") {
            if let Some(h) = holder(&locks, &meta) {
                return LockState::Held(h);
            }
            state = LockState::Free;
        }
    }
    state
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
}
