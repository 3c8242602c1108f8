//! The KIP-932 share group APIs of a Kafka 4.3 cluster (`KafkaApis` →
//! `GroupCoordinatorService`, `SharePartitionManager`,
//! `ShareCoordinatorService`): ShareGroupHeartbeat, ShareGroupDescribe,
//! ShareFetch, ShareAcknowledge and DescribeShareGroupOffsets.
//!
//! What a heartbeat does is `coordinator::share_group`'s, what a share
//! partition does with fetches and acknowledgements
//! `coordinator::share_partition`'s; this module maps requests and
//! responses and plays the three roles Kafka splits:
//! * the group coordinator: it writes the group's records to its
//!   `__consumer_offsets` partition and replays them, fences a member whose
//!   session ended when its group is next touched, and asks the share
//!   coordinator to initialize the partitions a heartbeat subscribed to
//!   (Kafka does it right after the heartbeat; here before the answer);
//! * the share coordinator: it writes each share partition's state to its
//!   `__share_group_state` partition (`ShareSnapshot` when it is
//!   initialized and after 500 updates, else `ShareUpdate`) and replays it
//!   (`rules::groups::ShareStates`);
//! * the partition leader: a share partition is loaded from that state on
//!   its first fetch (an uninitialized start offset is where the group's
//!   `share.auto.offset.reset` says: the log end unless set), records are acquired for a
//!   member's share session and each change is written before it is
//!   answered. A member that leaves, is fenced or closes its session
//!   releases what it holds; an acquisition lock that runs out releases
//!   its records when the partition is next fetched or acknowledged.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use coordinator::share_group::{self as rules, Heartbeat};
use coordinator::share_partition::{self as sp, SharePartition, ShareSession, StateBatch, Write};
use kafka_protocol::ResponseError as E;
use kafka_protocol::messages::share_acknowledge_response as ack_response;
use kafka_protocol::messages::share_fetch_response as fetch_response;
use kafka_protocol::messages::share_group_describe_response as describe;
use kafka_protocol::messages::share_group_heartbeat_response as heartbeat;
use kafka_protocol::messages::*;
use kafka_protocol::protocol::StrBytes;
use kmsg::coordinator::ShareRecord;
use kmsg::records::{share_snapshot_value, share_update_value, *};
use logrules::groups::{GroupType, SharePartitionKey};
use serde_json::{Value, json};
use tokio::sync::OwnedSemaphorePermit;

use crate::Shared;
use crate::api::{ready, topic_id, topics, uuid_of, write};
use crate::error::{ApiError, code_of};
use crate::store::{self, SHARE_STATE_TOPIC, State};

/// `share.coordinator.snapshot.update.records.per.snapshot` (Kafka's
/// default): a snapshot after this many updates.
const UPDATES_PER_SNAPSHOT: u32 = 500;

/// The share session epoch of a request that closes the session.
const FINAL_EPOCH: i32 = -1;

fn s(text: impl Into<String>) -> StrBytes {
    StrBytes::from_string(text.into())
}

// ---- the share coordinator -----------------------------------------------

/// Write `record` of `key` to its `__share_group_state` partition, then
/// replay it.
fn write_share(store: &mut State, key: &SharePartitionKey, record: ShareRecord) -> Result<(), ApiError> {
    let p = store.share_state_partition(&key.0, &key.1, key.2)?;
    let encoded = kmsg::coordinator::encode_share_record(&record)
        .map_err(|e| ApiError::new(E::UnknownServerError, format!("a share state record could not be encoded: {e}")))?;
    store
        .append_records(SHARE_STATE_TOPIC, p, &[encoded])
        .map_err(|e| ApiError::new(E::KafkaStorageError, e.to_string()))?;
    store.shares.states.replay(record, (p, -1));
    Ok(())
}

fn snapshot_batches(batches: &[StateBatch]) -> Vec<share_snapshot_value::StateBatch> {
    batches
        .iter()
        .map(|&(first_offset, last_offset, delivery_state, delivery_count)| share_snapshot_value::StateBatch {
            first_offset,
            last_offset,
            delivery_state,
            delivery_count,
        })
        .collect()
}

fn update_batches(batches: &[StateBatch]) -> Vec<share_update_value::StateBatch> {
    batches
        .iter()
        .map(|&(first_offset, last_offset, delivery_state, delivery_count)| share_update_value::StateBatch {
            first_offset,
            last_offset,
            delivery_state,
            delivery_count,
        })
        .collect()
}

fn snapshot_key(key: &SharePartitionKey) -> ShareSnapshotKey {
    ShareSnapshotKey { group_id: key.0.clone(), topic_id: key.1.clone(), partition: key.2 }
}

