//! Reading `.log` segments (and KRaft `.checkpoint` snapshots, which have the
//! same framing) entry by entry, with bounded memory.
//!
//! A [`LogReader`] keeps a window of the file: at most one entry plus a read-
//! ahead chunk is in memory, whatever the file's size. It yields
//! [`Item::Entry`] for each entry whose framing is sound, a v2
//! [`RecordBatch`] or a legacy [`LegacyMessage`], *without* checking its CRC
//! (callers decide; `dump` prints `crc_valid`), and [`Item::Damage`] for a byte
//! range that is not a readable entry. After damage the reader resynchronises:
//! it scans forward for the next position that holds a complete entry with a
//! valid checksum and continues there, so every bad range is reported as
//! `[start, end)` and nothing after it is lost.
//!
//! Damage is a *truncated tail* only if it runs to the end of the file, starts
//! with an entry header that is sound as far as it goes, and no valid entry
//! follows it: a torn final write. Anything else is corruption, including a
//! length field that points past the end of the file while a valid entry
//! follows.
//!
//! Framing checks, mirroring `FileLogInputStream` but stricter: an entry needs
//! 17 bytes to be recognised; its size field must be at least 14 (the smallest
//! v0 message; a zero-filled region fails here), its magic 0, 1 or 2 (Kafka
//! would read magic 3..127 as v2), a v2 batch at least 61 bytes, and no entry
//! may exceed [`Limits::max_batch_size`].

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::batch::RecordBatch;
use crate::cursor::End;
use crate::error::{Error, ErrorKind, Result};
use crate::legacy::LegacyMessage;
use crate::limits::Limits;
use crate::spec::batch::RECORD_BATCH_OVERHEAD;
use crate::spec::legacy::{RECORD_OVERHEAD_V0, RECORD_OVERHEAD_V1};
use crate::spec::log::{HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, MAGIC_VALUE_V0, MAGIC_VALUE_V1, MAGIC_VALUE_V2};

/// Read-ahead: bytes read from the file at a time beyond what an entry needs.
const CHUNK: usize = 256 << 10;

/// One entry of a log: a v2 batch or a legacy message (maybe a wrapper).
#[derive(Clone, Copy, Debug)]
pub enum Entry<'a> {
    /// Magic 2.
    V2(RecordBatch<'a>),
    /// Magic 0 or 1.
    Legacy(LegacyMessage<'a>),
}

impl Entry<'_> {
    /// Absolute position of the entry's first byte.
    pub fn position(&self) -> u64 {
        match self {
            Entry::V2(b) => b.position(),
            Entry::Legacy(m) => m.position(),
        }
    }

    /// Size of the entry in bytes, prefix included.
    pub fn size(&self) -> u64 {
        match self {
            Entry::V2(b) => b.bytes().len() as u64,
            Entry::Legacy(m) => m.size_in_bytes(),
        }
    }

    /// The magic byte.
    pub fn magic(&self) -> i8 {
        match self {
            Entry::V2(b) => b.header().magic,
            Entry::Legacy(m) => m.magic,
        }
    }

    /// The last offset the entry covers.
    pub fn last_offset(&self) -> i64 {
        match self {
            Entry::V2(b) => b.header().last_offset(),
            Entry::Legacy(m) => m.offset,
        }
    }

    /// Whether the stored checksum matches.
    pub fn is_valid(&self) -> bool {
        match self {
            Entry::V2(b) => b.is_valid(),
            Entry::Legacy(m) => m.is_valid(),
        }
    }
}

/// A byte range that is not a readable entry.
#[derive(Debug)]
pub struct Damage {
    /// First damaged byte.
    pub start: u64,
    /// End (exclusive): the next readable entry, or the end of the data.
    pub end: u64,
    /// Why the entry at `start` could not be read.
    pub error: Error,
    /// A torn final write rather than corruption (see the module docs).
    pub truncated_tail: bool,
}

/// What [`LogReader::next_item`] yields.
#[derive(Debug)]
pub enum Item<'a> {
    /// An entry with sound framing (its CRC is not checked).
    Entry(Entry<'a>),
    /// A damaged range; reading continues after it.
    Damage(Damage),
}

/// Where a sound entry lies in the window.
#[derive(Clone, Copy)]
struct Loc {
    start: u64,
    len: usize,
    magic: i8,
}

/// Streaming reader of a `.log` file (or any source of entries).
pub struct LogReader<R = File> {
    src: R,
    path: Option<PathBuf>,
    /// End of the data to read (the file length, or less with `set_end`).
    end: u64,
    /// Position of the next entry.
    pos: u64,
    win: Vec<u8>,
    win_start: u64,
    /// Position the source's cursor is at.
    src_pos: u64,
    limits: Limits,
}

