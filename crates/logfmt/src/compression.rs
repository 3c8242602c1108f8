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
//! Decoding streams: an [`Inflater`] turns the compressed bytes into
//! decompressed ones a piece at a time (a gzip or zstd read, one snappy or
//! lz4 block), and a [`Decoded`] window keeps only the pieces not yet parsed,
//! so a payload that inflates to 1 GiB costs a window (128 KiB, more only for
//! a record or block that needs it), not 1 GiB. Memory a decoder needs beyond
//! that - a zstd frame's history window, a large snappy or lz4 block, a large
//! record - is taken from the budget in [`Limits::budget`] first; when the
//! budget cannot give it, decoding stops with [`DecompressError::Memory`].
//! [`Limits::max_decompressed_size`] still ends a stream that inflates beyond
//! it ([`DecompressError::TooLarge`]): it bounds a bomb's work, not memory.

use std::io::Read;

use crate::budget::{Grant, Short};
use crate::limits::{Limits, ZSTD_WINDOW_LOG_MAX};
use crate::live::LiveFile;

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
    /// Decoding needs more memory than the budget leaves.
    Memory(Short),
}

fn invalid(msg: impl Into<String>) -> DecompressError {
    DecompressError::Invalid(msg.into())
}

/// Decompress all of `input` (a v2 batch's records region, or a legacy
/// wrapper's value) into `out` (cleared first), producing at most `limit`
/// bytes. `magic` selects Kafka's per-format LZ4 leniency. The whole output
/// is held: readers use [`Decoded`]; this is for tests and the fuzzer.
pub fn decompress(
    codec: Compression,
    input: &[u8],
    magic: i8,
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), DecompressError> {
    out.clear();
    let limits = Limits { max_decompressed_size: limit, ..Limits::default() };
    let mut inflater = Inflater::new(codec, input, magic, &limits)?;
    let mut end = 0usize;
    while let Some(room) = inflater.room()? {
        let want = end.saturating_add(room.max(32 << 10)).min(limit.saturating_add(room).saturating_add(1));
        if out.len() < want {
            out.resize(want, 0);
        }
        let n = inflater.read(out.get_mut(end..).unwrap_or_default())?;
        if n == 0 {
            break;
        }
        end = end.saturating_add(n);
    }
    out.truncate(end);
    Ok(())
}

/// Where a payload's compressed bytes come from: memory, or a range of a
/// file read a piece at a time (a batch too large to hold, see
/// [`crate::batch::Spilled`]).
pub enum Input<'a> {
    /// Bytes in memory.
    Slice(&'a [u8]),
    /// Bytes of a file.
    File(FileInput),
}

/// Bytes `[pos, end)` of a file, read through a small buffer (through
/// [`LiveFile`]: the page cache is left as it was).
pub struct FileInput {
    file: LiveFile,
    pos: u64,
    end: u64,
    buf: Vec<u8>,
    start: usize,
    filled: usize,
}

/// The buffer of a [`FileInput`].
const FILE_INPUT_BUF: usize = 64 << 10;

impl FileInput {
    /// Bytes `[start, end)` of the file at `path`.
    pub fn open(path: &std::path::Path, start: u64, end: u64) -> std::io::Result<FileInput> {
        let mut file = LiveFile::open(path)?;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(start))?;
        Ok(FileInput { file, pos: start, end, buf: Vec::new(), start: 0, filled: 0 })
    }
}

impl std::io::Read for Input<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let avail = std::io::BufRead::fill_buf(self)?;
        let n = avail.len().min(out.len());
        out.get_mut(..n).unwrap_or_default().copy_from_slice(avail.get(..n).unwrap_or_default());
        std::io::BufRead::consume(self, n);
        Ok(n)
    }
}

impl std::io::BufRead for Input<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        match self {
            Input::Slice(s) => Ok(s),
            Input::File(f) => {
                if f.start >= f.filled && f.pos < f.end {
                    let want = usize::try_from(f.end.saturating_sub(f.pos)).unwrap_or(usize::MAX).min(FILE_INPUT_BUF);
                    if f.buf.len() < want {
                        f.buf.resize(want, 0);
                    }
                    let n = f.file.read(f.buf.get_mut(..want).unwrap_or_default())?;
                    if n == 0 {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::UnexpectedEof,
                            "the file became shorter while it was read",
                        ));
                    }
                    f.pos = f.pos.saturating_add(n as u64);
                    (f.start, f.filled) = (0, n);
                }
                Ok(f.buf.get(f.start..f.filled).unwrap_or_default())
            }
        }
    }

    fn consume(&mut self, n: usize) {
        match self {
            Input::Slice(s) => *s = s.get(n..).unwrap_or_default(),
            Input::File(f) => f.start = f.start.saturating_add(n).min(f.filled),
        }
    }
}

