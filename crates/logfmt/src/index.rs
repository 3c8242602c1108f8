//! The per-segment index files: `.index`, `.timeindex`, `.txnindex`.
//!
//! Mirrors `OffsetIndex.java`, `TimeIndex.java` and `TransactionIndex.java`.
//! Entries are read one at a time through a small buffer, so a 10 MiB
//! preallocated index costs no more memory than a trimmed one.
//!
//! **Preallocation.** While a segment is active Kafka sizes both index files to
//! `segment.index.bytes` (10 MiB by default) and fills them from the front; the
//! rest is a zero-filled (sparse) tail. A clean shutdown trims the files; after
//! a crash the tail stays. Kafka itself cannot tell tail slots from entries
//! (it counts `length / entry size`); `DumpLogSegments` stops at the first
//! slot after slot 0 whose relative offset is 0. We apply the same rule, and
//! also recognise an all-zero slot 0 followed by zeros as tail (no real offset
//! index entry has position 0; no real time index has only zero slots). The
//! tail is reported as an [`IndexTail`], never as entries.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};
use crate::spec::index as layout;

/// An offset index entry: the batch starting at `position` ends at `offset`.
/// Its JSON form (`dump`): the offset and position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OffsetIndexEntry {
    /// Slot number (0-based).
    #[serde(skip)]
    pub slot: u64,
    /// Offset relative to the segment's base offset, as stored.
    #[serde(skip)]
    pub relative_offset: i32,
    /// Absolute offset.
    pub offset: i64,
    /// Byte position in the `.log` file.
    pub position: i32,
}

/// A time index entry: up to `offset`, the largest timestamp is `timestamp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TimeIndexEntry {
    /// Slot number (0-based).
    #[serde(skip)]
    pub slot: u64,
    /// Timestamp (ms).
    pub timestamp: i64,
    /// Offset relative to the segment's base offset, as stored.
    #[serde(skip)]
    pub relative_offset: i32,
    /// Absolute offset.
    pub offset: i64,
}

/// An aborted transaction (`AbortedTxn.java`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TxnIndexEntry {
    /// Entry version (0).
    pub version: i16,
    /// The producer.
    pub producer_id: i64,
    /// First offset of the transaction.
    pub first_offset: i64,
    /// Offset of the ABORT marker.
    pub last_offset: i64,
    /// Last stable offset when the transaction was aborted.
    pub last_stable_offset: i64,
}

/// What follows the last entry of an index file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct IndexTail {
    /// First byte after the last entry.
    pub position: u64,
    /// Whole unused slots (preallocated space).
    pub slots: u64,
    /// Every byte of those slots is zero (preallocation), as opposed to stale
    /// or garbage bytes.
    pub zeroed: bool,
    /// Bytes after the last whole slot (a length that is not a multiple of
    /// the entry size).
    pub partial_bytes: u64,
}

/// Which kind of index file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    /// `.index`, 8-byte entries.
    Offset,
    /// `.timeindex`, 12-byte entries.
    Time,
    /// `.txnindex`, 34-byte entries.
    Txn,
}

impl IndexKind {
    /// Entry size in bytes.
    pub fn entry_size(self) -> usize {
        match self {
            IndexKind::Offset => layout::OFFSET_INDEX_ENTRY_SIZE,
            IndexKind::Time => layout::TIME_INDEX_ENTRY_SIZE,
            IndexKind::Txn => layout::TXN_INDEX_ENTRY_SIZE,
        }
    }
}

/// One entry of any index file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexEntry {
    /// From a `.index`.
    Offset(OffsetIndexEntry),
    /// From a `.timeindex`.
    Time(TimeIndexEntry),
    /// From a `.txnindex`.
    Txn(TxnIndexEntry),
}

/// Where a reader's data is: a sparse file's holes read as zeros without
/// being read (a crashed broker's preallocated 10 MiB index is mostly hole;
/// a hostile one may be 4 GiB of it).
pub trait DataRegions {
    /// The data region at or after `at`: `Some(Some((start, end)))`, or
    /// `Some(None)` when only hole is left; `None` when unknown (read it all).
    fn data_region(&mut self, at: u64) -> Option<Option<(u64, u64)>>;
}

impl DataRegions for File {
    fn data_region(&mut self, at: u64) -> Option<Option<(u64, u64)>> {
        use rustix::fs::{SeekFrom as S, seek};
        // (moves the file's offset: the caller seeks where it reads next)
        match seek(&*self, S::Data(at)) {
            // (data at `start` whose end is unknown: read it all, not "hole")
            Ok(start) => seek(&*self, S::Hole(start)).ok().map(|end| Some((start, end))),
            Err(rustix::io::Errno::NXIO) => Some(None),
            Err(_) => None,
        }
    }
}