impl LogReader<File> {
    /// Open a file for reading.
    pub fn open(path: &Path, limits: Limits) -> Result<LogReader<File>> {
        let f = File::open(path).map_err(|e| Error::io(e, Some(path)))?;
        let len = f.metadata().map_err(|e| Error::io(e, Some(path)))?.len();
        let mut r = LogReader::new(f, len, limits);
        r.path = Some(path.to_path_buf());
        Ok(r)
    }
}

impl<R: Read + Seek> LogReader<R> {
    /// Read `len` bytes of `src`, from its start.
    pub fn new(src: R, len: u64, limits: Limits) -> LogReader<R> {
        LogReader { src, path: None, end: len, pos: 0, win: Vec::new(), win_start: 0, src_pos: 0, limits }
    }

    /// Name the file in errors.
    pub fn set_path(&mut self, path: &Path) {
        self.path = Some(path.to_path_buf());
    }

    /// Read only up to `end` (Kafka's `--max-bytes`: entries must lie entirely
    /// before it).
    pub fn set_end(&mut self, end: u64) {
        self.end = self.end.min(end);
    }

    /// End of the data being read.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// Position of the next entry.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Continue reading at `pos` (e.g. a position from the offset index).
    pub fn seek(&mut self, pos: u64) {
        self.pos = pos.min(self.end);
    }

    fn io(&self, e: std::io::Error) -> Error {
        Error::io(e, self.path.as_deref())
    }

    fn with_path(&self, e: Error) -> Error {
        match &self.path {
            Some(p) => e.with_path(p),
            None => e,
        }
    }

