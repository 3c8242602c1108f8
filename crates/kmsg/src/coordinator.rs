//! Coordinator records (`__consumer_offsets`, `__transaction_state`): the key
//! and the value of each record start with an int16 version
//! (`CoordinatorRecordSerde`, `TransactionLog`), then the message.

use serde_json::Value;

use crate::codec::{self, Reader};
use crate::error::{Error, Result};
use crate::schema;

/// Read an int16 version, then the message `name` at it.
pub fn decode_versioned(bytes: &[u8], name: &str) -> Result<(i16, Value)> {
    let mut r = Reader::new(bytes);
    let version = r.i16()?;
    let schema = schema::by_name(name).ok_or_else(|| Error::Schema(format!("no message {name}")))?;
    let v = codec::read(&mut r, schema, version)?;
    Ok((version, v))
}

/// Write an int16 version, then the message `name` at it.
pub fn encode_versioned(name: &str, version: i16, value: &Value) -> Result<Vec<u8>> {
    let schema = schema::by_name(name).ok_or_else(|| Error::Schema(format!("no message {name}")))?;
    let mut out = version.to_be_bytes().to_vec();
    codec::write(&mut out, schema, version, value)?;
    Ok(out)
}