impl<T> DataRegions for std::io::Cursor<T> {
    fn data_region(&mut self, _at: u64) -> Option<Option<(u64, u64)>> {
        None
    }
}

/// Streaming reader of one index file.
pub struct IndexReader<R = File> {
    src: BufReader<R>,
    path: Option<PathBuf>,
    kind: IndexKind,
    base_offset: i64,
    len: u64,
    slot: u64,
    done: bool,
    tail: Option<IndexTail>,
}

impl IndexReader<File> {
    /// Open `path`; `base_offset` is the segment's (from the file name).
    pub fn open(path: &Path, kind: IndexKind, base_offset: i64) -> Result<IndexReader<File>> {
        let f = File::open(path).map_err(|e| Error::io(e, Some(path)))?;
        let len = f.metadata().map_err(|e| Error::io(e, Some(path)))?.len();
        let mut r = IndexReader::new(f, len, kind, base_offset);
        r.path = Some(path.to_path_buf());
        Ok(r)
    }
}

impl<R: Read + Seek + DataRegions> IndexReader<R> {
    /// Read `len` bytes of `src` as an index of `kind`.
    pub fn new(src: R, len: u64, kind: IndexKind, base_offset: i64) -> IndexReader<R> {
        IndexReader {
            src: BufReader::with_capacity(64 << 10, src),
            path: None,
            kind,
            base_offset,
            len,
            slot: 0,
            done: false,
            tail: None,
        }
    }

    /// After iteration: how the file ends (`None` while entries remain).
    pub fn tail(&self) -> Option<&IndexTail> {
        self.tail.as_ref()
    }

    fn io(&self, e: std::io::Error) -> Error {
        Error::io(e, self.path.as_deref())
    }

    fn slots(&self) -> u64 {
        self.len.checked_div(self.kind.entry_size() as u64).unwrap_or(0)
    }

    /// Finish: record the tail starting at the current slot, reading it to
    /// see whether it is all zeros. `first` holds the slot already read, if any.
    fn finish(&mut self, first: Option<&[u8]>) -> Result<()> {
        let size = self.kind.entry_size() as u64;
        let position = self.slot.saturating_mul(size);
        let slots = self.slots().saturating_sub(self.slot);
        let partial_bytes = self.len.checked_rem(size).unwrap_or(0);
        let mut zeroed = first.is_none_or(|b| b.iter().all(|&x| x == 0));
        let consumed = if first.is_some() { size } else { 0 };
        let mut left = slots.saturating_mul(size).saturating_sub(consumed);
        let mut at = position.saturating_add(consumed);
        let mut buf = [0u8; 8192];
        // the end of the data region being read (holes are skipped: zeros)
        let mut region_end = at;
        while zeroed && left > 0 {
            if at >= region_end {
                match self.src.get_mut().data_region(at) {
                    Some(None) => break,
                    Some(Some((start, end))) => {
                        let skip = start.saturating_sub(at).min(left);
                        at = at.saturating_add(skip);
                        left = left.saturating_sub(skip);
                        region_end = end.max(at.saturating_add(1));
                    }
                    None => region_end = u64::MAX,
                }
                // where reading goes on (the query moved the file's offset)
                self.src.seek(SeekFrom::Start(at)).map_err(|e| self.io(e))?;
                if left == 0 {
                    break;
                }
            }
            let n = left.min(buf.len() as u64).min(region_end.saturating_sub(at)).max(1) as usize;
            let chunk = buf.get_mut(..n).unwrap_or_default();
            self.src.read_exact(chunk).map_err(|e| self.io(e))?;
            zeroed = chunk.iter().all(|&x| x == 0);
            left = left.saturating_sub(n as u64);
            at = at.saturating_add(n as u64);
        }
        self.tail = Some(IndexTail { position, slots, zeroed: zeroed || slots == 0, partial_bytes });
        self.done = true;
        Ok(())
    }