    /// Make the window hold `[pos, pos + n)` (the caller guarantees it lies
    /// before `end`) and return it.
    fn load(&mut self, pos: u64, n: usize) -> Result<&[u8]> {
        let win_end = self.win_start.saturating_add(self.win.len() as u64);
        let want_end = pos.saturating_add(n as u64);
        if pos < self.win_start || pos > win_end {
            self.win.clear();
            self.win_start = pos;
        } else if want_end > win_end {
            // keep the bytes from `pos` on, drop the rest
            let drop = usize::try_from(pos.saturating_sub(self.win_start)).unwrap_or(usize::MAX);
            self.win.drain(..drop.min(self.win.len()));
            self.win_start = pos;
        }
        let have_end = self.win_start.saturating_add(self.win.len() as u64);
        if want_end > have_end {
            let need = want_end.saturating_sub(have_end);
            let read = need.max(CHUNK as u64).min(self.end.saturating_sub(have_end));
            if self.src_pos != have_end {
                self.src.seek(SeekFrom::Start(have_end)).map_err(|e| self.io(e))?;
                self.src_pos = have_end;
            }
            let before = self.win.len();
            let got = (&mut self.src).take(read).read_to_end(&mut self.win).map_err(|e| self.io(e))?;
            self.src_pos = self.src_pos.saturating_add(got as u64);
            if (self.win.len().saturating_sub(before) as u64) < need {
                return Err(self.io(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the file became shorter while it was read",
                )));
            }
        }
        let from = usize::try_from(pos.saturating_sub(self.win_start)).unwrap_or(usize::MAX);
        let to = from.saturating_add(n);
        self.win.get(from..to).ok_or_else(|| self.io(std::io::Error::other("window out of range")))
    }

    /// Check the framing of the entry at `self.pos` and load it.
    fn frame(&mut self) -> Result<Option<Loc>> {
        let start = self.pos;
        let remaining = self.end.saturating_sub(start);
        if remaining == 0 {
            return Ok(None);
        }
        let head_len = (remaining.min(HEADER_SIZE_UP_TO_MAGIC as u64)) as usize;
        let head = self.load(start, head_len)?;
        let field = |at: usize| -> Option<[u8; 4]> { head.get(at..at.saturating_add(4))?.try_into().ok() };
        let Some(size) = field(8).map(i32::from_be_bytes) else {
            let needed = (LOG_OVERHEAD as u64).saturating_sub(remaining);
            return Err(Error::truncated(start, "log entry header", needed));
        };
        let size_pos = start.saturating_add(8);
        if size < RECORD_OVERHEAD_V0 as i32 {
            return Err(Error::at(
                size_pos,
                ErrorKind::BadLength {
                    what: "batch size",
                    value: size.into(),
                    min: RECORD_OVERHEAD_V0 as i64,
                    max: i32::MAX.into(),
                },
            ));
        }
        let total = (size as u64).saturating_add(LOG_OVERHEAD as u64);
        let Some(&magic) = head.get(16) else {
            let needed = total.saturating_sub(remaining);
            return Err(Error::truncated(start, "record batch", needed));
        };
        let magic = magic as i8;
        if !(MAGIC_VALUE_V0..=MAGIC_VALUE_V2).contains(&magic) {
            return Err(Error::at(start.saturating_add(16), ErrorKind::BadMagic { magic }));
        }
        let min = match magic {
            MAGIC_VALUE_V2 => RECORD_BATCH_OVERHEAD,
            MAGIC_VALUE_V1 => RECORD_OVERHEAD_V1.saturating_add(LOG_OVERHEAD),
            _ => RECORD_OVERHEAD_V0.saturating_add(LOG_OVERHEAD),
        } as u64;
        if total < min {
            return Err(Error::at(
                size_pos,
                ErrorKind::BadLength {
                    what: "batch size",
                    value: size.into(),
                    min: min.saturating_sub(LOG_OVERHEAD as u64) as i64,
                    max: i32::MAX.into(),
                },
            ));
        }
        if total > u64::from(self.limits.max_batch_size) {
            return Err(Error::at(
                size_pos,
                ErrorKind::BadLength {
                    what: "batch size (see --max-batch-size)",
                    value: size.into(),
                    min: min.saturating_sub(LOG_OVERHEAD as u64) as i64,
                    max: i64::from(self.limits.max_batch_size).saturating_sub(LOG_OVERHEAD as i64),
                },
            ));
        }
        if total > remaining {
            return Err(Error::truncated(start, "record batch", total.saturating_sub(remaining)));
        }
        let len = total as usize;
        let bytes = self.load(start, len)?;
        // Parse once to validate the structure beyond the framing.
        match magic {
            MAGIC_VALUE_V2 => RecordBatch::parse(bytes, start).map(|_| ())?,
            _ => LegacyMessage::parse(bytes, start, End::File).map(|_| ())?,
        }
        Ok(Some(Loc { start, len, magic }))
    }

    fn entry(&self, loc: Loc) -> Result<Entry<'_>> {
        let from = usize::try_from(loc.start.saturating_sub(self.win_start)).unwrap_or(usize::MAX);
        let bytes = self
            .win
            .get(from..from.saturating_add(loc.len))
            .ok_or_else(|| Error::io(std::io::Error::other("window out of range"), self.path.as_deref()))?;
        Ok(match loc.magic {
            MAGIC_VALUE_V2 => Entry::V2(RecordBatch::parse(bytes, loc.start)?),
            _ => Entry::Legacy(LegacyMessage::parse(bytes, loc.start, End::File)?),
        })
    }

    /// Read the next entry or damaged range; `Ok(None)` at the end of the
    /// data. Only I/O failures are errors.
    pub fn next_item(&mut self) -> Result<Option<Item<'_>>> {
        match self.frame() {
            Ok(Some(loc)) => {
                self.pos = loc.start.saturating_add(loc.len as u64);
                Ok(Some(Item::Entry(self.entry(loc).map_err(|e| self.with_path(e))?)))
            }
            Ok(None) => Ok(None),
            Err(e) if e.class() == crate::error::ErrorClass::Io => Err(e),
            Err(e) => {
                let error = self.with_path(e);
                let start = self.pos;
                match self.find_entry_after(start)? {
                    Some(next) => {
                        self.pos = next;
                        // a length that runs past the end of the file is no torn
                        // tail when a readable entry follows: the length is corrupt
                        let error = if error.is_truncated() {
                            self.with_path(Error::malformed(
                                start,
                                "record batch",
                                format!(
                                    "its length runs past the end of the file, but a valid entry follows at byte {next}"
                                ),
                            ))
                        } else {
                            error
                        };
                        Ok(Some(Item::Damage(Damage { start, end: next, error, truncated_tail: false })))
                    }
                    None => {
                        self.pos = self.end;
                        let truncated_tail = error.is_truncated();
                        Ok(Some(Item::Damage(Damage { start, end: self.end, error, truncated_tail })))
                    }
                }
            }
        }
    }

    /// The first position after `start` that holds a complete entry with a
    /// valid checksum, if any.
    pub fn find_entry_after(&mut self, start: u64) -> Result<Option<u64>> {
        let hdr = HEADER_SIZE_UP_TO_MAGIC as u64;
        let mut q = start.saturating_add(1);
        while q.saturating_add(hdr) <= self.end {
            let span = (self.end.saturating_sub(q)).min(CHUNK as u64) as usize;
            let max = self.limits.max_batch_size;
            let end = self.end;
            let chunk = self.load(q, span)?;
            // candidate headers whose first 17 bytes lie in this chunk
            let mut candidates = Vec::new();
            let mut i = 0usize;
            while i.saturating_add(HEADER_SIZE_UP_TO_MAGIC) <= chunk.len() {
                if let Some(h) = chunk.get(i..i.saturating_add(HEADER_SIZE_UP_TO_MAGIC)) {
                    let at = q.saturating_add(i as u64);
                    if plausible(h, at, end, max) {
                        candidates.push(at);
                    }
                }
                i = i.saturating_add(1);
            }
            for at in candidates {
                if self.checksum_ok(at)? {
                    return Ok(Some(at));
                }
            }
            // next chunk overlaps so a header straddling the boundary is seen
            let step = (span.saturating_sub(HEADER_SIZE_UP_TO_MAGIC)).saturating_add(1).max(1);
            q = q.saturating_add(step as u64);
        }
        Ok(None)
    }

    /// Load the entry at `at` (already found plausible) and check its CRC.
    fn checksum_ok(&mut self, at: u64) -> Result<bool> {
        let head = self.load(at, HEADER_SIZE_UP_TO_MAGIC)?;
        let size = head.get(8..12).and_then(|b| b.try_into().ok()).map_or(0, i32::from_be_bytes);
        let magic = head.get(16).map_or(-1, |&m| m as i8);
        let total = (size.max(0) as usize).saturating_add(LOG_OVERHEAD);
        let bytes = self.load(at, total)?;
        Ok(match magic {
            MAGIC_VALUE_V2 => RecordBatch::parse(bytes, at).is_ok_and(|b| b.is_valid()),
            _ => LegacyMessage::parse(bytes, at, End::File).is_ok_and(|m| m.is_valid()),
        })
    }
}

