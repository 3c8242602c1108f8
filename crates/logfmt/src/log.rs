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
    /// Every byte of the range is zero (a zero-filled region).
    pub zeroed: bool,
}

/// What [`LogReader::next_item`] yields.
#[derive(Debug)]
pub enum Item<'a> {
    /// An entry with sound framing (its CRC is not checked).
    Entry(Entry<'a>),
    /// A damaged range; reading continues after it.
    Damage(Damage),
}

/// A run of items detached from a [`LogReader`] (see
/// [`LogReader::next_slab`]).
#[derive(Debug)]
pub struct Slab {
    bytes: Vec<u8>,
    start: u64,
    /// The items, in file order.
    pub items: Vec<SlabItem>,
}

/// An item of a [`Slab`].
#[derive(Debug)]
pub enum SlabItem {
    /// An entry with sound framing, at `offset` in the slab.
    Entry {
        /// Where it starts in the slab.
        offset: usize,
        /// Its size.
        len: usize,
        /// Its magic byte.
        magic: i8,
    },
    /// A damaged range.
    Damage(Damage),
}

impl Slab {
    /// Absolute position of the slab's first byte.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// Bytes the slab's entries cover.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True for a slab of damage only.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Bytes of the file the slab covers, damage included.
    pub fn span(&self) -> u64 {
        match self.items.last() {
            Some(SlabItem::Damage(d)) => d.end.saturating_sub(self.start),
            _ => self.bytes.len() as u64,
        }
    }

    /// The entry of an [`SlabItem::Entry`]; `None` for damage.
    pub fn entry(&self, item: &SlabItem) -> Option<Entry<'_>> {
        let SlabItem::Entry { offset, len, magic } = *item else { return None };
        let bytes = self.bytes.get(offset..offset.saturating_add(len))?;
        let position = self.start.saturating_add(offset as u64);
        // framing was checked when the slab was read
        match magic {
            MAGIC_VALUE_V2 => RecordBatch::parse(bytes, position).ok().map(Entry::V2),
            _ => LegacyMessage::parse(bytes, position, End::File).ok().map(Entry::Legacy),
        }
    }
}