fn update_key(key: &SharePartitionKey) -> ShareUpdateKey {
    ShareUpdateKey { group_id: key.0.clone(), topic_id: key.1.clone(), partition: key.2 }
}

/// InitializeShareGroupState (`ShareCoordinatorShard.initializeState`):
/// a first snapshot, start offset and delivery count -1, at the group's
/// epoch.
fn initialize_state(store: &mut State, key: &SharePartitionKey, state_epoch: i32) -> Result<(), ApiError> {
    let snapshot_epoch = store.shares.states.partitions.get(key).map_or(0, |s| s.snapshot_epoch.saturating_add(1));
    let now = store::now_ms();
    let value = ShareSnapshotValue {
        snapshot_epoch,
        state_epoch,
        leader_epoch: 0,
        start_offset: sp::UNINITIALIZED,
        delivery_complete_count: -1,
        create_timestamp: now,
        write_timestamp: now,
        state_batches: Vec::new(),
    };
    write_share(store, key, ShareRecord::Snapshot(snapshot_key(key), Some(value)))?;
    store.shares.partitions.remove(key);
    Ok(())
}

/// WriteShareGroupState (`ShareCoordinatorShard.generateShareStateRecord`):
/// an update, or a snapshot with the batches merged after
/// [`UPDATES_PER_SNAPSHOT`] updates; `leader_epoch` where the read asked
/// for a newer one.
fn write_state(
    store: &mut State,
    key: &SharePartitionKey,
    w: &Write,
    leader_epoch: Option<i32>,
) -> Result<(), ApiError> {
    let Some(cur) = store.shares.states.partitions.get(key).cloned() else {
        return Err(ApiError::new(E::UnknownTopicOrPartition, format!("no share state of {key:?}")));
    };
    let leader_epoch = leader_epoch.unwrap_or(cur.leader_epoch);
    let record = if cur.updates >= UPDATES_PER_SNAPSHOT {
        let start = if w.start_offset == sp::UNINITIALIZED { cur.start_offset } else { w.start_offset };
        let now = store::now_ms();
        ShareRecord::Snapshot(
            snapshot_key(key),
            Some(ShareSnapshotValue {
                snapshot_epoch: cur.snapshot_epoch.saturating_add(1),
                state_epoch: cur.state_epoch,
                leader_epoch,
                start_offset: start,
                delivery_complete_count: w.delivery_complete_count,
                create_timestamp: now,
                write_timestamp: now,
                state_batches: snapshot_batches(&sp::combine_batches(&cur.state_batches, &w.batches, start)),
            }),
        )
    } else {
        ShareRecord::Update(
            update_key(key),
            Some(ShareUpdateValue {
                snapshot_epoch: cur.snapshot_epoch,
                leader_epoch,
                start_offset: w.start_offset,
                delivery_complete_count: w.delivery_complete_count,
                state_batches: update_batches(&sp::combine_batches(&[], &w.batches, w.start_offset)),
            }),
        )
    };
    write_share(store, key, record)
}

// ---- the partition leader -------------------------------------------------

/// The topic named by id.
fn topic_name(store: &State, id: &str) -> Option<String> {
    // (the id parsed once, not every topic's formatted: this is on each
    // fetch's and acknowledgement's path)
    let id = logfmt::uuid::Uuid::parse(id)?;
    store.topics().iter().find(|(_, t)| t.topic.topic_id == id).map(|(n, _)| n.clone())
}

/// The share partition `key` of topic `name`, loaded on first use
/// (`SharePartition.maybeInitialize`, after the share coordinator's
/// `readStateAndMaybeUpdateLeaderEpoch`, which writes a newer leader epoch).
fn load<'a>(store: &'a mut State, key: &SharePartitionKey, name: &str) -> Result<&'a mut SharePartition, ApiError> {
    if !store.shares.partitions.contains_key(key) {
        let Some(state) = store.shares.states.partitions.get(key).cloned() else {
            return Err(E::UnknownTopicOrPartition.into());
        };
        store.offsets(name, key.2).ok_or(ApiError::from(E::UnknownTopicOrPartition))?;
        let leader = store.leader_epoch(name, key.2).unwrap_or(0);
        if state.leader_epoch != leader {
            let w = Write {
                start_offset: state.start_offset,
                batches: Vec::new(),
                delivery_complete_count: state.delivery_complete_count,
            };
            write_state(store, key, &w, Some(leader))?;
        }
        let start =
            if state.start_offset == sp::UNINITIALIZED { reset_offset(store, key, name)? } else { state.start_offset };
        store
            .shares
            .partitions
            .insert(key.clone(), SharePartition::load(start, state.state_epoch, &state.state_batches));
    }
    store.shares.partitions.get_mut(key).ok_or(ApiError::from(E::UnknownTopicOrPartition))
}