impl<'a> Input<'a> {
    /// Bytes not yet read.
    pub fn remaining(&self) -> u64 {
        match self {
            Input::Slice(s) => s.len() as u64,
            Input::File(f) => f.end.saturating_sub(f.pos).saturating_add(f.filled.saturating_sub(f.start) as u64),
        }
    }

    /// The next `N` bytes.
    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], DecompressError> {
        let mut a = [0u8; N];
        std::io::Read::read_exact(self, &mut a).map_err(|e| ended(what, &e))?;
        Ok(a)
    }

    /// The next `n` bytes as a block: borrowed from memory, or read into
    /// `buf` (its bytes taken from `grant`'s budget first).
    fn block(
        &mut self,
        n: usize,
        buf: &mut Vec<u8>,
        grant: &mut Grant,
        what: &'static str,
    ) -> Result<Block<'a>, DecompressError> {
        match self {
            Input::Slice(s) => {
                let (head, tail) = s.split_at_checked(n).ok_or_else(|| invalid(format!("{what} ended prematurely")))?;
                *s = tail;
                Ok(Block::Slice(head))
            }
            Input::File(_) => {
                if (n as u64) > self.remaining() {
                    return Err(invalid(format!("{what} ended prematurely")));
                }
                if !grant.try_resize(n as u64) {
                    return Err(DecompressError::Memory(grant.budget().short(what, n as u64)));
                }
                buf.clear();
                buf.resize(n, 0);
                std::io::Read::read_exact(self, buf).map_err(|e| ended(what, &e))?;
                Ok(Block::Owned)
            }
        }
    }
}

fn ended(what: &str, e: &std::io::Error) -> DecompressError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        invalid(format!("{what} ended prematurely"))
    } else {
        invalid(format!("reading the payload: {e}"))
    }
}

/// A compressed block: in the input's memory, or in the codec's buffer.
#[derive(Clone, Copy)]
enum Block<'a> {
    Slice(&'a [u8]),
    Owned,
}

impl<'a> Block<'a> {
    fn bytes<'s>(self, buf: &'s [u8]) -> &'s [u8]
    where
        'a: 's,
    {
        match self {
            Block::Slice(b) => b,
            Block::Owned => buf,
        }
    }
}

/// A streaming decoder of one compressed payload.
pub struct Inflater<'a> {
    state: State<'a>,
    produced: u64,
    limit: u64,
}

