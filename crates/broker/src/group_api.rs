//! The group APIs of a classic group coordinator (`KafkaApis` →
//! `GroupCoordinator`): FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
//! LeaveGroup, OffsetCommit, OffsetFetch, ListGroups, DescribeGroups. The
//! group logic is `groups`; this module maps requests and responses and
//! writes the coordinator's records to `__consumer_offsets`.

use std::collections::BTreeMap;
use std::time::Instant;

use bytes::Bytes;
use kafka_protocol::ResponseError as E;
use kafka_protocol::messages::describe_groups_response::{DescribedGroup, DescribedGroupMember};
use kafka_protocol::messages::find_coordinator_response::Coordinator;
use kafka_protocol::messages::join_group_response::JoinGroupResponseMember;
use kafka_protocol::messages::leave_group_response::MemberResponse;
use kafka_protocol::messages::list_groups_response::ListedGroup;
use kafka_protocol::messages::offset_commit_response::{OffsetCommitResponsePartition, OffsetCommitResponseTopic};
use kafka_protocol::messages::offset_fetch_response::{
    OffsetFetchResponseGroup, OffsetFetchResponsePartition, OffsetFetchResponsePartitions, OffsetFetchResponseTopic,
    OffsetFetchResponseTopics,
};
use kafka_protocol::messages::*;
use kafka_protocol::protocol::StrBytes;

use crate::Shared;
use crate::error::{ApiError, code_of};
use crate::store::{self, OFFSETS_TOPIC};
use coordinator::classic::{self as groups, Committed, Group, State};

fn s(text: impl Into<String>) -> StrBytes {
    StrBytes::from_string(text.into())
}

/// How often a waiting JoinGroup or SyncGroup looks at its group again
/// (session expiry is checked when a group is touched).
const RECHECK: std::time::Duration = std::time::Duration::from_millis(500);

/// `FindCoordinatorRequest.CoordinatorType` of groups.
const GROUP: i8 = 0;
/// `FindCoordinatorRequest.CoordinatorType` of transactional ids.
const TRANSACTION: i8 = 1;

/// FindCoordinator: this node for groups and for transactional ids
/// (creating `__consumer_offsets` or `__transaction_state` first, as
/// Kafka does: `KafkaApis.handleFindCoordinatorRequest`).
pub fn find_coordinator(sh: &Shared, version: i16, req: FindCoordinatorRequest) -> FindCoordinatorResponse {
    let keys: Vec<StrBytes> = if version >= 4 { req.coordinator_keys.clone() } else { vec![req.key.clone()] };
    let answer = |key: &StrBytes| -> Result<i32, ApiError> {
        match req.key_type {
            GROUP => sh.lock().offsets_partition(key.as_str()),
            TRANSACTION => sh.lock().transaction_partition(key.as_str()),
            _ => Err(ApiError::new(E::InvalidRequest, format!("unknown coordinator type {}", req.key_type))),
        }
    };
    let mut r = FindCoordinatorResponse::default();
    let (host, port) = (s(sh.advertised.ip().to_string()), i32::from(sh.advertised.port()));
    let node = BrokerId(sh.lock().node_id());
    if version >= 4 {
        for k in &keys {
            let found = answer(k);
            let code = code_of(&found);
            let mut c = Coordinator::default();
            c.key = k.clone();
            c.error_code = code;
            c.error_message = found.err().map(|e| s(e.message));
            (c.node_id, c.host, c.port) =
                if code == 0 { (node, host.clone(), port) } else { (BrokerId(-1), s(""), -1) };
            r.coordinators.push(c);
        }
    } else {
        let found = answer(&req.key);
        let code = code_of(&found);
        r.error_code = code;
        r.error_message = found.err().map(|e| s(e.message));
        (r.node_id, r.host, r.port) = if code == 0 { (node, host, port) } else { (BrokerId(-1), s(""), -1) };
    }
    r
}