/// Where a share partition without state starts: the group's
/// `share.auto.offset.reset` (`coordinator::group_config`; `latest` unless set),
/// as `SharePartition.startOffsetDuringInitialization` asks ListOffsets
/// (read_uncommitted): the log start offset, the high watermark, or the
/// first offset at or after now minus the duration - none when no record is
/// that new (Kafka's `OffsetNotAvailableException`).
fn reset_offset(store: &mut State, key: &SharePartitionKey, name: &str) -> Result<i64, ApiError> {
    use coordinator::group_config::{self, ShareAutoOffsetReset};
    let reset = group_config::share_auto_offset_reset(store.group_config(&key.0));
    let (start, end) = store.offsets(name, key.2).ok_or(ApiError::from(E::UnknownTopicOrPartition))?;
    match reset {
        ShareAutoOffsetReset::Earliest => Ok(start),
        ShareAutoOffsetReset::Latest => Ok(end),
        ShareAutoOffsetReset::ByDuration(ms) => {
            let at = store::now_ms().saturating_sub(ms);
            match store.answer_offsets(name, key.2, logrules::offsets::Spec::Timestamp(at)) {
                Ok(Some(a)) => a.offset.ok_or(ApiError::from(E::OffsetNotAvailable)),
                Ok(None) => Err(E::UnknownTopicOrPartition.into()),
                Err(_) => Err(E::KafkaStorageError.into()),
            }
        }
    }
}

/// Write a share partition's change; a failure is told.
fn persist(store: &mut State, key: &SharePartitionKey, w: &Write) -> Result<(), ApiError> {
    write_state(store, key, w, None).inspect_err(|e| {
        eprintln!("logtool broker: share partition {key:?}: {}", e.message);
    })
}

/// Release what `member` of `group` holds (or, member `None`, every
/// acquisition lock that ran out), writing each change.
fn release(store: &mut State, group: &str, member: Option<&str>) {
    let now = store::now_ms();
    let keys: Vec<SharePartitionKey> = store.shares.partitions.keys().filter(|k| k.0 == group).cloned().collect();
    let limits = store.share_limits(group);
    for key in keys {
        let w = store.shares.partitions.get_mut(&key).and_then(|p| p.release(member, now, &limits));
        if let Some(w) = w {
            // told by persist; the release stands in memory either way
            let _ = persist(store, &key, &w);
        }
    }
}

// ---- the group coordinator ------------------------------------------------

/// Fence the members of `group` whose session ended
/// (`scheduleShareGroupSessionTimeout`); what they held is released.
fn expire(store: &mut State, group: &str) {
    let now = Instant::now();
    let ended: Vec<String> = store
        .shares
        .timers
        .iter()
        .filter(|((g, _), at)| g == group && **at <= now)
        .map(|((_, m), _)| m.clone())
        .collect();
    for m in ended {
        let image = topics(store);
        let records = match store.groups.consumer.groups.get(group) {
            Some(g) => rules::fence(g, group, &m, &image),
            None => Vec::new(),
        };
        if write(store, group, records).is_ok() {
            store.shares.timers.remove(&(group.to_string(), m.clone()));
            leave(store, group, &m);
        }
    }
    release(store, group, None);
}

/// A member that left or was fenced: its session closes and what it held
/// is released (`ShareGroupListener.onMemberLeave`).
fn leave(store: &mut State, group: &str, member: &str) {
    store.shares.sessions.remove(&(group.to_string(), member.to_string()));
    release(store, group, Some(member));
}

/// Initialize the share state of `list` (topic id, name, partitions) at
/// the group's epoch, then record them initialized.
fn initialize(store: &mut State, group: &str, list: &[(String, String, Vec<i32>)]) {
    let epoch = store.groups.consumer.groups.get(group).map_or(0, |g| g.generation);
    let mut done = Vec::new();
    for (id, name, ps) in list {
        let mut ok = Vec::new();
        for p in ps {
            match initialize_state(store, &(group.to_string(), id.clone(), *p), epoch) {
                Ok(()) => ok.push(*p),
                Err(ApiError { message: m, .. }) => {
                    eprintln!("logtool broker: share group {group}: initializing {name}-{p}: {m}")
                }
            }
        }
        if !ok.is_empty() {
            done.push((id.clone(), name.clone(), ok));
        }
    }
    let record = store
        .groups
        .consumer
        .groups
        .get(group)
        .filter(|_| !done.is_empty())
        .map(|g| rules::initialized(g, group, &done));
    if let Some(r) = record
        && let Err(e) = write(store, group, vec![r])
    {
        eprintln!("logtool broker: share group {group}: {}", e.message);
    }
}

