//! How `dump`'s items print: the library's items as they show themselves
//! (`inspect::dump::Item`), and a record with its payload as `--payload` and
//! `--redact` say (UTF-8, hex, base64 or a token), its JSON line written
//! directly (the bytes serde writes, checked below).

use std::borrow::Cow;
use std::io;

use base64::Engine;
use inspect::dump::{Item, RecordItem, record_row};
use logfmt::report::Shown;
use serde::Serialize;
use serde::ser::SerializeStruct;

use crate::args::Payload;
use crate::output::{Emit, Field, JsonName, Skip, TableSink, json_field, json_int, json_str};
use crate::redact::Redactor;

impl Emit for Item<'_> {
    fn table(&self, sink: &mut dyn TableSink) -> io::Result<()> {
        for shown in self.shown() {
            match shown {
                Shown::Row(columns, cells) => sink.row(columns, cells)?,
                Shown::Text(t) => sink.text(&t)?,
            }
        }
        Ok(())
    }
}

#[derive(Serialize)]
pub struct HeaderOut<'a> {
    pub key: Cow<'a, str>,
    #[serde(skip_serializing_if = "Skip::skip")]
    pub value: Field<'a>,
}

/// A record as printed: the library's record and its payload encoded.
pub struct RecordLine<'a> {
    pub record: &'a RecordItem<'a>,
    pub key: Field<'a>,
    pub value: Field<'a>,
    pub headers: Vec<HeaderOut<'a>>,
}

impl<'a> RecordLine<'a> {
    pub fn new(record: &'a RecordItem<'a>, payload: Payload, redact: Option<&Redactor>) -> RecordLine<'a> {
        let headers = record
            .headers
            .iter()
            .map(|hd| HeaderOut { key: String::from_utf8_lossy(hd.key), value: encode(payload, redact, hd.value) })
            .collect();
        RecordLine {
            record,
            key: encode(payload, redact, record.key),
            value: encode(payload, redact, record.value),
            headers,
        }
    }
}

fn encode<'a>(payload: Payload, redact: Option<&Redactor>, bytes: Option<&'a [u8]>) -> Field<'a> {
    match (payload, bytes) {
        (Payload::None, _) => Field::Absent,
        (_, Some(b)) if let Some(r) = redact => Field::Text(Cow::Owned(r.token(b))),
        (_, None) => Field::Null,
        // valid UTF-8 (the usual case) checked by the fast validator first
        (Payload::Utf8, Some(b)) => {
            Field::Text(std::str::from_utf8(b).map_or_else(|_| String::from_utf8_lossy(b), Cow::Borrowed))
        }
        (Payload::Hex, Some(b)) => Field::Text(Cow::Owned(hex(b))),
        (Payload::Base64, Some(b)) => Field::Text(Cow::Owned(base64::engine::general_purpose::STANDARD.encode(b))),
    }
}

fn hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(DIGITS[usize::from(x >> 4)] as char);
        s.push(DIGITS[usize::from(x & 0xf)] as char);
    }
    s
}

/// The record line through serde (the `type` tag, then the fields in
/// order, skipped ones left out): what [`record_json`] must equal.
impl Serialize for RecordLine<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.record;
        let mut st = s.serialize_struct("record", 14)?;
        st.serialize_field("type", "record")?;
        st.serialize_field("file", r.file)?;
        st.serialize_field("offset", &r.offset)?;
        st.serialize_field("timestamp", &r.timestamp)?;
        st.serialize_field("key_size", &r.key_size)?;
        st.serialize_field("value_size", &r.value_size)?;
        st.serialize_field("sequence", &r.sequence)?;
        for (name, f) in [("key", &self.key), ("value", &self.value)] {
            if !f.skip() {
                st.serialize_field(name, f)?;
            }
        }
        st.serialize_field("headers", &self.headers)?;
        if let Some(c) = &r.control {
            st.serialize_field("control", c)?;
        }
        if let Some(d) = &r.decoded {
            st.serialize_field("decoded", d)?;
        }
        if let Some(crc) = r.crc {
            st.serialize_field("crc", &crc)?;
        }
        if let Some(valid) = r.crc_valid {
            st.serialize_field("crc_valid", &valid)?;
        }
        st.end()
    }
}

