//! Control records: the records of batches with the control flag set.
//!
//! Mirrors `ControlRecordType.java`, `EndTransactionMarker.java` and
//! `ControlRecordUtils.java`. The key (int16 version, int16 type) says what
//! the value holds:
//!
//! * ABORT / COMMIT: the end of a transaction (int16 version, int32
//!   coordinator epoch);
//! * KRaft records of the metadata log, each a flexible protocol message at
//!   version 0: `LeaderChangeMessage`, `SnapshotHeaderRecord`,
//!   `SnapshotFooterRecord`, `KRaftVersionRecord`, `VotersRecord`.
//!
//! Field names follow the message schemas in
//! `clients/src/main/resources/common/message/*.json`.

use crate::batch::Record;
use crate::cursor::{Cursor, End};
use crate::error::{Error, ErrorKind, Result};
use crate::spec::control as spec;

/// A decoded control record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlRecord {
    /// A transaction marker.
    EndTxn(EndTxnMarker),
    /// KRaft: a leader was elected.
    LeaderChange(LeaderChange),
    /// KRaft: first record of a snapshot.
    SnapshotHeader(SnapshotHeader),
    /// KRaft: last record of a snapshot.
    SnapshotFooter(SnapshotFooter),
    /// KRaft: the `kraft.version` in force.
    KRaftVersion(KRaftVersion),
    /// KRaft: the voter set.
    KRaftVoters(Voters),
    /// A control type this version does not know (Kafka ignores these).
    Unknown {
        /// The type id in the key.
        type_id: i16,
    },
}

impl ControlRecord {
    /// The control type's name as Kafka spells it (`COMMIT`, `LEADER_CHANGE`, ...).
    pub fn kafka_name(&self) -> &'static str {
        match self {
            ControlRecord::EndTxn(m) if m.commit => "COMMIT",
            ControlRecord::EndTxn(_) => "ABORT",
            ControlRecord::LeaderChange(_) => "LEADER_CHANGE",
            ControlRecord::SnapshotHeader(_) => "SNAPSHOT_HEADER",
            ControlRecord::SnapshotFooter(_) => "SNAPSHOT_FOOTER",
            ControlRecord::KRaftVersion(_) => "KRAFT_VERSION",
            ControlRecord::KRaftVoters(_) => "KRAFT_VOTERS",
            ControlRecord::Unknown { .. } => "UNKNOWN",
        }
    }
}

impl ControlRecord {
    /// The record as `dump` prints it in JSON (docs/json.md's `control`
    /// object; its keys in name order).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            ControlRecord::EndTxn(m) => json!({
                "type": if m.commit { "commit" } else { "abort" },
                "version": m.version,
                "coordinator_epoch": m.coordinator_epoch,
            }),
            ControlRecord::LeaderChange(l) => json!({
                "type": "leader_change",
                "version": l.version,
                "leader_id": l.leader_id,
                "voters": l.voters,
                "granting_voters": l.granting_voters,
            }),
            ControlRecord::SnapshotHeader(h) => json!({
                "type": "snapshot_header",
                "version": h.version,
                "last_contained_log_timestamp": h.last_contained_log_timestamp,
            }),
            ControlRecord::SnapshotFooter(f) => json!({ "type": "snapshot_footer", "version": f.version }),
            ControlRecord::KRaftVersion(k) => json!({
                "type": "kraft_version",
                "version": k.version,
                "kraft_version": k.kraft_version,
            }),
            ControlRecord::KRaftVoters(v) => json!({
                "type": "kraft_voters",
                "version": v.version,
                "voters": v.voters.iter().map(|voter| json!({
                    "voter_id": voter.voter_id,
                    "voter_directory_id": crate::uuid::Uuid(voter.voter_directory_id).to_string(),
                    "endpoints": voter.endpoints.iter()
                        .map(|e| json!({"name": e.name, "host": e.host, "port": e.port}))
                        .collect::<Vec<_>>(),
                    "kraft_version_feature": {
                        "min_supported_version": voter.min_supported_version,
                        "max_supported_version": voter.max_supported_version,
                    },
                })).collect::<Vec<_>>(),
            }),
            ControlRecord::Unknown { type_id } => json!({ "type": "unknown", "type_id": type_id }),
        }
    }

    /// The record in words, for a table: `control commit
    /// coordinator_epoch=3 version=0` (its JSON's `type`, then its other
    /// fields as [`crate::report::json_words`] writes them).
    pub fn words(&self) -> String {
        let mut v = self.to_json();
        let mut out = vec!["control".to_string()];
        if let serde_json::Value::Object(o) = &mut v
            && let Some(t) = o.remove("type")
        {
            out.push(t.as_str().map_or_else(|| t.to_string(), str::to_string));
        }
        out.extend(crate::report::json_words(&v));
        out.join(" ")
    }
}