/// ShareGroupHeartbeat.
pub fn share_group_heartbeat(
    sh: &Shared,
    req: ShareGroupHeartbeatRequest,
    client_id: &str,
    host: &str,
) -> ShareGroupHeartbeatResponse {
    let hb = Heartbeat {
        group_id: req.group_id.to_string(),
        member_id: req.member_id.to_string(),
        member_epoch: req.member_epoch,
        rack_id: req.rack_id.as_ref().map(ToString::to_string),
        subscribed_topic_names: req.subscribed_topic_names.as_ref().map(|n| n.iter().map(|t| t.to_string()).collect()),
        client_id: client_id.to_string(),
        client_host: host.to_string(),
    };
    let mut r = ShareGroupHeartbeatResponse::default();
    let refuse = |r: &mut ShareGroupHeartbeatResponse, e: ApiError| {
        r.error_code = e.code;
        r.error_message = Some(s(e.message));
    };
    if let Err(e) = rules::validate(&hb) {
        refuse(&mut r, e.into());
        return r;
    }
    let mut store = sh.lock();
    if let Err(e) = ready(&mut store, &hb.group_id, "share") {
        refuse(&mut r, e);
        return r;
    }
    expire(&mut store, &hb.group_id);
    let image = topics(&store);
    let timing = store.share_timing(&hb.group_id);
    let outcome =
        match rules::heartbeat(store.groups.consumer.groups.get(&hb.group_id), &hb, &image, store::now_ms(), &timing) {
            Ok(o) => o,
            Err(e) => {
                refuse(&mut r, e.into());
                return r;
            }
        };
    if let Err(e) = write(&mut store, &hb.group_id, outcome.records) {
        refuse(&mut r, e);
        return r;
    }
    let key = (hb.group_id.clone(), hb.member_id.clone());
    if hb.member_epoch == rules::LEAVE_EPOCH {
        store.shares.timers.remove(&key);
        leave(&mut store, &hb.group_id, &hb.member_id);
    } else {
        let session = Duration::from_millis(timing.session_timeout_ms.unsigned_abs().into());
        store.shares.timers.insert(key, crate::after(Instant::now(), session));
    }
    if !outcome.initialize.is_empty() {
        initialize(&mut store, &hb.group_id, &outcome.initialize);
    }
    let a = outcome.answer;
    r.member_id = Some(s(a.member_id));
    r.member_epoch = a.member_epoch;
    r.heartbeat_interval_ms = a.heartbeat_interval_ms;
    r.assignment = a.assignment.map(|list| {
        let mut x = heartbeat::Assignment::default();
        x.topic_partitions = list
            .into_iter()
            .map(|(t, ps)| {
                let mut tp = heartbeat::TopicPartitions::default();
                (tp.topic_id, tp.partitions) = (uuid_of(&t), ps);
                tp
            })
            .collect();
        x
    });
    r
}

/// ShareGroupDescribe (an unknown group, or one of another type, is
/// `GROUP_ID_NOT_FOUND`).
pub fn share_group_describe(sh: &Shared, req: ShareGroupDescribeRequest) -> ShareGroupDescribeResponse {
    let mut store = sh.lock();
    for id in &req.group_ids {
        expire(&mut store, id.as_str());
    }
    let names: std::collections::BTreeMap<String, String> =
        store.topics().iter().map(|(n, t)| (t.topic.topic_id.to_string(), n.clone())).collect();
    let mut r = ShareGroupDescribeResponse::default();
    for id in &req.group_ids {
        let mut d = describe::DescribedGroup::default();
        d.group_id = id.clone();
        d.authorized_operations = i32::MIN;
        match store.groups.consumer.groups.get(id.as_str()) {
            Some(g) if g.group_type == GroupType::Share => {
                d.group_state = s(g.state());
                d.group_epoch = g.generation;
                d.assignment_epoch = g.assignment_epoch.unwrap_or(0);
                d.assignor_name = s(rules::ASSIGNOR);
                d.members = g
                    .members
                    .values()
                    .map(|m| {
                        let mut x = describe::Member::default();
                        x.member_id = s(m.member_id.clone());
                        x.rack_id = m.rack_id.clone().map(s);
                        x.member_epoch = m.member_epoch.unwrap_or(0);
                        x.client_id = s(m.client_id.clone());
                        x.client_host = s(m.client_host.clone());
                        x.subscribed_topic_names =
                            m.subscribed_topic_names.iter().map(|t| TopicName(s(t.clone()))).collect();
                        x.assignment.topic_partitions = m
                            .assignment
                            .iter()
                            .map(|(t, ps)| {
                                let mut tp = describe::TopicPartitions::default();
                                tp.topic_id = uuid_of(t);
                                tp.topic_name = TopicName(s(names.get(t).cloned().unwrap_or_default()));
                                tp.partitions = ps.clone();
                                tp
                            })
                            .collect();
                        x
                    })
                    .collect();
            }
            found => {
                d.error_code = E::GroupIdNotFound.code();
                d.error_message = Some(s(match found {
                    Some(_) => format!("Group {} is not a share group.", id.as_str()),
                    None => format!("Group {} not found.", id.as_str()),
                }));
            }
        }
        r.groups.push(d);
    }
    r
}

