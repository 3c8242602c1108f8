//! Legacy message sets: message format v0 and v1 (magic 0 and 1). Read-only.
//!
//! Mirrors `LegacyRecord.java` and `AbstractLegacyRecordBatch.java`. In a
//! `.log` file each entry is `offset | size | message`; an uncompressed message
//! is one record. A message whose attributes name a codec is a *wrapper*: its
//! value is a compressed message set of inner messages. Rules, as Kafka applies
//! them:
//!
//! * the wrapper's offset is the offset of its **last** inner message;
//! * magic 0: inner offsets are absolute; magic 1: inner offsets are relative
//!   (0..n-1) and absolute = wrapper offset - last inner offset + inner offset,
//!   except that a wrapper offset of 0 (some old librdkafka producers) keeps the
//!   inner offsets as they are;
//! * magic 1 inner timestamps are the wrapper's when the wrapper says
//!   LogAppendTime; magic 0 messages have no timestamp (-1);
//! * inner messages must not be compressed; zstd is not allowed in legacy
//!   wrappers; a wrapper with a null value or no inner messages is invalid.
//!
//! Stricter than Kafka (which ignores them): key/value lengths below -1 and
//! bytes after the last inner message are reported as corruption.

use crate::batch::TimestampType;
use crate::compression::{self, Compression, DecompressError};
use crate::cursor::{Cursor, End};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::spec::legacy as layout;
use crate::spec::log::{LOG_OVERHEAD, MAGIC_VALUE_V0, MAGIC_VALUE_V1};

/// One legacy message with its log entry framing.
#[derive(Clone, Copy, Debug)]
pub struct LegacyMessage<'a> {
    /// The entry's offset (a wrapper: its last inner message's offset; an inner
    /// message of a magic 1 wrapper: relative).
    pub offset: i64,
    /// The message size (bytes after the size field).
    pub size: i32,
    /// Stored CRC-32 of the message from the magic byte on.
    pub crc: u32,
    /// 0 or 1.
    pub magic: i8,
    /// Codec and timestamp type bits.
    pub attributes: i8,
    /// The stored timestamp (magic 1), -1 for magic 0.
    pub timestamp: i64,
    /// Key, `None` when null.
    pub key: Option<&'a [u8]>,
    /// Value, `None` when null.
    pub value: Option<&'a [u8]>,
    message: &'a [u8],
    position: u64,
    value_position: u64,
}