    fn read_next(&mut self) -> Result<Option<IndexEntry>> {
        if self.slot >= self.slots() {
            self.finish(None)?;
            return Ok(None);
        }
        let size = self.kind.entry_size();
        let mut buf = [0u8; layout::TXN_INDEX_ENTRY_SIZE];
        let slot_bytes = buf.get_mut(..size).unwrap_or_default();
        self.src.read_exact(slot_bytes).map_err(|e| self.io(e))?;
        let b: &[u8] = slot_bytes;
        let i32_at =
            |at: usize| b.get(at..at.saturating_add(4)).and_then(|x| x.try_into().ok()).map_or(0, i32::from_be_bytes);
        let i64_at =
            |at: usize| b.get(at..at.saturating_add(8)).and_then(|x| x.try_into().ok()).map_or(0, i64::from_be_bytes);
        let all_zero = b.iter().all(|&x| x == 0);
        let entry = match self.kind {
            IndexKind::Offset => {
                let relative_offset = i32_at(0);
                // Kafka's rule (i > 0, relative offset 0), and a zero slot 0
                if (self.slot > 0 && relative_offset == 0) || (self.slot == 0 && all_zero) {
                    self.finish(Some(b))?;
                    return Ok(None);
                }
                IndexEntry::Offset(OffsetIndexEntry {
                    slot: self.slot,
                    relative_offset,
                    offset: self.base_offset.wrapping_add(relative_offset.into()),
                    position: i32_at(4),
                })
            }
            IndexKind::Time => {
                let relative_offset = i32_at(8);
                let zero_first = self.slot == 0 && all_zero && self.slots() > 1;
                // Kafka's rule (i > 0, relative offset 0), and a zero slot 0 of a
                // multi-slot file (a one-slot file may hold a real (0, base) entry)
                if (self.slot > 0 && relative_offset == 0) || zero_first {
                    self.finish(Some(b))?;
                    return Ok(None);
                }
                IndexEntry::Time(TimeIndexEntry {
                    slot: self.slot,
                    timestamp: i64_at(0),
                    relative_offset,
                    offset: self.base_offset.wrapping_add(relative_offset.into()),
                })
            }
            IndexKind::Txn => {
                let version = i16::from_be_bytes([b.first().copied().unwrap_or(0), b.get(1).copied().unwrap_or(0)]);
                if version != layout::TXN_INDEX_VERSION {
                    return Err(Error::at(
                        self.slot.saturating_mul(size as u64),
                        ErrorKind::BadVersion { what: "transaction index entry", version: version.into() },
                    ));
                }
                IndexEntry::Txn(TxnIndexEntry {
                    version,
                    producer_id: i64_at(2),
                    first_offset: i64_at(10),
                    last_offset: i64_at(18),
                    last_stable_offset: i64_at(26),
                })
            }
        };
        self.slot = self.slot.saturating_add(1);
        Ok(Some(entry))
    }
}

impl<R: Read + Seek + DataRegions> Iterator for IndexReader<R> {
    type Item = Result<IndexEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_next() {
            Ok(Some(e)) => Some(Ok(e)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                let e = match &self.path {
                    Some(p) => e.with_path(p),
                    None => e,
                };
                Some(Err(e))
            }
        }
    }
}

/// An index file read slot by slot with positioned reads: the binary
/// searches of Kafka's `AbstractIndex`, without loading the file.
struct SlotFile {
    f: File,
    path: PathBuf,
    size: u64,
    slots: u64,
}

impl SlotFile {
    fn open(path: &Path, kind: IndexKind) -> Result<SlotFile> {
        let f = File::open(path).map_err(|e| Error::io(e, Some(path)))?;
        let len = f.metadata().map_err(|e| Error::io(e, Some(path)))?.len();
        let size = kind.entry_size() as u64;
        Ok(SlotFile { f, path: path.to_path_buf(), size, slots: len.checked_div(size).unwrap_or(0) })
    }

    /// Entries before the preallocated tail (the rule of the module doc):
    /// the first slot after 0 whose relative offset (`rel_at`: its position in
    /// the slot) is 0, found by binary search since the tail is a suffix.
    fn entries(&mut self, rel_at: usize) -> Result<u64> {
        if self.slots == 0 || self.slot(0)? == [0u8; 12] {
            return Ok(0);
        }
        let rel = |b: &[u8; 12]| {
            b.get(rel_at..rel_at.saturating_add(4)).and_then(|x| x.try_into().ok()).map_or(0, i32::from_be_bytes)
        };
        let (mut lo, mut hi) = (1u64, self.slots);
        while lo < hi {
            let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
            if rel(&self.slot(mid)?) == 0 {
                hi = mid;
            } else {
                lo = mid.saturating_add(1);
            }
        }
        Ok(lo)
    }

