//! A byte cursor that cannot panic and knows where it is in the file.
//!
//! Every read checks the bytes left before touching them and returns an
//! [`Error`] carrying the *absolute* file position of the field (the cursor is
//! created with the position of its first byte). What running out of bytes
//! means depends on what ends the data, fixed at construction ([`End`]): the
//! end of the file is a truncation, the end of an enclosing structure (a record
//! running past its batch) is corruption.
//!
//! Integers are big-endian, as everywhere in Kafka's files. Varints follow
//! Kafka's `ByteUtils` (zigzag, LEB128) but strictly: a varint longer than 5
//! bytes (varlong: 10) or one whose last byte sets bits beyond the type's width
//! is an error, where Kafka would silently drop the high bits.

use crate::error::{Error, ErrorKind, Result};

/// What ends the bytes a cursor reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The end of the file: running out is [`ErrorKind::Truncated`].
    File,
    /// The end of an enclosing structure named here: running out is
    /// [`ErrorKind::OutOfBounds`] (corruption).
    Enclosing(&'static str),
}

/// A read position in a byte slice that starts at absolute file position `base`.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
    end: End,
}

impl<'a> Cursor<'a> {
    /// A cursor over `buf`, whose first byte is at absolute position `base`.
    pub fn new(buf: &'a [u8], base: u64, end: End) -> Cursor<'a> {
        Cursor { buf, pos: 0, base, end }
    }

    /// Absolute file position of the next byte.
    pub fn position(&self) -> u64 {
        self.base.saturating_add(self.pos as u64)
    }

    /// Bytes consumed so far.
    pub fn consumed(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// True when no bytes are left.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread bytes, without consuming them.
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or(&[])
    }

    #[cold]
    fn short(&self, what: &'static str, wanted: usize) -> Error {
        let needed = wanted.saturating_sub(self.remaining()) as u64;
        let kind = match self.end {
            End::File => ErrorKind::Truncated { what, needed },
            End::Enclosing(_) => ErrorKind::OutOfBounds { what, needed },
        };
        Error::at(self.position(), kind)
    }

    /// Consume `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n);
        match end.and_then(|end| self.buf.get(self.pos..end)) {
            Some(s) => {
                self.pos = self.pos.saturating_add(n);
                Ok(s)
            }
            None => Err(self.short(what, n)),
        }
    }