impl serde::Serialize for ControlRecord {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

/// ABORT or COMMIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndTxnMarker {
    /// COMMIT (true) or ABORT (false).
    pub commit: bool,
    /// The marker value's version.
    pub version: i16,
    /// Epoch of the transaction coordinator that wrote it.
    pub coordinator_epoch: i32,
}

/// `LeaderChangeMessage`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderChange {
    /// The message's Version field.
    pub version: i16,
    /// The new leader.
    pub leader_id: i32,
    /// Voters at the time.
    pub voters: Vec<i32>,
    /// Voters that voted for the leader.
    pub granting_voters: Vec<i32>,
}

/// `SnapshotHeaderRecord`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotHeader {
    /// The message's Version field.
    pub version: i16,
    /// Append time of the last record in the snapshot.
    pub last_contained_log_timestamp: i64,
}

/// `SnapshotFooterRecord`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotFooter {
    /// The message's Version field.
    pub version: i16,
}

/// `KRaftVersionRecord`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KRaftVersion {
    /// The message's Version field.
    pub version: i16,
    /// The kraft.version feature level.
    pub kraft_version: i16,
}

/// `VotersRecord`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Voters {
    /// The message's Version field.
    pub version: i16,
    /// The voters.
    pub voters: Vec<Voter>,
}

/// One voter of a `VotersRecord`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Voter {
    /// Node id.
    pub voter_id: i32,
    /// The voter's log directory id (a UUID).
    pub voter_directory_id: [u8; 16],
    /// Its listeners.
    pub endpoints: Vec<Endpoint>,
    /// Supported kraft.version range.
    pub min_supported_version: i16,
    /// Supported kraft.version range.
    pub max_supported_version: i16,
}

/// A listener of a voter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// Listener name.
    pub name: String,
    /// Host.
    pub host: String,
    /// Port.
    pub port: u16,
}

/// Decode the control record `record` (of a control batch).
pub fn parse(record: &Record<'_>, position: u64) -> Result<ControlRecord> {
    let key = record.key.ok_or_else(|| Error::malformed(position, "control record", "null key"))?;
    let mut k = Cursor::new(key, position, End::Enclosing("control record key"));
    if key.len() < spec::KEY_SIZE {
        return Err(Error::malformed(position, "control record", format!("key of {} bytes, expected 4", key.len())));
    }
    let key_version = k.i16("control key version")?;
    if key_version < 0 {
        return Err(Error::at(
            position,
            ErrorKind::BadVersion { what: "control record key", version: key_version.into() },
        ));
    }
    let type_id = k.i16("control type")?;
    let value = record.value.unwrap_or_default();
    let mut v = Cursor::new(value, position, End::Enclosing("control record value"));
    let r = match type_id {
        spec::ABORT | spec::COMMIT => {
            if value.len() < spec::END_TXN_MARKER_VALUE_SIZE {
                return Err(Error::malformed(
                    position,
                    "transaction marker",
                    format!("value of {} bytes, expected at least 6", value.len()),
                ));
            }
            let version = v.i16("marker version")?;
            if version < 0 {
                return Err(Error::at(
                    position,
                    ErrorKind::BadVersion { what: "transaction marker", version: version.into() },
                ));
            }
            // extra bytes after the coordinator epoch are ignored, as by Kafka
            let coordinator_epoch = v.i32("coordinatorEpoch")?;
            return Ok(ControlRecord::EndTxn(EndTxnMarker {
                commit: type_id == spec::COMMIT,
                version,
                coordinator_epoch,
            }));
        }
        spec::LEADER_CHANGE => {
            let version = v.i16("Version")?;
            let leader_id = v.i32("LeaderId")?;
            let voters = compact_array(&mut v, "Voters", voter_id)?;
            let granting_voters = compact_array(&mut v, "GrantingVoters", voter_id)?;
            tagged_fields(&mut v)?;
            ControlRecord::LeaderChange(LeaderChange { version, leader_id, voters, granting_voters })
        }
        spec::SNAPSHOT_HEADER => {
            let version = v.i16("Version")?;
            let last_contained_log_timestamp = v.i64("LastContainedLogTimestamp")?;
            tagged_fields(&mut v)?;
            ControlRecord::SnapshotHeader(SnapshotHeader { version, last_contained_log_timestamp })
        }
        spec::SNAPSHOT_FOOTER => {
            let version = v.i16("Version")?;
            tagged_fields(&mut v)?;
            ControlRecord::SnapshotFooter(SnapshotFooter { version })
        }
        spec::KRAFT_VERSION => {
            let version = v.i16("Version")?;
            let kraft_version = v.i16("KRaftVersion")?;
            tagged_fields(&mut v)?;
            ControlRecord::KRaftVersion(KRaftVersion { version, kraft_version })
        }
        spec::KRAFT_VOTERS => {
            let version = v.i16("Version")?;
            let voters = compact_array(&mut v, "Voters", voter)?;
            tagged_fields(&mut v)?;
            ControlRecord::KRaftVoters(Voters { version, voters })
        }
        _ => return Ok(ControlRecord::Unknown { type_id }),
    };
    if !v.is_empty() {
        return Err(Error::at(
            position,
            ErrorKind::TrailingBytes { what: "control record value", bytes: v.remaining() as u64 },
        ));
    }
    Ok(r)
}