/// Cheap test of a 17-byte header: could an entry start here?
fn plausible(h: &[u8], at: u64, end: u64, max: u32) -> bool {
    let (Some(offset), Some(size), Some(&magic)) = (
        h.get(0..8).and_then(|b| b.try_into().ok()).map(i64::from_be_bytes),
        h.get(8..12).and_then(|b| b.try_into().ok()).map(i32::from_be_bytes),
        h.get(16),
    ) else {
        return false;
    };
    let magic = magic as i8;
    let min = match magic {
        MAGIC_VALUE_V2 => RECORD_BATCH_OVERHEAD.saturating_sub(LOG_OVERHEAD),
        MAGIC_VALUE_V1 => RECORD_OVERHEAD_V1,
        MAGIC_VALUE_V0 => RECORD_OVERHEAD_V0,
        _ => return false,
    };
    if offset < 0 || size < min as i32 {
        return false;
    }
    let total = (size as u64).saturating_add(LOG_OVERHEAD as u64);
    total <= u64::from(max) && at.saturating_add(total) <= end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{batch, segment};
    use std::io::Cursor as IoCursor;

    fn items(data: &[u8]) -> Vec<String> {
        let mut r = LogReader::new(IoCursor::new(data.to_vec()), data.len() as u64, Limits::default());
        let mut out = Vec::new();
        while let Some(item) = r.next_item().unwrap() {
            out.push(match item {
                Item::Entry(e) => format!("entry@{} last={}", e.position(), e.last_offset()),
                Item::Damage(d) => format!("damage@{}..{} tail={}", d.start, d.end, d.truncated_tail),
            });
        }
        out
    }

    #[test]
    fn reads_all_entries() {
        let seg = segment(&[batch(0, 3), batch(3, 2)]);
        let n0 = batch(0, 3).len();
        assert_eq!(items(&seg), vec!["entry@0 last=2".to_string(), format!("entry@{n0} last=4")]);
    }

    #[test]
    fn torn_tail_is_truncated() {
        let seg = segment(&[batch(0, 3), batch(3, 2)]);
        let cut = &seg[..seg.len() - 5];
        let n0 = batch(0, 3).len() as u64;
        assert_eq!(items(cut), vec!["entry@0 last=2".to_string(), format!("damage@{n0}..{} tail=true", cut.len())]);
    }

    #[test]
    fn corruption_in_the_middle_resyncs() {
        let seg = segment(&[batch(0, 3), batch(3, 2), batch(5, 1)]);
        let n0 = batch(0, 3).len();
        let n1 = batch(3, 2).len();
        let mut bad = seg.clone();
        // break the second batch's length so it points past the end of the file
        bad[n0 + 8..n0 + 12].copy_from_slice(&(1i32 << 20).to_be_bytes());
        assert_eq!(
            items(&bad),
            vec![
                "entry@0 last=2".to_string(),
                format!("damage@{n0}..{} tail=false", n0 + n1),
                format!("entry@{} last=5", n0 + n1)
            ]
        );
    }

    #[test]
    fn zeros_are_corrupt_not_truncated() {
        let mut seg = segment(&[batch(0, 3)]);
        let n = seg.len();
        seg.extend([0u8; 100]);
        assert_eq!(items(&seg), vec!["entry@0 last=2".to_string(), format!("damage@{n}..{} tail=false", n + 100)]);
    }
}
