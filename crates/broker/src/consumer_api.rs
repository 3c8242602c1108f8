//! The KIP-848 consumer group APIs (`KafkaApis` → `GroupCoordinatorService`
//! of Kafka 4.x): ConsumerGroupHeartbeat and ConsumerGroupDescribe. What a
//! heartbeat does is `coordinator::consumer_group`'s; this module maps
//! requests and responses, writes the records it returns to the group's
//! `__consumer_offsets` partition and, once they are written, replays
//! them into the store's groups (as Kafka's coordinator replays its
//! records), and runs the member timers the coordinator schedules: a member
//! whose session (45 s without a heartbeat) or rebalance timeout (while
//! it revokes partitions) ends is fenced when its group is next touched.

use std::time::{Duration, Instant};

use coordinator::consumer_group::{self as rules, Heartbeat};
use kafka_protocol::ResponseError as E;
use kafka_protocol::messages::consumer_group_describe_response as describe;
use kafka_protocol::messages::consumer_group_heartbeat_response as heartbeat;
use kafka_protocol::messages::*;
use kafka_protocol::protocol::StrBytes;
use logrules::groups::{Group, GroupType};

use crate::Shared;
use crate::api::{ready, topic_id, topics, uuid_of, write};
use crate::error::ApiError;
use crate::store::{self, State};

fn s(text: impl Into<String>) -> StrBytes {
    StrBytes::from_string(text.into())
}

fn millis(ms: i32) -> Duration {
    Duration::from_millis(u64::from(ms.unsigned_abs()))
}

/// Fence the members of `group` whose session or rebalance timeout ended
/// (`scheduleConsumerGroupSessionTimeout`, `scheduleConsumerGroupRebalanceTimeout`).
fn expire(store: &mut State, group: &str) {
    let now = Instant::now();
    let ended: Vec<String> = store
        .groups
        .consumer_timers
        .iter()
        .filter(|((g, _), (session, rebalance))| g == group && (*session <= now || rebalance.is_some_and(|r| r <= now)))
        .map(|((_, m), _)| m.clone())
        .collect();
    if ended.is_empty() {
        return;
    }
    let image = topics(store);
    let records = match store.groups.consumer.groups.get(group) {
        Some(g) => rules::fence(g, group, &ended.iter().map(String::as_str).collect::<Vec<_>>(), &image),
        None => Vec::new(),
    };
    if write(store, group, records).is_ok() {
        for m in ended {
            store.groups.consumer_timers.remove(&(group.to_string(), m));
        }
    }
}

/// After a heartbeat of `member`: its session runs again from now; its
/// rebalance timeout runs while it revokes partitions (from when it began
/// to); a member that left has no timers.
fn touch(store: &mut State, group: &str, member: &str) {
    let key = (group.to_string(), member.to_string());
    let g = store.groups.consumer.groups.get(group);
    let Some(m) = g.and_then(|g| g.members.get(member)) else {
        store.groups.consumer_timers.remove(&key);
        return;
    };
    let revoking = g.is_some_and(|g| rules::revoking(g, member));
    let now = Instant::now();
    let session = crate::after(now, millis(store.consumer_timing(group).session_timeout_ms));
    let timeout = crate::after(now, millis(m.rebalance_timeout_ms.max(0)));
    let previous = store.groups.consumer_timers.get(&key).and_then(|(_, r)| *r);
    let rebalance = revoking.then(|| previous.unwrap_or(timeout));
    store.groups.consumer_timers.insert(key, (session, rebalance));
}

fn request(req: &ConsumerGroupHeartbeatRequest, client_id: &str, host: &str) -> Heartbeat {
    Heartbeat {
        group_id: req.group_id.to_string(),
        member_id: req.member_id.to_string(),
        member_epoch: req.member_epoch,
        instance_id: req.instance_id.as_ref().map(ToString::to_string),
        rack_id: req.rack_id.as_ref().map(ToString::to_string),
        rebalance_timeout_ms: req.rebalance_timeout_ms,
        subscribed_topic_names: req.subscribed_topic_names.as_ref().map(|n| n.iter().map(|t| t.to_string()).collect()),
        subscribed_topic_regex: req.subscribed_topic_regex.as_ref().map(ToString::to_string),
        server_assignor: req.server_assignor.as_ref().map(ToString::to_string),
        owned: req
            .topic_partitions
            .as_ref()
            .map(|list| list.iter().map(|t| (topic_id(t.topic_id), t.partitions.clone())).collect()),
        client_id: client_id.to_string(),
        client_host: host.to_string(),
    }
}

