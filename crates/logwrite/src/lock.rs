//! Holding a log dir's `.lock` as a broker does, for every logtool writer
//! (the repairs, `undo`, the broker): a POSIX write lock *and* a `flock`
//! lock, then a check that `.lock` still names the file locked; a `.lock`
//! it created is unlinked again while still held, leaving the log dir as
//! it was found (`logfmt::lock` has the protocol in full, and who holds a
//! lock, which reading commands ask).

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use logfmt::lock::{Holder, LockKind, holder_of};
use logfmt::spec::names::LOCK;

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
    let refused = |file: &File, kind: LockKind| holder_of(file).unwrap_or(Holder { kind, pid: None });
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