/// What framing a slab found.
enum Framed {
    Items(Vec<SlabItem>),
    /// The first entry is damaged.
    Damage(Error),
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
    /// While a slab is built, the window keeps every byte from here on.
    pin: Option<u64>,
    /// A buffer given back by a slab's consumer, reused for the window.
    spare: Option<Vec<u8>>,
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
        LogReader {
            src,
            path: None,
            end: len,
            pos: 0,
            win: Vec::new(),
            win_start: 0,
            src_pos: 0,
            pin: None,
            spare: None,
            limits,
        }
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
            // keep the bytes from `pos` on (and from the pin), drop the rest
            let keep = self.pin.map_or(pos, |p| p.min(pos)).max(self.win_start);
            let drop = usize::try_from(keep.saturating_sub(self.win_start)).unwrap_or(usize::MAX);
            self.win.drain(..drop.min(self.win.len()));
            self.win_start = keep;
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
            Err(e) => Ok(Some(Item::Damage(self.damage(e)?))),
        }
    }

    /// The damaged range starting at `self.pos`, where reading failed with
    /// `error`: resynchronise at the next readable entry (or the end).
    fn damage(&mut self, error: Error) -> Result<Damage> {
        let error = self.with_path(error);
        let start = self.pos;
        let (end, error, truncated_tail) = match self.find_entry_after(start)? {
            Some(next) => {
                // a length that runs past the end of the file is no torn
                // tail when a readable entry follows: the length is corrupt
                let error = if error.is_truncated() {
                    self.with_path(Error::malformed(
                        start,
                        "record batch",
                        format!("its length runs past the end of the file, but a valid entry follows at byte {next}"),
                    ))
                } else {
                    error
                };
                (next, error, false)
            }
            None => {
                let t = error.is_truncated();
                (self.end, error, t)
            }
        };
        let zeroed = self.all_zero(start, end)?;
        self.pos = end;
        Ok(Damage { start, end, error, truncated_tail, zeroed })
    }

    /// Read a run of whole entries of about `target` bytes (at least one
    /// item), detached from the reader so it can be processed elsewhere while
    /// reading goes on. Damage ends a slab: it comes alone, in the next one.
    /// The bytes are moved out of the reader's window, not copied.
    pub fn next_slab(&mut self, target: usize) -> Result<Option<Slab>> {
        let start = self.pos;
        if start >= self.end {
            return Ok(None);
        }
        let want = (self.end.saturating_sub(start)).min(target as u64) as usize;
        self.load(start, want)?;
        self.pin = Some(start);
        let framed = self.frame_slab(start, target);
        self.pin = None;
        let items = match framed? {
            Framed::Items(items) => items,
            Framed::Damage(e) => {
                let d = self.damage(e)?;
                return Ok(Some(Slab { bytes: Vec::new(), start, items: vec![SlabItem::Damage(d)] }));
            }
        };
        // detach [start, pos) from the window; the rest (a partial entry at
        // most) stays for the next slab
        let from = usize::try_from(start.saturating_sub(self.win_start)).unwrap_or(usize::MAX).min(self.win.len());
        let to = usize::try_from(self.pos.saturating_sub(self.win_start)).unwrap_or(usize::MAX).min(self.win.len());
        // the next window: a recycled buffer, or one sized for the next slab
        // (growing a small one would copy and fault in pages over and over)
        let mut next = self.spare.take().unwrap_or_default();
        next.clear();
        next.reserve(target.saturating_add(CHUNK));
        next.extend_from_slice(self.win.get(to..).unwrap_or_default());
        self.win.truncate(to);
        let mut bytes = std::mem::replace(&mut self.win, next);
        bytes.drain(..from);
        self.win_start = self.pos;
        Ok(Some(Slab { bytes, start, items }))
    }

    /// Give a processed slab's buffer back for reuse by [`LogReader::next_slab`].
    pub fn recycle(&mut self, slab: Slab) {
        self.spare = Some(slab.bytes);
    }

    /// Frame entries from `start` (pinned in the window) up to about `target`
    /// bytes; an error on the first entry is returned for damage handling.
    fn frame_slab(&mut self, start: u64, target: usize) -> Result<Framed> {
        let mut items = Vec::new();
        while self.pos < self.end && self.pos.saturating_sub(start) < target as u64 {
            match self.frame() {
                Ok(Some(loc)) => {
                    let offset = usize::try_from(loc.start.saturating_sub(start)).unwrap_or(usize::MAX);
                    items.push(SlabItem::Entry { offset, len: loc.len, magic: loc.magic });
                    self.pos = loc.start.saturating_add(loc.len as u64);
                }
                Ok(None) => break,
                Err(e) if e.class() == crate::error::ErrorClass::Io => return Err(e),
                Err(e) if items.is_empty() => return Ok(Framed::Damage(e)),
                Err(_) => break,
            }
        }
        Ok(Framed::Items(items))
    }

    /// Whether every byte of `[start, end)` is zero (a zero-filled region, as a
    /// filesystem leaves after a crash or preallocation). Reads in chunks.
    pub fn all_zero(&mut self, start: u64, end: u64) -> Result<bool> {
        let end = end.min(self.end);
        let mut q = start;
        while q < end {
            let n = (end.saturating_sub(q)).min(CHUNK as u64) as usize;
            if self.load(q, n)?.iter().any(|&b| b != 0) {
                return Ok(false);
            }
            q = q.saturating_add(n as u64);
        }
        Ok(true)
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

    /// Slabs hold the same items as `next_item` gives, for any slab size.
    fn slab_items(data: &[u8], target: usize) -> Vec<String> {
        let mut r = LogReader::new(IoCursor::new(data.to_vec()), data.len() as u64, Limits::default());
        let mut out = Vec::new();
        while let Some(slab) = r.next_slab(target).unwrap() {
            for item in &slab.items {
                out.push(match (item, slab.entry(item)) {
                    (SlabItem::Damage(d), _) => format!("damage@{}..{} tail={}", d.start, d.end, d.truncated_tail),
                    (_, Some(e)) => format!("entry@{} last={}", e.position(), e.last_offset()),
                    (_, None) => "unparsable slab entry".to_string(),
                });
            }
        }
        out
    }

    #[test]
    fn slabs_match_items() {
        let mut seg = segment(&[batch(0, 3), batch(3, 2), batch(5, 7), batch(12, 1), batch(13, 4)]);
        let n = seg.len();
        let mut bad = seg.clone();
        bad[batch(0, 3).len() + 8..batch(0, 3).len() + 12].copy_from_slice(&[0, 0, 0, 0]);
        seg.extend(&batch(17, 2)[..30]);
        for data in [&seg[..], &seg[..n], &bad[..]] {
            let want = items(data);
            for target in [1, 17, 100, 200, 1000, 1 << 20] {
                assert_eq!(slab_items(data, target), want, "slab size {target}");
            }
        }
    }

    #[test]
    fn zeros_are_corrupt_not_truncated() {
        let mut seg = segment(&[batch(0, 3)]);
        let n = seg.len();
        seg.extend([0u8; 100]);
        assert_eq!(items(&seg), vec!["entry@0 last=2".to_string(), format!("damage@{n}..{} tail=false", n + 100)]);
    }
}
