//! Kafka's message definitions, parsed: the JSON files of `schemas/` (from
//! the Kafka release jars, see `update-schemas.sh`) as Rust values.
//!
//! A definition names its versions (`validVersions`), the versions that use
//! the compact "flexible" encoding (`flexibleVersions`) and its fields; a field
//! has a type, the versions it exists in, the versions it may be null in, an
//! optional tag (then it is written in the tagged-field section, only when
//! not its default) and a default. Struct types are defined inline (`fields`)
//! or among the message's `commonStructs`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::error::{Error, Result};

/// `Uuid.ZERO_UUID` as Kafka spells it (base64url of 16 zero bytes): a
/// UUID field's default.
pub const ZERO_UUID: &str = "AAAAAAAAAAAAAAAAAAAAAA";

/// A version range; empty for `none`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Versions {
    /// Lowest version.
    pub lo: i16,
    /// Highest version (`i16::MAX` for `N+`).
    pub hi: i16,
}

impl Versions {
    /// No version.
    pub const NONE: Versions = Versions { lo: 1, hi: 0 };

    /// Parse `"0+"`, `"1-3"`, `"2"` or `"none"`.
    pub fn parse(s: &str) -> Result<Versions> {
        let s = s.trim();
        let num = |t: &str| t.trim().parse::<i16>().map_err(|_| Error::schema(format!("bad version range {s:?}")));
        if s == "none" || s.is_empty() {
            return Ok(Versions::NONE);
        }
        if let Some(lo) = s.strip_suffix('+') {
            return Ok(Versions { lo: num(lo)?, hi: i16::MAX });
        }
        if let Some((lo, hi)) = s.split_once('-') {
            return Ok(Versions { lo: num(lo)?, hi: num(hi)? });
        }
        let v = num(s)?;
        Ok(Versions { lo: v, hi: v })
    }

    /// Whether `v` is in the range.
    pub fn contains(&self, v: i16) -> bool {
        v >= self.lo && v <= self.hi
    }
}

/// A field's type.
#[derive(Clone, Debug)]
pub enum Type {
    /// `bool`
    Bool,
    /// `int8`
    Int8,
    /// `int16`
    Int16,
    /// `uint16`
    Uint16,
    /// `int32`
    Int32,
    /// `uint32`
    Uint32,
    /// `int64`
    Int64,
    /// `float64`
    Float64,
    /// `string`
    String,
    /// `bytes`
    Bytes,
    /// `records` (encoded as bytes)
    Records,
    /// `uuid`
    Uuid,
    /// `[]T`
    Array(Box<Type>),
    /// A struct.
    Struct(Arc<StructDef>),
}

/// A field.
#[derive(Clone, Debug)]
pub struct Field {
    /// Kafka's name (`TopicId`).
    pub name: String,
    /// The JSON name Kafka's converters use (`topicId`).
    pub json: String,
    /// Its type.
    pub ty: Type,
    /// The versions it exists in.
    pub versions: Versions,
    /// The versions it may be null in.
    pub nullable: Versions,
    /// Its tag and the versions it is tagged in.
    pub tagged: Option<(u32, Versions)>,
    /// Its default (JSON), as Kafka's generated code has it.
    pub default: Value,
    /// What the definition says of it (`about`).
    pub about: String,
}

impl Field {
    /// Whether it is written in the tagged-field section at `version`.
    pub fn is_tagged(&self, version: i16) -> bool {
        self.tagged.is_some_and(|(_, v)| v.contains(version))
    }
}

/// A struct: its fields in order.
#[derive(Clone, Debug)]
pub struct StructDef {
    /// Its name.
    pub name: String,
    /// The fields.
    pub fields: Vec<Field>,
}

/// One message definition.
#[derive(Clone, Debug)]
pub struct MessageSchema {
    /// `TopicRecord`, `OffsetCommitKey`, ...
    pub name: String,
    /// `metadata`, `data`, ...
    pub kind: String,
    /// The API key, for records that have one (metadata records).
    pub api_key: Option<i16>,
    /// The versions that exist.
    pub valid: Versions,
    /// The versions in the compact (flexible) encoding.
    pub flexible: Versions,
    /// The top-level fields.
    pub root: Arc<StructDef>,
}