impl<'a> LegacyMessage<'a> {
    /// Parse one entry. `entry` holds exactly `offset | size | message`, found
    /// at absolute `position` (for inner messages: a position in the
    /// decompressed bytes); `end` says what ends the bytes.
    pub fn parse(entry: &'a [u8], position: u64, end: End) -> Result<LegacyMessage<'a>> {
        let mut c = Cursor::new(entry, position, end);
        let offset = c.i64("offset")?;
        let size_at = c.position();
        let size = c.i32("message size")?;
        let rest = c.remaining();
        if size < layout::RECORD_OVERHEAD_V0 as i32 || size as usize != rest {
            return Err(Error::at(
                size_at,
                ErrorKind::BadLength {
                    what: "message size",
                    value: size.into(),
                    min: layout::RECORD_OVERHEAD_V0 as i64,
                    max: rest as i64,
                },
            ));
        }
        let message = c.rest();
        let crc = c.u32("crc")?;
        let magic_at = c.position();
        let magic = c.i8("magic")?;
        if magic != MAGIC_VALUE_V0 && magic != MAGIC_VALUE_V1 {
            return Err(Error::at(magic_at, ErrorKind::BadMagic { magic }));
        }
        if magic == MAGIC_VALUE_V1 && (size as usize) < layout::RECORD_OVERHEAD_V1 {
            return Err(Error::at(
                size_at,
                ErrorKind::BadLength {
                    what: "message size",
                    value: size.into(),
                    min: layout::RECORD_OVERHEAD_V1 as i64,
                    max: rest as i64,
                },
            ));
        }
        let attributes = c.i8("attributes")?;
        let timestamp = if magic == MAGIC_VALUE_V1 { c.i64("timestamp")? } else { -1 };
        let mut m = Cursor::new(c.rest(), c.position(), End::Enclosing("message"));
        let key = sized(&mut m, "key")?;
        let value_position = m.position().saturating_add(4);
        let value = sized(&mut m, "value")?;
        if !m.is_empty() {
            return Err(Error::at(
                m.position(),
                ErrorKind::TrailingBytes { what: "message value", bytes: m.remaining() as u64 },
            ));
        }
        Ok(LegacyMessage {
            offset,
            size,
            crc,
            magic,
            attributes,
            timestamp,
            key,
            value,
            message,
            position,
            value_position,
        })
    }

    /// Absolute position of the entry (its offset field).
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Bytes of the whole entry including the 12-byte prefix.
    pub fn size_in_bytes(&self) -> u64 {
        (self.message.len() as u64).saturating_add(LOG_OVERHEAD as u64)
    }

    /// CRC-32 of the bytes the stored CRC covers.
    pub fn compute_crc(&self) -> u32 {
        crc32fast::hash(self.message.get(layout::MAGIC_OFFSET..).unwrap_or_default())
    }

    /// Kafka's `isValid`.
    pub fn is_valid(&self) -> bool {
        self.compute_crc() == self.crc
    }

    /// Codec id (bits 0-2 of the attributes).
    pub fn compression_id(&self) -> u8 {
        (self.attributes as u8) & layout::COMPRESSION_CODEC_MASK
    }

    /// The codec, `None` for an invalid id.
    pub fn compression(&self) -> Option<Compression> {
        Compression::from_id(self.compression_id())
    }

    /// NoTimestamp (magic 0), CreateTime or LogAppendTime.
    pub fn timestamp_type(&self) -> TimestampType {
        if self.magic == MAGIC_VALUE_V0 {
            TimestampType::NoTimestamp
        } else if (self.attributes as u8) & layout::TIMESTAMP_TYPE_MASK != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// Key length, -1 for null.
    pub fn key_size(&self) -> i64 {
        self.key.map_or(-1, |k| k.len() as i64)
    }

    /// Value length, -1 for null.
    pub fn value_size(&self) -> i64 {
        self.value.map_or(-1, |v| v.len() as i64)
    }

    /// The records: this message itself, or the inner messages of a wrapper
    /// (decompressed into `scratch`).
    pub fn records<'s>(&'s self, scratch: &'s mut Vec<u8>, limits: &Limits) -> Result<LegacyRecords<'s>> {
        let codec = self.compression().ok_or_else(|| {
            Error::at(self.position.saturating_add(17), ErrorKind::UnknownCompression { id: self.compression_id() })
        })?;
        if codec == Compression::None {
            return Ok(LegacyRecords {
                single: Some(LegacyRecord { offset: self.offset, timestamp: self.timestamp, message: *self }),
                inner: None,
                base_offset: self.offset,
                count: 1,
                wrapper: *self,
            });
        }
        let value_at = self.value_position;
        if codec == Compression::Zstd {
            return Err(Error::malformed(
                value_at,
                "legacy wrapper message",
                "zstd is not allowed before message format v2",
            ));
        }
        let value = self.value.ok_or_else(|| {
            Error::malformed(value_at, "legacy wrapper message", "compressed message set with a null value")
        })?;
        compression::decompress(codec, value, self.magic, limits.max_decompressed_size, scratch).map_err(|e| {
            let kind = match e {
                DecompressError::TooLarge => {
                    ErrorKind::DecompressedTooLarge { codec, limit: limits.max_decompressed_size }
                }
                DecompressError::Invalid(message) => ErrorKind::Decompress { codec, message },
            };
            Error::at(value_at, kind)
        })?;
        let inner = scratch.as_slice();
        // First pass: validate every inner message and find the last offset.
        let mut count: u32 = 0;
        let mut first: Option<i64> = None;
        let mut last: i64 = 0;
        for m in InnerMessages::new(inner) {
            let m = m.map_err(|e| locate(value_at, e))?;
            if m.compression_id() != 0 {
                return Err(Error::malformed(
                    value_at,
                    "legacy wrapper message",
                    "inner messages must not be compressed",
                ));
            }
            first.get_or_insert(m.offset);
            last = m.offset;
            count = count.saturating_add(1);
        }
        let Some(first) = first else {
            return Err(Error::malformed(
                value_at,
                "legacy wrapper message",
                "compressed message set with no inner messages",
            ));
        };
        let shift = if self.magic == MAGIC_VALUE_V1 && self.offset != 0 {
            if self.offset < last {
                return Err(Error::malformed(
                    self.position,
                    "legacy wrapper message",
                    format!("wrapper offset {} is less than the last inner offset {last}", self.offset),
                ));
            }
            self.offset.wrapping_sub(last)
        } else {
            0
        };
        Ok(LegacyRecords {
            single: None,
            inner: Some((InnerMessages::new(inner), shift, value_at)),
            base_offset: first.wrapping_add(shift),
            count,
            wrapper: *self,
        })
    }
}

fn locate(value_at: u64, e: Error) -> Error {
    Error::at(
        value_at,
        ErrorKind::Malformed {
            what: "compressed message set",
            detail: format!("at byte {} of the decompressed messages: {}", e.position().unwrap_or(0), e.kind()),
        },
    )
}

/// A `size`-delimited byte string (int32 length, -1 = null).
fn sized<'a>(c: &mut Cursor<'a>, what: &'static str) -> Result<Option<&'a [u8]>> {
    let at = c.position();
    let len = c.i32(what)?;
    match c.nullable_len(len.into(), what, at)? {
        Some(n) => Ok(Some(c.bytes(n, what)?)),
        None => Ok(None),
    }
}

/// The entries of a decompressed inner message set.
#[derive(Clone, Debug)]
struct InnerMessages<'s> {
    buf: &'s [u8],
    pos: usize,
    failed: bool,
}

impl<'s> InnerMessages<'s> {
    fn new(buf: &'s [u8]) -> InnerMessages<'s> {
        InnerMessages { buf, pos: 0, failed: false }
    }
}

impl<'s> Iterator for InnerMessages<'s> {
    type Item = Result<LegacyMessage<'s>>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.buf.get(self.pos..).unwrap_or_default();
        if self.failed || rest.is_empty() {
            return None;
        }
        let at = self.pos as u64;
        let mut c = Cursor::new(rest, at, End::Enclosing("compressed message set"));
        let entry = c.skip(8, "inner offset").and_then(|()| c.i32("inner message size")).and_then(|size| {
            let size = usize::try_from(size).unwrap_or(usize::MAX);
            let total = size.saturating_add(LOG_OVERHEAD);
            rest.get(..total).ok_or_else(|| {
                Error::at(
                    at,
                    ErrorKind::OutOfBounds { what: "inner message", needed: (total.saturating_sub(rest.len())) as u64 },
                )
            })
        });
        let r = entry.and_then(|e| LegacyMessage::parse(e, at, End::Enclosing("compressed message set")));
        match r {
            Ok(m) => {
                self.pos = self.pos.saturating_add(m.size_in_bytes() as usize);
                Some(Ok(m))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// A record of a legacy entry: an uncompressed message, or an inner message of
/// a wrapper, with its absolute offset and effective timestamp.
#[derive(Clone, Copy, Debug)]
pub struct LegacyRecord<'s> {
    /// Absolute offset.
    pub offset: i64,
    /// Effective timestamp (the wrapper's under LogAppendTime; -1 for magic 0).
    pub timestamp: i64,
    /// The message itself (crc, key, value, ...).
    pub message: LegacyMessage<'s>,
}

/// Iterator over the records of a legacy entry.
#[derive(Debug)]
pub struct LegacyRecords<'s> {
    single: Option<LegacyRecord<'s>>,
    inner: Option<(InnerMessages<'s>, i64, u64)>,
    base_offset: i64,
    count: u32,
    wrapper: LegacyMessage<'s>,
}

impl LegacyRecords<'_> {
    /// Offset of the first record.
    pub fn base_offset(&self) -> i64 {
        self.base_offset
    }

    /// Number of records.
    pub fn record_count(&self) -> u32 {
        self.count
    }
}

impl<'s> Iterator for LegacyRecords<'s> {
    type Item = Result<LegacyRecord<'s>>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(r) = self.single.take() {
            return Some(Ok(r));
        }
        let (it, shift, value_at) = self.inner.as_mut()?;
        let m = match it.next()? {
            Ok(m) => m,
            Err(e) => return Some(Err(locate(*value_at, e))),
        };
        let timestamp = if m.magic == MAGIC_VALUE_V0 {
            -1
        } else if self.wrapper.timestamp_type() == TimestampType::LogAppendTime {
            self.wrapper.timestamp
        } else {
            m.timestamp
        };
        Some(Ok(LegacyRecord { offset: m.offset.wrapping_add(*shift), timestamp, message: m }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Build a legacy entry (offset, size, crc, magic, attributes, [ts], key, value).
    pub(crate) fn entry(
        offset: i64,
        magic: i8,
        attributes: i8,
        ts: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Vec<u8> {
        let mut body = vec![magic as u8, attributes as u8];
        if magic == 1 {
            body.extend(ts.to_be_bytes());
        }
        for part in [key, value] {
            match part {
                Some(b) => {
                    body.extend((b.len() as i32).to_be_bytes());
                    body.extend(b);
                }
                None => body.extend((-1i32).to_be_bytes()),
            }
        }
        let mut out = offset.to_be_bytes().to_vec();
        out.extend(((body.len() + 4) as i32).to_be_bytes());
        out.extend(crc32fast::hash(&body).to_be_bytes());
        out.extend(body);
        out
    }

    #[test]
    fn v1_wrapper_relative_offsets_and_log_append_time() {
        let mut inner = entry(0, 1, 0, 10, Some(b"a"), Some(b"1"));
        inner.extend(entry(1, 1, 0, 11, None, Some(b"2")));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, &inner).unwrap();
        let z = gz.finish().unwrap();
        let outer = entry(41, 1, 0x01 | 0x08, 99, None, Some(&z));
        let m = LegacyMessage::parse(&outer, 0, End::File).unwrap();
        assert!(m.is_valid());
        let mut scratch = Vec::new();
        let recs = m.records(&mut scratch, &Limits::default()).unwrap();
        assert_eq!((recs.base_offset(), recs.record_count()), (40, 2));
        let got: Vec<(i64, i64)> = recs.map(|r| r.map(|r| (r.offset, r.timestamp)).unwrap()).collect();
        assert_eq!(got, vec![(40, 99), (41, 99)]);
    }

    #[test]
    fn bad_lengths_are_errors() {
        let mut e = entry(0, 0, 0, 0, Some(b"k"), Some(b"v"));
        e[18..22].copy_from_slice(&(-2i32).to_be_bytes());
        assert!(LegacyMessage::parse(&e, 0, End::File).is_err());
        let mut e = entry(0, 0, 0, 0, Some(b"k"), Some(b"v"));
        e[18..22].copy_from_slice(&(100i32).to_be_bytes());
        assert!(LegacyMessage::parse(&e, 0, End::File).is_err());
    }
}
