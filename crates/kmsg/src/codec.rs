//! Reading and writing a message by its definition, as JSON values shaped
//! the way Kafka's generated `JsonConverter`s shape them (the JSON
//! `DumpLogSegments --cluster-metadata-decoder` prints): camelCase field
//! names, the fields of the version only, tagged fields only when not their
//! default, UUIDs in base64url, bytes in base64.
//!
//! The wire format is Kafka's generated-message format: big-endian numbers;
//! in flexible versions compact strings, bytes and arrays (unsigned varint
//! length + 1, 0 for null) and a tagged-field section ending each struct; in
//! the others int16-length strings, int32-length bytes and arrays (-1 null).
//! Reading never panics and never allocates more than the bytes left.

use base64::Engine;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::schema::{Field, MessageSchema, StructDef, Type};

/// Base64url without padding: how Kafka's `Uuid.toString` spells a UUID.
pub fn uuid_to_string(b: &[u8; 16]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

fn uuid_from_str(s: &str) -> Result<[u8; 16]> {
    let v = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(s.trim_end_matches('='))
        .map_err(|_| Error::value(format!("{s:?} is not a base64url UUID")))?;
    v.try_into().map_err(|_| Error::value(format!("{s:?} is not 16 bytes")))
}

/// A bounded reader that knows where it is.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Read `buf` from its start.
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// Bytes read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Take `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or(Error::Truncated { at: self.pos })?;
        let s = self.buf.get(self.pos..end).ok_or(Error::Truncated { at: self.pos })?;
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// A big-endian int16.
    pub fn i16(&mut self) -> Result<i16> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    fn i8(&mut self) -> Result<i8> {
        Ok(i8::from_be_bytes(self.array()?))
    }

    fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    /// An unsigned varint (at most 5 bytes, as Kafka's `ByteUtils.readUnsignedVarint`).
    pub fn uvarint(&mut self) -> Result<u32> {
        let mut v: u32 = 0;
        for (i, shift) in [0u32, 7, 14, 21, 28].into_iter().enumerate() {
            let b = self.i8()? as u8;
            v |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                if i == 4 && b > 0x0f {
                    return Err(Error::Invalid { at: self.pos, what: "unsigned varint overflows".into() });
                }
                return Ok(v);
            }
        }
        Err(Error::Invalid { at: self.pos, what: "unsigned varint is too long".into() })
    }

    /// A length prefix: compact (`uvarint - 1`) or `int16`/`int32`; `None` for null.
    fn len(&mut self, flexible: bool, wide: bool) -> Result<Option<usize>> {
        let at = self.pos;
        let n: i64 = if flexible {
            i64::from(self.uvarint()?).saturating_sub(1)
        } else if wide {
            i64::from(self.i32()?)
        } else {
            i64::from(self.i16()?)
        };
        if n < -1 {
            return Err(Error::Invalid { at, what: format!("length {n}") });
        }
        Ok(usize::try_from(n).ok())
    }
}

/// Read a message of `schema` at `version` from `r`.
pub fn read(r: &mut Reader<'_>, schema: &MessageSchema, version: i16) -> Result<Value> {
    if !schema.valid.contains(version) {
        // a version above those Kafka's definitions here have: a newer
        // Kafka wrote it (readers keep the bytes and say so)
        if version > schema.valid.hi {
            return Err(Error::value(format!(
                "{} version {version} is newer than logtool knows (up to {}): written by a newer Kafka",
                schema.name, schema.valid.hi
            )));
        }
        return Err(Error::value(format!("{} has no version {version}", schema.name)));
    }
    read_struct(r, &schema.root, version, schema.flexible.contains(version), 0)
}

/// The struct of a tagged field that is a nullable struct at `version`: its
/// bytes start with an unsigned varint (0: null) where an untagged one has
/// an int8 (negative: null).
fn tagged_struct(f: &Field, version: i16) -> Option<&StructDef> {
    match &f.ty {
        Type::Struct(def) if f.nullable.contains(version) => Some(def),
        _ => None,
    }
}

