//! Compression codecs, decoded the way Kafka's readers decode them.
//!
//! * gzip: RFC 1952, concatenated members accepted (`GZIPInputStream`).
//! * snappy: the xerial `SnappyOutputStream` framing Java producers write
//!   (magic `\x82SNAPPY\0`, two version ints, then length-prefixed raw
//!   blocks), and, like `SnappyInputStream`, a bare raw Snappy block when the
//!   magic is absent. Concatenated xerial streams are accepted.
//! * lz4: the LZ4 *frame* format as Kafka's `Lz4BlockInputStream` reads it:
//!   the header checksum is verified except for magic 0 wrappers (KAFKA-1493:
//!   Kafka wrote a wrong one there), block checksums are verified when flagged,
//!   the content checksum is skipped, bytes after the end mark are ignored.
//! * zstd: standard frames, several frames or skippable frames accepted.
//!
//! Every decoder writes into a caller-owned buffer and stops with
//! [`DecompressError::TooLarge`] before the output exceeds the ceiling, so a
//! decompression bomb costs at most the ceiling.

use std::io::Read;

use crate::limits::ZSTD_WINDOW_LOG_MAX;

/// A record batch's compression codec (attribute bits 0-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Codec 0.
    None,
    /// Codec 1.
    Gzip,
    /// Codec 2.
    Snappy,
    /// Codec 3.
    Lz4,
    /// Codec 4 (message format v2 only).
    Zstd,
}

impl Compression {
    /// The codec for an id, or `None` for the invalid ids 5, 6, 7.
    pub fn from_id(id: u8) -> Option<Compression> {
        Some(match id {
            0 => Compression::None,
            1 => Compression::Gzip,
            2 => Compression::Snappy,
            3 => Compression::Lz4,
            4 => Compression::Zstd,
            _ => return None,
        })
    }

    /// The codec id.
    pub fn id(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Gzip => 1,
            Compression::Snappy => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
        }
    }

    /// The codec Kafka names `name`.
    pub fn from_name(name: &str) -> Option<Compression> {
        (0..5).filter_map(Compression::from_id).find(|c| c.name() == name)
    }

    /// Kafka's name: `none`, `gzip`, `snappy`, `lz4`, `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Snappy => "snappy",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// Why a payload did not decompress.
#[derive(Debug)]
pub enum DecompressError {
    /// The output would exceed the ceiling.
    TooLarge,
    /// The payload is not valid for the codec.
    Invalid(String),
}

fn invalid(msg: impl Into<String>) -> DecompressError {
    DecompressError::Invalid(msg.into())
}

/// Decompress `input` (a v2 batch's records region, or a legacy wrapper's
/// value) into `out` (cleared first), producing at most `limit` bytes.
/// `magic` selects Kafka's per-format LZ4 leniency.
pub fn decompress(
    codec: Compression,
    input: &[u8],
    magic: i8,
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), DecompressError> {
    out.clear();
    match codec {
        Compression::None => append_limited(out, input, limit),
        Compression::Gzip => read_limited(flate2::read::MultiGzDecoder::new(input), limit, out),
        Compression::Snappy => snappy(input, limit, out),
        Compression::Lz4 => lz4_frame(input, magic != 0, limit, out),
        Compression::Zstd => zstd_frames(input, limit, out),
    }
}

thread_local! {
    /// This thread's zstd decompression context, reused from batch to batch:
    /// making one per batch (`ZSTD_createDCtx`) was a third of `verify`'s time
    /// on zstd data.
    static ZSTD_DCTX: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::RefCell::new(None) };
}