/// ConsumerGroupHeartbeat.
pub fn consumer_group_heartbeat(
    sh: &Shared,
    version: i16,
    req: ConsumerGroupHeartbeatRequest,
    client_id: &str,
    host: &str,
) -> ConsumerGroupHeartbeatResponse {
    let hb = request(&req, client_id, host);
    let mut r = ConsumerGroupHeartbeatResponse::default();
    let refuse = |r: &mut ConsumerGroupHeartbeatResponse, e: ApiError| {
        r.error_code = e.code;
        r.error_message = Some(s(e.message));
    };
    if let Err(e) = rules::validate(&hb, version) {
        refuse(&mut r, e.into());
        return r;
    }
    let mut store = sh.lock();
    if let Err(e) = ready(&mut store, &hb.group_id, "consumer") {
        refuse(&mut r, e);
        return r;
    }
    expire(&mut store, &hb.group_id);
    let image = topics(&store);
    let new_id = || logfmt::uuid::Uuid(store::random_uuid().0).to_string();
    let timing = store.consumer_timing(&hb.group_id);
    let outcome =
        rules::heartbeat(store.groups.consumer.groups.get(&hb.group_id), &hb, &image, store::now_ms(), &timing, new_id);
    let (records, answer) = match outcome {
        Ok(o) => o,
        Err(e) => {
            refuse(&mut r, e.into());
            return r;
        }
    };
    if let Err(e) = write(&mut store, &hb.group_id, records) {
        refuse(&mut r, e);
        return r;
    }
    if answer.resolve_regexes {
        // Kafka resolves them in the background right after the heartbeat
        // (`TopicRegexResolver`); here at once, before the next request
        let version = store.metadata_version();
        let resolved = store
            .groups
            .consumer
            .groups
            .get(&hb.group_id)
            .map(|g| rules::resolve_regexes(g, &hb.group_id, &image, store::now_ms(), version))
            .unwrap_or_default();
        if let Err(e) = write(&mut store, &hb.group_id, resolved) {
            eprintln!("logtool broker: resolving the regular expressions of group {}: {}", hb.group_id, e.message);
        }
    }
    touch(&mut store, &hb.group_id, &answer.member_id);
    r.member_id = Some(s(answer.member_id));
    r.member_epoch = answer.member_epoch;
    r.heartbeat_interval_ms = answer.heartbeat_interval_ms;
    r.assignment = answer.assignment.map(|list| {
        let mut a = heartbeat::Assignment::default();
        a.topic_partitions = list
            .into_iter()
            .map(|(t, ps)| {
                let mut tp = heartbeat::TopicPartitions::default();
                (tp.topic_id, tp.partitions) = (uuid_of(&t), ps);
                tp
            })
            .collect();
        a
    });
    r
}

/// A member's partitions as ConsumerGroupDescribe names them (topic id
/// and name).
fn described(list: &[(String, Vec<i32>)], names: &std::collections::BTreeMap<String, String>) -> describe::Assignment {
    let mut a = describe::Assignment::default();
    a.topic_partitions = list
        .iter()
        .map(|(t, ps)| {
            let mut tp = describe::TopicPartitions::default();
            tp.topic_id = uuid_of(t);
            tp.topic_name = TopicName(s(names.get(t).cloned().unwrap_or_default()));
            tp.partitions = ps.clone();
            tp
        })
        .collect();
    a
}

fn describe_group(g: &Group, id: &str, names: &std::collections::BTreeMap<String, String>) -> describe::DescribedGroup {
    let mut d = describe::DescribedGroup::default();
    d.group_id = GroupId(s(id));
    d.authorized_operations = i32::MIN;
    d.group_state = s(g.state());
    d.group_epoch = g.generation;
    d.assignment_epoch = g.assignment_epoch.unwrap_or(0);
    d.assignor_name = s(g.assignor().unwrap_or_default());
    d.members = g
        .members
        .values()
        .map(|m| {
            let mut x = describe::Member::default();
            x.member_id = s(m.member_id.clone());
            x.instance_id = m.group_instance_id.clone().map(s);
            x.rack_id = m.rack_id.clone().map(s);
            x.member_epoch = m.member_epoch.unwrap_or(0);
            x.client_id = s(m.client_id.clone());
            x.client_host = s(m.client_host.clone());
            x.subscribed_topic_names = m.subscribed_topic_names.iter().map(|t| TopicName(s(t.clone()))).collect();
            x.subscribed_topic_regex = m.subscribed_topic_regex.clone().filter(|r| !r.is_empty()).map(s);
            x.assignment = described(&m.assignment, names);
            x.target_assignment = described(g.targets.get(&m.member_id).map_or(&[][..], Vec::as_slice), names);
            x.member_type = 1; // (v1+) the consumer protocol
            x
        })
        .collect();
    d
}

/// ConsumerGroupDescribe (an unknown group, or one of another type, is
/// `GROUP_ID_NOT_FOUND`, as Kafka answers).
pub fn consumer_group_describe(
    sh: &Shared,
    _version: i16,
    req: ConsumerGroupDescribeRequest,
) -> ConsumerGroupDescribeResponse {
    let mut store = sh.lock();
    for id in &req.group_ids {
        expire(&mut store, id.as_str());
    }
    let names: std::collections::BTreeMap<String, String> =
        store.topics().iter().map(|(n, t)| (t.topic.topic_id.to_string(), n.clone())).collect();
    let mut r = ConsumerGroupDescribeResponse::default();
    for id in &req.group_ids {
        let d = match store.groups.consumer.groups.get(id.as_str()) {
            Some(g) if g.group_type == GroupType::Consumer => describe_group(g, id.as_str(), &names),
            found => {
                let mut d = describe::DescribedGroup::default();
                d.group_id = id.clone();
                d.authorized_operations = i32::MIN;
                d.error_code = E::GroupIdNotFound.code();
                d.error_message = Some(s(match found {
                    None if store.groups.classic.get(id.as_str()).is_some_and(|g| g.protocol_type.is_some()) => {
                        format!("Group {} is not a consumer group.", id.as_str())
                    }
                    _ => format!("Group {} not found.", id.as_str()),
                }));
                d
            }
        };
        r.groups.push(d);
    }
    r
}

/// The consumer group `group` for OffsetCommit and OffsetFetch: its
/// member checks (`ConsumerGroup.validateOffsetCommit`/`validateOffsetFetch`),
/// after its timers ran.
pub fn group<'a>(store: &'a mut State, group: &str) -> Option<&'a Group> {
    expire(store, group);
    store.groups.consumer.groups.get(group)
}
