//! Reading a live broker's files without hurting it.
//!
//! A broker serves its consumers from the page cache; a tool that reads a
//! whole log dir through the cache evicts those hot pages and leaves its own
//! cold ones behind. [`LiveFile`] (the source every [`crate::log::LogReader`]
//! opened on a path reads through) avoids both:
//!
//! * each read first asks for the bytes *only if they are cached*
//!   (`preadv2(RWF_NOWAIT)`): what the cache held is used and left alone.
//!   A read asks for its first page alone, and for all of it only once that
//!   page is known cached (the kernel then returns the cached run and reads
//!   nothing): asking for a range whose first page is not cached makes the
//!   kernel read every missing page of it, and dropping those again would
//!   drop the broker's cached pages among them. Reads are at most 1 MiB;
//! * what was not cached is read past the cache (`O_DIRECT`, into an aligned
//!   buffer): nothing is brought in and nothing evicted, and the pages the
//!   probe made the kernel read are dropped once read
//!   (`posix_fadvise(DONTNEED)`), and once more when the file is closed;
//! * where `O_DIRECT` is refused (tmpfs, some network file systems), what was
//!   not cached is read normally, at most 64 KiB at a time, with kernel
//!   readahead off for the file (`POSIX_FADV_RANDOM`), and dropped again:
//!   there a page the broker cached within such a run can go too;
//! * [`set_max_rate`] throttles all reads of the process together (a token
//!   bucket), for `--max-rate`.
//!
//! Where the kernel does not support `RWF_NOWAIT` (before Linux 4.14, some
//! file systems) reads are plain and nothing is dropped. A file that grows
//! while it is read (the active segment) is read up to the size seen when
//! it was opened; the caller compares with [`LiveFile::current_len`].

use std::fs::File;
use std::io::{self, IoSliceMut, Read, Seek, SeekFrom};
use std::num::NonZeroU64;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::fs::{Advice, Mode, OFlags, fadvise};
use rustix::io::{Errno, ReadWriteFlags, preadv2};

/// The longest read from disk before the cache is asked again.
const COLD_RUN: usize = 64 << 10;

/// The most one read asks for (the cache probe, a direct read): what its
/// staging buffer costs, whatever the caller asks (a large batch is read a
/// MiB at a time).
const MAX_READ: usize = 1 << 20;

/// Alignment of `O_DIRECT` reads (offset, length and buffer): a page, which
/// every device's logical block divides.
const ALIGN: u64 = 4096;

fn page_size() -> u64 {
    (rustix::param::page_size() as u64).max(1)
}

/// A file read without disturbing the page cache.
#[derive(Debug)]
pub struct LiveFile {
    file: File,
    pos: u64,
    /// `RWF_NOWAIT` works here (cleared at the first `EOPNOTSUPP`).
    nowait: bool,
    /// The same file opened with `O_DIRECT`: what the cache does not hold is
    /// read from the disk past the cache (None where `O_DIRECT` fails).
    direct: Option<File>,
    /// Staging for direct reads (aligned inside).
    staging: Vec<u8>,
    /// What was brought in from disk (not cached when asked), merged: it is
    /// dropped from the cache again when the file is closed, since a page
    /// the kernel still held a reference to when it was first dropped stays.
    brought_in: Vec<(u64, u64)>,
}

/// The most separate ranges [`LiveFile`] remembers (then the closest merge).
const MAX_RANGES: usize = 64;

impl LiveFile {
    /// Open `path` for reading.
    pub fn open(path: &Path) -> io::Result<LiveFile> {
        let file = File::open(path)?;
        // (buffered reads, where O_DIRECT fails) no readahead: only what is
        // asked is brought in, and dropped
        let _ = fadvise(&file, 0, None, Advice::Random);
        let direct = rustix::fs::open(path, OFlags::RDONLY | OFlags::DIRECT | OFlags::CLOEXEC, Mode::empty())
            .ok()
            .map(File::from);
        Ok(LiveFile { file, pos: 0, nowait: true, direct, staging: Vec::new(), brought_in: Vec::new() })
    }

    /// The file's length now.
    pub fn current_len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    /// The file's length (from its metadata).
    pub fn len(&self) -> io::Result<u64> {
        self.current_len()
    }

    /// Whether the file is empty now.
    pub fn is_empty(&self) -> io::Result<bool> {
        Ok(self.current_len()? == 0)
    }
}