/// Bring a group up to now: members whose session expired go, a join phase
/// past its deadline completes (as Kafka's timers would have done).
fn tick(sh: &Shared, store: &mut store::State, group_id: &str) {
    let now = Instant::now();
    let Some(g) = store.groups.classic.get_mut(group_id) else { return };
    g.expire(now);
    if g.join_ready(now) {
        let emptied = g.complete_join(store::now_ms());
        sh.group_changed.notify_waiters();
        if emptied {
            store_group(store, group_id);
        }
    }
}

/// Write the group's metadata record to its `__consumer_offsets` partition.
fn store_group(store: &mut store::State, group_id: &str) {
    let Some(g) = store.groups.classic.get(group_id) else { return };
    let record = g.metadata_record();
    if let Ok(p) = store.offsets_partition(group_id)
        && let Err(e) = store.append_records(OFFSETS_TOPIC, p, &[record])
    {
        eprintln!("logtool broker: group {group_id}: {e}");
    }
}

/// JoinGroup: join, then wait until the join phase completes.
pub async fn join_group(
    sh: &Shared,
    version: i16,
    req: JoinGroupRequest,
    client_id: &str,
    host: &str,
) -> JoinGroupResponse {
    let group_id = req.group_id.0.to_string();
    let mut r = JoinGroupResponse::default();
    r.generation_id = -1;
    let joined = {
        let mut store = sh.lock();
        if store.offsets_partition(&group_id).is_err() {
            r.error_code = E::CoordinatorNotAvailable.code();
            return r;
        }
        let g = store.groups.classic.entry(group_id.clone()).or_insert_with(|| Group::new(&group_id));
        let protocols = req.protocols.iter().map(|p| (p.name.to_string(), p.metadata.clone())).collect();
        let client = client_id.to_string();
        g.join(
            Instant::now(),
            req.member_id.as_str(),
            req.group_instance_id.as_ref().map(|x| x.to_string()),
            client_id,
            host,
            req.session_timeout_ms,
            if version == 0 { req.session_timeout_ms } else { req.rebalance_timeout_ms },
            req.protocol_type.as_str(),
            protocols,
            version >= 4,
            sh.initial_rebalance_delay,
            || format!("{client}-{}", uuid::Uuid::from_bytes(store::random_uuid().0)),
        )
    };
    let member_id = match joined {
        Ok(id) => id,
        Err((code, id)) => {
            r.error_code = code;
            r.member_id = s(id.unwrap_or_default());
            return r;
        }
    };
    sh.group_changed.notify_waiters();
    loop {
        let notified = sh.group_changed.notified();
        let deadline = {
            let mut store = sh.lock();
            let now = Instant::now();
            let mut emptied = false;
            let Some(g) = store.groups.classic.get_mut(&group_id) else {
                r.error_code = groups::UNKNOWN_MEMBER_ID;
                return r;
            };
            g.expire(now);
            if g.join_ready(now) {
                emptied = g.complete_join(store::now_ms());
                sh.group_changed.notify_waiters();
            }
            if !g.members.contains_key(&member_id) {
                r.error_code = groups::UNKNOWN_MEMBER_ID;
                r.member_id = s(member_id);
                return r;
            }
            if g.state != State::PreparingRebalance
                && let Some(res) = g.results.get(&member_id)
            {
                r.generation_id = res.generation;
                r.protocol_type = g.protocol_type.clone().map(s);
                r.protocol_name = res.protocol.clone().map(s);
                r.leader = s(res.leader.clone());
                r.member_id = s(member_id.clone());
                r.members = res
                    .members
                    .iter()
                    .map(|(id, instance, metadata)| {
                        let mut m = JoinGroupResponseMember::default();
                        m.member_id = s(id.clone());
                        m.group_instance_id = instance.clone().map(s);
                        m.metadata = metadata.clone();
                        m
                    })
                    .collect();
                return r;
            }
            let deadline = g.deadline();
            if emptied {
                store_group(&mut store, &group_id);
            }
            deadline
        };
        // woken by a change, the deadline, or a recheck (expiry is lazy)
        let recheck = tokio::time::Instant::from_std(crate::after(std::time::Instant::now(), RECHECK));
        let until = deadline.map_or(recheck, |d| tokio::time::Instant::from_std(d).min(recheck));
        let _ = tokio::time::timeout_at(until, notified).await;
    }
}