enum State<'a> {
    Plain(Input<'a>),
    Gzip(Box<flate2::bufread::MultiGzDecoder<Input<'a>>>),
    Snappy(Box<Snappy<'a>>),
    Lz4(Box<Lz4<'a>>),
    Zstd(Box<Zstd<'a>>),
}

impl<'a> Inflater<'a> {
    /// A decoder of `input` (a v2 batch's records region, or a legacy
    /// wrapper's value). `magic` selects Kafka's per-format LZ4 leniency.
    pub fn new(
        codec: Compression,
        input: &'a [u8],
        magic: i8,
        limits: &Limits,
    ) -> Result<Inflater<'a>, DecompressError> {
        Inflater::of(codec, Input::Slice(input), magic, limits)
    }

    /// A decoder of `input`, in memory or in a file.
    pub fn of(
        codec: Compression,
        input: Input<'a>,
        magic: i8,
        limits: &Limits,
    ) -> Result<Inflater<'a>, DecompressError> {
        let state = match codec {
            Compression::None => State::Plain(input),
            Compression::Gzip => State::Gzip(Box::new(flate2::bufread::MultiGzDecoder::new(input))),
            Compression::Snappy => State::Snappy(Box::new(Snappy::new(input, limits)?)),
            Compression::Lz4 => State::Lz4(Box::new(Lz4::new(input, magic != 0, limits)?)),
            Compression::Zstd => State::Zstd(Box::new(Zstd::new(input, limits)?)),
        };
        Ok(Inflater { state, produced: 0, limit: u64::try_from(limits.max_decompressed_size).unwrap_or(u64::MAX) })
    }

    /// Bytes decompressed so far.
    pub fn produced(&self) -> u64 {
        self.produced
    }

    /// The free space the next [`Inflater::read`] needs (a block decodes
    /// whole), or `None` at the end of the stream.
    pub fn room(&mut self) -> Result<Option<usize>, DecompressError> {
        match &mut self.state {
            State::Plain(input) => Ok((input.remaining() > 0).then_some(1)),
            State::Gzip(_) | State::Zstd(_) => Ok(Some(1)),
            State::Snappy(s) => match s.prepare()? {
                // (a block's size is known before it is decoded: one beyond the
                // limit is refused before any room is made for it)
                Some(n) if n as u64 > self.limit.saturating_sub(self.produced) => Err(DecompressError::TooLarge),
                room => Ok(room),
            },
            State::Lz4(l) => l.prepare(),
        }
    }

    /// Decode into `out`, which must offer at least [`Inflater::room`] bytes;
    /// returns how many were written, 0 only at the end of the stream.
    pub fn read(&mut self, out: &mut [u8]) -> Result<usize, DecompressError> {
        let n = match &mut self.state {
            State::Plain(input) => {
                std::io::Read::read(input, out).map_err(|e| invalid(format!("reading the payload: {e}")))?
            }
            State::Gzip(d) => d.read(out).map_err(|e| invalid(e.to_string()))?,
            State::Snappy(s) => s.read(out, self.limit.saturating_sub(self.produced))?,
            State::Lz4(l) => l.read(out)?,
            State::Zstd(z) => z.read(out)?,
        };
        self.produced = self.produced.saturating_add(n as u64);
        if self.produced > self.limit {
            return Err(DecompressError::TooLarge);
        }
        Ok(n)
    }
}

/// Bytes of a [`Decoded`] window whatever the data; more is taken from the
/// budget only for a record or block larger than this.
pub const WINDOW: usize = 128 << 10;

/// The smallest read a stream codec is given (so reads are not tiny).
const MIN_READ: usize = 16 << 10;

/// The decompressed bytes of one payload, read through a window: the bytes
/// from [`Decoded::position`] on that have been decoded but not consumed.
pub struct Decoded<'s> {
    inflater: Inflater<'s>,
    /// Initialised up to its length; `[start, end)` is the window.
    buf: &'s mut Vec<u8>,
    grant: Grant,
    start: usize,
    end: usize,
    /// Decompressed position of `buf[0]`.
    base: u64,
    eof: bool,
}

impl<'s> Decoded<'s> {
    /// A window over `inflater`'s output, in `buf` (a scratch buffer kept
    /// by the caller: its capacity beyond [`WINDOW`] is given back when this
    /// is dropped).
    pub fn new(inflater: Inflater<'s>, buf: &'s mut Vec<u8>, limits: &Limits) -> Decoded<'s> {
        if buf.len() > WINDOW {
            buf.truncate(WINDOW);
            buf.shrink_to(WINDOW);
        }
        Decoded { inflater, buf, grant: limits.budget.grant(), start: 0, end: 0, base: 0, eof: false }
    }

    /// Count positions from `at` (the stream's first byte): a file position
    /// for bytes that are not compressed.
    pub fn starting_at(mut self, at: u64) -> Decoded<'s> {
        self.base = at;
        self
    }

    /// The decoded bytes not yet consumed.
    pub fn available(&self) -> &[u8] {
        self.buf.get(self.start..self.end).unwrap_or_default()
    }

    /// Decompressed position of the first available byte.
    pub fn position(&self) -> u64 {
        self.base.saturating_add(self.start as u64)
    }

    /// Bytes decompressed so far.
    pub fn produced(&self) -> u64 {
        self.inflater.produced()
    }

    /// Consume `n` available bytes.
    pub fn consume(&mut self, n: usize) {
        self.start = self.start.saturating_add(n).min(self.end);
    }

    /// Make at least `n` bytes available (fewer only at the end of the
    /// stream), growing the window from the budget when `n` (or a block)
    /// does not fit in it.
    pub fn fill(&mut self, n: usize) -> Result<(), DecompressError> {
        while self.end.saturating_sub(self.start) < n && !self.eof {
            let Some(room) = self.inflater.room()? else {
                self.eof = true;
                break;
            };
            let have = self.end.saturating_sub(self.start);
            let free_wanted = room.max(n.saturating_sub(have)).max(MIN_READ);
            if self.buf.len().saturating_sub(self.end) < free_wanted && self.start > 0 {
                // move the unconsumed bytes to the front
                self.buf.copy_within(self.start..self.end, 0);
                self.base = self.base.saturating_add(self.start as u64);
                self.end = have;
                self.start = 0;
            }
            let need = self.end.saturating_add(free_wanted);
            if self.buf.len() < need {
                self.grow(need.max(WINDOW), n.max(room))?;
            }
            let got = self.inflater.read(self.buf.get_mut(self.end..).unwrap_or_default())?;
            if got == 0 {
                self.eof = true;
            }
            self.end = self.end.saturating_add(got);
        }
        Ok(())
    }

    fn grow(&mut self, len: usize, asked: usize) -> Result<(), DecompressError> {
        if !self.grant.try_resize(len.saturating_sub(WINDOW) as u64) {
            let what = if asked > WINDOW { "a record or compressed block" } else { "a decompression window" };
            return Err(DecompressError::Memory(self.grant.budget().short(what, len as u64)));
        }
        self.buf.resize(len, 0);
        Ok(())
    }

    /// Consume `n` bytes, reading through them without holding them.
    pub fn skip(&mut self, mut n: u64) -> Result<u64, DecompressError> {
        let mut skipped = 0u64;
        while n > 0 {
            if self.start >= self.end {
                self.fill(1)?;
                if self.start >= self.end {
                    break;
                }
            }
            let take = (self.end.saturating_sub(self.start) as u64).min(n);
            self.consume(take as usize);
            n = n.saturating_sub(take);
            skipped = skipped.saturating_add(take);
        }
        Ok(skipped)
    }
}

