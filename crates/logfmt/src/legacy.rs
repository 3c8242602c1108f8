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
use crate::compression::{Compression, Decoded, Inflater};
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

    /// The records: this message itself, or the inner messages of a wrapper,
    /// decoded as they come out of the decompressor (through a window in
    /// `scratch`). The inner messages are read twice: once to check them all
    /// and find the offsets (a magic 1 wrapper's inner offsets are relative
    /// to its last), then as they are asked for.
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
        let open = |scratch: &'s mut Vec<u8>| -> Result<InnerMessages<'s>> {
            let inflater = Inflater::new(codec, value, self.magic, limits)
                .map_err(|e| crate::batch::decompress_error(e, codec, limits, value_at))?;
            Ok(InnerMessages {
                d: Decoded::new(inflater, scratch, limits),
                codec,
                limits: *limits,
                value_at,
                pending: 0,
                failed: false,
            })
        };
        // First pass: validate every inner message and find the last offset.
        let mut count: u32 = 0;
        let mut first: Option<i64> = None;
        let mut last: i64 = 0;
        {
            // (the scratch buffer is lent to the first pass only)
            let inflater = Inflater::new(codec, value, self.magic, limits)
                .map_err(|e| crate::batch::decompress_error(e, codec, limits, value_at))?;
            let mut check = InnerMessages {
                d: Decoded::new(inflater, &mut *scratch, limits),
                codec,
                limits: *limits,
                value_at,
                pending: 0,
                failed: false,
            };
            while let Some(m) = check.next_message() {
                let m = m?;
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
            inner: Some((open(scratch)?, shift)),
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

/// The entries of a decompressed inner message set, read from the stream.
struct InnerMessages<'s> {
    d: Decoded<'s>,
    codec: Compression,
    limits: Limits,
    /// The wrapper's value position: errors are reported there.
    value_at: u64,
    /// Bytes of the message yielded last, consumed at the next call.
    pending: usize,
    failed: bool,
}

impl InnerMessages<'_> {
    /// The next inner message (errors are located at the wrapper's value).
    fn next_message(&mut self) -> Option<Result<LegacyMessage<'_>>> {
        self.d.consume(std::mem::take(&mut self.pending));
        if self.failed {
            return None;
        }
        let stream = |e, me: &Self| crate::batch::decompress_error(e, me.codec, &me.limits, me.value_at);
        if let Err(e) = self.d.fill(LOG_OVERHEAD) {
            self.failed = true;
            return Some(Err(stream(e, self)));
        }
        let avail = self.d.available();
        if avail.is_empty() {
            return None;
        }
        let at = self.d.position();
        let mut c = Cursor::new(avail, at, End::Enclosing("compressed message set"));
        let total = match c.skip(8, "inner offset").and_then(|()| c.i32("inner message size")) {
            Ok(size) => usize::try_from(size).unwrap_or(usize::MAX).saturating_add(LOG_OVERHEAD),
            Err(e) => {
                self.failed = true;
                return Some(Err(locate(self.value_at, e)));
            }
        };
        let short = avail.len() < total;
        if short && let Err(e) = self.d.fill(total) {
            self.failed = true;
            return Some(Err(stream(e, self)));
        }
        let avail = self.d.available();
        let Some(entry) = avail.get(..total) else {
            self.failed = true;
            let needed = total.saturating_sub(avail.len()) as u64;
            return Some(Err(locate(
                self.value_at,
                Error::at(at, ErrorKind::OutOfBounds { what: "inner message", needed }),
            )));
        };
        match LegacyMessage::parse(entry, at, End::Enclosing("compressed message set")) {
            Ok(m) => {
                self.pending = total;
                Some(Ok(m))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(locate(self.value_at, e)))
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

/// The records of a legacy entry, one at a time ([`LegacyRecords::next_record`]:
/// a record borrows the reader until the next call).
pub struct LegacyRecords<'s> {
    single: Option<LegacyRecord<'s>>,
    inner: Option<(InnerMessages<'s>, i64)>,
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

    /// The next record; `None` after the last one or after an error.
    pub fn next_record(&mut self) -> Option<Result<LegacyRecord<'_>>> {
        if let Some(r) = self.single.take() {
            return Some(Ok(r));
        }
        let wrapper = self.wrapper;
        let (it, shift) = self.inner.as_mut()?;
        let shift = *shift;
        let m = match it.next_message()? {
            Ok(m) => m,
            Err(e) => return Some(Err(e)),
        };
        let timestamp = if m.magic == MAGIC_VALUE_V0 {
            -1
        } else if wrapper.timestamp_type() == TimestampType::LogAppendTime {
            wrapper.timestamp
        } else {
            m.timestamp
        };
        Some(Ok(LegacyRecord { offset: m.offset.wrapping_add(shift), timestamp, message: m }))
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
        let mut recs = m.records(&mut scratch, &Limits::default()).unwrap();
        assert_eq!((recs.base_offset(), recs.record_count()), (40, 2));
        let mut got: Vec<(i64, i64)> = Vec::new();
        while let Some(r) = recs.next_record() {
            got.push(r.map(|r| (r.offset, r.timestamp)).unwrap());
        }
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