/// A record line as serde writes it, and its newline.
fn record_json(out: &mut Vec<u8>, names: &mut JsonName, line: &RecordLine<'_>) -> io::Result<()> {
    let r = line.record;
    out.extend_from_slice(b"{\"type\":\"record\",\"file\":");
    names.write(out, r.file);
    json_int(out, "offset", r.offset);
    json_int(out, "timestamp", r.timestamp);
    json_int(out, "key_size", r.key_size);
    json_int(out, "value_size", r.value_size);
    json_int(out, "sequence", r.sequence);
    json_field(out, "key", &line.key);
    json_field(out, "value", &line.value);
    out.extend_from_slice(b",\"headers\":[");
    for (i, h) in line.headers.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"key\":");
        json_str(out, &h.key);
        json_field(out, "value", &h.value);
        out.push(b'}');
    }
    out.push(b']');
    if let Some(c) = &r.control {
        out.extend_from_slice(b",\"control\":");
        serde_json::to_writer(&mut *out, c).map_err(io::Error::from)?;
    }
    if let Some(d) = &r.decoded {
        out.extend_from_slice(b",\"decoded\":");
        serde_json::to_writer(&mut *out, d).map_err(io::Error::from)?;
    }
    if let Some(crc) = r.crc {
        json_int(out, "crc", crc);
    }
    if let Some(valid) = r.crc_valid {
        out.extend_from_slice(if valid { b",\"crc_valid\":true" } else { b",\"crc_valid\":false" });
    }
    out.extend_from_slice(b"}\n");
    Ok(())
}

impl Emit for RecordLine<'_> {
    fn fast_json(&self, out: &mut Vec<u8>, names: &mut JsonName) -> Option<io::Result<()>> {
        Some(record_json(out, names, self))
    }

    fn table(&self, sink: &mut dyn TableSink) -> io::Result<()> {
        let shown = |f: &'_ Field<'_>| match f {
            Field::Absent => None,
            Field::Null => Some(None),
            Field::Text(t) => Some(Some(t.to_string())),
        };
        let (key, value) = (shown(&self.key), shown(&self.value));
        let headers = self.headers.iter().map(|h| {
            let v = if let Field::Text(v) = &h.value { Some(v.as_ref()) } else { None };
            (h.key.as_ref(), v)
        });
        match record_row(self.record, key.as_ref().map(Option::as_deref), value.as_ref().map(Option::as_deref), headers)
        {
            Shown::Row(columns, cells) => sink.row(columns, cells),
            Shown::Text(t) => sink.text(&t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record lines written directly are the bytes serde writes.
    #[test]
    fn record_lines_are_what_serde_writes() {
        let mut every: String = (0u8..0x80).map(char::from).collect();
        every.push_str("é€😀 \u{7f}/");
        let texts =
            ["", "plain", "a\"b\\c", "x".repeat(40).as_str(), every.as_str(), &every.repeat(3)].map(|t| t.to_string());
        let fields = |i: usize| match i % 3 {
            0 => Field::Absent,
            1 => Field::Null,
            _ => Field::Text(Cow::Owned(texts[i % texts.len()].clone())),
        };
        let control = logfmt::control::ControlRecord::EndTxn(logfmt::control::EndTxnMarker {
            commit: true,
            version: 0,
            coordinator_epoch: 3,
        });
        for i in 0..24 {
            let record = RecordItem {
                file: &texts[(i + 2) % texts.len()],
                offset: i as i64 * 1_000_000_007 - 5,
                timestamp: -1,
                key_size: -1,
                value_size: i as i64,
                sequence: i32::MIN + i as i32,
                key: None,
                value: None,
                headers: Default::default(),
                control: (i % 4 == 1).then(|| control.clone()),
                decoded: (i % 5 == 2).then(|| serde_json::json!({"key": {"group": "g\n"}, "value": null})),
                crc: (i % 2 == 0).then_some(u32::MAX - i as u32),
                crc_valid: (i % 2 == 0).then_some(i % 4 == 0),
            };
            let line = RecordLine {
                record: &record,
                key: fields(i),
                value: fields(i + 1),
                headers: (0..i % 3)
                    .map(|h| HeaderOut { key: Cow::Owned(texts[(i + h) % texts.len()].clone()), value: fields(i + h) })
                    .collect(),
            };
            let mut ours = Vec::new();
            record_json(&mut ours, &mut JsonName::default(), &line).unwrap();
            let mut theirs = serde_json::to_vec(&line).unwrap();
            theirs.push(b'\n');
            assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap());
        }
    }
}