impl LiveFile {
    /// Read `buf.len()` bytes at `at` past the page cache (`O_DIRECT`):
    /// `None` where that is not possible (then it is not tried again).
    fn read_direct(&mut self, buf: &mut [u8], at: u64) -> io::Result<Option<usize>> {
        let Some(direct) = &self.direct else { return Ok(None) };
        let start = at.saturating_sub(at % ALIGN);
        let end = at.saturating_add(buf.len() as u64).div_ceil(ALIGN).saturating_mul(ALIGN);
        let len = usize::try_from(end.saturating_sub(start)).unwrap_or(0);
        let want = len.saturating_add(ALIGN as usize);
        if self.staging.len() < want {
            self.staging.resize(want, 0);
        }
        let off = self.staging.as_ptr().align_offset(ALIGN as usize);
        let Some(aligned) = self.staging.get_mut(off..off.saturating_add(len)) else { return Ok(None) };
        let n = match direct.read_at(aligned, start) {
            Ok(n) => n,
            Err(e) if e.raw_os_error() == Some(Errno::INVAL.raw_os_error()) => {
                self.direct = None;
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let skip = usize::try_from(at.saturating_sub(start)).unwrap_or(0);
        let got = n.saturating_sub(skip).min(buf.len());
        let (Some(dst), Some(src)) = (buf.get_mut(..got), aligned.get(skip..skip.saturating_add(got))) else {
            return Ok(None);
        };
        dst.copy_from_slice(src);
        Ok(Some(got))
    }

    /// Drop what a cache probe of `len` bytes at `at` brought in, once the
    /// kernel has read it (pages being read cannot be dropped): reading it
    /// through the cache waits for that.
    fn drop_probed(&mut self, at: u64, len: usize) {
        let mut scratch = std::mem::take(&mut self.staging);
        scratch.resize(scratch.len().max(len), 0);
        if let Some(b) = scratch.get_mut(..len) {
            let _ = self.file.read_at(b, at);
        }
        self.staging = scratch;
        self.drop_pages(at, at.saturating_add(len as u64));
    }

    /// Drop the pages holding `[start, end)` from the page cache, and
    /// remember them for the drop on close.
    fn drop_pages(&mut self, start: u64, end: u64) {
        self.remember(start, end);
        self.drop_range(start, end);
    }

    fn remember(&mut self, start: u64, end: u64) {
        if let Some(last) = self.brought_in.last_mut()
            && start <= last.1
            && end >= last.0
        {
            *last = (last.0.min(start), last.1.max(end));
            return;
        }
        if self.brought_in.len() >= MAX_RANGES {
            // (merge the two closest: a range may then cover a page the
            // cache held, dropped once more at close)
            let gaps = self.brought_in.windows(2).map(|w| match w {
                [a, b] => b.0.saturating_sub(a.1),
                _ => u64::MAX,
            });
            if let Some((i, _)) = gaps.enumerate().min_by_key(|&(_, g)| g)
                && let (Some(&a), Some(&b)) = (self.brought_in.get(i), self.brought_in.get(i.saturating_add(1)))
            {
                self.brought_in.splice(i..i.saturating_add(2), [(a.0, b.1)]);
            }
        }
        self.brought_in.push((start, end));
    }

    /// Drop the pages holding `[start, end)` from the page cache.
    fn drop_range(&self, start: u64, end: u64) {
        let page = page_size();
        let start = start.saturating_sub(start.checked_rem(page).unwrap_or(0));
        let end = end.div_ceil(page).saturating_mul(page);
        if let Some(len) = NonZeroU64::new(end.saturating_sub(start)) {
            let _ = fadvise(&self.file, start, Some(len), Advice::DontNeed);
        }
    }
}

impl Drop for LiveFile {
    fn drop(&mut self) {
        for &(start, end) in &self.brought_in {
            self.drop_range(start, end);
        }
    }
}

impl Read for LiveFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = buf.len().min(MAX_READ);
        let Some(buf) = buf.get_mut(..len).filter(|b| !b.is_empty()) else { return Ok(0) };
        throttle(buf.len() as u64);
        let at = self.pos;
        if !self.nowait {
            let n = self.file.read_at(buf, at)?;
            self.pos = at.saturating_add(n as u64);
            return Ok(n);
        }
        // ask the cache, one page first: a probe whose first page is not
        // cached makes the kernel read every missing page it spans (as
        // logtool's, to be dropped again, and the broker's cached ones among
        // them would be dropped with them), so the whole buffer is asked
        // only once its first page is known cached; the kernel then returns
        // the cached run from there and reads nothing
        let page = page_size();
        let first =
            usize::try_from(page.saturating_sub(at.checked_rem(page).unwrap_or(0))).unwrap_or(buf.len()).min(buf.len());
        let probe = |b: &mut [u8]| preadv2(&self.file, &mut [IoSliceMut::new(b)], at, ReadWriteFlags::NOWAIT);
        match probe(buf.get_mut(..first).unwrap_or_default()) {
            Ok(n) => {
                // cached (or the end of the file): the broker's, left alone
                let whole = n == first && buf.len() > first;
                let n = if whole {
                    match probe(buf) {
                        Ok(m) => m.max(first),
                        // (evicted in between: the first page is read)
                        Err(Errno::AGAIN) => first,
                        Err(e) => return Err(e.into()),
                    }
                } else {
                    n
                };
                let end = at.saturating_add(buf.len() as u64);
                if whole && n < buf.len() && end <= self.current_len().unwrap_or(0) {
                    // the cached run ended before the file did: asking
                    // made the kernel read the rest of the request, which
                    // is logtool's (a page the broker cached within it is
                    // dropped too: the rare mixed case)
                    let from = at.saturating_add(n as u64);
                    self.drop_probed(from, usize::try_from(end.saturating_sub(from)).unwrap_or(0));
                }
                self.pos = at.saturating_add(n as u64);
                return Ok(n);
            }
            Err(Errno::AGAIN) => {}
            Err(Errno::OPNOTSUPP | Errno::NOSYS | Errno::INVAL) => {
                self.nowait = false;
                return self.read(buf);
            }
            Err(e) => return Err(e.into()),
        }
        let probe_len = first;
        // not cached: the probe started reading its page into the cache;
        // read the data past the cache, then let that page go
        let n = match self.read_direct(buf, at)? {
            Some(n) => n,
            None => {
                let cold = buf.len().min(COLD_RUN);
                let n = self.file.read_at(buf.get_mut(..cold).unwrap_or_default(), at)?;
                self.drop_pages(at, at.saturating_add(n as u64));
                n
            }
        };
        self.drop_probed(at, probe_len);
        self.pos = at.saturating_add(n as u64);
        Ok(n)
    }
}