impl Drop for Decoded<'_> {
    fn drop(&mut self) {
        // give the growth back: the grant is released with it
        if self.buf.len() > WINDOW {
            self.buf.truncate(WINDOW);
            self.buf.shrink_to(WINDOW);
        }
    }
}

const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
const XERIAL_HEADER_SIZE: usize = 16;
/// snappy-java refuses chunks above this (`SnappyInputStream`).
const XERIAL_MAX_CHUNK: usize = 512 << 20;

/// Snappy: xerial-framed chunks, each a raw block, or one bare raw block.
struct Snappy<'a> {
    input: Input<'a>,
    xerial: bool,
    /// The next block and its decompressed length.
    block: Option<(Block<'a>, usize)>,
    /// A block read from a file, and the budget's bytes it holds.
    buf: Vec<u8>,
    grant: Grant,
}

impl<'a> Snappy<'a> {
    fn new(mut input: Input<'a>, limits: &Limits) -> Result<Snappy<'a>, DecompressError> {
        let len = input.remaining();
        if len == 0 {
            return Err(invalid("empty snappy payload"));
        }
        let head = std::io::BufRead::fill_buf(&mut input).map_err(|e| ended("snappy payload", &e))?;
        let xerial = len >= XERIAL_HEADER_SIZE as u64 && head.get(..8) == Some(&XERIAL_MAGIC[..]);
        let mut s = Snappy { input, xerial, block: None, buf: Vec::new(), grant: limits.budget.grant() };
        if xerial {
            s.input.array::<XERIAL_HEADER_SIZE>("xerial header")?;
        } else {
            // Like SnappyInputStream: without the xerial magic the whole payload is one raw block.
            let n = usize::try_from(len).unwrap_or(usize::MAX);
            let block = s.input.block(n, &mut s.buf, &mut s.grant, "a snappy block")?;
            let n = snap::raw::decompress_len(block.bytes(&s.buf)).map_err(|e| invalid(e.to_string()))?;
            s.block = Some((block, n));
        }
        Ok(s)
    }

    fn prepare(&mut self) -> Result<Option<usize>, DecompressError> {
        loop {
            match self.block {
                Some((_, 0)) => self.block = None,
                Some((_, n)) => return Ok(Some(n)),
                None => {}
            }
            if !self.xerial || self.input.remaining() < 4 {
                // fewer than 4 bytes at a chunk boundary: end of stream
                return Ok(None);
            }
            let len_bytes = self.input.array::<4>("xerial chunk")?;
            if len_bytes[..] == XERIAL_MAGIC[..4] {
                // a concatenated xerial stream: skip the rest of its header
                self.input.array::<{ XERIAL_HEADER_SIZE - 4 }>("xerial header")?;
                continue;
            }
            let len = i32::from_be_bytes(len_bytes);
            let len = usize::try_from(len).map_err(|_| invalid(format!("negative xerial chunk length {len}")))?;
            if len > XERIAL_MAX_CHUNK {
                return Err(invalid(format!("xerial chunk length {len} above 512 MiB")));
            }
            if len as u64 > self.input.remaining() {
                return Err(invalid("truncated xerial chunk"));
            }
            let block = self.input.block(len, &mut self.buf, &mut self.grant, "a snappy chunk")?;
            let n = snap::raw::decompress_len(block.bytes(&self.buf)).map_err(|e| invalid(e.to_string()))?;
            self.block = Some((block, n));
        }
    }

    fn read(&mut self, out: &mut [u8], left: u64) -> Result<usize, DecompressError> {
        let Some(n) = self.prepare()? else { return Ok(0) };
        if n as u64 > left {
            // (not decoded: a bomb's block costs nothing)
            return Err(DecompressError::TooLarge);
        }
        let Some((block, _)) = self.block.take() else { return Ok(0) };
        let dst = out.get_mut(..n).ok_or_else(|| invalid("no room for a snappy block"))?;
        let written =
            snap::raw::Decoder::new().decompress(block.bytes(&self.buf), dst).map_err(|e| invalid(e.to_string()))?;
        if written != n {
            return Err(invalid(format!("snappy block decodes to {written} bytes, header says {n}")));
        }
        Ok(n)
    }
}

const LZ4_FRAME_MAGIC: u32 = 0x184D_2204;

/// The LZ4 frame as Kafka's `Lz4BlockInputStream` reads it, a block at a time.
struct Lz4<'a> {
    input: Input<'a>,
    block_checksum: bool,
    max_block: usize,
    /// The next block: stored (not compressed) or not.
    block: Option<(bool, Block<'a>)>,
    done: bool,
    /// A block read from a file, and the budget's bytes it holds.
    buf: Vec<u8>,
    grant: Grant,
}

impl<'a> Lz4<'a> {
    fn new(mut input: Input<'a>, verify_header_checksum: bool, limits: &Limits) -> Result<Lz4<'a>, DecompressError> {
        const WHAT: &str = "lz4 stream";
        if u32::from_le_bytes(input.array::<4>(WHAT)?) != LZ4_FRAME_MAGIC {
            return Err(invalid("not an lz4 frame (bad magic)"));
        }
        let [flg, bd] = input.array::<2>(WHAT)?;
        if flg >> 6 != 1 {
            return Err(invalid(format!("unsupported lz4 frame version {}", flg >> 6)));
        }
        if flg & 0x20 == 0 {
            return Err(invalid("lz4 block dependency is not supported"));
        }
        if flg & 0x03 != 0 || bd & 0x8f != 0 {
            return Err(invalid("lz4 frame descriptor has reserved bits set"));
        }
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
            header.extend(input.array::<8>(WHAT)?);
        }
        let [hc] = input.array::<1>(WHAT)?;
        if verify_header_checksum {
            let expected = ((xxhash_rust::xxh32::xxh32(&header, 0) >> 8) & 0xff) as u8;
            if hc != expected {
                return Err(invalid("lz4 stream frame descriptor corrupted (header checksum)"));
            }
        }
        Ok(Lz4 {
            input,
            block_checksum: flg & 0x10 != 0,
            max_block,
            block: None,
            done: false,
            buf: Vec::new(),
            grant: limits.budget.grant(),
        })
    }

