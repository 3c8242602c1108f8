//! Replica digests: a compact fingerprint of a replica, so that replicas on
//! different hosts can be compared by shipping kilobytes.
//!
//! Format, version 1 (documented in `docs/digest.md`):
//!
//! ```text
//! "LTDIGEST"            8 bytes
//! version               u16 big-endian (1)
//! zstd frame, holding:
//!   header length       u32 big-endian (at most 1 MiB)
//!   header              JSON: format, version, topic, partition, source,
//!                       log_start_offset, log_end_offset, high_watermark,
//!                       epochs ([[epoch, start_offset], ...] or null), notes
//!   per batch:          tag 1, then
//!     flags             u8: bit 0 control, bit 1 transactional, bits 2-3 magic
//!     base_offset       zigzag varint, minus the previous batch's last offset + 1
//!                       (the first: minus log_start_offset)
//!     last_offset       zigzag varint, minus base_offset
//!     epoch             zigzag varint, minus the previous batch's (the first: -1)
//!     crc               u32 big-endian
//!     size              varint
//!     records           varint
//!     first_timestamp   zigzag varint, minus the previous batch's (the first: 0)
//!     max_timestamp     zigzag varint, minus first_timestamp
//!   end:                tag 0, batch count u64 big-endian, CRC-32C (u32
//!                       big-endian) of every decompressed byte before it
//! ```
//!
//! Varints are LEB128 (at most 10 bytes). Readers refuse other versions, and
//! report a digest that ends early as truncated, anything else wrong as
//! corrupt, with the position in the decompressed stream.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use logfmt::checkpoint::EpochEntry;
use serde::{Deserialize, Serialize};

use crate::error::{Class, Error, Result};
use crate::summary::{BatchStream, BatchSummary, ReplicaInfo, SourceKind};

/// The first bytes of a digest.
pub const MAGIC: &[u8; 8] = b"LTDIGEST";
/// The format version written.
pub const VERSION: u16 = 1;
/// Largest header accepted.
const MAX_HEADER: u32 = 1 << 20;
const TAG_END: u8 = 0;
const TAG_BATCH: u8 = 1;

#[derive(Serialize, Deserialize)]
struct Header {
    format: String,
    version: u16,
    topic: String,
    partition: i32,
    source: String,
    log_start_offset: i64,
    log_end_offset: i64,
    high_watermark: Option<i64>,
    epochs: Option<Vec<(i32, i64)>>,
    notes: Vec<String>,
}

/// What [`write`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    /// Batches.
    pub batches: u64,
    /// Bytes of the digest file.
    pub bytes: u64,
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ ((v & 1) as i64).wrapping_neg()
}

struct Sink<W: Write> {
    w: W,
    crc: u32,
}

impl<W: Write> Sink<W> {
    fn bytes(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.crc = logfmt::crc::crc32c_append(self.crc, b);
        self.w.write_all(b)
    }

    fn varint(&mut self, mut v: u64) -> std::io::Result<()> {
        let mut buf = [0u8; 10];
        let mut n = 0usize;
        for slot in buf.iter_mut() {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            n = n.saturating_add(1);
            if v == 0 {
                *slot = byte;
                break;
            }
            *slot = byte | 0x80;
        }
        self.bytes(buf.get(..n).unwrap_or_default())
    }
}