/// Nesting deeper than this is damage, not a message.
const MAX_DEPTH: u32 = 32;

fn read_struct(r: &mut Reader<'_>, def: &StructDef, version: i16, flexible: bool, depth: u32) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(Error::Invalid { at: r.position(), what: "structs nested too deep".into() });
    }
    let mut obj = Map::new();
    for f in def.fields.iter().filter(|f| f.versions.contains(version) && !f.is_tagged(version)) {
        let v = read_value(r, &f.ty, version, flexible, f.nullable.contains(version), depth)?;
        obj.insert(f.json.clone(), v);
    }
    if flexible {
        tagged_fields(r, def, version, |f, bytes| {
            let mut tr = Reader::new(bytes);
            let v = match tagged_struct(f, version) {
                // (a nullable struct in a tagged field starts with an
                // unsigned varint, 0 for null: Kafka's generated readers)
                Some(_) if tr.uvarint()? == 0 => Value::Null,
                Some(def) => read_struct(&mut tr, def, version, flexible, depth.saturating_add(1))?,
                None => read_value(&mut tr, &f.ty, version, flexible, f.nullable.contains(version), depth)?,
            };
            // as Kafka's JSON converters: a tagged field only when not its default
            if v != f.default {
                obj.insert(f.json.clone(), v);
            }
            Ok(())
        })?;
    }
    Ok(Value::Object(obj))
}

/// The tagged-field section ending a struct of a flexible version: `each`
/// gets every field of `def` it holds, with its bytes (unknown tags are
/// skipped, as Kafka skips them).
fn tagged_fields<'b, 'd>(
    r: &mut Reader<'b>,
    def: &'d StructDef,
    version: i16,
    mut each: impl FnMut(&'d Field, &'b [u8]) -> Result<()>,
) -> Result<()> {
    let n = r.uvarint()?;
    for _ in 0..n {
        let tag = r.uvarint()?;
        let size = usize::try_from(r.uvarint()?).unwrap_or(usize::MAX);
        let bytes = r.take(size)?;
        if let Some(f) = def.fields.iter().find(|f| f.tagged.is_some_and(|(t, v)| t == tag && v.contains(version))) {
            each(f, bytes)?;
        }
    }
    Ok(())
}

fn read_value(
    r: &mut Reader<'_>,
    ty: &Type,
    version: i16,
    flexible: bool,
    nullable: bool,
    depth: u32,
) -> Result<Value> {
    let null_if = |v: Option<usize>, at: usize| -> Result<Option<usize>> {
        match v {
            None if nullable => Ok(None),
            None => Err(Error::Invalid { at, what: "null in a field that cannot be null".into() }),
            Some(n) => Ok(Some(n)),
        }
    };
    Ok(match ty {
        Type::Bool => Value::Bool(r.i8()? != 0),
        Type::Int8 => Value::from(r.i8()?),
        Type::Int16 => Value::from(r.i16()?),
        Type::Uint16 => Value::from(u16::from_be_bytes(r.array()?)),
        Type::Int32 => Value::from(r.i32()?),
        Type::Uint32 => Value::from(u32::from_be_bytes(r.array()?)),
        Type::Int64 => Value::from(i64::from_be_bytes(r.array()?)),
        Type::Float64 => Value::from(f64::from_be_bytes(r.array()?)),
        Type::Uuid => Value::String(uuid_to_string(&r.array()?)),
        Type::String => {
            let at = r.position();
            match null_if(r.len(flexible, false)?, at)? {
                None => Value::Null,
                Some(n) => Value::String(String::from_utf8_lossy(r.take(n)?).into_owned()),
            }
        }
        Type::Bytes | Type::Records => {
            let at = r.position();
            match null_if(r.len(flexible, true)?, at)? {
                None => Value::Null,
                Some(n) => Value::String(base64::engine::general_purpose::STANDARD.encode(r.take(n)?)),
            }
        }
        Type::Array(elem) => {
            let at = r.position();
            match null_if(r.len(flexible, true)?, at)? {
                None => Value::Null,
                Some(n) => {
                    // every element takes at least one byte
                    if n > r.remaining() {
                        return Err(Error::Truncated { at });
                    }
                    let mut out = Vec::with_capacity(n);
                    for _ in 0..n {
                        out.push(read_value(r, elem, version, flexible, false, depth.saturating_add(1))?);
                    }
                    Value::Array(out)
                }
            }
        }
        Type::Struct(def) => {
            if nullable && r.i8()? < 0 {
                Value::Null
            } else {
                read_struct(r, def, version, flexible, depth.saturating_add(1))?
            }
        }
    })
}

