//! What the API modules share (`consumer_api`, `share_api`, `group_api`,
//! `handlers`): the topic ids as the coordinators' records carry them, the
//! metadata image a group heartbeat is computed with, writing a
//! coordinator's records to `__consumer_offsets` and replaying them, a
//! group's coordinator partition made ready, and the fetch limits. Each API
//! family's module names this one and the store (`group_api` also asks
//! `consumer_api` for a consumer group, one way), so no import circles.

use coordinator::consumer_group::Topics;
use kafka_protocol::ResponseError as E;
use kmsg::coordinator::GroupRecord;

use crate::error::ApiError;
use crate::store::{OFFSETS_TOPIC, State};

/// The topic ids as the records carry them (base64url) and back.
pub fn topic_id(u: uuid::Uuid) -> String {
    logfmt::uuid::Uuid(*u.as_bytes()).to_string()
}

pub fn uuid_of(id: &str) -> uuid::Uuid {
    uuid::Uuid::from_bytes(logfmt::uuid::Uuid::parse(id).map_or([0; 16], |u| u.0))
}

/// The metadata image a heartbeat is computed with: every topic's id and
/// partition count, by name.
pub fn topics(store: &State) -> Topics {
    store
        .topics()
        .iter()
        .map(|(n, t)| (n.clone(), (t.topic.topic_id.to_string(), i32::try_from(t.topic.partitions.len()).unwrap_or(0))))
        .collect()
}

/// Write `records` to `group`'s partition, then replay them; refused as
/// Kafka's coordinator answers a failed write.
pub fn write(store: &mut State, group: &str, records: Vec<GroupRecord>) -> Result<(), ApiError> {
    if records.is_empty() {
        return Ok(());
    }
    let failed = |m: String| ApiError::new(E::UnknownServerError, m);
    let partition = store.offsets_partition(group)?;
    let encoded = records
        .iter()
        .map(kmsg::coordinator::encode_group_record)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| failed(format!("a record of group {group} could not be encoded: {e}")))?;
    store.append_records(OFFSETS_TOPIC, partition, &encoded).map_err(|e| {
        eprintln!("logtool broker: consumer group {group}: {e}");
        ApiError::new(E::KafkaStorageError, e.to_string())
    })?;
    for r in records {
        store.groups.consumer.replay(r, (partition, -1));
    }
    Ok(())
}

/// The coordinator partition of `group` made ready (`__consumer_offsets`
/// created on first use), and a classic group of the id with members
/// refused as not of `kind` (Kafka would convert it; logtool broker does
/// not): `GROUP_ID_NOT_FOUND`.
pub fn ready(store: &mut State, group: &str, kind: &str) -> Result<(), ApiError> {
    store.offsets_partition(group)?;
    if store.groups.classic.get(group).is_some_and(|g| !g.members.is_empty()) {
        return Err(ApiError::new(E::GroupIdNotFound, format!("Group {group} is not a {kind} group.")));
    }
    Ok(())
}

/// Kafka's default broker `fetch.max.bytes` (55 MiB): the most record
/// bytes one Fetch response holds, whatever the request asks
/// (`KafkaApis.handleFetchRequest`: the request's `maxBytes` capped by it).
pub const FETCH_MAX_BYTES: usize = 57_671_680;

/// The memory every Fetch and ShareFetch response being encoded or sent
/// takes of what it holds in memory, all connections together
/// (`Shared::fetch_memory`, in bytes). A Fetch's records are not in it:
/// they go from the segment files to the socket (`zerocopy`), so only the
/// rest of its response is; a ShareFetch reads its records into memory,
/// then encodes them once more, so it reserves twice its records limit.
pub const FETCH_MEMORY: usize = 32 << 20;
