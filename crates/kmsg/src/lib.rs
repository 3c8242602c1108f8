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
//! Framing ([`metadata`], [`coordinator`]): a metadata record value is
//! `frame version, apiKey, version` (unsigned varints) then the record
//! (`MetadataRecordSerde`); a coordinator record's key and value each start
//! with an int16 version (`CoordinatorRecordSerde`).
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

pub mod codec;
pub mod coordinator;
pub mod error;
pub mod metadata;
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