/// SyncGroup: the leader's assignments make the group Stable (its metadata
/// is written); the others wait for them.
pub async fn sync_group(sh: &Shared, _version: i16, req: SyncGroupRequest) -> SyncGroupResponse {
    let group_id = req.group_id.0.to_string();
    let member_id = req.member_id.to_string();
    let mut r = SyncGroupResponse::default();
    loop {
        let notified = sh.group_changed.notified();
        {
            let mut store = sh.lock();
            tick(sh, &mut store, &group_id);
            let Some(g) = store.groups.classic.get_mut(&group_id) else {
                r.error_code = groups::UNKNOWN_MEMBER_ID;
                return r;
            };
            if let Err(code) = g.check_member(&member_id, req.generation_id) {
                r.error_code = code;
                return r;
            }
            let consistent = req.protocol_type.as_ref().is_none_or(|t| g.protocol_type.as_deref() == Some(t.as_str()))
                && req.protocol_name.as_ref().is_none_or(|p| g.protocol.as_deref() == Some(p.as_str()));
            if !consistent {
                r.error_code = groups::INCONSISTENT_GROUP_PROTOCOL;
                return r;
            }
            match g.state {
                State::PreparingRebalance | State::Empty => {
                    r.error_code = groups::REBALANCE_IN_PROGRESS;
                    return r;
                }
                State::CompletingRebalance if g.leader.as_deref() == Some(member_id.as_str()) => {
                    let assignments: BTreeMap<String, Bytes> =
                        req.assignments.iter().map(|a| (a.member_id.to_string(), a.assignment.clone())).collect();
                    g.assign(assignments);
                    store_group(&mut store, &group_id);
                    sh.group_changed.notify_waiters();
                    continue;
                }
                State::CompletingRebalance => {}
                State::Stable => {
                    r.protocol_type = g.protocol_type.clone().map(s);
                    r.protocol_name = g.protocol.clone().map(s);
                    r.assignment = g.members.get(&member_id).map(|m| m.assignment.clone()).unwrap_or_default();
                    return r;
                }
            }
        }
        // woken by the leader's sync, or a recheck: a leader whose session
        // expires ends the wait with REBALANCE_IN_PROGRESS
        let _ = tokio::time::timeout(RECHECK, notified).await;
    }
}

/// Heartbeat.
pub fn heartbeat(sh: &Shared, _version: i16, req: HeartbeatRequest) -> HeartbeatResponse {
    let mut r = HeartbeatResponse::default();
    let mut store = sh.lock();
    tick(sh, &mut store, req.group_id.as_str());
    r.error_code = match store.groups.classic.get_mut(req.group_id.as_str()) {
        None => groups::UNKNOWN_MEMBER_ID,
        Some(g) => g.heartbeat(Instant::now(), req.member_id.as_str(), req.generation_id),
    };
    drop(store);
    sh.group_changed.notify_waiters();
    r
}

/// LeaveGroup (one member before v3, a list after).
pub fn leave_group(sh: &Shared, version: i16, req: LeaveGroupRequest) -> LeaveGroupResponse {
    let mut r = LeaveGroupResponse::default();
    let ids: Vec<(String, Option<StrBytes>)> = if version >= 3 {
        req.members.iter().map(|m| (m.member_id.to_string(), m.group_instance_id.clone())).collect()
    } else {
        vec![(req.member_id.to_string(), None)]
    };
    let mut store = sh.lock();
    let now = Instant::now();
    let mut codes = Vec::new();
    match store.groups.classic.get_mut(req.group_id.as_str()) {
        None => r.error_code = groups::UNKNOWN_MEMBER_ID,
        Some(g) => {
            for (id, _) in &ids {
                codes.push(g.leave(now, id));
            }
            if g.join_ready(now) && g.complete_join(store::now_ms()) {
                store_group(&mut store, req.group_id.as_str());
            }
        }
    }
    drop(store);
    sh.group_changed.notify_waiters();
    if version >= 3 {
        r.members = ids
            .into_iter()
            .zip(codes.into_iter().chain(std::iter::repeat(groups::UNKNOWN_MEMBER_ID)))
            .map(|((id, instance), code)| {
                let mut m = MemberResponse::default();
                m.member_id = s(id);
                m.group_instance_id = instance;
                m.error_code = code;
                m
            })
            .collect();
    } else if let Some(code) = codes.first() {
        r.error_code = *code;
    }
    r
}