    fn prepare(&mut self) -> Result<Option<usize>, DecompressError> {
        const WHAT: &str = "lz4 stream";
        loop {
            match self.block {
                Some((true, b)) if b.bytes(&self.buf).is_empty() => self.block = None,
                Some((true, b)) => return Ok(Some(b.bytes(&self.buf).len())),
                Some((false, _)) => return Ok(Some(self.max_block)),
                None => {}
            }
            if self.done {
                return Ok(None);
            }
            let word = u32::from_le_bytes(self.input.array::<4>(WHAT)?);
            if word == 0 {
                // end mark; the content checksum and anything after it are ignored, as by Kafka
                self.done = true;
                return Ok(None);
            }
            let stored = word & 0x8000_0000 != 0;
            let len = (word & 0x7fff_ffff) as usize;
            if len > self.max_block {
                return Err(invalid(format!(
                    "lz4 block of {len} bytes exceeds the frame's maximum {}",
                    self.max_block
                )));
            }
            let block = self.input.block(len, &mut self.buf, &mut self.grant, WHAT)?;
            if self.block_checksum {
                let sum = u32::from_le_bytes(self.input.array::<4>(WHAT)?);
                if sum != xxhash_rust::xxh32::xxh32(block.bytes(&self.buf), 0) {
                    return Err(invalid("lz4 block checksum mismatch"));
                }
            }
            self.block = Some((stored, block));
        }
    }