/// Walk a message of `schema` at `version` without building it: whether it
/// is well formed, and how many values it holds (array elements and
/// structs: what a decoder building it allocates for, at most). Reading a
/// request this way before a generated decoder reads it keeps a claimed
/// array length from costing memory the bytes do not back.
pub fn skim(r: &mut Reader<'_>, schema: &MessageSchema, version: i16) -> Result<u64> {
    if !schema.valid.contains(version) {
        // a version above those Kafka's definitions here have: a newer
        // Kafka wrote it (readers keep the bytes and say so)
        if version > schema.valid.hi {
            return Err(Error::value(format!(
                "{} version {version} is newer than logtool knows (up to {}): written by a newer Kafka",
                schema.name, schema.valid.hi
            )));
        }
        return Err(Error::value(format!("{} has no version {version}", schema.name)));
    }
    skim_struct(r, &schema.root, version, schema.flexible.contains(version), 0)
}

fn skim_struct(r: &mut Reader<'_>, def: &StructDef, version: i16, flexible: bool, depth: u32) -> Result<u64> {
    if depth > MAX_DEPTH {
        return Err(Error::Invalid { at: r.position(), what: "structs nested too deep".into() });
    }
    let mut items: u64 = 1;
    for f in def.fields.iter().filter(|f| f.versions.contains(version) && !f.is_tagged(version)) {
        items = items.saturating_add(skim_value(r, &f.ty, version, flexible, f.nullable.contains(version), depth)?);
    }
    if flexible {
        tagged_fields(r, def, version, |f, bytes| {
            let mut tr = Reader::new(bytes);
            let v = match tagged_struct(f, version) {
                Some(_) if tr.uvarint()? == 0 => 0,
                Some(def) => skim_struct(&mut tr, def, version, flexible, depth.saturating_add(1))?,
                None => skim_value(&mut tr, &f.ty, version, flexible, f.nullable.contains(version), depth)?,
            };
            items = items.saturating_add(v);
            Ok(())
        })?;
    }
    Ok(items)
}

fn skim_value(r: &mut Reader<'_>, ty: &Type, version: i16, flexible: bool, nullable: bool, depth: u32) -> Result<u64> {
    let null_ok = |n: Option<usize>, at: usize| -> Result<usize> {
        match n {
            None if nullable => Ok(0),
            None => Err(Error::Invalid { at, what: "null in a field that cannot be null".into() }),
            Some(n) => Ok(n),
        }
    };
    match ty {
        Type::Bool | Type::Int8 => r.take(1).map(|_| 0),
        Type::Int16 | Type::Uint16 => r.take(2).map(|_| 0),
        Type::Int32 | Type::Uint32 => r.take(4).map(|_| 0),
        Type::Int64 | Type::Float64 => r.take(8).map(|_| 0),
        Type::Uuid => r.take(16).map(|_| 0),
        Type::String | Type::Bytes | Type::Records => {
            let at = r.position();
            let n = null_ok(r.len(flexible, !matches!(ty, Type::String))?, at)?;
            r.take(n).map(|_| 0)
        }
        Type::Array(elem) => {
            let at = r.position();
            let n = null_ok(r.len(flexible, true)?, at)?;
            // every element takes at least one byte
            if n > r.remaining() {
                return Err(Error::Truncated { at });
            }
            let mut items = n as u64;
            for _ in 0..n {
                items = items.saturating_add(skim_value(r, elem, version, flexible, false, depth.saturating_add(1))?);
            }
            Ok(items)
        }
        Type::Struct(def) => {
            if nullable && r.i8()? < 0 {
                Ok(0)
            } else {
                skim_struct(r, def, version, flexible, depth.saturating_add(1))
            }
        }
    }
}