/// DescribeShareGroupOffsets, at any version Kafka 4.3.1 speaks (v1 adds
/// the lag, which the codec does not know: read and written by Kafka's
/// definitions, `kmsg`): each initialized share partition's start
/// offset, leader epoch and lag (`describeShareGroupAllOffsets`,
/// `computeShareGroupLagAndBuildResponse`), or those of the topics asked.
pub fn describe_share_group_offsets(sh: &Shared, version: i16, request: &Value) -> Value {
    let mut store = sh.lock();
    let mut groups = Vec::new();
    for g in request.get("groups").and_then(Value::as_array).into_iter().flatten() {
        let id = g.get("groupId").and_then(Value::as_str).unwrap_or_default().to_string();
        expire(&mut store, &id);
        let group = store.groups.consumer.groups.get(&id).filter(|x| x.group_type == GroupType::Share).cloned();
        let Some(group) = group else {
            groups.push(json!({"groupId": id, "topics": [], "errorCode": E::GroupIdNotFound.code(),
                "errorMessage": format!("Group {id} not found.")}));
            continue;
        };
        // (topic name, its id, partitions)
        let asked: Vec<(String, Option<String>, Vec<i32>)> = match g.get("topics").and_then(Value::as_array) {
            None => group
                .share_partitions
                .iter()
                .map(|(tid, name, ps)| (name.clone(), Some(tid.clone()), ps.clone()))
                .collect(),
            Some(ts) => ts
                .iter()
                .map(|t| {
                    let name = t.get("topicName").and_then(Value::as_str).unwrap_or_default().to_string();
                    let ps = t.get("partitions").and_then(Value::as_array).into_iter().flatten();
                    let ps = ps.filter_map(Value::as_i64).filter_map(|p| i32::try_from(p).ok()).collect();
                    let id = store.topics().get(&name).map(|x| x.topic.topic_id.to_string());
                    (name, id, ps)
                })
                .collect(),
        };
        let mut topics_out = Vec::new();
        for (name, tid, ps) in asked {
            let mut parts = Vec::new();
            for p in ps {
                let state =
                    tid.as_ref().and_then(|t| store.shares.states.partitions.get(&(id.clone(), t.clone(), p)).cloned());
                let hw = store.offsets(&name, p).map(|(_, end)| end);
                let (start, epoch, lag) = match (state, hw) {
                    (Some(st), Some(hw)) => {
                        (st.start_offset, st.leader_epoch, logrules::groups::share_lag(&st, hw).unwrap_or(-1))
                    }
                    _ => (sp::UNINITIALIZED, -1, -1),
                };
                let mut x = json!({"partitionIndex": p, "startOffset": start, "leaderEpoch": epoch, "errorCode": 0, "errorMessage": null});
                if version >= 1
                    && let Some(o) = x.as_object_mut()
                {
                    o.insert("lag".into(), json!(lag));
                }
                parts.push(x);
            }
            let tid = tid.unwrap_or_else(|| "AAAAAAAAAAAAAAAAAAAAAA".to_string());
            topics_out.push(json!({"topicName": name, "topicId": tid, "partitions": parts}));
        }
        groups.push(json!({"groupId": id, "topics": topics_out, "errorCode": 0, "errorMessage": null}));
    }
    json!({"throttleTimeMs": 0, "groups": groups})
}

// ---- ShareFetch and ShareAcknowledge ---------------------------------------

/// The next session epoch (`ShareRequestMetadata.nextEpoch`).
fn next_epoch(epoch: i32) -> i32 {
    if epoch == i32::MAX { 1 } else { epoch.saturating_add(1) }
}

/// Apply one partition's acknowledgements.
fn acknowledge(
    store: &mut State,
    group: &str,
    member: &str,
    tid: &str,
    p: i32,
    batches: &[(i64, i64, Vec<i8>)],
) -> Result<(), ApiError> {
    let name = topic_name(store, tid).ok_or(ApiError::from(E::UnknownTopicId))?;
    let key = (group.to_string(), tid.to_string(), p);
    let limits = store.share_limits(group);
    match load(store, &key, &name)?.acknowledge(member, batches, &limits) {
        Ok(w) => persist(store, &key, &w),
        Err(sp::InvalidRecordState(m)) => {
            eprintln!("logtool broker: share group {group}: {name}-{p}: {m}");
            Err(ApiError::new(E::InvalidRecordState, m))
        }
    }
}