/// Kafka's `camelCaseName`: the first letter lowered.
fn camel(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The default of a field of type `ty`, from its `default` text.
fn default_of(ty: &Type, text: Option<&str>) -> Result<Value> {
    if text == Some("null") {
        return Ok(Value::Null);
    }
    Ok(match ty {
        Type::Bool => Value::Bool(text == Some("true")),
        Type::Int8 | Type::Int16 | Type::Uint16 | Type::Int32 | Type::Uint32 | Type::Int64 => {
            let t = text.unwrap_or("0");
            let n: i64 = if let Some(hex) = t.strip_prefix("0x") {
                i64::from_str_radix(hex, 16).map_err(|_| Error::schema(format!("bad default {t:?}")))?
            } else {
                t.parse().map_err(|_| Error::schema(format!("bad default {t:?}")))?
            };
            Value::from(n)
        }
        Type::Float64 => {
            let t = text.unwrap_or("0");
            Value::from(t.parse::<f64>().map_err(|_| Error::schema(format!("bad default {t:?}")))?)
        }
        Type::String => Value::String(text.unwrap_or("").to_string()),
        Type::Bytes | Type::Records => Value::String(String::new()),
        Type::Uuid => Value::String(ZERO_UUID.into()),
        Type::Array(_) => Value::Array(Vec::new()),
        Type::Struct(_) => Value::Object(serde_json::Map::new()),
    })
}

struct Parser<'a> {
    common: HashMap<String, &'a Value>,
    built: HashMap<String, Arc<StructDef>>,
}

impl<'a> Parser<'a> {
    fn ty(&mut self, text: &str, field: &'a Value) -> Result<Type> {
        if let Some(elem) = text.strip_prefix("[]") {
            return Ok(Type::Array(Box::new(self.ty(elem, field)?)));
        }
        Ok(match text {
            "bool" => Type::Bool,
            "int8" => Type::Int8,
            "int16" => Type::Int16,
            "uint16" => Type::Uint16,
            "int32" => Type::Int32,
            "uint32" => Type::Uint32,
            "int64" => Type::Int64,
            "float64" => Type::Float64,
            "string" => Type::String,
            "bytes" => Type::Bytes,
            "records" => Type::Records,
            "uuid" => Type::Uuid,
            name => Type::Struct(self.struct_def(name, field.get("fields"))?),
        })
    }

    fn struct_def(&mut self, name: &str, inline: Option<&'a Value>) -> Result<Arc<StructDef>> {
        if let Some(s) = self.built.get(name) {
            return Ok(Arc::clone(s));
        }
        let fields = match inline {
            Some(f) => f,
            None => self
                .common
                .get(name)
                .and_then(|c| c.get("fields"))
                .ok_or_else(|| Error::schema(format!("struct {name} has no definition")))?,
        };
        let def = Arc::new(StructDef { name: name.to_string(), fields: self.fields(fields)? });
        self.built.insert(name.to_string(), Arc::clone(&def));
        Ok(def)
    }

    fn fields(&mut self, list: &'a Value) -> Result<Vec<Field>> {
        let mut out = Vec::new();
        for f in list.as_array().ok_or_else(|| Error::schema("fields is not an array".into()))? {
            let name = str_of(f, "name").ok_or_else(|| Error::schema("a field without a name".into()))?;
            let ty_text = str_of(f, "type").ok_or_else(|| Error::schema(format!("field {name} has no type")))?;
            let ty = self.ty(ty_text, f)?;
            let nullable = Versions::parse(str_of(f, "nullableVersions").unwrap_or("none"))?;
            let tagged = match (f.get("tag"), str_of(f, "taggedVersions")) {
                (Some(tag), Some(tv)) => {
                    let tag = match tag {
                        Value::Number(n) => n.as_u64(),
                        Value::String(s) => s.parse().ok(),
                        _ => None,
                    }
                    .and_then(|t| u32::try_from(t).ok())
                    .ok_or_else(|| Error::schema(format!("field {name}: bad tag")))?;
                    Some((tag, Versions::parse(tv)?))
                }
                _ => None,
            };
            // without "versions", a tagged field exists in its tagged
            // versions (Kafka's FieldSpec)
            let versions = match (str_of(f, "versions"), tagged) {
                (Some(v), _) => Versions::parse(v)?,
                (None, Some((_, tv))) => tv,
                (None, None) => Versions::NONE,
            };
            // a default is written as text ("-1", "0x7fffffff", "null") or,
            // in some definitions, as a JSON number or boolean
            let default_text = match f.get("default") {
                Some(Value::String(s)) => Some(s.clone()),
                Some(v @ (Value::Number(_) | Value::Bool(_))) => Some(v.to_string()),
                _ => None,
            };
            let default = default_of(&ty, default_text.as_deref())?;
            let about = str_of(f, "about").unwrap_or_default().to_string();
            out.push(Field {
                name: name.to_string(),
                json: camel(name),
                ty,
                versions,
                nullable,
                tagged,
                default,
                about,
            });
        }
        Ok(out)
    }
}