    /// Slot `slot` (offset and time index slots fit in 12 bytes; the rest is 0).
    fn slot(&mut self, slot: u64) -> Result<[u8; 12]> {
        let mut b = [0u8; 12];
        let n = usize::try_from(self.size).unwrap_or(12).min(12);
        self.f.seek(SeekFrom::Start(slot.saturating_mul(self.size))).map_err(|e| Error::io(e, Some(&self.path)))?;
        self.f.read_exact(b.get_mut(..n).unwrap_or_default()).map_err(|e| Error::io(e, Some(&self.path)))?;
        Ok(b)
    }

    /// Kafka's `largestLowerBoundSlotFor`: the last of the first `entries`
    /// slots whose key is at most `target`, or `None`. The index is trusted to
    /// be sorted (Kafka's binary search trusts it too).
    fn largest_lower_bound(
        &mut self,
        entries: u64,
        target: i64,
        key: impl Fn(&mut Self, u64) -> Result<i64>,
    ) -> Result<Option<u64>> {
        let (mut lo, mut hi) = (0u64, entries);
        let mut found = None;
        while lo < hi {
            let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
            if key(self, mid)? <= target {
                found = Some(mid);
                lo = mid.saturating_add(1);
            } else {
                hi = mid;
            }
        }
        Ok(found)
    }
}

fn offset_slot(f: &mut SlotFile, base_offset: i64, slot: u64) -> Result<OffsetIndexEntry> {
    let [r0, r1, r2, r3, p0, p1, p2, p3, ..] = f.slot(slot)?;
    let rel = i32::from_be_bytes([r0, r1, r2, r3]);
    Ok(OffsetIndexEntry {
        slot,
        relative_offset: rel,
        offset: base_offset.wrapping_add(rel.into()),
        position: i32::from_be_bytes([p0, p1, p2, p3]),
    })
}

fn time_slot(f: &mut SlotFile, base_offset: i64, slot: u64) -> Result<TimeIndexEntry> {
    let [t0, t1, t2, t3, t4, t5, t6, t7, r0, r1, r2, r3] = f.slot(slot)?;
    let rel = i32::from_be_bytes([r0, r1, r2, r3]);
    Ok(TimeIndexEntry {
        slot,
        timestamp: i64::from_be_bytes([t0, t1, t2, t3, t4, t5, t6, t7]),
        relative_offset: rel,
        offset: base_offset.wrapping_add(rel.into()),
    })
}

/// Kafka's `OffsetIndex.lookup` on a file: the entry with the largest offset
/// at most `target` (ignoring a preallocated tail), or `None`. Reads O(log n)
/// slots. The index is trusted to be sorted; callers check the position it
/// gives against the log.
pub fn lookup_offset(path: &Path, base_offset: i64, target: i64) -> Result<Option<OffsetIndexEntry>> {
    let mut f = SlotFile::open(path, IndexKind::Offset)?;
    let entries = f.entries(0)?;
    let slot = f.largest_lower_bound(entries, target, |f, slot| Ok(offset_slot(f, base_offset, slot)?.offset))?;
    slot.map(|s| offset_slot(&mut f, base_offset, s)).transpose()
}

/// Kafka's `TimeIndex.lookup` on a file: the entry with the largest timestamp
/// at most `target`, or `None` (Kafka then uses the segment's base offset).
pub fn lookup_timestamp(path: &Path, base_offset: i64, target: i64) -> Result<Option<TimeIndexEntry>> {
    let mut f = SlotFile::open(path, IndexKind::Time)?;
    let entries = f.entries(8)?;
    let slot = f.largest_lower_bound(entries, target, |f, slot| Ok(time_slot(f, base_offset, slot)?.timestamp))?;
    slot.map(|s| time_slot(&mut f, base_offset, s)).transpose()
}