/// `group.share.max.share.sessions` (Kafka's default).
const MAX_SHARE_SESSIONS: usize = 2000;

/// The session a ShareFetch (`fetch`, carrying acknowledgements or not)
/// or ShareAcknowledge names, after `SharePartitionManager.newContext`'s
/// checks: epoch 0 opens a new one (no acknowledgements in it, at most
/// [`MAX_SHARE_SESSIONS`]); `Err` the request's error code.
fn session_for(store: &mut State, group: &str, member: &str, epoch: i32, fetch: Option<bool>) -> Result<(), ApiError> {
    let key = (group.to_string(), member.to_string());
    match (epoch, store.shares.sessions.get(&key), fetch) {
        (0, _, Some(true)) => Err(E::InvalidRequest.into()),
        (0, existing, Some(false)) => {
            if existing.is_none() && store.shares.sessions.len() >= MAX_SHARE_SESSIONS {
                return Err(E::ShareSessionLimitReached.into());
            }
            store.shares.sessions.insert(key, ShareSession { epoch: 1, partitions: BTreeSet::new() });
            Ok(())
        }
        (0, _, None) => Err(E::InvalidShareSessionEpoch.into()),
        (_, None, _) => Err(E::ShareSessionNotFound.into()),
        (FINAL_EPOCH, Some(_), _) => Ok(()),
        (e, Some(s), _) if e == s.epoch => Ok(()),
        _ => Err(E::InvalidShareSessionEpoch.into()),
    }
}

/// Each acknowledged partition (topic id, partition) and its error code.
type Acked = Vec<(String, i32, i16)>;

/// A ShareFetch's session and acknowledgements (`SharePartitionManager.newContext`,
/// the acknowledgements first): each acknowledged partition's error code,
/// and the node; `Err` the request's error code.
fn begin(sh: &Shared, req: &ShareFetchRequest, group: &str, member: &str) -> Result<(Acked, i32), ApiError> {
    let mut store = sh.lock();
    let acks = req.topics.iter().any(|t| t.partitions.iter().any(|p| !p.acknowledgement_batches.is_empty()));
    session_for(&mut store, group, member, req.share_session_epoch, Some(acks))?;
    let key = (group.to_string(), member.to_string());
    let mut acked: Acked = Vec::new();
    for t in &req.topics {
        let tid = topic_id(t.topic_id);
        for p in &t.partitions {
            if !p.acknowledgement_batches.is_empty() {
                let batches: Vec<(i64, i64, Vec<i8>)> = p
                    .acknowledgement_batches
                    .iter()
                    .map(|b| (b.first_offset, b.last_offset, b.acknowledge_types.clone()))
                    .collect();
                let code = code_of(&acknowledge(&mut store, group, member, &tid, p.partition_index, &batches));
                acked.push((tid.clone(), p.partition_index, code));
            }
            if req.share_session_epoch != FINAL_EPOCH
                && let Some(sess) = store.shares.sessions.get_mut(&key)
            {
                sess.partitions.insert((tid.clone(), p.partition_index));
            }
        }
    }
    for f in &req.forgotten_topics_data {
        let tid = topic_id(f.topic_id);
        if let Some(sess) = store.shares.sessions.get_mut(&key) {
            for p in &f.partitions {
                sess.partitions.remove(&(tid.clone(), *p));
            }
        }
    }
    if req.share_session_epoch == FINAL_EPOCH {
        leave(&mut store, group, member);
    } else if let Some(sess) = store.shares.sessions.get_mut(&key) {
        sess.epoch = next_epoch(req.share_session_epoch);
    }
    Ok((acked, store.node_id()))
}