fn voter_id(c: &mut Cursor<'_>) -> Result<i32> {
    let id = c.i32("VoterId")?;
    tagged_fields(c)?;
    Ok(id)
}

fn voter(c: &mut Cursor<'_>) -> Result<Voter> {
    let voter_id = c.i32("VoterId")?;
    let voter_directory_id = c.array::<16>("VoterDirectoryId")?;
    let endpoints = compact_array(c, "Endpoints", |c| {
        let name = compact_string(c, "Name")?;
        let host = compact_string(c, "Host")?;
        let port = c.u16("Port")?;
        tagged_fields(c)?;
        Ok(Endpoint { name, host, port })
    })?;
    let min_supported_version = c.i16("MinSupportedVersion")?;
    let max_supported_version = c.i16("MaxSupportedVersion")?;
    tagged_fields(c)?;
    tagged_fields(c)?;
    Ok(Voter { voter_id, voter_directory_id, endpoints, min_supported_version, max_supported_version })
}

/// A compact array (unsigned varint count + 1; 0 = null, read as empty). The
/// count is bounded by the bytes left (every element takes at least one byte).
fn compact_array<T>(
    c: &mut Cursor<'_>,
    what: &'static str,
    mut f: impl FnMut(&mut Cursor<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let at = c.position();
    let n = c.unsigned_varint(what)?;
    let n = n.saturating_sub(1) as usize;
    if n > c.remaining() {
        return Err(Error::at(at, ErrorKind::BadLength { what, value: n as i64, min: 0, max: c.remaining() as i64 }));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(f(c)?);
    }
    Ok(out)
}

/// A compact (non-null) string: unsigned varint length + 1, then UTF-8.
fn compact_string(c: &mut Cursor<'_>, what: &'static str) -> Result<String> {
    let at = c.position();
    let n = c.unsigned_varint(what)?;
    let Some(n) = n.checked_sub(1) else {
        return Err(Error::malformed(at, what, "null string"));
    };
    let b = c.bytes(n as usize, what)?;
    Ok(String::from_utf8_lossy(b).into_owned())
}

/// Skip a tagged-field section (count, then tag/size/bytes per field).
fn tagged_fields(c: &mut Cursor<'_>) -> Result<()> {
    let n = c.unsigned_varint("tagged field count")?;
    for _ in 0..n {
        c.unsigned_varint("tag")?;
        let size = c.unsigned_varint("tagged field size")?;
        c.skip(size as usize, "tagged field")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record<'a>(key: &'a [u8], value: &'a [u8]) -> Record<'a> {
        Record {
            length: 0,
            attributes: 0,
            timestamp_delta: 0,
            offset_delta: 0,
            key: Some(key),
            value: Some(value),
            headers: crate::batch::Headers::default(),
            offset: 0,
            timestamp: 0,
            sequence: -1,
        }
    }

    #[test]
    fn commit_marker_from_a_real_file() {
        let r = record(&[0, 0, 0, 1], &[0, 0, 0, 0, 0, 0]);
        assert_eq!(
            parse(&r, 0).unwrap(),
            ControlRecord::EndTxn(EndTxnMarker { commit: true, version: 0, coordinator_epoch: 0 })
        );
    }

    #[test]
    fn leader_change_from_a_real_file() {
        let v = [0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 2, 0, 0, 0, 1, 0, 0];
        let r = record(&[0, 0, 0, 2], &v);
        assert_eq!(
            parse(&r, 0).unwrap(),
            ControlRecord::LeaderChange(LeaderChange {
                version: 0,
                leader_id: 1,
                voters: vec![1],
                granting_voters: vec![1]
            })
        );
    }

    #[test]
    fn short_or_negative_fields_are_errors() {
        assert!(parse(&record(&[0, 0, 0], &[]), 0).is_err());
        assert!(parse(&record(&[0xff, 0xff, 0, 1], &[0; 6]), 0).is_err());
        assert!(parse(&record(&[0, 0, 0, 1], &[0; 5]), 0).is_err());
        assert!(parse(&record(&[0, 0, 0, 6], &[0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f]), 0).is_err());
        assert_eq!(parse(&record(&[0, 0, 0, 99], &[]), 0).unwrap(), ControlRecord::Unknown { type_id: 99 });
    }
}