impl Seek for LiveFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let new = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
            SeekFrom::End(d) => self.current_len()?.checked_add_signed(d),
        };
        self.pos = new.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        Ok(self.pos)
    }
}

/// The process-wide read budget (`--max-rate`).
struct Bucket {
    rate: u64,
    /// Bytes that may be read now (negative: owed).
    tokens: f64,
    at: Instant,
}

static BUCKET: Mutex<Option<Bucket>> = Mutex::new(None);

/// Throttle every later read of the process to `bytes_per_sec` together
/// (`None`: no limit).
pub fn set_max_rate(bytes_per_sec: Option<u64>) {
    if let Ok(mut b) = BUCKET.lock() {
        *b = bytes_per_sec.filter(|&r| r > 0).map(|rate| Bucket { rate, tokens: 0.0, at: Instant::now() });
    }
}

/// Take `n` bytes from the budget, sleeping until they are there.
fn throttle(n: u64) {
    let wait = {
        let Ok(mut guard) = BUCKET.lock() else { return };
        let Some(b) = guard.as_mut() else { return };
        b.take(n, Instant::now())
    };
    if !wait.is_zero() {
        std::thread::sleep(wait);
    }
}

impl Bucket {
    /// Take `n` bytes at `now`: how long to wait for them.
    fn take(&mut self, n: u64, now: Instant) -> Duration {
        let rate = self.rate as f64;
        // at most one second's worth saved up
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * rate).min(rate);
        self.at = now;
        self.tokens -= n as f64;
        if self.tokens >= 0.0 { Duration::ZERO } else { Duration::from_secs_f64(-self.tokens / rate) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_seeks_like_a_file() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap_or_else(|e| panic!("{e}"));
        let mut f = LiveFile::open(&p).unwrap_or_else(|e| panic!("{e}"));
        let mut all = Vec::new();
        f.read_to_end(&mut all).unwrap_or_else(|e| panic!("{e}"));
        assert!(all == data);
        f.seek(SeekFrom::Start(1000)).unwrap_or_else(|e| panic!("{e}"));
        let mut b = [0u8; 10];
        f.read_exact(&mut b).unwrap_or_else(|e| panic!("{e}"));
        assert!(b.as_slice() == data.get(1000..1010).unwrap_or_default());
    }

    #[test]
    fn the_bucket_paces_reads() {
        let t0 = Instant::now();
        let mut b = Bucket { rate: 1 << 20, tokens: 0.0, at: t0 };
        // starting empty: 512 KiB wait half a second
        assert_eq!(b.take(512 << 10, t0), Duration::from_millis(500));
        // a second later, 1 MiB more is owed half a second
        assert_eq!(b.take(1 << 20, t0 + Duration::from_secs(1)), Duration::from_millis(500));
        // saved up for an hour: still at most one second's worth
        assert_eq!(b.take(1 << 20, t0 + Duration::from_secs(3600)), Duration::ZERO);
        assert!(b.take(1, t0 + Duration::from_secs(3600)) > Duration::ZERO);
    }
}