/// ShareFetch: acknowledgements first, then records acquired for the
/// member from the partitions of its session, waiting up to `maxWaitMs`
/// for some. The records are read within a reservation of the broker's
/// fetch memory, as a Fetch's are (`api::FETCH_MEMORY`), which goes
/// with the answer until it is sent.
pub async fn share_fetch(sh: &Shared, req: ShareFetchRequest) -> (ShareFetchResponse, Option<OwnedSemaphorePermit>) {
    let mut r = ShareFetchResponse::default();
    let group = req.group_id.as_ref().map(|g| g.as_str().to_string()).unwrap_or_default();
    // (KafkaApis: the group's record lock duration, else the broker's)
    r.acquisition_lock_timeout_ms = i32::try_from(sh.lock().share_limits(&group).lock_ms).unwrap_or(i32::MAX);
    let member = req.member_id.as_ref().map(ToString::to_string).unwrap_or_default();
    if group.is_empty() || member.is_empty() {
        r.error_code = E::InvalidRequest.code();
        r.error_message = Some(s("A share fetch names its group and member."));
        return (r, None);
    }
    let (acked, node) = match begin(sh, &req, &group, &member) {
        Ok(x) => x,
        Err(ApiError { code, .. }) => {
            r.error_code = code;
            return (r, None);
        }
    };
    let full = req.share_session_epoch == 0;
    let wanted: Vec<(String, i32)> = if req.share_session_epoch == FINAL_EPOCH {
        Vec::new()
    } else {
        sh.lock()
            .shares
            .sessions
            .get(&(group.clone(), member.clone()))
            .map(|x| x.partitions.iter().cloned().collect())
            .unwrap_or_default()
    };
    let max_bytes = usize::try_from(req.max_bytes.max(0))
        .unwrap_or(0)
        .min(crate::api::FETCH_MAX_BYTES)
        .min(crate::api::FETCH_MEMORY / 2);
    let reserve = u32::try_from(max_bytes.saturating_mul(2)).unwrap_or(u32::MAX);
    let max_records = if req.max_records > 0 { req.max_records } else { 500 };
    let wait = Duration::from_millis(u64::try_from(req.max_wait_ms.max(0)).unwrap_or(0));
    let deadline = tokio::time::Instant::from_std(crate::after(Instant::now(), wait));
    let mut got;
    let mut memory;
    loop {
        let notified = sh.appended.notified();
        memory = Arc::clone(&sh.fetch_memory).acquire_many_owned(reserve).await.ok();
        got = acquire(sh, &group, &member, &wanted, max_bytes, max_records);
        let any = got.iter().any(|x| !x.3.is_empty());
        if any || !acked.is_empty() || wanted.is_empty() || tokio::time::Instant::now() >= deadline {
            break;
        }
        // an acquisition lock may run out meanwhile: look again within a second
        let soon = tokio::time::Instant::now().checked_add(Duration::from_secs(1)).unwrap_or(deadline).min(deadline);
        drop(memory);
        let _ = tokio::time::timeout_at(soon, notified).await;
    }
    let mut by_topic: std::collections::BTreeMap<String, Vec<fetch_response::PartitionData>> = Default::default();
    for (tid, p, (code, leader_epoch), acquired, data) in got {
        let ack = acked.iter().find(|(t, q, _)| *t == tid && *q == p).map(|(_, _, c)| *c);
        if !full && acquired.is_empty() && code == 0 && ack.is_none() {
            continue;
        }
        let mut pd = fetch_response::PartitionData::default();
        pd.partition_index = p;
        pd.error_code = code;
        pd.acknowledge_error_code = ack.unwrap_or(0);
        pd.current_leader.leader_id = node;
        pd.current_leader.leader_epoch = leader_epoch;
        pd.records = Some(Bytes::from(data));
        pd.acquired_records = acquired
            .into_iter()
            .map(|(first, last, count)| {
                let mut a = fetch_response::AcquiredRecords::default();
                (a.first_offset, a.last_offset, a.delivery_count) = (first, last, count);
                a
            })
            .collect();
        by_topic.entry(tid).or_default().push(pd);
    }
    for (tid, p, code) in acked {
        let list = by_topic.entry(tid).or_default();
        if !list.iter().any(|x| x.partition_index == p) {
            let mut pd = fetch_response::PartitionData::default();
            pd.partition_index = p;
            pd.acknowledge_error_code = code;
            pd.current_leader.leader_id = node;
            pd.records = Some(Bytes::new());
            list.push(pd);
        }
    }
    r.responses = by_topic
        .into_iter()
        .map(|(tid, partitions)| {
            let mut t = fetch_response::ShareFetchableTopicResponse::default();
            (t.topic_id, t.partitions) = (uuid_of(&tid), partitions);
            t
        })
        .collect();
    (r, memory)
}

/// One partition's fetch: (topic id, partition, (error code, leader
/// epoch), acquired ranges, the batches holding them).
type Fetched = (String, i32, (i16, i32), Vec<(i64, i64, i16)>, Vec<u8>);