/// Write the digest of a replica to `out` (a temporary file beside it, then a
/// rename).
pub fn write(info: &ReplicaInfo, stream: &mut dyn BatchStream, out: &Path) -> Result<Written> {
    let tmp = out.with_file_name(format!(
        ".{}.tmp-{}",
        out.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        std::process::id()
    ));
    let io = |e| Error::io(out, e);
    let result = (|| -> Result<u64> {
        let f = BufWriter::new(File::create(&tmp).map_err(io)?);
        let (count, mut f) = encode(info, stream, f, out)?;
        f.flush().map_err(io)?;
        f.get_ref().sync_all().map_err(io)?;
        Ok(count)
    })();
    match result {
        Ok(batches) => {
            std::fs::rename(&tmp, out).map_err(io)?;
            let bytes = std::fs::metadata(out).map_err(io)?.len();
            Ok(Written { batches, bytes })
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Write the digest of `info` and `stream` to `w` (standard output: `-o -`).
pub fn write_to(info: &ReplicaInfo, stream: &mut dyn BatchStream, w: impl Write) -> Result<Written> {
    let name = Path::new("<stdout>");
    let (batches, counted) = encode(info, stream, Counted { w, n: 0 }, name)?;
    let mut counted = counted;
    counted.flush().map_err(|e| Error::io(name, e))?;
    Ok(Written { batches, bytes: counted.n })
}

/// A writer that counts what goes through it.
struct Counted<W: Write> {
    w: W,
    n: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let k = self.w.write(buf)?;
        self.n = self.n.saturating_add(k as u64);
        Ok(k)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

/// The digest's bytes into `f`: batches written, and `f` back.
fn encode<W: Write>(info: &ReplicaInfo, stream: &mut dyn BatchStream, mut f: W, out: &Path) -> Result<(u64, W)> {
    let io = |e| Error::io(out, e);
    f.write_all(MAGIC).map_err(io)?;
    f.write_all(&VERSION.to_be_bytes()).map_err(io)?;
    let mut enc = zstd::stream::write::Encoder::new(f, 6).map_err(io)?;
    enc.include_checksum(true).map_err(io)?;
    let mut s = Sink { w: enc, crc: 0 };
    let header = Header {
        format: "logtool-replica-digest".into(),
        version: VERSION,
        topic: info.topic.clone(),
        partition: info.partition,
        source: info.path.display().to_string(),
        log_start_offset: info.log_start_offset,
        log_end_offset: info.log_end_offset,
        high_watermark: info.high_watermark,
        epochs: info.epochs.as_ref().map(|v| v.iter().map(|e| (e.epoch, e.start_offset)).collect()),
        notes: info.notes.clone(),
    };
    let json = serde_json::to_vec(&header).map_err(|e| Error::Input(e.to_string()))?;
    let len = u32::try_from(json.len()).map_err(|_| Error::Input("digest header too large".into()))?;
    s.bytes(&len.to_be_bytes()).map_err(io)?;
    s.bytes(&json).map_err(io)?;
    let (mut next, mut epoch, mut first_ts, mut count) = (info.log_start_offset, -1i64, 0i64, 0u64);
    while let Some(b) = stream.next_batch()? {
        let flags = u8::from(b.is_control) | (u8::from(b.is_transactional) << 1) | (((b.magic & 3) as u8) << 2);
        s.bytes(&[TAG_BATCH, flags]).map_err(io)?;
        s.varint(zigzag(b.base_offset.wrapping_sub(next))).map_err(io)?;
        s.varint(zigzag(b.last_offset.wrapping_sub(b.base_offset))).map_err(io)?;
        s.varint(zigzag(i64::from(b.epoch).wrapping_sub(epoch))).map_err(io)?;
        s.bytes(&b.crc.to_be_bytes()).map_err(io)?;
        s.varint(u64::from(b.size)).map_err(io)?;
        s.varint(u64::from(b.records)).map_err(io)?;
        s.varint(zigzag(b.first_timestamp.wrapping_sub(first_ts))).map_err(io)?;
        s.varint(zigzag(b.max_timestamp.wrapping_sub(b.first_timestamp))).map_err(io)?;
        next = b.last_offset.wrapping_add(1);
        epoch = i64::from(b.epoch);
        first_ts = b.first_timestamp;
        count = count.saturating_add(1);
    }
    s.bytes(&[TAG_END]).map_err(io)?;
    s.bytes(&count.to_be_bytes()).map_err(io)?;
    let crc = s.crc;
    s.w.write_all(&crc.to_be_bytes()).map_err(io)?;
    let f = s.w.finish().map_err(io)?;
    Ok((count, f))
}

/// The batches of a digest.
pub struct DigestStream {
    r: zstd::stream::read::Decoder<'static, BufReader<File>>,
    path: PathBuf,
    pos: u64,
    crc: u32,
    next: i64,
    epoch: i64,
    first_ts: i64,
    count: u64,
    done: bool,
}

impl DigestStream {
    fn err(&self, class: Class, message: impl Into<String>) -> Error {
        Error::Digest { path: self.path.clone(), position: self.pos, class, message: message.into() }
    }

    fn fill(&mut self, buf: &mut [u8], what: &str) -> Result<()> {
        let mut got = 0usize;
        while let Some(rest) = buf.get_mut(got..) {
            if rest.is_empty() {
                break;
            }
            match self.r.read(rest) {
                Ok(0) => {
                    return Err(self.err(Class::Truncated, format!("the digest ends inside {what}")));
                }
                Ok(n) => {
                    got = got.saturating_add(n);
                    self.pos = self.pos.saturating_add(n as u64);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.err(Class::Corrupt, format!("{what}: {e}"))),
            }
        }
        Ok(())
    }

    fn bytes<const N: usize>(&mut self, what: &str, crc: bool) -> Result<[u8; N]> {
        let mut b = [0u8; N];
        self.fill(&mut b, what)?;
        if crc {
            self.crc = logfmt::crc::crc32c_append(self.crc, &b);
        }
        Ok(b)
    }

    fn varint(&mut self, what: &str) -> Result<u64> {
        let mut v = 0u64;
        for i in 0..10u32 {
            let [b] = self.bytes::<1>(what, true)?;
            v |= u64::from(b & 0x7f).checked_shl(i.saturating_mul(7)).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.err(Class::Corrupt, format!("{what}: a varint longer than 10 bytes")))
    }

    fn ivarint(&mut self, what: &str) -> Result<i64> {
        self.varint(what).map(unzigzag)
    }
}

impl BatchStream for DigestStream {
    fn next_batch(&mut self) -> Result<Option<BatchSummary>> {
        if self.done {
            return Ok(None);
        }
        let [tag] = self.bytes::<1>("a batch tag", true)?;
        match tag {
            TAG_BATCH => {}
            TAG_END => {
                let count = u64::from_be_bytes(self.bytes::<8>("the batch count", true)?);
                let crc = self.crc;
                let stored = u32::from_be_bytes(self.bytes::<4>("the checksum", false)?);
                if count != self.count {
                    return Err(
                        self.err(Class::Corrupt, format!("{} batches read, the trailer says {count}", self.count))
                    );
                }
                if stored != crc {
                    return Err(self.err(Class::Corrupt, format!("checksum {stored:#010x}, computed {crc:#010x}")));
                }
                self.done = true;
                return Ok(None);
            }
            t => return Err(self.err(Class::Corrupt, format!("unknown tag {t}"))),
        }
        let [flags] = self.bytes::<1>("batch flags", true)?;
        let base_offset = self.next.wrapping_add(self.ivarint("base offset")?);
        let last_offset = base_offset.wrapping_add(self.ivarint("last offset")?);
        let epoch_raw = self.epoch.wrapping_add(self.ivarint("epoch")?);
        let epoch = i32::try_from(epoch_raw).map_err(|_| self.err(Class::Corrupt, format!("epoch {epoch_raw}")))?;
        let crc = u32::from_be_bytes(self.bytes::<4>("crc", true)?);
        let size_raw = self.varint("size")?;
        let size = u32::try_from(size_raw).map_err(|_| self.err(Class::Corrupt, format!("size {size_raw}")))?;
        let records_raw = self.varint("records")?;
        let records =
            u32::try_from(records_raw).map_err(|_| self.err(Class::Corrupt, format!("records {records_raw}")))?;
        let first_timestamp = self.first_ts.wrapping_add(self.ivarint("first timestamp")?);
        let max_timestamp = first_timestamp.wrapping_add(self.ivarint("max timestamp")?);
        self.next = last_offset.wrapping_add(1);
        self.epoch = epoch_raw;
        self.first_ts = first_timestamp;
        self.count = self.count.saturating_add(1);
        Ok(Some(BatchSummary {
            base_offset,
            last_offset,
            epoch,
            crc,
            size,
            records,
            first_timestamp,
            max_timestamp,
            magic: ((flags >> 2) & 3) as i8,
            is_control: flags & 1 != 0,
            is_transactional: flags & 2 != 0,
        }))
    }
}

/// Open a digest: its header as a [`ReplicaInfo`], and its batches.
pub fn open(path: &Path) -> Result<(ReplicaInfo, DigestStream)> {
    let io = |e| Error::io(path, e);
    let mut f = BufReader::new(File::open(path).map_err(io)?);
    let mut head = [0u8; 10];
    // a file that is not a digest at all is a usage error, said in words
    let not_digest = || {
        Error::Input(format!(
            "{}: neither a partition dir nor a replica digest (`logtool digest` writes those)",
            path.display()
        ))
    };
    f.read_exact(&mut head).map_err(|_| not_digest())?;
    let [m0, m1, m2, m3, m4, m5, m6, m7, v0, v1] = head;
    if [m0, m1, m2, m3, m4, m5, m6, m7] != *MAGIC {
        return Err(not_digest());
    }
    let version = u16::from_be_bytes([v0, v1]);
    if version != VERSION {
        return Err(Error::Input(format!(
            "{}: a replica digest of format version {version}; this logtool reads version {VERSION}",
            path.display()
        )));
    }
    let r = zstd::stream::read::Decoder::with_buffer(f).map_err(io)?;
    let mut s = DigestStream {
        r,
        path: path.to_path_buf(),
        pos: 0,
        crc: 0,
        next: 0,
        epoch: -1,
        first_ts: 0,
        count: 0,
        done: false,
    };
    let len = u32::from_be_bytes(s.bytes::<4>("the header length", true)?);
    if len > MAX_HEADER {
        return Err(s.err(Class::Corrupt, format!("header length {len} above {MAX_HEADER}")));
    }
    let mut json = vec![0u8; len as usize];
    s.fill(&mut json, "the header")?;
    s.crc = logfmt::crc::crc32c_append(s.crc, &json);
    let h: Header = serde_json::from_slice(&json).map_err(|e| s.err(Class::Corrupt, format!("header: {e}")))?;
    if h.format != "logtool-replica-digest" || h.version != VERSION {
        return Err(s.err(Class::Corrupt, format!("header of format {:?} version {}", h.format, h.version)));
    }
    s.next = h.log_start_offset;
    let mut notes = h.notes;
    notes.push(format!("from the digest of {}", h.source));
    let info = ReplicaInfo {
        path: path.to_path_buf(),
        source: SourceKind::Digest,
        topic: h.topic,
        partition: h.partition,
        log_start_offset: h.log_start_offset,
        log_end_offset: h.log_end_offset,
        high_watermark: h.high_watermark,
        epochs: h
            .epochs
            .map(|v| v.into_iter().map(|(epoch, start_offset)| EpochEntry { epoch, start_offset }).collect()),
        notes,
    };
    Ok((info, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Vec2(std::vec::IntoIter<BatchSummary>);
    impl BatchStream for Vec2 {
        fn next_batch(&mut self) -> Result<Option<BatchSummary>> {
            Ok(self.0.next())
        }
    }

    fn batch(base: i64, n: i64, epoch: i32, ts: i64) -> BatchSummary {
        BatchSummary {
            base_offset: base,
            last_offset: base + n - 1,
            epoch,
            crc: (base as u32).wrapping_mul(2_654_435_761),
            size: 1000 + n as u32,
            records: n as u32,
            first_timestamp: ts,
            max_timestamp: ts + 7,
            magic: 2,
            is_control: base % 3 == 0,
            is_transactional: base % 2 == 0,
        }
    }

    #[test]
    fn round_trip_and_damage() {
        let dir = std::env::temp_dir().join(format!("repl-check-digest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("d");
        let batches: Vec<_> =
            (0..500).map(|i| batch(10 + i * 5, 5, (i / 100) as i32, 1_800_000_000_000 + i * 3)).collect();
        let info = ReplicaInfo {
            path: "p-0".into(),
            source: SourceKind::Dir,
            topic: "p".into(),
            partition: 0,
            log_start_offset: 10,
            log_end_offset: 2510,
            high_watermark: Some(2500),
            epochs: Some(vec![EpochEntry { epoch: 0, start_offset: 10 }]),
            notes: vec![],
        };
        let w = write(&info, &mut Vec2(batches.clone().into_iter()), &out).unwrap();
        assert_eq!(w.batches, 500);
        let (back, mut s) = open(&out).unwrap();
        assert_eq!((back.log_end_offset, back.high_watermark, back.epochs.clone()), (2510, Some(2500), info.epochs));
        let mut read = Vec::new();
        while let Some(b) = s.next_batch().unwrap() {
            read.push(b);
        }
        assert_eq!(read, batches);
        // every cut and every flipped byte is an error, never a panic or a wrong answer
        let bytes = std::fs::read(&out).unwrap();
        let bad = dir.join("bad");
        let read_all = |path: &Path| {
            open(path).and_then(|(_, mut s)| {
                let mut all = Vec::new();
                while let Some(x) = s.next_batch()? {
                    all.push(x);
                }
                Ok(all)
            })
        };
        for cut in 0..bytes.len() {
            std::fs::write(&bad, &bytes[..cut]).unwrap();
            // only zstd's own frame checksum may be cut with the content intact
            match read_all(&bad) {
                Err(_) => {}
                Ok(all) => assert!(all == batches && cut + 4 >= bytes.len(), "cut at {cut} read as a whole digest"),
            }
        }
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x20;
            std::fs::write(&bad, &b).unwrap();
            let r = read_all(&bad);
            assert!(r.is_err() || r.unwrap() == batches, "flip at {at} gave different batches silently");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