/// Parse one definition.
pub fn parse(text: &str) -> Result<MessageSchema> {
    let v: Value = serde_json::from_str(text).map_err(|e| Error::schema(e.to_string()))?;
    let name = str_of(&v, "name").ok_or_else(|| Error::schema("a message without a name".into()))?.to_string();
    let mut p = Parser { common: HashMap::new(), built: HashMap::new() };
    if let Some(common) = v.get("commonStructs").and_then(Value::as_array) {
        for c in common {
            if let Some(n) = str_of(c, "name") {
                p.common.insert(n.to_string(), c);
            }
        }
    }
    let fields = v.get("fields").ok_or_else(|| Error::schema(format!("{name} has no fields")))?;
    let root = Arc::new(StructDef { name: name.clone(), fields: p.fields(fields)? });
    let api_key = v.get("apiKey").and_then(Value::as_i64).and_then(|k| i16::try_from(k).ok());
    Ok(MessageSchema {
        kind: str_of(&v, "type").unwrap_or("").to_string(),
        api_key,
        valid: Versions::parse(str_of(&v, "validVersions").unwrap_or("0"))?,
        flexible: Versions::parse(str_of(&v, "flexibleVersions").unwrap_or("none"))?,
        root,
        name,
    })
}

/// Every embedded definition, parsed once.
fn all() -> &'static HashMap<String, MessageSchema> {
    static ALL: OnceLock<HashMap<String, MessageSchema>> = OnceLock::new();
    ALL.get_or_init(|| {
        crate::schemas::SCHEMAS.iter().filter_map(|(_, text)| parse(text).ok().map(|s| (s.name.clone(), s))).collect()
    })
}

/// The definition named `name` (`TopicRecord`, `OffsetCommitValue`, ...).
pub fn by_name(name: &str) -> Option<&'static MessageSchema> {
    all().get(name)
}

/// The records of tiered storage's `__remote_log_metadata`
/// (kafka-storage's `RemoteLogMetadataSerde`): `"type": "metadata"`
/// definitions whose api keys are their own, not `MetadataRecordType`'s.
pub const REMOTE_LOG_METADATA_RECORDS: [&str; 4] = [
    "RemoteLogSegmentMetadataRecord",
    "RemoteLogSegmentMetadataUpdateRecord",
    "RemotePartitionDeleteMetadataRecord",
    "RemoteLogSegmentMetadataSnapshotRecord",
];

fn is_remote(s: &MessageSchema) -> bool {
    REMOTE_LOG_METADATA_RECORDS.contains(&s.name.as_str())
}

/// The metadata record with API key `key` (KRaft, `MetadataRecordType`).
pub fn metadata_record(key: i16) -> Option<&'static MessageSchema> {
    all().values().find(|s| s.kind == "metadata" && s.api_key == Some(key) && !is_remote(s))
}

/// The remote log metadata record with API key `key`
/// (`RemoteLogMetadataSerde`: 0 segment metadata, 1 its update, 2 a
/// partition's deletion, 3 a snapshot's segment entry).
pub fn remote_log_metadata_record(key: i16) -> Option<&'static MessageSchema> {
    all().values().find(|s| s.kind == "metadata" && s.api_key == Some(key) && is_remote(s))
}

/// The names of every embedded definition.
pub fn names() -> Vec<&'static str> {
    let mut n: Vec<&str> = all().keys().map(String::as_str).collect();
    n.sort_unstable();
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_definition_parses() {
        for (name, text) in crate::schemas::SCHEMAS {
            parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(all().len(), crate::schemas::SCHEMAS.len());
        let p = by_name("PartitionRecord").unwrap();
        assert_eq!(p.api_key, Some(3));
        assert!(p.flexible.contains(0));
        let leader_recovery = p.root.fields.iter().find(|f| f.name == "LeaderRecoveryState").unwrap();
        assert_eq!(leader_recovery.tagged.map(|t| t.0), Some(0));
        assert_eq!(metadata_record(2).map(|s| s.name.as_str()), Some("TopicRecord"));
    }
}