/// Write a message of `schema` at `version` from `value` (missing fields take
/// their defaults).
pub fn write(out: &mut Vec<u8>, schema: &MessageSchema, version: i16, value: &Value) -> Result<()> {
    if !schema.valid.contains(version) {
        // a version above those Kafka's definitions here have: a newer
        // Kafka wrote it (readers keep the bytes and say so)
        if version > schema.valid.hi {
            return Err(Error::value(format!(
                "{} version {version} is newer than logtool knows (up to {}): written by a newer Kafka",
                schema.name, schema.valid.hi
            )));
        }
        return Err(Error::value(format!("{} has no version {version}", schema.name)));
    }
    write_struct(out, &schema.root, version, schema.flexible.contains(version), value)
}

/// Write an unsigned varint.
pub fn put_uvarint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_len(out: &mut Vec<u8>, n: Option<usize>, flexible: bool, wide: bool) -> Result<()> {
    match (n, flexible) {
        (None, true) => put_uvarint(out, 0),
        (Some(n), true) => put_uvarint(
            out,
            u32::try_from(n).ok().and_then(|n| n.checked_add(1)).ok_or(Error::value("too long".into()))?,
        ),
        (None, false) if wide => out.extend((-1i32).to_be_bytes()),
        (None, false) => out.extend((-1i16).to_be_bytes()),
        (Some(n), false) if wide => {
            out.extend(i32::try_from(n).map_err(|_| Error::value("too long".into()))?.to_be_bytes())
        }
        (Some(n), false) => out.extend(i16::try_from(n).map_err(|_| Error::value("too long".into()))?.to_be_bytes()),
    }
    Ok(())
}

fn field_value<'v>(value: &'v Value, f: &'v Field) -> &'v Value {
    value.get(&f.json).unwrap_or(&f.default)
}

fn write_struct(out: &mut Vec<u8>, def: &StructDef, version: i16, flexible: bool, value: &Value) -> Result<()> {
    for f in def.fields.iter().filter(|f| f.versions.contains(version) && !f.is_tagged(version)) {
        write_value(out, &f.ty, version, flexible, f.nullable.contains(version), field_value(value, f))
            .map_err(|e| e.within(&f.name))?;
    }
    if flexible {
        let mut tagged: Vec<(u32, Vec<u8>)> = Vec::new();
        for f in def.fields.iter().filter(|f| f.versions.contains(version) && f.is_tagged(version)) {
            let v = field_value(value, f);
            if *v == f.default {
                continue;
            }
            let mut buf = Vec::new();
            match tagged_struct(f, version) {
                Some(_) if v.is_null() => put_uvarint(&mut buf, 0),
                Some(def) => {
                    put_uvarint(&mut buf, 1);
                    write_struct(&mut buf, def, version, flexible, v).map_err(|e| e.within(&f.name))?;
                }
                None => write_value(&mut buf, &f.ty, version, flexible, f.nullable.contains(version), v)
                    .map_err(|e| e.within(&f.name))?,
            }
            tagged.push((f.tagged.map_or(0, |t| t.0), buf));
        }
        tagged.sort_by_key(|t| t.0);
        put_uvarint(out, u32::try_from(tagged.len()).unwrap_or(u32::MAX));
        for (tag, buf) in tagged {
            put_uvarint(out, tag);
            put_uvarint(out, u32::try_from(buf.len()).map_err(|_| Error::value("tagged field too long".into()))?);
            out.extend(buf);
        }
    }
    Ok(())
}

fn int(v: &Value) -> Result<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_u64().and_then(|u| i64::try_from(u).ok())),
        Value::String(s) => s.parse().ok(),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
    .ok_or_else(|| Error::value(format!("{v} is not an integer")))
}