/// Kafka's `TimeIndex.lastEntry`: the last entry before any preallocated
/// tail, or `None` for an empty index.
pub fn last_time_entry(path: &Path, base_offset: i64) -> Result<Option<TimeIndexEntry>> {
    let mut f = SlotFile::open(path, IndexKind::Time)?;
    match f.entries(8)?.checked_sub(1) {
        Some(last) => time_slot(&mut f, base_offset, last).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn offset_index(entries: &[(i32, i32)], zero_slots: usize) -> Vec<u8> {
        let mut v = Vec::new();
        for (r, p) in entries {
            v.extend(r.to_be_bytes());
            v.extend(p.to_be_bytes());
        }
        v.extend(vec![0u8; zero_slots * 8]);
        v
    }

    #[test]
    fn offset_index_stops_at_preallocated_tail() {
        let data = offset_index(&[(5, 100), (9, 300)], 4);
        let mut r = IndexReader::new(Cursor::new(data.clone()), data.len() as u64, IndexKind::Offset, 1000);
        let got: Vec<_> = r.by_ref().map(|e| e.unwrap()).collect();
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[1],
            IndexEntry::Offset(OffsetIndexEntry { slot: 1, relative_offset: 9, offset: 1009, position: 300 })
        );
        assert_eq!(r.tail(), Some(&IndexTail { position: 16, slots: 4, zeroed: true, partial_bytes: 0 }));
    }

    /// A sparse tail is zeros without being read; data in it (a stale
    /// byte past a hole) is still found.
    #[test]
    fn sparse_tails_skip_their_holes_and_find_data_past_them() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("00000000000000000000.index");
        let mut f = File::create(&path).unwrap();
        f.write_all(&offset_index(&[(3, 100), (7, 900)], 0)).unwrap();
        f.set_len(1 << 30).unwrap();
        drop(f);
        let mut r = IndexReader::open(&path, IndexKind::Offset, 0).unwrap();
        assert_eq!(r.by_ref().count(), 2);
        assert_eq!(r.tail(), Some(&IndexTail { position: 16, slots: (1 << 27) - 2, zeroed: true, partial_bytes: 0 }));
        // one byte of data 512 MiB in, between holes
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&f, &[1], 512 << 20).unwrap();
        drop(f);
        let mut r = IndexReader::open(&path, IndexKind::Offset, 0).unwrap();
        assert_eq!(r.by_ref().count(), 2);
        assert!(!r.tail().unwrap().zeroed);
    }

    #[test]
    fn all_zero_offset_index_has_no_entries() {
        let data = offset_index(&[], 10);
        let mut r = IndexReader::new(Cursor::new(data), 80, IndexKind::Offset, 0);
        assert_eq!(r.by_ref().count(), 0);
        assert_eq!(r.tail().unwrap().slots, 10);
    }

    #[test]
    fn partial_trailing_bytes_are_reported() {
        let mut data = offset_index(&[(5, 100)], 0);
        data.extend([1, 2, 3]);
        let mut r = IndexReader::new(Cursor::new(data), 11, IndexKind::Offset, 0);
        assert_eq!(r.by_ref().count(), 1);
        assert_eq!(r.tail().unwrap().partial_bytes, 3);
    }

    #[test]
    fn lookup_finds_floor_entry() {
        let dir = std::env::temp_dir().join(format!("logfmt-idx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("00000000000000000100.index");
        std::fs::write(&p, offset_index(&[(5, 100), (9, 300), (20, 700)], 3)).unwrap();
        assert_eq!(lookup_offset(&p, 100, 99).unwrap(), None);
        assert_eq!(lookup_offset(&p, 100, 105).unwrap().unwrap().position, 100);
        assert_eq!(lookup_offset(&p, 100, 119).unwrap().unwrap().position, 300);
        assert_eq!(lookup_offset(&p, 100, 5000).unwrap().unwrap().position, 700);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn time_lookups_find_floor_and_last_entries_before_the_tail() {
        let dir = std::env::temp_dir().join(format!("logfmt-tidx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("00000000000000000100.timeindex");
        let mut v = Vec::new();
        for (ts, rel) in [(1000i64, 0i32), (1500, 7), (2500, 12)] {
            v.extend(ts.to_be_bytes());
            v.extend(rel.to_be_bytes());
        }
        v.extend(vec![0u8; 12 * 5]); // preallocated tail
        std::fs::write(&p, &v).unwrap();
        assert_eq!(lookup_timestamp(&p, 100, 999).unwrap(), None);
        assert_eq!(lookup_timestamp(&p, 100, 1000).unwrap().unwrap().offset, 100);
        assert_eq!(lookup_timestamp(&p, 100, 2499).unwrap().unwrap().offset, 107);
        assert_eq!(lookup_timestamp(&p, 100, i64::MAX).unwrap().unwrap().offset, 112);
        let last = last_time_entry(&p, 100).unwrap().unwrap();
        assert_eq!((last.timestamp, last.offset, last.slot), (2500, 112, 2));
        std::fs::write(&p, vec![0u8; 24]).unwrap();
        assert_eq!(last_time_entry(&p, 100).unwrap(), None);
        std::fs::write(&p, b"").unwrap();
        assert_eq!(lookup_timestamp(&p, 100, 5).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
