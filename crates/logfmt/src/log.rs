//! Reading `.log` segments (and KRaft `.checkpoint` snapshots, which have the
//! same framing) entry by entry, with bounded memory.
//!
//! A [`LogReader`] keeps a window of the file: the entry being read, the one
//! after it and a read-ahead chunk are in memory, whatever the file's size.
//! It yields [`Item::Entry`] for each entry it trusts, a v2 [`RecordBatch`]
//! or a legacy [`LegacyMessage`], and [`Item::Damage`] for a byte range that
//! is not one. Every range is `[start, end)` with `start < end`, and the items
//! tile the file: each starts where the one before it ends.
//!
//! **Trust.** An entry is trusted when its framing is sound (below), its
//! header fits its position ([`crate::sanity`]: offsets increasing and inside
//! the segment's bounds, leader epochs sane; [`LogReader::set_bounds`]) and
//! what follows it is the next trusted entry or the end of the data. Its CRC
//! is not checked on this path (callers decide; `dump` prints `crc_valid`):
//! an entry whose CRC fails but whose length leads to the next entry is
//! yielded, and is damaged in its contents only.
//!
//! **Damage.** Everything else is damage, named by what is wrong:
//!
//! * a header field outside the CRC that does not fit: when the batch's CRC
//!   is valid (so its length is right), exactly the batch's bytes, with the
//!   field ([`Damage::field`]). An order conflict between two batches is
//!   blamed on the one out of line with its neighbours
//!   ([`crate::sanity::blame_previous`]), which is why one entry is held back
//!   until the next one is framed;
//! * a wrong `batchLength` or `magic`: the batch's bytes up to the next
//!   trusted entry are checked against its stored CRC; when they match, the
//!   field is named;
//! * anything else (a torn write, zeros, garbage): reading resynchronises by
//!   searching forward byte by byte for the next position holding a trusted
//!   entry with a valid CRC, so nothing after the damage is lost.
//!
//! Damage is a *truncated tail* only if it runs to the end of the file, starts
//! with an entry header that is sound as far as it goes, and no valid entry
//! follows it: a torn final write.
//!
//! Framing checks, mirroring `FileLogInputStream` but stricter: an entry needs
//! 17 bytes to be recognised; its size field must be at least 14 (the smallest
//! v0 message; a zero-filled region fails here), its magic 0, 1 or 2 (Kafka
//! would read magic 3..127 as v2), a v2 batch at least 61 bytes, and no entry
//! may exceed [`Limits::max_batch_size`].

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::batch::{BatchHeader, RecordBatch, Spilled};
use crate::budget::{Grant, Short};
use crate::cursor::End;
use crate::error::{Error, ErrorClass, ErrorKind, Result};
use crate::legacy::LegacyMessage;
use crate::limits::Limits;
use crate::live::LiveFile;
use crate::sanity::{self, Bounds, Facts, HeaderField, Prev};
use crate::spec::batch::{
    ATTRIBUTES_OFFSET, CRC_OFFSET, LAST_OFFSET_DELTA_OFFSET, PARTITION_LEADER_EPOCH_OFFSET, RECORD_BATCH_OVERHEAD,
};
use crate::spec::legacy::{RECORD_OVERHEAD_V0, RECORD_OVERHEAD_V1};
use crate::spec::log::{HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, MAGIC_VALUE_V0, MAGIC_VALUE_V1, MAGIC_VALUE_V2};

/// Read-ahead: bytes read from the file at a time beyond what an entry needs.
const CHUNK: usize = 256 << 10;

/// Entries larger than this are not read whole to check a checksum: their
/// bytes stream through the CRC a chunk at a time.
const STREAM_CRC_OVER: usize = 1 << 20;

/// v2 batches larger than this, in a file read by path, are not held: they
/// are yielded spilled ([`RecordBatch::spilled`]), their checksum and
/// records read from the file as they are asked for.
pub const SPILL_OVER: usize = 2 << 20;

/// Bytes of a v2 header the sanity checks read (up to `lastOffsetDelta`).
const FACTS_HEADER: usize = LAST_OFFSET_DELTA_OFFSET + 4;

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
            Entry::V2(b) => b.size(),
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

/// A byte range that is not a trusted entry.
#[derive(Debug)]
pub struct Damage {
    /// First damaged byte.
    pub start: u64,
    /// End (exclusive): the next trusted entry, or the end of the data.
    /// Always above `start`.
    pub end: u64,
    /// What is wrong with the bytes at `start`.
    pub error: Error,
    /// A torn final write rather than corruption (see the module docs).
    pub truncated_tail: bool,
    /// Every byte of the range is zero (a zero-filled region).
    pub zeroed: bool,
    /// The range is one batch whose header field outside the CRC is wrong.
    pub field: Option<HeaderField>,
}

/// What [`LogReader::next_item`] yields.
#[derive(Debug)]
pub enum Item<'a> {
    /// A trusted entry (its CRC is not checked).
    Entry(Entry<'a>),
    /// A damaged range; reading continues after it.
    Damage(Damage),
}

/// A run of items detached from a [`LogReader`] (see
/// [`LogReader::next_slab`]).
#[derive(Debug)]
pub struct Slab {
    bytes: Vec<u8>,
    /// The budget's bytes its buffer holds.
    grant: Grant,
    /// A slab of one spilled batch: `bytes` is its header.
    spilled: Option<Spilled>,
    start: u64,
    /// The items, in file order.
    pub items: Vec<SlabItem>,
}

/// An item of a [`Slab`].
#[derive(Debug)]
pub enum SlabItem {
    /// A trusted entry, at `offset` in the slab.
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
            Some(SlabItem::Entry { len, .. }) if self.spilled.is_some() => *len as u64,
            _ => self.bytes.len() as u64,
        }
    }

    /// The entry of an [`SlabItem::Entry`]; `None` for damage.
    pub fn entry(&self, item: &SlabItem) -> Option<Entry<'_>> {
        let SlabItem::Entry { offset, len, magic } = *item else { return None };
        if let Some(s) = &self.spilled {
            return RecordBatch::spilled(&self.bytes, self.start, len as u64, s).ok().map(Entry::V2);
        }
        let bytes = self.bytes.get(offset..offset.saturating_add(len))?;
        let position = self.start.saturating_add(offset as u64);
        // framing was checked when the slab was read
        match magic {
            MAGIC_VALUE_V2 => RecordBatch::parse(bytes, position).ok().map(Entry::V2),
            _ => LegacyMessage::parse(bytes, position, End::File).ok().map(Entry::Legacy),
        }
    }
}

/// Where a framed entry lies in the file.
#[derive(Clone, Copy, Debug)]
struct Loc {
    start: u64,
    len: usize,
    magic: i8,
}

impl Loc {
    fn end(&self) -> u64 {
        self.start.saturating_add(self.len as u64)
    }
}

/// The last framed entry, held back until the one after it is framed.
#[derive(Clone, Copy, Debug)]
struct Pending {
    loc: Loc,
    facts: Facts,
    /// The state before it was accepted.
    before: Option<Prev>,
}

/// An item decided, waiting to be yielded.
#[derive(Debug)]
enum Ready {
    Entry(Loc),
    Damage(Damage),
}

/// Damage starting at `start`, not yet delimited (its end is found by
/// searching forward when it is its turn).
#[derive(Debug)]
struct Broken {
    start: u64,
    error: Error,
}