/// OffsetCommit: a member of the current generation of a Stable group, or
/// anyone for a group without members (generation -1: an admin's or a
/// manually assigned consumer's commit).
pub fn offset_commit(sh: &Shared, version: i16, req: OffsetCommitRequest) -> OffsetCommitResponse {
    let group_id = req.group_id.0.to_string();
    let mut store = sh.lock();
    let partition = store.offsets_partition(&group_id);
    tick(sh, &mut store, &group_id);
    let generation = req.generation_id_or_member_epoch;
    // a KIP-848 consumer group checks the member's epoch, per partition
    // where it is older (`ConsumerGroup.validateOffsetCommit`)
    let consumer = crate::consumer_api::group(&mut store, &group_id).cloned();
    let ids: BTreeMap<String, String> =
        store.topics().iter().map(|(n, t)| (n.clone(), t.topic.topic_id.to_string())).collect();
    let check = |topic: Option<&str>, p: i32| -> i16 {
        let Some(g) = &consumer else { return 0 };
        let partition = topic.map(|t| (ids.get(t).map_or("", String::as_str), p));
        coordinator::consumer_group::check_commit(g, req.member_id.as_str(), generation, version, partition)
            .map_or_else(|e| e.code, |()| 0)
    };
    let g = store.groups.classic.entry(group_id.clone()).or_insert_with(|| Group::new(&group_id));
    let group_error: i16 = match partition {
        Err(ApiError { code, .. }) => code,
        Ok(_) if consumer.is_some() => check(None, 0),
        Ok(_) if generation < 0 && g.members.is_empty() => 0,
        Ok(_) => match g.check_member(req.member_id.as_str(), generation) {
            Err(code) => code,
            Ok(()) if g.state != State::Stable => groups::REBALANCE_IN_PROGRESS,
            Ok(()) => 0,
        },
    };
    let now = store::now_ms();
    let mut records = Vec::new();
    let mut r = OffsetCommitResponse::default();
    let known: Vec<(String, usize)> =
        store.topics().iter().map(|(n, t)| (n.clone(), t.topic.partitions.len())).collect();
    for t in &req.topics {
        let topic = t.name.0.to_string();
        let mut tr = OffsetCommitResponseTopic::default();
        tr.name = t.name.clone();
        for p in &t.partitions {
            let mut pr = OffsetCommitResponsePartition::default();
            pr.partition_index = p.partition_index;
            let exists =
                known.iter().any(|(n, c)| *n == topic && usize::try_from(p.partition_index).is_ok_and(|i| i < *c));
            let stale = if exists { check(Some(&topic), p.partition_index) } else { 0 };
            pr.error_code = if group_error != 0 {
                group_error
            } else if !exists {
                E::UnknownTopicOrPartition.code()
            } else if stale != 0 {
                stale
            } else {
                let c = Committed {
                    offset: p.committed_offset,
                    leader_epoch: p.committed_leader_epoch,
                    metadata: p.committed_metadata.as_ref().map(|m| m.to_string()).unwrap_or_default(),
                    commit_timestamp: now,
                };
                records.push(groups::offset_record(&group_id, &topic, p.partition_index, &c));
                if let Some(g) = store.groups.classic.get_mut(&group_id) {
                    g.offsets.insert((topic.clone(), p.partition_index), c);
                }
                0
            };
            tr.partitions.push(pr);
        }
        r.topics.push(tr);
    }
    if let (Ok(p), false) = (partition, records.is_empty())
        && let Err(e) = store.append_records(OFFSETS_TOPIC, p, &records)
    {
        eprintln!("logtool broker: offset commit of {group_id}: {e}");
    }
    r
}

/// A topic and its partitions' committed offsets (none: never committed).
type TopicOffsets = (String, Vec<(i32, Option<Committed>)>);