fn zstd_frames(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    ZSTD_DCTX.with(|cell| {
        let mut slot = cell.try_borrow_mut().map_err(|_| invalid("zstd context in use"))?;
        if slot.is_none() {
            let mut ctx = zstd::zstd_safe::DCtx::try_create().ok_or_else(|| invalid("no memory for a zstd context"))?;
            ctx.set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(ZSTD_WINDOW_LOG_MAX))
                .map_err(|code| invalid(zstd::zstd_safe::get_error_name(code)))?;
            *slot = Some(ctx);
        }
        let ctx = slot.as_mut().ok_or_else(|| invalid("no zstd context"))?;
        // (a new decoder resets the session only: the window limit stays)
        read_limited(zstd::stream::read::Decoder::with_context(input, ctx), limit, out)
    })
}

fn append_limited(out: &mut Vec<u8>, data: &[u8], limit: usize) -> Result<(), DecompressError> {
    if out.len().saturating_add(data.len()) > limit {
        return Err(DecompressError::TooLarge);
    }
    out.extend_from_slice(data);
    Ok(())
}

/// Drain a decoding reader into `out`, failing once more than `limit` bytes come out.
fn read_limited(reader: impl Read, limit: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    reader.take(cap).read_to_end(out).map_err(|e| invalid(e.to_string()))?;
    if out.len() > limit {
        return Err(DecompressError::TooLarge);
    }
    Ok(())
}

const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
const XERIAL_HEADER_SIZE: usize = 16;
/// snappy-java refuses chunks above this (`SnappyInputStream`).
const XERIAL_MAX_CHUNK: usize = 512 << 20;

fn snappy_block(block: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    let n = snap::raw::decompress_len(block).map_err(|e| invalid(e.to_string()))?;
    if out.len().saturating_add(n) > limit {
        return Err(DecompressError::TooLarge);
    }
    let start = out.len();
    out.resize(start.saturating_add(n), 0);
    let dst = out.get_mut(start..).unwrap_or_default();
    let written = snap::raw::Decoder::new().decompress(block, dst).map_err(|e| invalid(e.to_string()))?;
    if written != n {
        return Err(invalid(format!("snappy block decodes to {written} bytes, header says {n}")));
    }
    Ok(())
}

fn snappy(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    if input.is_empty() {
        return Err(invalid("empty snappy payload"));
    }
    // Like SnappyInputStream: without the xerial magic the whole payload is one raw block.
    if input.len() < XERIAL_HEADER_SIZE || input.get(..8) != Some(&XERIAL_MAGIC[..]) {
        return snappy_block(input, limit, out);
    }
    let mut rest = input.get(XERIAL_HEADER_SIZE..).unwrap_or_default();
    loop {
        let Some((len_bytes, tail)) = rest.split_first_chunk::<4>() else {
            // fewer than 4 bytes at a chunk boundary: end of stream
            return Ok(());
        };
        if len_bytes[..] == XERIAL_MAGIC[..4] {
            // a concatenated xerial stream: skip the rest of its header
            rest = tail.get(XERIAL_HEADER_SIZE - 4..).ok_or_else(|| invalid("truncated xerial header"))?;
            continue;
        }
        let len = i32::from_be_bytes(*len_bytes);
        let len = usize::try_from(len).map_err(|_| invalid(format!("negative xerial chunk length {len}")))?;
        if len > XERIAL_MAX_CHUNK {
            return Err(invalid(format!("xerial chunk length {len} above 512 MiB")));
        }
        let block = tail.get(..len).ok_or_else(|| invalid("truncated xerial chunk"))?;
        snappy_block(block, limit, out)?;
        rest = tail.get(len..).unwrap_or_default();
    }
}

const LZ4_FRAME_MAGIC: u32 = 0x184D_2204;

/// Split `N` bytes off the front of `c`.
fn take<const N: usize>(c: &mut &[u8]) -> Result<[u8; N], DecompressError> {
    let (head, tail) = c.split_first_chunk::<N>().ok_or_else(|| invalid("lz4 stream ended prematurely"))?;
    *c = tail;
    Ok(*head)
}