    fn read(&mut self, out: &mut [u8]) -> Result<usize, DecompressError> {
        loop {
            let Some(room) = self.prepare()? else { return Ok(0) };
            let Some((stored, block)) = self.block.take() else { return Ok(0) };
            let dst = out.get_mut(..room).ok_or_else(|| invalid("no room for an lz4 block"))?;
            let block = block.bytes(&self.buf);
            if stored {
                dst.copy_from_slice(block);
                return Ok(room);
            }
            let n = lz4_flex::block::decompress_into(block, dst).map_err(|e| invalid(format!("lz4 block: {e}")))?;
            // (an empty block: go on to the next one)
            if n > 0 {
                return Ok(n);
            }
        }
    }
}

const ZSTD_MAGIC: u32 = 0xFD2F_B528;
/// Skippable frames: magic 0x184D2A50..=0x184D2A5F.
const ZSTD_SKIPPABLE_MASK: u32 = 0xFFFF_FFF0;
const ZSTD_SKIPPABLE: u32 = 0x184D_2A50;
/// zstd's largest block, which its stream decoder buffers on top of the window.
const ZSTD_BLOCK_MAX: u64 = 128 << 10;
/// Contexts for frames whose window is at most this are kept per thread
/// (Kafka's producer writes 2 MiB windows); larger ones are made per batch
/// and freed after it.
const ZSTD_CACHED_WINDOW: u64 = 8 << 20;

/// What a zstd frame's header says, for the memory its decoding needs.
struct ZstdFrameHeader {
    /// The history window it needs (`ZSTD_decodingBufferSize_min`): its
    /// window size, or its content size when that is smaller.
    window: u64,
    /// Bytes of the header after the magic.
    len: u64,
    /// A content checksum (4 bytes) ends the frame.
    checksum: bool,
}

/// The header of the zstd frame at the start of `f` (magic included).
fn zstd_frame_header(f: &[u8]) -> Option<ZstdFrameHeader> {
    let fhd = *f.get(4)?;
    let single_segment = fhd & 0x20 != 0;
    let mut at = 5usize;
    let mut window = None;
    if !single_segment {
        let wd = *f.get(at)?;
        at = at.saturating_add(1);
        let log = 10u32.saturating_add(u32::from(wd >> 3));
        let base = 1u64.checked_shl(log)?;
        window = Some(base.saturating_add((base / 8).saturating_mul(u64::from(wd & 7))));
    }
    at = at.saturating_add([0usize, 1, 2, 4].get(usize::from(fhd & 3)).copied().unwrap_or(0));
    let fcs_len = match fhd >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let content = match f.get(at..at.saturating_add(fcs_len)) {
        Some(b) if fcs_len > 0 => {
            let mut le = [0u8; 8];
            le.get_mut(..fcs_len)?.copy_from_slice(b);
            let v = u64::from_le_bytes(le);
            Some(if fcs_len == 2 { v.saturating_add(256) } else { v })
        }
        _ => None,
    };
    let window = match (window, content) {
        (Some(w), Some(c)) => w.min(c),
        (Some(w), None) => w,
        (None, Some(c)) => c,
        (None, None) => return None,
    };
    let len = (at.saturating_add(fcs_len) as u64).saturating_sub(4);
    Some(ZstdFrameHeader { window, len, checksum: fhd & 0x04 != 0 })
}

/// The largest window any frame of a payload needs, walking its frames by
/// their block headers (`read(at, buf)` fills `buf` from payload offset
/// `at`, false past the end). A frame whose window is above Kafka's limit
/// is left out (the decoder refuses it, as Kafka's does); a frame that
/// cannot be walked ends the walk, and the decoder then reports it.
fn zstd_window_needed(len: u64, read: &mut dyn FnMut(u64, &mut [u8]) -> bool) -> u64 {
    let mut at = 0u64;
    let mut need = 0u64;
    let mut word = [0u8; 4];
    while at < len && read(at, &mut word) {
        let magic = u32::from_le_bytes(word);
        if magic == ZSTD_MAGIC {
            let mut head = [0u8; 18];
            let n = usize::try_from(len.saturating_sub(at)).unwrap_or(18).min(18);
            let Some(head) = head.get_mut(..n) else { break };
            if !read(at, head) {
                break;
            }
            let Some(frame) = zstd_frame_header(head) else { break };
            if frame.window <= 1u64 << ZSTD_WINDOW_LOG_MAX {
                need = need.max(frame.window);
            }
            at = at.saturating_add(4).saturating_add(frame.len);
            let mut block = [0u8; 3];
            loop {
                if !read(at, &mut block) {
                    return need;
                }
                let h = u32::from(block[0]) | (u32::from(block[1]) << 8) | (u32::from(block[2]) << 16);
                let size = u64::from(h >> 3);
                let content = match (h >> 1) & 3 {
                    0 | 2 => size,
                    1 => 1,
                    _ => return need,
                };
                at = at.saturating_add(3).saturating_add(content);
                if h & 1 != 0 {
                    break;
                }
            }
            if frame.checksum {
                at = at.saturating_add(4);
            }
        } else if magic & ZSTD_SKIPPABLE_MASK == ZSTD_SKIPPABLE {
            if !read(at.saturating_add(4), &mut word) {
                break;
            }
            at = at.saturating_add(8).saturating_add(u64::from(u32::from_le_bytes(word)));
        } else {
            break;
        }
    }
    need
}

thread_local! {
    /// This thread's zstd decompression context, reused from batch to batch
    /// (making one per batch, `ZSTD_createDCtx`, was a third of `verify`'s
    /// time on zstd data), with the grant that covers what it holds.
    static ZSTD_CACHE: std::cell::RefCell<Option<(zstd::zstd_safe::DCtx<'static>, Grant)>> =
        const { std::cell::RefCell::new(None) };
}

/// Give back this thread's cached decoder state (a zstd context) and the
/// memory it holds from its budget.
pub fn release_thread_caches() {
    let _ = ZSTD_CACHE.try_with(|c| c.try_borrow_mut().map(|mut slot| slot.take()));
}

fn new_dctx() -> Result<zstd::zstd_safe::DCtx<'static>, DecompressError> {
    let mut ctx = zstd::zstd_safe::DCtx::try_create().ok_or_else(|| invalid("no memory for a zstd context"))?;
    ctx.set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(ZSTD_WINDOW_LOG_MAX))
        .map_err(|code| invalid(zstd::zstd_safe::get_error_name(code)))?;
    Ok(ctx)
}