fn fetch_offsets(store: &store::State, group: &str, wanted: Option<Vec<(String, Vec<i32>)>>) -> Vec<TopicOffsets> {
    let offsets = store.groups.classic.get(group).map(|g| g.offsets.clone()).unwrap_or_default();
    match wanted {
        Some(list) => list
            .into_iter()
            .map(|(t, parts)| {
                let got = parts.into_iter().map(|p| (p, offsets.get(&(t.clone(), p)).cloned())).collect();
                (t, got)
            })
            .collect(),
        None => {
            let mut by_topic: BTreeMap<String, Vec<(i32, Option<Committed>)>> = BTreeMap::new();
            for ((t, p), c) in offsets {
                by_topic.entry(t).or_default().push((p, Some(c)));
            }
            by_topic.into_iter().collect()
        }
    }
}

/// Whether `group` has an offset of `topic`-`partition` committed in a
/// transaction that has not ended (`GroupMetadata.hasPendingOffsetCommitsForTopicPartition`).
fn pending(store: &store::State, group: &str, topic: &str, partition: i32) -> bool {
    store.txns.pending_offsets.values().flatten().any(|(g, t, p, _)| g == group && t == topic && *p == partition)
}

/// OffsetFetch: committed offsets (-1 where none), of one group (before
/// v8) or several; with `require_stable` (v7+), a partition with an offset
/// committed in a transaction not yet ended is answered
/// `UNSTABLE_OFFSET_COMMIT` (the client retries), as Kafka answers it.
pub fn offset_fetch(sh: &Shared, version: i16, req: OffsetFetchRequest) -> OffsetFetchResponse {
    let mut store = sh.lock();
    let mut r = OffsetFetchResponse::default();
    if version >= 8 {
        for g in &req.groups {
            // a KIP-848 consumer group's member must give its current epoch
            // (`ConsumerGroup.validateOffsetFetch`)
            let member = g.member_id.as_ref().map(|m| m.as_str());
            let refused = crate::consumer_api::group(&mut store, g.group_id.as_str())
                .and_then(|c| coordinator::consumer_group::check_fetch(c, member, g.member_epoch).err());
            if let Some(e) = refused {
                let mut out = OffsetFetchResponseGroup::default();
                out.group_id = g.group_id.clone();
                out.error_code = e.code;
                r.groups.push(out);
                continue;
            }
            let wanted = g
                .topics
                .as_ref()
                .map(|ts| ts.iter().map(|t| (t.name.0.to_string(), t.partition_indexes.clone())).collect());
            let mut out = OffsetFetchResponseGroup::default();
            out.group_id = g.group_id.clone();
            for (topic, parts) in fetch_offsets(&store, g.group_id.as_str(), wanted) {
                let mut t = OffsetFetchResponseTopics::default();
                t.name = TopicName(s(topic.clone()));
                t.partitions = parts
                    .into_iter()
                    .map(|(p, c)| {
                        let mut x = OffsetFetchResponsePartitions::default();
                        x.partition_index = p;
                        let unstable = req.require_stable && pending(&store, g.group_id.as_str(), &topic, p);
                        let c = if unstable { None } else { c };
                        x.error_code = if unstable { E::UnstableOffsetCommit.code() } else { 0 };
                        x.committed_offset = c.as_ref().map_or(-1, |c| c.offset);
                        x.committed_leader_epoch = c.as_ref().map_or(-1, |c| c.leader_epoch);
                        x.metadata = Some(s(c.map(|c| c.metadata).unwrap_or_default()));
                        x
                    })
                    .collect();
                out.topics.push(t);
            }
            r.groups.push(out);
        }
    } else {
        let wanted = req
            .topics
            .as_ref()
            .map(|ts| ts.iter().map(|t| (t.name.0.to_string(), t.partition_indexes.clone())).collect());
        for (topic, parts) in fetch_offsets(&store, req.group_id.as_str(), wanted) {
            let mut t = OffsetFetchResponseTopic::default();
            t.name = TopicName(s(topic.clone()));
            t.partitions = parts
                .into_iter()
                .map(|(p, c)| {
                    let mut x = OffsetFetchResponsePartition::default();
                    x.partition_index = p;
                    let unstable = req.require_stable && pending(&store, req.group_id.as_str(), &topic, p);
                    let c = if unstable { None } else { c };
                    x.error_code = if unstable { E::UnstableOffsetCommit.code() } else { 0 };
                    x.committed_offset = c.as_ref().map_or(-1, |c| c.offset);
                    x.committed_leader_epoch = c.as_ref().map_or(-1, |c| c.leader_epoch);
                    x.metadata = Some(s(c.map(|c| c.metadata).unwrap_or_default()));
                    x
                })
                .collect();
            r.topics.push(t);
        }
    }
    r
}