fn lz4_frame(
    input: &[u8],
    verify_header_checksum: bool,
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), DecompressError> {
    let mut c = input;
    if u32::from_le_bytes(take::<4>(&mut c)?) != LZ4_FRAME_MAGIC {
        return Err(invalid("not an lz4 frame (bad magic)"));
    }
    let [flg, bd] = take::<2>(&mut c)?;
    if flg >> 6 != 1 {
        return Err(invalid(format!("unsupported lz4 frame version {}", flg >> 6)));
    }
    if flg & 0x20 == 0 {
        return Err(invalid("lz4 block dependency is not supported"));
    }
    if flg & 0x03 != 0 || bd & 0x8f != 0 {
        return Err(invalid("lz4 frame descriptor has reserved bits set"));
    }
    let block_checksum = flg & 0x10 != 0;
    let max_block: usize = match (bd >> 4) & 0x07 {
        4 => 64 << 10,
        5 => 256 << 10,
        6 => 1 << 20,
        7 => 4 << 20,
        code => return Err(invalid(format!("unsupported lz4 block size code {code}"))),
    };
    let mut header = vec![flg, bd];
    if flg & 0x08 != 0 {
        // content size: skipped, as by Kafka
        header.extend(take::<8>(&mut c)?);
    }
    let [hc] = take::<1>(&mut c)?;
    if verify_header_checksum {
        let expected = ((xxhash_rust::xxh32::xxh32(&header, 0) >> 8) & 0xff) as u8;
        if hc != expected {
            return Err(invalid("lz4 stream frame descriptor corrupted (header checksum)"));
        }
    }
    loop {
        let word = u32::from_le_bytes(take::<4>(&mut c)?);
        if word == 0 {
            // end mark; the content checksum and anything after it are ignored, as by Kafka
            return Ok(());
        }
        let stored = word & 0x8000_0000 != 0;
        let len = (word & 0x7fff_ffff) as usize;
        if len > max_block {
            return Err(invalid(format!("lz4 block of {len} bytes exceeds the frame's maximum {max_block}")));
        }
        let (block, tail) = c.split_at_checked(len).ok_or_else(|| invalid("lz4 stream ended prematurely"))?;
        c = tail;
        if block_checksum {
            let sum = u32::from_le_bytes(take::<4>(&mut c)?);
            if sum != xxhash_rust::xxh32::xxh32(block, 0) {
                return Err(invalid("lz4 block checksum mismatch"));
            }
        }
        if stored {
            append_limited(out, block, limit)?;
        } else {
            let start = out.len();
            let room = max_block.min(limit.saturating_sub(start).saturating_add(1));
            out.resize(start.saturating_add(room), 0);
            let dst = out.get_mut(start..).unwrap_or_default();
            let n = match lz4_flex::block::decompress_into(block, dst) {
                Ok(n) => n,
                Err(lz4_flex::block::DecompressError::OutputTooSmall { .. }) if room < max_block => {
                    return Err(DecompressError::TooLarge);
                }
                Err(e) => return Err(invalid(format!("lz4 block: {e}"))),
            };
            out.truncate(start.saturating_add(n));
            if out.len() > limit {
                return Err(DecompressError::TooLarge);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"kafka kafka kafka segment segment offset offset offset leader epoch";

    #[test]
    fn gzip_round_trip_and_ceiling() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(TEXT).unwrap();
        let z = e.finish().unwrap();
        let mut out = Vec::new();
        decompress(Compression::Gzip, &z, 2, 1 << 20, &mut out).unwrap();
        assert_eq!(out, TEXT);
        assert!(matches!(decompress(Compression::Gzip, &z, 2, 10, &mut out), Err(DecompressError::TooLarge)));
    }

    #[test]
    fn snappy_raw_and_xerial() {
        let raw = snap::raw::Encoder::new().compress_vec(TEXT).unwrap();
        let mut out = Vec::new();
        decompress(Compression::Snappy, &raw, 2, 1 << 20, &mut out).unwrap();
        assert_eq!(out, TEXT);
        let mut x = XERIAL_MAGIC.to_vec();
        x.extend(1i32.to_be_bytes());
        x.extend(1i32.to_be_bytes());
        for _ in 0..2 {
            x.extend((raw.len() as i32).to_be_bytes());
            x.extend(&raw);
        }
        decompress(Compression::Snappy, &x, 2, 1 << 20, &mut out).unwrap();
        assert_eq!(out, [TEXT, TEXT].concat());
        assert!(matches!(
            decompress(Compression::Snappy, &x, 2, TEXT.len() + 1, &mut out),
            Err(DecompressError::TooLarge)
        ));
    }

    fn kafka_lz4(data: &[u8], header: &[u8]) -> Vec<u8> {
        let mut f = vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x40];
        f.push(((xxhash_rust::xxh32::xxh32(header, 0) >> 8) & 0xff) as u8);
        let block = lz4_flex::block::compress(data);
        f.extend((block.len() as u32).to_le_bytes());
        f.extend(block);
        f.extend(0u32.to_le_bytes());
        f
    }

    #[test]
    fn lz4_header_checksum_rules() {
        // what Kafka writes for v1/v2: HC over FLG+BD = 0x82
        let good = kafka_lz4(TEXT, &[0x60, 0x40]);
        assert_eq!(good[6], 0x82);
        let mut out = Vec::new();
        decompress(Compression::Lz4, &good, 2, 1 << 20, &mut out).unwrap();
        assert_eq!(out, TEXT);
        // KAFKA-1493: magic 0 wrappers carry HC over magic+FLG+BD; not checked for v0
        let v0 = kafka_lz4(TEXT, &[0x04, 0x22, 0x4d, 0x18, 0x60, 0x40]);
        decompress(Compression::Lz4, &v0, 0, 1 << 20, &mut out).unwrap();
        assert_eq!(out, TEXT);
        assert!(decompress(Compression::Lz4, &v0, 2, 1 << 20, &mut out).is_err());
    }

    #[test]
    fn lz4_ceiling_stops_a_bomb() {
        let zeros = vec![0u8; 60_000];
        let frame = kafka_lz4(&zeros, &[0x60, 0x40]);
        assert!(frame.len() < 1000, "a highly compressible block");
        let mut out = Vec::new();
        assert!(matches!(decompress(Compression::Lz4, &frame, 2, 1000, &mut out), Err(DecompressError::TooLarge)));
        decompress(Compression::Lz4, &frame, 2, 60_000, &mut out).unwrap();
        assert_eq!(out.len(), 60_000);
    }

    #[test]
    fn zstd_round_trip_and_ceiling() {
        let z = zstd::encode_all(TEXT, 3).unwrap();
        let mut out = Vec::new();
        decompress(Compression::Zstd, &z, 2, 1 << 20, &mut out).unwrap();
        assert_eq!(out, TEXT);
        assert!(matches!(decompress(Compression::Zstd, &z, 2, 3, &mut out), Err(DecompressError::TooLarge)));
        // a frame asking for a window above 2^27 is refused, every time the
        // thread's reused context meets one, and the context goes on working
        let mut e = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
        e.set_parameter(zstd::zstd_safe::CParameter::WindowLog(28)).unwrap();
        e.include_contentsize(false).unwrap();
        std::io::Write::write_all(&mut e, TEXT).unwrap();
        let wide = e.finish().unwrap();
        for _ in 0..2 {
            assert!(matches!(
                decompress(Compression::Zstd, &wide, 2, 1 << 20, &mut out),
                Err(DecompressError::Invalid(_))
            ));
            decompress(Compression::Zstd, &z, 2, 1 << 20, &mut out).unwrap();
            assert_eq!(out, TEXT);
        }
    }

    #[test]
    fn garbage_never_panics() {
        let mut out = Vec::new();
        for codec in [Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd] {
            for len in 0..40 {
                let junk: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
                let _ = decompress(codec, &junk, 2, 1 << 16, &mut out);
            }
        }
    }
}