/// One pass over the session's partitions: acquire what each has for
/// `member`, within the request's bytes and records.
fn acquire(
    sh: &Shared,
    group: &str,
    member: &str,
    wanted: &[(String, i32)],
    max_bytes: usize,
    max_records: i32,
) -> Vec<Fetched> {
    let mut store = sh.lock();
    release(&mut store, group, None);
    let limits = store.share_limits(group);
    let mut out = Vec::new();
    let (mut bytes_left, mut records_left) = (max_bytes, max_records);
    for (tid, p) in wanted {
        let Some(name) = topic_name(&store, tid) else {
            out.push((tid.clone(), *p, (E::UnknownTopicId.code(), -1), Vec::new(), Vec::new()));
            continue;
        };
        let leader_epoch = store.leader_epoch(&name, *p).unwrap_or(-1);
        let key = (group.to_string(), tid.clone(), *p);
        let offset = match load(&mut store, &key, &name) {
            Ok(part) if records_left > 0 && bytes_left > 0 && part.can_acquire(&limits) => part.fetch_offset(),
            Ok(_) => {
                out.push((tid.clone(), *p, (0, leader_epoch), Vec::new(), Vec::new()));
                continue;
            }
            Err(ApiError { code, .. }) => {
                out.push((tid.clone(), *p, (code, leader_epoch), Vec::new(), Vec::new()));
                continue;
            }
        };
        let data = match store.read_from(&name, *p, offset, bytes_left, limits.read_committed) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("logtool broker: share fetch of {name}-{p}: {e}");
                out.push((tid.clone(), *p, (E::KafkaStorageError.code(), leader_epoch), Vec::new(), Vec::new()));
                continue;
            }
        };
        let ranges = store::batch_ranges(&data);
        let batches: Vec<(i64, i64)> = ranges.iter().map(|(b, l, _)| (*b, *l)).collect();
        // read_committed: the batches of aborted transactions, archived
        // as they are acquired (`maybeFilterAbortedTransactionalAcquiredRecords`)
        let txns = match store::end_of_batches(&data) {
            Some(after) if limits.read_committed => store.aborted_transactions(&name, *p, offset, after),
            _ => Vec::new(),
        };
        // (none told of: nothing to look for in the batches, as Kafka skips it)
        let aborted =
            if txns.is_empty() { Vec::new() } else { sp::aborted_batches(&store::read_batches_of(&data), &txns) };
        let acquired = match store.shares.partitions.get_mut(&key) {
            Some(part) => {
                let acquired = part.acquire(member, &batches, records_left, store::now_ms(), &limits);
                part.archive_aborted(acquired, &aborted)
            }
            None => Vec::new(),
        };
        let count: i64 = acquired.iter().map(|(f, l, _)| l.saturating_sub(*f).saturating_add(1)).sum();
        records_left = records_left.saturating_sub(i32::try_from(count).unwrap_or(i32::MAX));
        // the batches up to the last acquired record
        let last = acquired.iter().map(|(_, l, _)| *l).max();
        let cut = last.and_then(|l| ranges.iter().find(|(_, bl, _)| *bl >= l)).map_or(0, |(_, _, end)| *end);
        let mut data = data;
        data.truncate(cut);
        bytes_left = bytes_left.saturating_sub(data.len());
        out.push((tid.clone(), *p, (0, leader_epoch), acquired, data));
    }
    out
}

/// ShareAcknowledge.
pub fn share_acknowledge(sh: &Shared, req: ShareAcknowledgeRequest) -> ShareAcknowledgeResponse {
    let mut r = ShareAcknowledgeResponse::default();
    let group = req.group_id.as_ref().map(|g| g.as_str().to_string()).unwrap_or_default();
    let member = req.member_id.as_ref().map(ToString::to_string).unwrap_or_default();
    let mut store = sh.lock();
    if let Err(ApiError { code, .. }) = session_for(&mut store, &group, &member, req.share_session_epoch, None) {
        r.error_code = code;
        return r;
    }
    let node = store.node_id();
    for t in &req.topics {
        let tid = topic_id(t.topic_id);
        let mut tr = ack_response::ShareAcknowledgeTopicResponse::default();
        tr.topic_id = t.topic_id;
        for p in &t.partitions {
            let batches: Vec<(i64, i64, Vec<i8>)> = p
                .acknowledgement_batches
                .iter()
                .map(|b| (b.first_offset, b.last_offset, b.acknowledge_types.clone()))
                .collect();
            let code = code_of(&acknowledge(&mut store, &group, &member, &tid, p.partition_index, &batches));
            let mut pd = ack_response::PartitionData::default();
            pd.partition_index = p.partition_index;
            pd.error_code = code;
            pd.current_leader.leader_id = node;
            pd.current_leader.leader_epoch =
                topic_name(&store, &tid).and_then(|n| store.leader_epoch(&n, p.partition_index)).unwrap_or(-1);
            tr.partitions.push(pd);
        }
        r.responses.push(tr);
    }
    let key = (group.clone(), member.clone());
    if req.share_session_epoch == FINAL_EPOCH {
        leave(&mut store, &group, &member);
    } else if let Some(sess) = store.shares.sessions.get_mut(&key) {
        sess.epoch = next_epoch(req.share_session_epoch);
    }
    r
}