/// Zstd frames, decoded with `ZSTD_decompressStream` straight into the
/// caller's buffer.
struct Zstd<'a> {
    input: Input<'a>,
    ctx: Option<zstd::zstd_safe::DCtx<'static>>,
    grant: Grant,
    /// The context goes back to the thread's cache when done.
    cached: bool,
    /// Inside a frame (more input is needed to finish it).
    in_frame: bool,
}

impl<'a> Zstd<'a> {
    fn new(mut input: Input<'a>, limits: &Limits) -> Result<Zstd<'a>, DecompressError> {
        let len = input.remaining();
        let needed = match &mut input {
            Input::Slice(s) => zstd_window_needed(len, &mut |at, buf| {
                let from = usize::try_from(at).unwrap_or(usize::MAX);
                match s.get(from..from.saturating_add(buf.len())) {
                    Some(b) => {
                        buf.copy_from_slice(b);
                        true
                    }
                    None => false,
                }
            }),
            Input::File(f) => {
                // (through the file's live reads: the page cache is left as it was)
                use std::io::{Read, Seek, SeekFrom};
                let base = f.pos;
                let needed = zstd_window_needed(len, &mut |at, buf| {
                    at.saturating_add(buf.len() as u64) <= len
                        && f.file.seek(SeekFrom::Start(base.saturating_add(at))).is_ok()
                        && f.file.read_exact(buf).is_ok()
                });
                f.file.seek(SeekFrom::Start(base)).map_err(|e| invalid(format!("reading the payload: {e}")))?;
                needed
            }
        };
        let window = needed;
        // the window, the block the stream decoder buffers in and out, and the context itself
        let base = 160u64 << 10;
        let need = window.saturating_add(ZSTD_BLOCK_MAX.saturating_mul(2)).saturating_add(base);
        let budget = limits.budget;
        let cached = window <= ZSTD_CACHED_WINDOW;
        let taken = if cached {
            ZSTD_CACHE.try_with(|c| c.try_borrow_mut().ok().and_then(|mut s| s.take())).ok().flatten()
        } else {
            None
        };
        let (ctx, mut grant) = match taken {
            Some((ctx, grant)) if grant.budget() == budget => (ctx, grant),
            _ => (new_dctx()?, budget.grant()),
        };
        let held = grant.bytes().max(ctx.sizeof() as u64);
        if !grant.try_resize(need.max(held)) {
            return Err(DecompressError::Memory(budget.short("a zstd window", need)));
        }
        // the decoder refuses a window beyond what was reserved for (the next
        // power of two: a frame the walk did not see cannot take more)
        let log = (64u32.saturating_sub(window.saturating_sub(1).leading_zeros())).clamp(10, ZSTD_WINDOW_LOG_MAX);
        let mut ctx = ctx;
        ctx.set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(log))
            .map_err(|code| invalid(zstd::zstd_safe::get_error_name(code)))?;
        Ok(Zstd { input, ctx: Some(ctx), grant, cached, in_frame: false })
    }