fn write_value(out: &mut Vec<u8>, ty: &Type, version: i16, flexible: bool, nullable: bool, v: &Value) -> Result<()> {
    let narrow = |n: i64, what: &str| Error::value(format!("{n} does not fit {what}"));
    match ty {
        Type::Bool => out.push(u8::from(v.as_bool().unwrap_or(false))),
        Type::Int8 => out.extend(i8::try_from(int(v)?).map_err(|_| narrow(int(v).unwrap_or(0), "int8"))?.to_be_bytes()),
        Type::Int16 => {
            out.extend(i16::try_from(int(v)?).map_err(|_| narrow(int(v).unwrap_or(0), "int16"))?.to_be_bytes())
        }
        Type::Uint16 => {
            out.extend(u16::try_from(int(v)?).map_err(|_| narrow(int(v).unwrap_or(0), "uint16"))?.to_be_bytes())
        }
        Type::Int32 => {
            out.extend(i32::try_from(int(v)?).map_err(|_| narrow(int(v).unwrap_or(0), "int32"))?.to_be_bytes())
        }
        Type::Uint32 => {
            out.extend(u32::try_from(int(v)?).map_err(|_| narrow(int(v).unwrap_or(0), "uint32"))?.to_be_bytes())
        }
        Type::Int64 => out.extend(int(v)?.to_be_bytes()),
        Type::Float64 => out.extend(v.as_f64().unwrap_or(0.0).to_be_bytes()),
        Type::Uuid => out.extend(uuid_from_str(v.as_str().unwrap_or(""))?),
        Type::String => match v {
            Value::Null if nullable => put_len(out, None, flexible, false)?,
            _ => {
                let s = v.as_str().ok_or_else(|| Error::value(format!("{v} is not a string")))?;
                put_len(out, Some(s.len()), flexible, false)?;
                out.extend(s.as_bytes());
            }
        },
        Type::Bytes | Type::Records => match v {
            Value::Null if nullable => put_len(out, None, flexible, true)?,
            _ => {
                let s = v.as_str().unwrap_or("");
                let b = base64::engine::general_purpose::STANDARD
                    .decode(s)
                    .map_err(|_| Error::value(format!("{s:?} is not base64")))?;
                put_len(out, Some(b.len()), flexible, true)?;
                out.extend(b);
            }
        },
        Type::Array(elem) => match v {
            Value::Null if nullable => put_len(out, None, flexible, true)?,
            _ => {
                let items = v.as_array().map(Vec::as_slice).unwrap_or_default();
                put_len(out, Some(items.len()), flexible, true)?;
                for item in items {
                    write_value(out, elem, version, flexible, false, item)?;
                }
            }
        },
        Type::Struct(def) => {
            if nullable {
                if v.is_null() {
                    out.push(0xff);
                    return Ok(());
                }
                out.push(1);
            }
            write_struct(out, def, version, flexible, v)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn the_schema_default_uuid_is_the_zero_uuid_as_the_codec_spells_it() {
        assert_eq!(super::uuid_to_string(&[0u8; 16]), crate::schema::ZERO_UUID);
    }

    #[test]
    fn skim_counts_what_read_builds_and_refuses_lies() {
        let value = json!({"topics": [{"name": "a"}, {"name": "b"}], "allowAutoTopicCreation": true});
        for version in [1i16, 9, 12] {
            let bytes = crate::encode("MetadataRequest", version, &value).unwrap();
            // the root, the array's two elements, and their two structs
            assert_eq!(
                crate::skim_request("MetadataRequest", version, &bytes).unwrap(),
                (5, bytes.len()),
                "v{version}"
            );
            assert!(crate::skim_request("MetadataRequest", version, &bytes[..bytes.len() - 1]).is_err());
        }
        // v1: an array of 2^31 - 1 topics in 4 bytes
        let lie = 0x7fff_ffffi32.to_be_bytes();
        assert!(crate::skim_request("MetadataRequest", 1, &lie).is_err());
        // bytes after the message are not part of it (Kafka ignores them)
        let mut bytes = crate::encode("MetadataRequest", 1, &value).unwrap();
        let len = bytes.len();
        bytes.push(0);
        assert_eq!(crate::skim_request("MetadataRequest", 1, &bytes).unwrap(), (5, len));
    }
}