/// The reader's window: bytes `[0, len)` of `buf` are the file's from
/// `win_start`. `buf` stays initialised past `len` (its length is what was
/// ever written to it), so refilling it reads straight into memory already
/// written, without zeroing it first as `read_to_end` does: that zeroing
/// was a tenth of `verify`'s time on a cached segment.
#[derive(Default)]
struct Window {
    buf: Vec<u8>,
    len: usize,
}

impl Window {
    /// A window over a buffer given back (its bytes are initialised).
    fn from_vec(buf: Vec<u8>) -> Window {
        Window { buf, len: 0 }
    }

    /// The window's bytes as a vector of exactly them.
    fn into_vec(mut self) -> Vec<u8> {
        self.buf.truncate(self.len);
        self.buf
    }

    fn len(&self) -> usize {
        self.len
    }

    fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    fn get(&self, r: std::ops::Range<usize>) -> Option<&[u8]> {
        self.buf.get(..self.len)?.get(r)
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn truncate(&mut self, n: usize) {
        self.len = self.len.min(n);
    }

    /// Drop the first `n` bytes (moving the rest to the front).
    fn drain_front(&mut self, n: usize) {
        let n = n.min(self.len);
        self.buf.copy_within(n..self.len, 0);
        self.len = self.len.saturating_sub(n);
    }

    /// Capacity for `additional` bytes after the window's.
    fn reserve_exact(&mut self, additional: usize) {
        if self.len.saturating_add(additional) > self.buf.capacity() {
            // what is past the window need not move with it
            self.buf.truncate(self.len);
            self.buf.reserve_exact(additional);
        }
    }

    fn shrink_to(&mut self, n: usize) {
        self.buf.truncate(self.len);
        self.buf.shrink_to(n);
    }

    fn extend_from_slice(&mut self, b: &[u8]) {
        let end = self.len.saturating_add(b.len());
        if end > self.buf.len() {
            self.buf.truncate(self.len);
            self.buf.extend_from_slice(b);
        } else if let Some(to) = self.buf.get_mut(self.len..end) {
            to.copy_from_slice(b);
        }
        self.len = end.min(self.buf.len());
    }

    /// Append up to `max` bytes read from `src` (fewer at its end); the
    /// bytes appended.
    fn fill_from(&mut self, src: &mut impl Read, max: usize) -> std::io::Result<usize> {
        let end = self.len.saturating_add(max);
        if end > self.buf.len() {
            self.buf.resize(end, 0);
        }
        let mut got = 0usize;
        while got < max {
            let from = self.len.saturating_add(got);
            let Some(to) = self.buf.get_mut(from..end) else { break };
            match src.read(to) {
                Ok(0) => break,
                Ok(n) => got = got.saturating_add(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.len = self.len.saturating_add(got);
        Ok(got)
    }
}

/// Streaming reader of a `.log` file (or any source of entries).
pub struct LogReader<R = LiveFile> {
    src: R,
    path: Option<PathBuf>,
    /// End of the data to read (the file length, or less with `set_end`).
    end: u64,
    /// Start of the next item to yield.
    pos: u64,
    /// Next byte to frame (at or after `pos`).
    front: u64,
    win: Window,
    win_start: u64,
    /// Position the source's cursor is at.
    src_pos: u64,
    /// The window keeps every byte from here on.
    pin: Option<u64>,
    /// A buffer given back by a slab's consumer, reused for the window.
    spare: Option<Vec<u8>>,
    /// The budget's bytes the window and the spare buffer hold (their
    /// capacity): a large entry is read only when the budget gives room for it.
    grant: Grant,
    /// Reading by path: batches above [`SPILL_OVER`] are yielded spilled.
    spill: Option<Spilled>,
    limits: Limits,
    bounds: Bounds,
    /// After the last accepted entry.
    prev: Option<Prev>,
    pending: Option<Pending>,
    ready: VecDeque<Ready>,
    broken: Option<Broken>,
    /// The source's length when the reader was made.
    opened_len: u64,
}

impl LogReader<LiveFile> {
    /// Open a file for reading (through [`LiveFile`]: the page cache is left
    /// as it was), up to its length now.
    pub fn open(path: &Path, limits: Limits) -> Result<LogReader<LiveFile>> {
        let f = LiveFile::open(path).map_err(|e| Error::io(e, Some(path)))?;
        let len = f.current_len().map_err(|e| Error::io(e, Some(path)))?;
        let mut r = LogReader::new(f, len, limits);
        r.path = Some(path.to_path_buf());
        r.spill = Some(Spilled { path: std::sync::Arc::from(path) });
        Ok(r)
    }

    /// How many bytes were appended to the file since it was opened (a live
    /// broker's active segment): they are not read.
    pub fn grown_by(&self) -> u64 {
        self.src.current_len().map_or(0, |now| now.saturating_sub(self.opened_len))
    }

    /// Open a segment: its base offset (the bound its batches must respect)
    /// comes from its file name when that is Kafka's 20-digit form.
    pub fn open_segment(path: &Path, limits: Limits, next_base_offset: Option<i64>) -> Result<LogReader<LiveFile>> {
        let mut r = LogReader::open(path, limits)?;
        let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let base_offset = crate::naming::classify(&name).offset;
        r.set_bounds(Bounds { base_offset, next_base_offset });
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
            front: 0,
            win: Window::default(),
            win_start: 0,
            src_pos: 0,
            pin: None,
            spare: None,
            grant: limits.budget.grant(),
            spill: None,
            limits,
            bounds: Bounds::default(),
            prev: None,
            pending: None,
            ready: VecDeque::new(),
            broken: None,
            opened_len: len,
        }
    }

    /// The offsets the entries must lie in (the segment's base offset and the
    /// next segment's); entries outside them are damage.
    pub fn set_bounds(&mut self, bounds: Bounds) {
        self.bounds = bounds;
    }

    /// Read only up to `end` (Kafka's `--max-bytes`: entries must lie entirely
    /// before it).
    pub fn set_end(&mut self, end: u64) {
        self.end = self.end.min(end);
    }

    /// Read on to `end` (a file that grew: following a live segment); the
    /// next entry is read afresh from the current position.
    pub fn grow_end(&mut self, end: u64) {
        if end > self.end {
            self.end = end;
            let pos = self.pos;
            self.seek(pos);
        }
    }

    /// End of the data being read.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// Position of the next item.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Continue reading at `pos` (e.g. a position from the offset index).
    /// What came before is forgotten: the next entry is checked against the
    /// segment's bounds only.
    pub fn seek(&mut self, pos: u64) {
        self.pos = pos.min(self.end);
        self.front = self.pos;
        self.prev = None;
        self.pending = None;
        self.ready.clear();
        self.broken = None;
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
        // pinned bytes in the window stay, and the bytes up to `pos` are read
        // after them (a batch framed by its header, then loaded whole) -
        // except the body of a batch that is yielded spilled
        let gap = pos.saturating_sub(win_end);
        let pinned = self
            .pin
            .filter(|&p| p >= self.win_start && p <= win_end && p <= pos)
            .filter(|_| self.spill.is_none() || gap <= SPILL_OVER as u64);
        if pos > win_end
            && let Some(keep) = pinned
        {
            let drop = usize::try_from(keep.saturating_sub(self.win_start)).unwrap_or(usize::MAX);
            self.win.drain_front(drop);
            self.win_start = keep;
        } else if pos < self.win_start || pos > win_end {
            self.win.clear();
            self.win_start = pos;
            self.shrink_window(n);
        } else if want_end > win_end {
            // keep the bytes from `pos` on (and from the pin), drop the rest
            let keep = self.pin.map_or(pos, |p| p.min(pos)).max(self.win_start);
            let drop = usize::try_from(keep.saturating_sub(self.win_start)).unwrap_or(usize::MAX);
            self.win.drain_front(drop);
            self.win_start = keep;
            self.shrink_window(usize::try_from(want_end.saturating_sub(win_end)).unwrap_or(usize::MAX));
        }
        let have_end = self.win_start.saturating_add(self.win.len() as u64);
        if want_end > have_end {
            let need = want_end.saturating_sub(have_end);
            let mut read = need.max(CHUNK as u64).min(self.end.saturating_sub(have_end));
            // room for the whole read first: the source is read in one call,
            // not in growing steps (LiveFile drops what it reads from disk);
            // the read-ahead only when the budget gives it
            if self.grow_window(usize::try_from(read).unwrap_or(usize::MAX)).is_err() {
                read = need;
                // (named at the first byte it must hold: the entry that does not fit)
                let at = self.win_start.min(pos);
                self.grow_window(usize::try_from(read).unwrap_or(usize::MAX))
                    .map_err(|s| self.with_path(s.error(at)))?;
            }
            if self.src_pos != have_end {
                self.src.seek(SeekFrom::Start(have_end)).map_err(|e| self.io(e))?;
                self.src_pos = have_end;
            }
            let before = self.win.len();
            let got = self
                .win
                .fill_from(&mut self.src, usize::try_from(read).unwrap_or(usize::MAX))
                .map_err(|e| self.io(e))?;
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

    /// Bytes the window and the spare buffer occupy.
    fn occupied(&self) -> u64 {
        (self.win.capacity() as u64).saturating_add(self.spare.as_ref().map_or(0, |s| s.capacity() as u64))
    }

    /// Room in the window for `additional` more bytes, taken from the budget
    /// first (the spare buffer is given up when that makes the difference).
    fn grow_window(&mut self, additional: usize) -> std::result::Result<(), Short> {
        let want = self.win.len().saturating_add(additional);
        if want <= self.win.capacity() {
            return Ok(());
        }
        // twice the capacity when the budget gives it (appending stays linear)
        // up to a few MiB, else exactly
        let doubled = want.max(self.win.capacity().saturating_mul(2).min(SPILL_OVER.saturating_mul(2)));
        let spare = self.spare.as_ref().map_or(0, Vec::capacity);
        if self.grant.try_resize((doubled.saturating_add(spare) as u64).max(self.grant.bytes())) {
            self.win.reserve_exact(doubled.saturating_sub(self.win.len()));
            let _ = self.grant.try_resize(self.occupied().max(self.grant.bytes()));
            return Ok(());
        }
        loop {
            let spare = self.spare.as_ref().map_or(0, Vec::capacity);
            let need = want.saturating_add(spare) as u64;
            if self.grant.try_resize(need.max(self.grant.bytes())) {
                break;
            }
            if self.spare.take().is_none() {
                let _ = self.grant.try_resize(self.occupied());
                return Err(self.limits.budget.short("a log entry", want as u64));
            }
            let _ = self.grant.try_resize(self.occupied());
        }
        self.win.reserve_exact(additional);
        let _ = self.grant.try_resize(self.occupied().max(self.grant.bytes()));
        Ok(())
    }

    /// Give back a window far larger than the `n` bytes about to be read
    /// needs (after a large entry).
    fn shrink_window(&mut self, n: usize) {
        let keep = self.win.len().saturating_add(n).saturating_add(CHUNK);
        if self.win.capacity() > STREAM_CRC_OVER && self.win.capacity() / 4 > keep {
            self.win.shrink_to(keep);
            let _ = self.grant.try_resize(self.occupied());
        }
    }

    /// Whether the v2 batch or legacy message framed at `loc` has a valid
    /// checksum; a large one is checked as it streams through (v2), never
    /// held whole.
    fn crc_ok(&mut self, loc: Loc) -> Result<bool> {
        if loc.magic == MAGIC_VALUE_V2 && loc.len > STREAM_CRC_OVER {
            return self.v2_crc_matches(loc.start, loc.len as u64);
        }
        let bytes = self.load(loc.start, loc.len)?;
        Ok(match loc.magic {
            MAGIC_VALUE_V2 => RecordBatch::parse(bytes, loc.start).is_ok_and(|b| b.is_valid()),
            _ => LegacyMessage::parse(bytes, loc.start, End::File).is_ok_and(|m| m.is_valid()),
        })
    }

    /// Check the framing of the entry at `start` and load it: where it lies
    /// and what its header says. `Ok(None)` at the end of the data.
    fn frame(&mut self, start: u64) -> Result<Option<(Loc, Facts)>> {
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
        let min = min_entry_size(magic);
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
        // a length past the end of the data is damage (a torn write or a
        // wrong length), whatever the limit: raising the limit would not help
        if total > remaining {
            return Err(Error::truncated(start, "record batch", total.saturating_sub(remaining)));
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
        let len = total as usize;
        // Parse once to validate the structure beyond the framing: a v2
        // batch's header (its length is known to fit; the batch is loaded
        // whole when it is yielded), a legacy message whole (its key and
        // value lengths).
        let facts = match magic {
            MAGIC_VALUE_V2 => {
                let head = self.load(start, RECORD_BATCH_OVERHEAD)?;
                let h = BatchHeader::read(&mut crate::cursor::Cursor::new(head, start, End::File))?;
                Facts {
                    first_offset: h.base_offset,
                    last_offset: h.last_offset(),
                    epoch: Some(h.partition_leader_epoch),
                }
            }
            _ => {
                let bytes = self.load(start, len)?;
                let m = LegacyMessage::parse(bytes, start, End::File)?;
                Facts { first_offset: m.offset, last_offset: m.offset, epoch: None }
            }
        };
        Ok(Some((Loc { start, len, magic }, facts)))
    }

    /// Whether the entry at `loc` is yielded spilled (not held).
    fn spills(&self, loc: &Loc) -> bool {
        loc.magic == MAGIC_VALUE_V2 && loc.len > SPILL_OVER && self.spill.is_some()
    }

    /// The entry at `loc`, which the window holds (a spilled one: its header).
    fn entry(&self, loc: Loc) -> Result<Entry<'_>> {
        let from = usize::try_from(loc.start.saturating_sub(self.win_start)).unwrap_or(usize::MAX);
        let missing = || Error::io(std::io::Error::other("window out of range"), self.path.as_deref());
        if let (true, Some(s)) = (self.spills(&loc), &self.spill) {
            let head = self.win.get(from..from.saturating_add(RECORD_BATCH_OVERHEAD)).ok_or_else(missing)?;
            return Ok(Entry::V2(RecordBatch::spilled(head, loc.start, loc.len as u64, s)?));
        }
        let bytes = self.win.get(from..from.saturating_add(loc.len)).ok_or_else(missing)?;
        Ok(match loc.magic {
            MAGIC_VALUE_V2 => Entry::V2(RecordBatch::parse(bytes, loc.start)?),
            _ => Entry::Legacy(LegacyMessage::parse(bytes, loc.start, End::File)?),
        })
    }

    /// Whether `[start, start + len)` would be a v2 batch with a valid CRC-32C
    /// (whatever its magic and length fields say). Reads in chunks.
    fn v2_crc_matches(&mut self, start: u64, len: u64) -> Result<bool> {
        if len < RECORD_BATCH_OVERHEAD as u64 || start.saturating_add(len) > self.end {
            return Ok(false);
        }
        let head = self.load(start, RECORD_BATCH_OVERHEAD)?;
        let stored = head.get(CRC_OFFSET..ATTRIBUTES_OFFSET).and_then(|b| b.try_into().ok()).map(u32::from_be_bytes);
        let mut crc = 0u32;
        let mut q = start.saturating_add(ATTRIBUTES_OFFSET as u64);
        let end = start.saturating_add(len);
        while q < end {
            let n = (end.saturating_sub(q)).min(CHUNK as u64) as usize;
            crc = crate::crc::crc32c_append(crc, self.load(q, n)?);
            q = q.saturating_add(n as u64);
        }
        Ok(stored == Some(crc))
    }

    /// Frame the entry at `front` and decide what it is, or what the entry
    /// before it turned out to be.
    fn step(&mut self) -> Result<()> {
        let p = self.front;
        let (loc, facts) = match self.frame(p) {
            Ok(Some(x)) => x,
            Ok(None) => {
                self.front = self.end;
                return Ok(());
            }
            Err(e) if e.class() == ErrorClass::Io => return Err(e),
            Err(e) => return self.broken_at(p, e),
        };
        // a v2 batch whose magic was flipped to 0 or 1 frames as a legacy
        // message with a bad CRC, but holds a valid v2 CRC-32C
        if loc.magic != MAGIC_VALUE_V2 && !self.crc_ok(loc)? && self.v2_crc_matches(loc.start, loc.len as u64)? {
            let detail = format!("{}, but the bytes are a v2 batch whose CRC-32C matches", loc.magic);
            return self.header_damage(loc, HeaderField::Magic, detail);
        }
        match sanity::check(&facts, self.prev, &self.bounds) {
            Ok(()) => {
                self.accept(loc, facts, self.prev);
                Ok(())
            }
            Err(insane) => {
                if let Some(pend) = self.pending
                    && sanity::blame_previous(pend.before, &pend.facts, &facts, &insane, &self.bounds)
                    && self.crc_ok(loc)?
                {
                    // the batch before is the one out of line
                    self.pending = None;
                    let detail = match insane.field {
                        HeaderField::BaseOffset => format!(
                            "offsets {} do not fit between the batches around it (the next one starts at offset {})",
                            crate::report::offset_range(pend.facts.first_offset, pend.facts.last_offset),
                            facts.first_offset
                        ),
                        _ => format!(
                            "{} is above the epochs of the batches around it (the next one has {})",
                            pend.facts.epoch.unwrap_or(-1),
                            facts.epoch.unwrap_or(-1)
                        ),
                    };
                    let d = self.field_damage(pend.loc, insane.field, detail);
                    self.ready.push_back(Ready::Damage(d));
                    self.prev = pend.before;
                    self.accept(loc, facts, pend.before);
                    Ok(())
                } else if self.crc_ok(loc)? {
                    // its own header field is wrong; the CRC proves its length
                    self.header_damage(loc, insane.field, insane.detail)
                } else {
                    let e = Error::at(
                        p.saturating_add(insane.field.offset()),
                        ErrorKind::BadHeader { field: insane.field, detail: insane.detail },
                    );
                    self.broken_at(p, e)
                }
            }
        }
    }

    /// `loc` is trusted so far: yield what was pending and hold it back.
    fn accept(&mut self, loc: Loc, facts: Facts, before: Option<Prev>) {
        self.flush_pending();
        self.pending = Some(Pending { loc, facts, before });
        self.prev = Some(Prev::after(before, &facts));
        self.front = loc.end();
    }

    fn flush_pending(&mut self) {
        if let Some(p) = self.pending.take() {
            self.ready.push_back(Ready::Entry(p.loc));
        }
    }

    /// The batch at `loc` has a valid CRC but a wrong header field.
    fn header_damage(&mut self, loc: Loc, field: HeaderField, detail: String) -> Result<()> {
        self.flush_pending();
        let d = self.field_damage(loc, field, detail);
        self.ready.push_back(Ready::Damage(d));
        self.front = loc.end();
        Ok(())
    }

    fn field_damage(&self, loc: Loc, field: HeaderField, detail: String) -> Damage {
        let error = Error::at(loc.start.saturating_add(field.offset()), ErrorKind::BadHeader { field, detail });
        Damage {
            start: loc.start,
            end: loc.end(),
            error: self.with_path(error),
            truncated_tail: false,
            zeroed: false,
            field: Some(field),
        }
    }

    /// No trusted entry starts at `p`. If the entry before it has a bad CRC,
    /// its length led here and cannot be trusted either: the damage starts
    /// with it.
    fn broken_at(&mut self, p: u64, error: Error) -> Result<()> {
        if let Some(pend) = self.pending.take() {
            if self.crc_ok(pend.loc)? {
                self.ready.push_back(Ready::Entry(pend.loc));
            } else {
                self.prev = pend.before;
                let e = Error::malformed(
                    pend.loc.start,
                    "record batch",
                    format!(
                        "a batch with a bad checksum whose length does not lead to another batch (at byte {p}: {})",
                        error.message()
                    ),
                );
                self.broken = Some(Broken { start: pend.loc.start, error: e });
                return Ok(());
            }
        }
        self.broken = Some(Broken { start: p, error });
        Ok(())
    }

    /// Delimit the damage starting at `b.start`: up to the next trusted
    /// entry, or the end of the data.
    fn resolve(&mut self, b: Broken) -> Result<Damage> {
        // everything before the damage has been yielded
        self.pin = None;
        let start = b.start;
        let next = self.find_entry_after(start)?;
        let end = next.unwrap_or(self.end);
        let mut error = b.error;
        let mut field = None;
        let mut truncated_tail = false;
        if let Some((f, e)) = self.diagnose(start, end)? {
            field = Some(f);
            error = e;
        } else if let Some(next) = next {
            // a length that runs past the end of the file is no torn
            // tail when a readable entry follows: the length is corrupt
            if error.is_truncated() {
                error = Error::malformed(
                    start,
                    "record batch",
                    format!("its length runs past the end of the file, but a valid entry follows at byte {next}"),
                );
            }
        } else {
            truncated_tail = error.is_truncated();
        }
        let zeroed = self.all_zero(start, end)?;
        self.front = end;
        Ok(Damage { start, end, error: self.with_path(error), truncated_tail, zeroed, field })
    }

    /// Is the damaged range `[start, end)` one v2 batch whose `magic` or
    /// `batchLength` is wrong? It is when its bytes match its stored CRC-32C.
    fn diagnose(&mut self, start: u64, end: u64) -> Result<Option<(HeaderField, Error)>> {
        let span = end.saturating_sub(start);
        if span < RECORD_BATCH_OVERHEAD as u64 {
            return Ok(None);
        }
        let head = self.load(start, HEADER_SIZE_UP_TO_MAGIC)?;
        let size = head.get(8..12).and_then(|b| b.try_into().ok()).map_or(0, i32::from_be_bytes);
        let magic = head.get(16).map_or(MAGIC_VALUE_V2, |&m| m as i8);
        let claimed = i64::from(size).saturating_add(LOG_OVERHEAD as i64);
        let max = u64::from(self.limits.max_batch_size);
        if magic != MAGIC_VALUE_V2
            && claimed > 0
            && (claimed as u64) <= span
            && (claimed as u64) <= max
            && self.v2_crc_matches(start, claimed as u64)?
        {
            let detail = format!("{magic}, but the bytes are a v2 batch whose CRC-32C matches");
            let e = Error::at(start.saturating_add(16), ErrorKind::BadHeader { field: HeaderField::Magic, detail });
            return Ok(Some((HeaderField::Magic, e)));
        }
        if magic == MAGIC_VALUE_V2 && claimed != span as i64 && span <= max && self.v2_crc_matches(start, span)? {
            let detail = format!(
                "{size}, but the batch's CRC-32C matches {} bytes (it ends at byte {end})",
                span.saturating_sub(LOG_OVERHEAD as u64)
            );
            let e =
                Error::at(start.saturating_add(8), ErrorKind::BadHeader { field: HeaderField::BatchLength, detail });
            return Ok(Some((HeaderField::BatchLength, e)));
        }
        Ok(None)
    }

    /// The next decided item, framing as needed.
    fn next_ready(&mut self) -> Result<Option<Ready>> {
        loop {
            if let Some(r) = self.ready.pop_front() {
                return Ok(Some(r));
            }
            if let Some(b) = self.broken.take() {
                return self.resolve(b).map(|d| Some(Ready::Damage(d)));
            }
            if self.front >= self.end {
                return Ok(self.pending.take().map(|p| Ready::Entry(p.loc)));
            }
            self.step()?;
        }
    }

    /// Whether the next item ends a slab: damage, or an entry yielded
    /// spilled (framing ahead as needed, but not past a spilled entry, whose
    /// body the slab must not hold, and without delimiting damage).
    fn slab_ends(&mut self) -> Result<bool> {
        loop {
            if let Some(r) = self.ready.front() {
                return Ok(match r {
                    Ready::Damage(_) => true,
                    Ready::Entry(loc) => self.spills(loc),
                });
            }
            if self.broken.is_some() || self.pending.as_ref().is_some_and(|p| self.spills(&p.loc)) {
                return Ok(true);
            }
            if self.front >= self.end {
                return Ok(false);
            }
            self.step()?;
        }
    }

    /// Read the next entry or damaged range; `Ok(None)` at the end of the
    /// data. Only I/O failures are errors.
    pub fn next_item(&mut self) -> Result<Option<Item<'_>>> {
        // the item yielded last is done with; what comes next stays in the window
        self.pin = Some(self.pos);
        match self.next_ready()? {
            None => Ok(None),
            Some(Ready::Entry(loc)) => {
                self.pos = loc.end();
                let held = if self.spills(&loc) { RECORD_BATCH_OVERHEAD } else { loc.len };
                self.load(loc.start, held)?;
                Ok(Some(Item::Entry(self.entry(loc).map_err(|e| self.with_path(e))?)))
            }
            Some(Ready::Damage(d)) => {
                self.pos = d.end;
                Ok(Some(Item::Damage(d)))
            }
        }
    }

    /// Read a run of whole entries of about `target` bytes (at least one
    /// item), detached from the reader so it can be processed elsewhere while
    /// reading goes on. Damage ends a slab: it comes alone, in the next one.
    /// The bytes are moved out of the reader's window, not copied.
    pub fn next_slab(&mut self, target: usize) -> Result<Option<Slab>> {
        let start = self.pos;
        if start >= self.end && self.ready.is_empty() && self.pending.is_none() && self.broken.is_none() {
            return Ok(None);
        }
        // the slab's bytes in one read, when the budget gives them (else
        // entry by entry, as they are framed)
        let want = (self.end.saturating_sub(start)).min(target as u64) as usize;
        if want > 0 {
            match self.load(start, want) {
                Err(e) if e.class() != ErrorClass::Memory => return Err(e),
                _ => {}
            }
        }
        let mut items = Vec::new();
        self.pin = Some(start);
        while self.pos.saturating_sub(start) < target as u64 {
            if !items.is_empty() && self.slab_ends()? {
                break;
            }
            match self.next_ready()? {
                None => break,
                Some(Ready::Entry(loc)) if self.spills(&loc) => {
                    // alone in its slab, which holds its header
                    self.pos = loc.end();
                    let head = self.load(loc.start, RECORD_BATCH_OVERHEAD)?.to_vec();
                    self.pin = None;
                    let item = SlabItem::Entry { offset: 0, len: loc.len, magic: loc.magic };
                    let grant = self.limits.budget.grant();
                    return Ok(Some(Slab {
                        bytes: head,
                        grant,
                        spilled: self.spill.clone(),
                        start: loc.start,
                        items: vec![item],
                    }));
                }
                Some(Ready::Entry(loc)) => {
                    self.load(loc.start, loc.len)?;
                    let offset = usize::try_from(loc.start.saturating_sub(start)).unwrap_or(usize::MAX);
                    items.push(SlabItem::Entry { offset, len: loc.len, magic: loc.magic });
                    self.pos = loc.end();
                }
                Some(Ready::Damage(d)) => {
                    self.pos = d.end;
                    let grant = self.limits.budget.grant();
                    let items = vec![SlabItem::Damage(d)];
                    return Ok(Some(Slab { bytes: Vec::new(), grant, spilled: None, start, items }));
                }
            }
        }
        self.pin = None;
        if items.is_empty() {
            return Ok(None);
        }
        // detach [start, pos) from the window; the rest (the entry held back
        // and read-ahead) stays for the next slab
        let from = usize::try_from(start.saturating_sub(self.win_start)).unwrap_or(usize::MAX).min(self.win.len());
        let to = usize::try_from(self.pos.saturating_sub(self.win_start)).unwrap_or(usize::MAX).min(self.win.len());
        // the next window: a recycled buffer, or one sized for the next slab
        // (growing a small one would copy and fault in pages over and over)
        // when the budget gives it; the slab takes the window's share. The
        // read-ahead after the slab moves over as far as the budget gives
        // room (the rest is read again when it is needed).
        let mut next = Window::from_vec(self.spare.take().unwrap_or_default());
        let slab_grant = self.grant.split(self.win.capacity() as u64);
        let _ = self.grant.try_resize(next.capacity() as u64);
        let tail = self.win.len().saturating_sub(to).min(target.saturating_add(CHUNK));
        for room in [target.saturating_add(CHUNK).max(tail), tail, 0] {
            if room <= next.capacity() || self.grant.try_resize(room as u64) {
                next.reserve_exact(room);
                break;
            }
        }
        let tail = tail.min(next.capacity());
        let _ = self.grant.try_resize((next.capacity() as u64).max(self.grant.bytes()));
        next.extend_from_slice(self.win.get(to..to.saturating_add(tail)).unwrap_or_default());
        self.win.truncate(to);
        let mut bytes = std::mem::replace(&mut self.win, next).into_vec();
        bytes.drain(..from);
        self.win_start = self.pos;
        Ok(Some(Slab { bytes, grant: slab_grant, spilled: None, start, items }))
    }

    /// Give a processed slab's buffer back for reuse by [`LogReader::next_slab`].
    pub fn recycle(&mut self, slab: Slab) {
        self.spare = Some(slab.bytes);
        self.grant.absorb(slab.grant);
        let _ = self.grant.try_resize(self.occupied());
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
    /// valid checksum whose header fits after the last trusted entry, if any.
    pub fn find_entry_after(&mut self, start: u64) -> Result<Option<u64>> {
        let hdr = HEADER_SIZE_UP_TO_MAGIC as u64;
        let mut q = start.saturating_add(1);
        while q.saturating_add(hdr) <= self.end {
            let span = (self.end.saturating_sub(q)).min(CHUNK as u64) as usize;
            let max = self.limits.max_batch_size;
            let end = self.end;
            let (prev, bounds) = (self.prev, self.bounds);
            let chunk = self.load(q, span)?;
            // candidate headers whose first bytes lie in this chunk
            let mut candidates = Vec::new();
            let mut i = 0usize;
            while i.saturating_add(HEADER_SIZE_UP_TO_MAGIC) <= chunk.len() {
                let at = q.saturating_add(i as u64);
                if let Some(h) = chunk.get(i..)
                    && plausible(h, at, end, max)
                    && facts_of(h).is_none_or(|f| sanity::check(&f, prev, &bounds).is_ok())
                {
                    candidates.push(at);
                }
                i = i.saturating_add(1);
            }
            for at in candidates {
                if self.checksum_ok(at)? {
                    return Ok(Some(at));
                }
            }
            // next chunk overlaps so a header straddling the boundary is seen
            let step = (span.saturating_sub(FACTS_HEADER)).saturating_add(1).max(1);
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
        self.crc_ok(Loc { start: at, len: total, magic })
    }
}

/// The largest entry size the framing of `path` claims, from `from` on,
/// walking only the offset and size fields (no checksum, nothing held) until
/// a size that cannot be an entry's: what `Limits::max_batch_size` must be
/// to read the rest.
pub fn largest_entry(path: &Path, from: u64) -> Result<u64> {
    let mut f = File::open(path).map_err(|e| Error::io(e, Some(path)))?;
    let len = f.metadata().map_err(|e| Error::io(e, Some(path)))?.len();
    let (mut pos, mut largest) = (from, 0u64);
    let mut head = [0u8; LOG_OVERHEAD];
    while pos.saturating_add(LOG_OVERHEAD as u64) <= len {
        f.seek(SeekFrom::Start(pos)).map_err(|e| Error::io(e, Some(path)))?;
        f.read_exact(&mut head).map_err(|e| Error::io(e, Some(path)))?;
        let size = head.get(8..12).and_then(|b| b.try_into().ok()).map_or(0, i32::from_be_bytes);
        let total = u64::try_from(size).unwrap_or(0).saturating_add(LOG_OVERHEAD as u64);
        if size < RECORD_OVERHEAD_V0 as i32 || pos.saturating_add(total) > len {
            break;
        }
        largest = largest.max(total);
        pos = pos.saturating_add(total);
    }
    Ok(largest)
}

/// The smallest entry of a magic, prefix included.
fn min_entry_size(magic: i8) -> u64 {
    (match magic {
        MAGIC_VALUE_V2 => RECORD_BATCH_OVERHEAD,
        MAGIC_VALUE_V1 => RECORD_OVERHEAD_V1.saturating_add(LOG_OVERHEAD),
        _ => RECORD_OVERHEAD_V0.saturating_add(LOG_OVERHEAD),
    }) as u64
}

/// The sanity facts of the header starting `h` (at least 17 bytes; `None`
/// when a v2 header is cut short).
fn facts_of(h: &[u8]) -> Option<Facts> {
    let i64_at = |at: usize| h.get(at..at.saturating_add(8)).and_then(|b| b.try_into().ok()).map(i64::from_be_bytes);
    let i32_at = |at: usize| h.get(at..at.saturating_add(4)).and_then(|b| b.try_into().ok()).map(i32::from_be_bytes);
    let offset = i64_at(0)?;
    if h.get(16).map(|&m| m as i8) != Some(MAGIC_VALUE_V2) {
        return Some(Facts { first_offset: offset, last_offset: offset, epoch: None });
    }
    let delta = i32_at(LAST_OFFSET_DELTA_OFFSET)?;
    let epoch = i32_at(PARTITION_LEADER_EPOCH_OFFSET)?;
    Some(Facts { first_offset: offset, last_offset: offset.wrapping_add(delta.into()), epoch: Some(epoch) })
}

/// Cheap test of a header (at least 17 bytes): could an entry start here?
fn plausible(h: &[u8], at: u64, end: u64, max: u32) -> bool {
    let (Some(offset), Some(size), Some(&magic)) = (
        h.get(0..8).and_then(|b| b.try_into().ok()).map(i64::from_be_bytes),
        h.get(8..12).and_then(|b| b.try_into().ok()).map(i32::from_be_bytes),
        h.get(16),
    ) else {
        return false;
    };
    let magic = magic as i8;
    if !(MAGIC_VALUE_V0..=MAGIC_VALUE_V2).contains(&magic) || offset < 0 {
        return false;
    }
    let min = min_entry_size(magic).saturating_sub(LOG_OVERHEAD as u64);
    if size < min as i32 {
        return false;
    }
    let total = (size as u64).saturating_add(LOG_OVERHEAD as u64);
    total <= u64::from(max) && at.saturating_add(total) <= end
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_support::batch;

    /// Concatenated entries.
    fn segment(entries: &[Vec<u8>]) -> Vec<u8> {
        entries.concat()
    }
    use std::io::Cursor as IoCursor;

    fn reader(data: &[u8], base: Option<i64>) -> LogReader<IoCursor<Vec<u8>>> {
        let mut r = LogReader::new(IoCursor::new(data.to_vec()), data.len() as u64, Limits::default());
        r.set_bounds(Bounds { base_offset: base, next_base_offset: None });
        r
    }

    fn items_from(mut r: LogReader<IoCursor<Vec<u8>>>) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(item) = r.next_item().unwrap() {
            out.push(match item {
                Item::Entry(e) => format!("entry@{} last={}", e.position(), e.last_offset()),
                Item::Damage(d) => {
                    assert!(d.start < d.end, "backwards range {}..{}", d.start, d.end);
                    match d.field {
                        Some(f) => format!("damage@{}..{} {f}", d.start, d.end),
                        None => format!("damage@{}..{} tail={}", d.start, d.end, d.truncated_tail),
                    }
                }
            });
        }
        out
    }

    fn items(data: &[u8]) -> Vec<String> {
        items_from(reader(data, Some(0)))
    }

    /// Start positions of the batches of a segment.
    fn starts(batches: &[Vec<u8>]) -> Vec<usize> {
        batches
            .iter()
            .scan(0, |at, b| {
                let s = *at;
                *at += b.len();
                Some(s)
            })
            .collect()
    }

    fn five() -> (Vec<Vec<u8>>, Vec<u8>, Vec<usize>) {
        let bs = vec![batch(0, 3), batch(3, 2), batch(5, 4), batch(9, 1), batch(10, 2)];
        let seg = segment(&bs);
        let st = starts(&bs);
        (bs, seg, st)
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
    fn a_length_past_the_end_with_a_batch_after_it_is_named() {
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
                format!("damage@{n0}..{} batchLength", n0 + n1),
                format!("entry@{} last=5", n0 + n1)
            ]
        );
    }

    #[test]
    fn a_batch_length_flipped_larger_or_smaller_is_named_and_reading_resumes() {
        let (bs, seg, st) = five();
        for delta in [40i32, -20] {
            let mut bad = seg.clone();
            let at = st[2] + 8;
            let len = i32::from_be_bytes(bad[at..at + 4].try_into().unwrap());
            bad[at..at + 4].copy_from_slice(&(len + delta).to_be_bytes());
            let got = items(&bad);
            assert_eq!(got[2], format!("damage@{}..{} batchLength", st[2], st[3]), "delta {delta}: {got:?}");
            assert_eq!(got.len(), bs.len(), "{got:?}");
            assert_eq!(got[4], format!("entry@{} last=11", st[4]));
        }
        // the last batch, longer (past the end) and shorter
        for delta in [40i32, -20] {
            let mut bad = seg.clone();
            let at = st[4] + 8;
            let len = i32::from_be_bytes(bad[at..at + 4].try_into().unwrap());
            bad[at..at + 4].copy_from_slice(&(len + delta).to_be_bytes());
            let got = items(&bad);
            assert_eq!(got[4], format!("damage@{}..{} batchLength", st[4], seg.len()), "delta {delta}: {got:?}");
        }
    }

    #[test]
    fn a_base_offset_out_of_line_is_blamed_on_its_batch() {
        let (_, seg, st) = five();
        // high byte: far outside the segment
        let mut bad = seg.clone();
        bad[st[2]] ^= 0x7f;
        let got = items(&bad);
        assert_eq!(got[2], format!("damage@{}..{} baseOffset", st[2], st[3]), "{got:?}");
        assert_eq!(got.len(), 5);
        // low byte upwards (5 -> 250): the next batch looks out of order, but it is not
        let mut bad = seg.clone();
        bad[st[2] + 7] ^= 0xff;
        let got = items(&bad);
        assert_eq!(got[2], format!("damage@{}..{} baseOffset", st[2], st[3]), "{got:?}");
        assert_eq!(got[3], format!("entry@{} last=9", st[3]));
        // low byte downwards (9 -> 1): the batch itself goes back
        let mut bad = seg.clone();
        bad[st[3] + 7] ^= 0x08;
        let got = items(&bad);
        assert_eq!(got[3], format!("damage@{}..{} baseOffset", st[3], st[4]), "{got:?}");
        assert_eq!(got[4], format!("entry@{} last=11", st[4]));
    }

    #[test]
    fn an_epoch_out_of_line_is_blamed_on_its_batch() {
        let (_, seg, st) = five();
        for (byte, x) in [(12, 0x80u8), (15, 0xff), (14, 0x01)] {
            let mut bad = seg.clone();
            bad[st[1] + byte] ^= x;
            let got = items(&bad);
            assert_eq!(got[1], format!("damage@{}..{} partitionLeaderEpoch", st[1], st[2]), "byte {byte}: {got:?}");
            assert_eq!(got.len(), 5, "{got:?}");
        }
    }

    #[test]
    fn a_flipped_magic_is_named() {
        let (_, seg, st) = five();
        for x in [0xff, 0x02, 0x01, 0x03] {
            let mut bad = seg.clone();
            bad[st[2] + 16] ^= x;
            let got = items(&bad);
            assert_eq!(got[2], format!("damage@{}..{} magic", st[2], st[3]), "xor {x}: {got:?}");
            assert_eq!(got.len(), 5, "{got:?}");
        }
    }

    #[test]
    fn a_flipped_record_byte_is_a_bad_crc_of_one_batch() {
        let (bs, seg, st) = five();
        let mut bad = seg.clone();
        bad[st[2] + 70] ^= 0xff;
        let mut r = reader(&bad, Some(0));
        let mut n = 0;
        while let Some(item) = r.next_item().unwrap() {
            let Item::Entry(e) = item else { panic!("damage") };
            assert_eq!(e.is_valid(), n != 2);
            n += 1;
        }
        assert_eq!(n, bs.len());
    }

    /// Slabs hold the same items as `next_item` gives, for any slab size.
    fn slab_items(data: &[u8], target: usize) -> Vec<String> {
        let mut r = reader(data, Some(0));
        let mut out = Vec::new();
        while let Some(slab) = r.next_slab(target).unwrap() {
            for item in &slab.items {
                out.push(match (item, slab.entry(item)) {
                    (SlabItem::Damage(d), _) => match d.field {
                        Some(f) => format!("damage@{}..{} {f}", d.start, d.end),
                        None => format!("damage@{}..{} tail={}", d.start, d.end, d.truncated_tail),
                    },
                    (_, Some(e)) => format!("entry@{} last={}", e.position(), e.last_offset()),
                    (_, None) => "unparsable slab entry".to_string(),
                });
            }
        }
        out
    }

    #[test]
    fn slabs_match_items() {
        let (_, seg5, st) = five();
        let mut seg = seg5.clone();
        let n = seg.len();
        let mut zeros = seg.clone();
        zeros[st[1] + 8..st[1] + 12].copy_from_slice(&[0, 0, 0, 0]);
        let mut blamed = seg.clone();
        blamed[st[2] + 7] ^= 0xff;
        seg.extend(&batch(12, 2)[..30]);
        for data in [&seg[..], &seg[..n], &zeros[..], &blamed[..]] {
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

    #[test]
    fn batches_below_the_segment_base_are_damage() {
        let seg = segment(&[batch(0, 3), batch(3, 2)]);
        let got = items_from(reader(&seg, Some(3)));
        assert_eq!(got[0], format!("damage@0..{} baseOffset", batch(0, 3).len()));
        assert_eq!(got.len(), 2);
    }

    /// A batch of one record whose value is `size` bytes.
    fn big(base: i64, size: usize) -> Vec<u8> {
        let mut b = crate::builder::BatchBuilder::new(base);
        let value: Vec<u8> = (0..size).map(|i| (i / 251) as u8).collect();
        b.push(&crate::builder::NewRecord { timestamp: 1, key: None, value: Some(&value), headers: &[] });
        b.build()
    }

    /// Large entries cost the reader one entry of memory (taken from the
    /// budget), slabs hold whole entries whatever their size, and a budget
    /// too small for an entry is an error of its own class.
    #[test]
    fn large_entries_one_at_a_time_within_the_budget() {
        let entries = [batch(0, 3), big(3, 3 << 20), batch(4, 2), big(6, 5 << 20), big(7, 2 << 20), batch(8, 1)];
        let seg = segment(&entries);
        let starts: Vec<u64> = entries
            .iter()
            .scan(0u64, |at, e| {
                let s = *at;
                *at += e.len() as u64;
                Some(s)
            })
            .collect();
        let budget = crate::budget::Budget::leak(16 << 20);
        let limits = Limits { budget, ..Limits::default() };
        let mut r = LogReader::new(IoCursor::new(seg.clone()), seg.len() as u64, limits);
        let mut seen = Vec::new();
        while let Some(item) = r.next_item().unwrap() {
            let Item::Entry(e) = item else { panic!("damage") };
            assert!(e.is_valid());
            seen.push(e.position());
        }
        assert_eq!(seen, starts);
        assert!(budget.peak() < (5 << 20) + (1 << 20), "peak {}", budget.peak());
        drop(r);
        assert_eq!(budget.used(), 0);
        for target in [64 << 10, 1 << 20, 4 << 20, 32 << 20] {
            let mut r = LogReader::new(IoCursor::new(seg.clone()), seg.len() as u64, limits);
            let mut seen = Vec::new();
            while let Some(slab) = r.next_slab(target).unwrap() {
                for item in &slab.items {
                    let e = slab.entry(item).expect("an entry");
                    assert!(e.is_valid(), "target {target}");
                    seen.push(e.position());
                }
                r.recycle(slab);
            }
            assert_eq!(seen, starts, "target {target}");
            drop(r);
            assert_eq!(budget.used(), 0, "target {target}");
        }
        let tight = Limits { budget: crate::budget::Budget::leak(4 << 20), ..Limits::default() };
        let mut r = LogReader::new(IoCursor::new(seg.clone()), seg.len() as u64, tight);
        let mut n = 0;
        let e = loop {
            match r.next_item() {
                Ok(Some(_)) => n += 1,
                Ok(None) => panic!("read past a 5 MiB batch with 4 MiB"),
                Err(e) => break e,
            }
        };
        assert_eq!(n, 3);
        assert_eq!(e.class(), ErrorClass::Memory, "{e}");
        assert_eq!(e.position(), Some(starts[3]));
    }

    /// Read by path, batches above [`SPILL_OVER`] are not held: their
    /// checksums and records come from the file, and memory stays at the
    /// read-ahead whatever their size.
    #[test]
    fn batches_above_the_spill_size_are_read_from_the_file() {
        let entries = [batch(0, 3), big(3, 3 << 20), batch(4, 2), big(6, 5 << 20), big(7, 1 << 20), batch(8, 1)];
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("00000000000000000000.log");
        std::fs::write(&path, segment(&entries)).unwrap();
        let budget = crate::budget::Budget::leak(24 << 20);
        let limits = Limits { budget, ..Limits::default() };
        let check = |e: &Entry<'_>, at: usize| {
            let Entry::V2(b) = e else { panic!("v2") };
            assert_eq!(b.size(), entries[at].len() as u64);
            assert_eq!(b.in_memory().is_none(), entries[at].len() > SPILL_OVER, "entry {at}");
            assert!(b.is_valid(), "entry {at}");
            let mut scratch = Vec::new();
            let sum = b.records(&mut scratch, &limits).unwrap().summarize().unwrap();
            assert_eq!(sum.count, b.header().records_count);
            let mut records = b.records(&mut scratch, &limits).unwrap();
            let mut n = 0;
            while let Some(r) = records.next_record() {
                let r = r.unwrap();
                if let Some(size) = [0usize, 3 << 20, 0, 5 << 20, 1 << 20, 0][at].checked_sub(1) {
                    assert_eq!(r.value.unwrap().len(), size + 1, "entry {at}");
                }
                n += 1;
            }
            assert_eq!(n, b.header().records_count);
        };
        let mut r = LogReader::open(&path, limits).unwrap();
        let mut at = 0;
        while let Some(item) = r.next_item().unwrap() {
            let Item::Entry(e) = item else { panic!("damage") };
            check(&e, at);
            at += 1;
        }
        assert_eq!(at, entries.len());
        drop(r);
        // (the 5 MiB record is held once, by `next_record`: the window grows for it)
        assert!(budget.peak() < (5 << 20) + (2 << 20), "peak {}", budget.peak());
        for target in [64 << 10, 1 << 20, 4 << 20] {
            let mut r = LogReader::open(&path, limits).unwrap();
            let mut at = 0;
            while let Some(slab) = r.next_slab(target).unwrap() {
                for item in &slab.items {
                    check(&slab.entry(item).unwrap(), at);
                    at += 1;
                }
                r.recycle(slab);
            }
            assert_eq!(at, entries.len(), "target {target}");
        }
        assert_eq!(budget.used(), 0);
        // damaged records of a spilled batch are reported as those of the
        // same batch in memory: the same kind, at the same file position
        let mut damaged = entries[1].clone();
        let at = damaged.len() - 100;
        damaged[at] ^= 0xff;
        damaged[61] = 0x7f; // the record's length varint: 63, not its size
        let start = entries[0].len() as u64;
        let mut bytes = segment(&entries);
        bytes[start as usize..start as usize + damaged.len()].copy_from_slice(&damaged);
        std::fs::write(&path, &bytes).unwrap();
        let spill = Spilled { path: std::sync::Arc::from(path.as_path()) };
        let spilled = RecordBatch::spilled(&damaged[..61], start, damaged.len() as u64, &spill).unwrap();
        let held = RecordBatch::parse(&damaged, start).unwrap();
        let mut scratch = Vec::new();
        let e1 = spilled.records(&mut scratch, &limits).unwrap().summarize().unwrap_err();
        let e2 = held.records(&mut scratch, &limits).unwrap().summarize().unwrap_err();
        assert_eq!((e1.position(), e1.message()), (e2.position(), e2.message()));
        assert!(e1.position().unwrap() > start, "{e1}");
        // a record the budget cannot hold is reported where it starts in the file
        std::fs::write(&path, segment(&entries)).unwrap();
        let small = Limits { budget: crate::budget::Budget::leak(1 << 20), ..Limits::default() };
        let spilled = RecordBatch::spilled(&entries[1][..61], start, entries[1].len() as u64, &spill).unwrap();
        let mut records = spilled.records(&mut scratch, &small).unwrap();
        let e = records.next_record().unwrap().unwrap_err();
        assert_eq!((e.class(), e.position()), (ErrorClass::Memory, Some(start + 61)), "{e}");
    }

    /// A spilled batch in every codec: its compressed payload streams from
    /// the file into the decoder (zstd's frames walked there for their
    /// window), and its records read back equal.
    #[test]
    fn spilled_batches_of_every_codec() {
        use crate::compression::Compression;
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let value: Vec<u8> = (0..3 << 20)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let limits = Limits::default();
        for codec in [Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd] {
            let mut b = crate::builder::BatchBuilder::new(0);
            b.compression = codec;
            for v in [&value[..], b"after"] {
                b.push(&crate::builder::NewRecord { timestamp: 1, key: Some(b"k"), value: Some(v), headers: &[] });
            }
            let bytes = b.build();
            assert!(bytes.len() > SPILL_OVER, "{codec:?}: {} bytes", bytes.len());
            let tmp = tempfile::tempdir().unwrap();
            let path = tmp.path().join("00000000000000000000.log");
            std::fs::write(&path, &bytes).unwrap();
            let mut r = LogReader::open(&path, limits).unwrap();
            let Some(Item::Entry(Entry::V2(batch))) = r.next_item().unwrap() else { panic!("{codec:?}") };
            assert!(batch.in_memory().is_none() && batch.is_valid(), "{codec:?}");
            let mut scratch = Vec::new();
            assert_eq!(batch.records(&mut scratch, &limits).unwrap().summarize().unwrap().count, 2, "{codec:?}");
            let mut records = batch.records(&mut scratch, &limits).unwrap();
            assert_eq!(records.next_record().unwrap().unwrap().value, Some(&value[..]), "{codec:?}");
            assert_eq!(records.next_record().unwrap().unwrap().value, Some(&b"after"[..]), "{codec:?}");
            assert!(records.next_record().is_none(), "{codec:?}");
        }
    }
}