    /// Consume exactly `N` bytes as an array.
    #[inline]
    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let s = self.bytes(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    /// Skip `n` bytes.
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// Read an `i8`.
    #[inline]
    pub fn i8(&mut self, what: &'static str) -> Result<i8> {
        Ok(i8::from_be_bytes(self.array(what)?))
    }

    /// Read a big-endian `i16`.
    pub fn i16(&mut self, what: &'static str) -> Result<i16> {
        Ok(i16::from_be_bytes(self.array(what)?))
    }

    /// Read a big-endian `u16`.
    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    /// Read a big-endian `i32`.
    pub fn i32(&mut self, what: &'static str) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }

    /// Read a big-endian `u32`.
    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    /// Read a big-endian `i64`.
    pub fn i64(&mut self, what: &'static str) -> Result<i64> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }

    /// Read an unsigned LEB128 varint of at most `max_bytes` bytes whose value
    /// fits `bits` bits.
    #[inline]
    fn leb128(&mut self, what: &'static str, max_bytes: u32, bits: u32) -> Result<u64> {
        // Fast path: varints of up to 3 bytes (21 bits) cannot overflow any
        // type read here, which covers nearly every length and delta in a record.
        match self.buf.get(self.pos..).unwrap_or_default() {
            [b0, ..] if *b0 < 0x80 => {
                self.pos = self.pos.saturating_add(1);
                Ok(u64::from(*b0))
            }
            [b0, b1, ..] if *b1 < 0x80 => {
                self.pos = self.pos.saturating_add(2);
                Ok(u64::from(b0 & 0x7f) | (u64::from(*b1) << 7))
            }
            [b0, b1, b2, ..] if *b2 < 0x80 => {
                self.pos = self.pos.saturating_add(3);
                Ok(u64::from(b0 & 0x7f) | (u64::from(b1 & 0x7f) << 7) | (u64::from(*b2) << 14))
            }
            _ => self.leb128_slow(what, max_bytes, bits),
        }
    }

    #[inline(never)]
    fn leb128_slow(&mut self, what: &'static str, max_bytes: u32, bits: u32) -> Result<u64> {
        let start = self.position();
        let mut value: u64 = 0;
        let mut i: u32 = 0;
        loop {
            let Some(&b) = self.buf.get(self.pos) else {
                // Kafka reads past a short buffer as an error; the varint is
                // incomplete, which is "truncated" only at the end of the file.
                return Err(self.short(what, 1));
            };
            self.pos = self.pos.saturating_add(1);
            let shift = i.saturating_mul(7);
            let payload = u64::from(b & 0x7f);
            // bits of this byte beyond the type's width
            if shift.saturating_add(7) > bits {
                let usable = bits.saturating_sub(shift);
                if payload >> usable != 0 {
                    return Err(Error::at(start, ErrorKind::VarintOverflow { what }));
                }
            }
            value |= payload.checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(value);
            }
            i = i.saturating_add(1);
            if i >= max_bytes {
                return Err(Error::at(start, ErrorKind::VarintTooLong { what }));
            }
        }
    }

    /// Read a zigzag varint (an `int32`, at most 5 bytes), as Kafka's
    /// `ByteUtils.readVarint`.
    #[inline]
    pub fn varint(&mut self, what: &'static str) -> Result<i32> {
        let raw = self.leb128(what, 5, 32)?;
        let raw = u32::try_from(raw).unwrap_or(u32::MAX);
        Ok(((raw >> 1) as i32) ^ ((raw & 1) as i32).wrapping_neg())
    }

    /// Read a zigzag varlong (an `int64`, at most 10 bytes), as Kafka's
    /// `ByteUtils.readVarlong`.
    #[inline]
    pub fn varlong(&mut self, what: &'static str) -> Result<i64> {
        let raw = self.leb128(what, 10, 64)?;
        Ok(((raw >> 1) as i64) ^ ((raw & 1) as i64).wrapping_neg())
    }

    /// Read an unsigned varint (no zigzag), as used by flexible protocol
    /// messages (compact lengths, tagged fields).
    pub fn unsigned_varint(&mut self, what: &'static str) -> Result<u32> {
        let raw = self.leb128(what, 5, 32)?;
        Ok(u32::try_from(raw).unwrap_or(u32::MAX))
    }

    /// Read a length that may be -1 (null) and must otherwise fit in the
    /// remaining bytes; returns `None` for -1.
    #[inline]
    pub fn nullable_len(&mut self, len: i64, what: &'static str, at: u64) -> Result<Option<usize>> {
        if len == -1 {
            return Ok(None);
        }
        let max = self.remaining() as i64;
        if len < 0 || len > max {
            if len > max {
                return Err(self.short(what, usize::try_from(len).unwrap_or(usize::MAX)));
            }
            return Err(Error::at(at, ErrorKind::BadLength { what, value: len, min: -1, max }));
        }
        Ok(Some(len as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorClass;

    fn cur(b: &[u8]) -> Cursor<'_> {
        Cursor::new(b, 100, End::File)
    }

    #[test]
    fn varint_examples_from_real_files() {
        assert_eq!(cur(&[0x00]).varint("v").unwrap(), 0);
        assert_eq!(cur(&[0x01]).varint("v").unwrap(), -1);
        assert_eq!(cur(&[0xc8, 0x01]).varint("v").unwrap(), 100);
        assert_eq!(cur(&[0xd6, 0x01]).varint("v").unwrap(), 107);
        assert_eq!(cur(&[0xeb, 0x8a, 0xb9, 0x03]).varlong("v").unwrap(), -3_613_366);
    }

    #[test]
    fn varint_extremes() {
        assert_eq!(cur(&[0xfe, 0xff, 0xff, 0xff, 0x0f]).varint("v").unwrap(), i32::MAX);
        assert_eq!(cur(&[0xff, 0xff, 0xff, 0xff, 0x0f]).varint("v").unwrap(), i32::MIN);
        let max = [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(cur(&max).varlong("v").unwrap(), i64::MAX);
    }

    #[test]
    fn varint_too_long_and_overflow_are_corrupt() {
        let e = cur(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]).varint("v").unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::VarintTooLong { .. }));
        assert_eq!(e.position(), Some(100));
        let e = cur(&[0xff, 0xff, 0xff, 0xff, 0x1f]).varint("v").unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::VarintOverflow { .. }));
        let e = cur(&[0x80; 11]).varlong("v").unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::VarintTooLong { .. }));
    }

    #[test]
    fn short_reads_are_truncated_at_file_end_and_corrupt_inside_a_structure() {
        let e = cur(&[1, 2]).i32("x").unwrap_err();
        assert_eq!(e.class(), ErrorClass::Truncated);
        assert!(matches!(e.kind(), ErrorKind::Truncated { needed: 2, .. }));
        assert_eq!(e.position(), Some(100));
        let mut c = Cursor::new(&[1, 2, 3], 10, End::Enclosing("batch"));
        c.i8("a").unwrap();
        let e = c.i32("x").unwrap_err();
        assert_eq!(e.class(), ErrorClass::Corrupt);
        assert_eq!(e.position(), Some(11));
        let e = cur(&[0x80]).varint("v").unwrap_err();
        assert!(e.is_truncated());
    }

    #[test]
    fn nullable_len() {
        let mut c = cur(&[0; 4]);
        assert_eq!(c.nullable_len(-1, "k", 0).unwrap(), None);
        assert_eq!(c.nullable_len(4, "k", 0).unwrap(), Some(4));
        assert!(c.nullable_len(-2, "k", 0).is_err());
        assert!(c.nullable_len(5, "k", 0).unwrap_err().is_truncated());
    }
}
