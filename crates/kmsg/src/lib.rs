//! `kmsg`: the records Kafka keeps in its internal logs, read and written
//! from Kafka's own message definitions.
//!
//! The KRaft metadata log (`__cluster_metadata`), the group coordinator's
//! `__consumer_offsets` and the transaction coordinator's
//! `__transaction_state` hold records whose layouts Kafka defines in JSON
//! message definitions and generates code from. This crate embeds those
//! definitions, unchanged but for their comment lines (`schemas/`, taken from
//! the Kafka release jars by `update-schemas.sh`), and reads and writes any
//! of them by definition ([`codec`]) as JSON values shaped as Kafka's own
//! JSON converters shape them. No field list is written by hand.
//!
//! The requests `logtool broker` answers are here too, so that a request
//! can be walked ([`skim_request`]) before the wire decoder builds it.
//!
//! The records logtool builds or reads field by field are typed
//! ([`records`]: structs generated from the same definitions, each with
//! [`Message`]); the codec still reads and writes every message by
//! definition, so a typed record is written exactly as its JSON value.
//!
//! Tiered storage's `__remote_log_metadata` records are here too
//! ([`remote`]), from kafka-storage's definitions.
//!
//! Framing ([`metadata`], [`coordinator`]): a metadata record value is
//! `frame version, apiKey, version` (unsigned varints) then the record
//! (`MetadataRecordSerde`); a coordinator record's key and value each start
//! with an int16 version (`CoordinatorRecordSerde`).
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

pub mod codec;
pub mod coordinator;
pub mod error;
pub mod metadata;
pub mod remote;
#[rustfmt::skip]
pub mod records;
#[cfg(test)]
mod generate;
pub mod schema;
mod schemas;

pub use error::{Error, Result};
pub use schema::MessageSchema;

/// Read a message named `name` at `version` from `bytes` (all of them).
pub fn decode(name: &str, version: i16, bytes: &[u8]) -> Result<serde_json::Value> {
    let schema = schema::by_name(name).ok_or_else(|| Error::Schema(format!("no message {name}")))?;
    let mut r = codec::Reader::new(bytes);
    codec::read(&mut r, schema, version)
}

/// Walk a request named `name` at `version` as a Kafka broker reads one
/// (`AbstractRequest.parseRequest`: the generated `*RequestData` reads its
/// fields and nothing checks what follows them): bytes after the message
/// are ignored. librdkafka's all-topics Metadata request (v9 and later)
/// ends with 3 such bytes. Returns the number of values it holds and the
/// bytes it spans.
pub fn skim_request(name: &str, version: i16, bytes: &[u8]) -> Result<(u64, usize)> {
    let schema = schema::by_name(name).ok_or_else(|| Error::Schema(format!("no message {name}")))?;
    let mut r = codec::Reader::new(bytes);
    let items = codec::skim(&mut r, schema, version)?;
    Ok((items, r.position()))
}

/// Write a message named `name` at `version` from `value`.
pub fn encode(name: &str, version: i16, value: &serde_json::Value) -> Result<Vec<u8>> {
    let schema = schema::by_name(name).ok_or_else(|| Error::Schema(format!("no message {name}")))?;
    let mut out = Vec::new();
    codec::write(&mut out, schema, version, value)?;
    Ok(out)
}

/// A typed message ([`records`]): its definition's name, and its value in
/// the JSON form the codec reads and writes.
pub trait Message: serde::Serialize + serde::de::DeserializeOwned + Default {
    /// The definition's name (`TopicRecord`).
    const NAME: &'static str;

    /// The JSON value the codec writes. (A generated record always has
    /// one: its fields are numbers, strings, and lists and structs of them;
    /// were serialization ever to fail, the value would be null and every
    /// field written as its default.)
    fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// The typed message of a JSON value the codec read.
    fn from_value(value: serde_json::Value) -> Result<Self> {
        serde_json::from_value(value).map_err(|e| Error::Value(format!("{}: {e}", Self::NAME)))
    }

    /// Write it at `version`.
    fn encode(&self, version: i16) -> Result<Vec<u8>> {
        encode(Self::NAME, version, &self.to_value())
    }

    /// Read it at `version` from `bytes` (all of them).
    fn decode(version: i16, bytes: &[u8]) -> Result<Self> {
        Self::from_value(decode(Self::NAME, version, bytes)?)
    }
}