    fn read(&mut self, out: &mut [u8]) -> Result<usize, DecompressError> {
        let ctx = self.ctx.as_mut().ok_or_else(|| invalid("no zstd context"))?;
        loop {
            let chunk = std::io::BufRead::fill_buf(&mut self.input).map_err(|e| ended("zstd stream", &e))?;
            if chunk.is_empty() {
                if self.in_frame {
                    return Err(invalid("zstd stream ended prematurely (incomplete frame)"));
                }
                return Ok(0);
            }
            let mut input = zstd::zstd_safe::InBuffer { src: chunk, pos: 0 };
            let mut output = zstd::zstd_safe::OutBuffer::around(&mut *out);
            let hint = ctx
                .decompress_stream(&mut output, &mut input)
                .map_err(|code| invalid(zstd::zstd_safe::get_error_name(code)))?;
            let written = output.pos();
            let used = input.pos;
            std::io::BufRead::consume(&mut self.input, used);
            self.in_frame = hint != 0;
            if written > 0 {
                return Ok(written);
            }
            if used == 0 {
                return Err(invalid("zstd decoder made no progress"));
            }
        }
    }
}

impl Drop for Zstd<'_> {
    fn drop(&mut self) {
        let Some(mut ctx) = self.ctx.take() else { return };
        if !self.cached {
            return;
        }
        // keep it for the next batch, holding what it holds now
        let _ = ctx.reset(zstd::zstd_safe::ResetDirective::SessionOnly);
        let budget = self.grant.budget();
        let mut grant = std::mem::replace(&mut self.grant, budget.grant());
        if grant.try_resize(ctx.sizeof() as u64) {
            let _ = ZSTD_CACHE.try_with(|c| c.try_borrow_mut().map(|mut slot| *slot = Some((ctx, grant))));
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

    /// A raw snappy block whose header claims ~2.9 GB is refused by the
    /// limit before anything is allocated for it (found by the fuzzer).
    #[test]
    fn a_snappy_length_beyond_the_limit_allocates_nothing() {
        let mut out = Vec::new();
        let claim = [0xde, 0x9d, 0xa4, 0xff, 0x0a];
        assert!(matches!(
            decompress(Compression::Snappy, &claim, 2, 1 << 20, &mut out),
            Err(DecompressError::TooLarge)
        ));
        assert!(out.capacity() < 1 << 20);
        let limits = Limits { max_decompressed_size: 1 << 20, ..Limits::default() };
        let mut scratch = Vec::new();
        let mut d =
            Decoded::new(Inflater::new(Compression::Snappy, &claim, 2, &limits).unwrap(), &mut scratch, &limits);
        assert!(matches!(d.fill(1), Err(DecompressError::TooLarge)));
    }

    /// The window to reserve is the largest a frame needs; a frame above
    /// Kafka's limit is left out (the decoder refuses it), and decoding
    /// every frame within the reservation works.
    #[test]
    fn the_zstd_window_is_the_largest_frame_needs() {
        let frame = |log: u32| {
            let mut e = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
            e.set_parameter(zstd::zstd_safe::CParameter::WindowLog(log)).unwrap();
            e.include_contentsize(false).unwrap();
            std::io::Write::write_all(&mut e, TEXT).unwrap();
            e.finish().unwrap()
        };
        let window = |p: &[u8]| {
            zstd_window_needed(p.len() as u64, &mut |at, buf| {
                let at = at as usize;
                p.get(at..at + buf.len()).map(|b| buf.copy_from_slice(b)).is_some()
            })
        };
        let two = [frame(17), frame(22)].concat();
        assert_eq!(window(&two), 1 << 22);
        assert_eq!(window(&[two.clone(), frame(28)].concat()), 1 << 22);
        let mut out = Vec::new();
        decompress(Compression::Zstd, &two, 2, 1 << 20, &mut out).unwrap();
        assert_eq!(out, [TEXT, TEXT].concat());
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