/// ListGroups (filtered by state, v4+, and type, v5+).
pub fn list_groups(sh: &Shared, _version: i16, req: ListGroupsRequest) -> ListGroupsResponse {
    let mut store = sh.lock();
    let ids: Vec<String> = store.groups.classic.keys().cloned().collect();
    for id in ids {
        tick(sh, &mut store, &id);
    }
    let mut r = ListGroupsResponse::default();
    let listed = |r: &mut ListGroupsResponse, id: &str, protocol_type: &str, state: &str, group_type: &str| {
        let state_ok =
            req.states_filter.is_empty() || req.states_filter.iter().any(|f| f.as_str().eq_ignore_ascii_case(state));
        let type_ok =
            req.types_filter.is_empty() || req.types_filter.iter().any(|f| f.as_str().eq_ignore_ascii_case(group_type));
        if state_ok && type_ok {
            let mut l = ListedGroup::default();
            l.group_id = GroupId(s(id));
            l.protocol_type = s(protocol_type);
            l.group_state = s(state);
            l.group_type = s(group_type);
            r.groups.push(l);
        }
    };
    for (id, g) in &store.groups.consumer.groups {
        let protocol = g.group_type.protocol();
        listed(&mut r, id, protocol, g.state(), protocol);
    }
    for g in store.groups.classic.values() {
        if g.protocol_type.is_none() && g.offsets.is_empty() || store.groups.consumer.groups.contains_key(&g.id) {
            continue;
        }
        listed(&mut r, &g.id, g.protocol_type.as_deref().unwrap_or_default(), g.state.name(), "classic");
    }
    r
}

/// DescribeGroups (an unknown group is `Dead`, without an error, as Kafka).
pub fn describe_groups(sh: &Shared, version: i16, req: DescribeGroupsRequest) -> DescribeGroupsResponse {
    let mut store = sh.lock();
    for id in &req.groups {
        tick(sh, &mut store, id.as_str());
    }
    let mut r = DescribeGroupsResponse::default();
    for id in &req.groups {
        let mut d = DescribedGroup::default();
        d.group_id = id.clone();
        d.authorized_operations = i32::MIN;
        // a consumer group is no classic group: Dead, GROUP_ID_NOT_FOUND
        // from v6 (`GroupMetadataManager.describeGroups`)
        if store.groups.consumer.groups.contains_key(id.as_str()) {
            d.group_state = s("Dead");
            if version >= 6 {
                d.error_code = E::GroupIdNotFound.code();
                d.error_message = Some(s(format!("Group {} is not a classic group.", id.as_str())));
            }
            r.groups.push(d);
            continue;
        }
        match store.groups.classic.get(id.as_str()) {
            None => d.group_state = s("Dead"),
            Some(g) => {
                d.group_state = s(g.state.name());
                d.protocol_type = s(g.protocol_type.clone().unwrap_or_default());
                d.protocol_data = s(g.protocol.clone().unwrap_or_default());
                d.members = g
                    .members
                    .values()
                    .map(|m| {
                        let mut x = DescribedGroupMember::default();
                        x.member_id = s(m.id.clone());
                        x.group_instance_id = m.instance_id.clone().map(s);
                        x.client_id = s(m.client_id.clone());
                        x.client_host = s(m.client_host.clone());
                        if g.state == State::Stable {
                            x.member_metadata = m.metadata(g.protocol.as_deref());
                            x.member_assignment = m.assignment.clone();
                        }
                        x
                    })
                    .collect();
            }
        }
        r.groups.push(d);
    }
    r
}
