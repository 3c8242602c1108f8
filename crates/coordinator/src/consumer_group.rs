//! The KIP-848 consumer group protocol as Kafka 4.3.1's group coordinator
//! runs it: a `ConsumerGroupHeartbeat` (join, heartbeat, leave) or a timeout
//! in, the records the coordinator writes to `__consumer_offsets` and the
//! answer out (`GroupMetadataManager.consumerGroupHeartbeat`,
//! `consumerGroupLeave`, `consumerGroupFenceMember`; `CurrentAssignmentBuilder`
//! for each member's reconciliation; the `uniform` assignor,
//! `UniformHomogeneousAssignmentBuilder`, and `range`, `RangeAssignor`; the
//! offset commit and fetch checks of `ConsumerGroup.validateOffsetCommit`/
//! `validateOffsetFetch`).
//!
//! Nothing here changes a group: a group changes only when its records are
//! replayed ([`Groups::replay`]), as Kafka's coordinator replays what it
//! writes. So `logtool broker`, which asks this and replays what it wrote,
//! and `logtool groups`, which replays what is on disk, hold one model.
//!
//! One heartbeat, in Kafka's order:
//! 1. the member is created (epoch 0) or checked: an epoch ahead of the
//!    coordinator's, or behind it other than the previous epoch with a subset
//!    of its partitions, is `FENCED_MEMBER_EPOCH`; a changed member writes
//!    `ConsumerGroupMemberMetadata`;
//! 2. a changed subscription, or a change of the subscribed topics'
//!    metadata (their hash), bumps the group epoch (`ConsumerGroupMetadata`);
//! 3. a group epoch ahead of the target assignment's computes a new target
//!    (`ConsumerGroupTargetAssignmentMember` for each member whose target
//!    changed, then `ConsumerGroupTargetAssignmentMetadata`);
//! 4. the member reconciles towards its target: partitions it must give up
//!    are revoked first (state UNREVOKED_PARTITIONS, its epoch kept) and
//!    new ones assigned once no other member owns them (the target epoch;
//!    STABLE, or UNRELEASED_PARTITIONS while some are still owned)
//!    (`ConsumerGroupCurrentMemberAssignment`).
//!
//! A member that leaves (epoch -1) or is fenced (session or rebalance
//! timeout) writes the tombstones of its current assignment, target
//! assignment and metadata, then a bumped group epoch.
//!
//! Regular-expression subscriptions (ConsumerGroupHeartbeat v1): a new
//! expression bumps no epoch until [`resolve_regexes`] - which Kafka runs
//! in the background right after the heartbeat - has written what it
//! matched (`maybeUpdateRegularExpressions`, `handleRegularExpressionsResult`).
//!
//! Not modelled (refused rather than answered differently from Kafka):
//! classic-protocol members joining a consumer group.
//! Heterogeneous subscriptions (members subscribed to different topics) are
//! assigned by the same quota rule per topic, not by Kafka's
//! `UniformHeterogeneousAssignmentBuilder`: balanced and sticky, but not
//! necessarily the partitions Kafka would pick.

use std::collections::{BTreeMap, BTreeSet};

use kmsg::coordinator::GroupRecord;
use kmsg::records::consumer_group_current_member_assignment_value::TopicPartitions as CurrentPartitions;
use kmsg::records::consumer_group_target_assignment_member_value::TopicPartition as TargetPartitions;
use kmsg::records::*;

use crate::group_config::Timing;
use logrules::groups::{Group, GroupType, Member, ResolvedRegex};

/// Error codes the coordinator answers with (`Errors`).
pub mod code {
    /// `UNKNOWN_MEMBER_ID`.
    pub const UNKNOWN_MEMBER_ID: i16 = 25;
    /// `INVALID_REQUEST`.
    pub const INVALID_REQUEST: i16 = 42;
    /// `GROUP_ID_NOT_FOUND`.
    pub const GROUP_ID_NOT_FOUND: i16 = 69;
    /// `GROUP_MAX_SIZE_REACHED`.
    pub const GROUP_MAX_SIZE_REACHED: i16 = 81;
    /// `FENCED_INSTANCE_ID`.
    pub const FENCED_INSTANCE_ID: i16 = 82;
    /// `UNSUPPORTED_VERSION`.
    pub const UNSUPPORTED_VERSION: i16 = 35;
    /// `FENCED_MEMBER_EPOCH`.
    pub const FENCED_MEMBER_EPOCH: i16 = 110;
    /// `UNRELEASED_INSTANCE_ID`.
    pub const UNRELEASED_INSTANCE_ID: i16 = 111;
    /// `UNSUPPORTED_ASSIGNOR`.
    pub const UNSUPPORTED_ASSIGNOR: i16 = 112;
    /// `INVALID_REGULAR_EXPRESSION`.
    pub const INVALID_REGULAR_EXPRESSION: i16 = 128;
    /// `STALE_MEMBER_EPOCH`.
    pub const STALE_MEMBER_EPOCH: i16 = 113;
}

/// The server-side assignors (`group.consumer.assignors`, Kafka's default
/// `uniform,range`).
pub const ASSIGNORS: &[&str] = &["uniform", "range"];
/// The member epoch of a member leaving (`LEAVE_GROUP_MEMBER_EPOCH`).
pub const LEAVE_EPOCH: i32 = -1;
/// The member epoch of a static member leaving for a while
/// (`LEAVE_GROUP_STATIC_MEMBER_EPOCH`).
pub const LEAVE_STATIC_EPOCH: i32 = -2;
/// A new group's epoch and target assignment epoch (`ModernGroup`,
/// `TargetAssignmentMetadata.INITIAL`).
const INITIAL_EPOCH: i32 = 1;

/// `MemberState`.
pub mod state {
    /// Reconciled (or reconciling with nothing to wait for).
    pub const STABLE: i8 = 0;
    /// Waiting for the member to revoke partitions.
    pub const UNREVOKED_PARTITIONS: i8 = 1;
    /// Waiting for other members to release partitions.
    pub const UNRELEASED_PARTITIONS: i8 = 2;
}

/// A refusal: the error code and Kafka's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The error code.
    pub code: i16,
    /// The message.
    pub message: String,
}

fn refused(code: i16, message: impl Into<String>) -> Refused {
    Refused { code, message: message.into() }
}

/// The topics a group can subscribe to: by name, its id (base64url, as
/// the records carry it) and partition count.
pub type Topics = BTreeMap<String, (String, i32)>;

/// Partitions by topic id, each with the epoch it was assigned at.
type Owned = BTreeMap<String, BTreeMap<i32, i32>>;
/// Partitions by topic id.
type Target = BTreeMap<String, BTreeSet<i32>>;

/// A ConsumerGroupHeartbeat request's fields.
#[derive(Clone, Debug, Default)]
pub struct Heartbeat {
    /// The group.
    pub group_id: String,
    /// The member id (the client's, from Kafka 4.0's clients; empty: the
    /// coordinator makes one).
    pub member_id: String,
    /// The member epoch: 0 joins, -1 leaves, -2 a static member leaves for
    /// a while.
    pub member_epoch: i32,
    /// The static member's instance id.
    pub instance_id: Option<String>,
    /// The rack.
    pub rack_id: Option<String>,
    /// -1: unchanged.
    pub rebalance_timeout_ms: i32,
    /// None: unchanged.
    pub subscribed_topic_names: Option<Vec<String>>,
    /// None: unchanged (v1+).
    pub subscribed_topic_regex: Option<String>,
    /// None: unchanged.
    pub server_assignor: Option<String>,
    /// The partitions the member owns (None: unchanged).
    pub owned: Option<Vec<(String, Vec<i32>)>>,
    /// The client's id.
    pub client_id: String,
    /// The client's address as Kafka prints it (`/127.0.0.1`).
    pub client_host: String,
}

/// What the coordinator answers a heartbeat.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// The member id.
    pub member_id: String,
    /// The member's epoch.
    pub member_epoch: i32,
    /// The heartbeat interval.
    pub heartbeat_interval_ms: i32,
    /// The partitions the member may use (topic id, partitions), when the
    /// answer carries them.
    pub assignment: Option<Vec<(String, Vec<i32>)>>,
    /// The group's regular expressions are to be resolved now
    /// ([`resolve_regexes`]; Kafka schedules it after the heartbeat).
    pub resolve_regexes: bool,
}

/// How a heartbeat changed its member's regular expression
/// (`UpdateRegularExpressionStatus`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum RegexStatus {
    NoChange,
    /// Changed, to one not resolved yet: no new epoch until it is.
    Updated,
    /// Changed, to one already resolved (or to none).
    Resolved,
}

/// `REGEX_BATCH_REFRESH_MIN_INTERVAL_MS`: the group's regular expressions
/// are not resolved again within 10 s.
const REGEX_REFRESH_MIN_INTERVAL_MS: i64 = 10_000;
/// `group.consumer.regex.refresh.interval.ms` (Kafka's default, 10 min).
const REGEX_REFRESH_INTERVAL_MS: i64 = 600_000;

fn regex_tombstone(group: &str, regex: &str) -> GroupRecord {
    GroupRecord::ConsumerGroupRegularExpression(
        ConsumerGroupRegularExpressionKey { group_id: group.into(), regular_expression: regex.into() },
        None,
    )
}

/// The group's regular expressions resolved against the topics now
/// (`TopicRegexResolver.resolveRegularExpressions`: a topic matches when
/// the whole name does; `handleRegularExpressionsResult`): each
/// subscribed one's record, then a bumped group epoch when a resolution's
/// topics or the metadata hash changed. `version` is the metadata image's.
pub fn resolve_regexes(group: &Group, group_id: &str, topics: &Topics, now_ms: i64, version: i64) -> Vec<GroupRecord> {
    let mut g = G::of(group_id, Some(group), topics, now_ms);
    let mut records = Vec::new();
    let mut bump = false;
    let regexes: BTreeSet<String> = g.members.values().map(|m| m.regex.clone()).filter(|r| !r.is_empty()).collect();
    for r in regexes {
        let Ok(re) = regex::Regex::new(&format!("^(?:{r})$")) else { continue };
        let matched: BTreeSet<String> = topics.keys().filter(|t| re.is_match(t)).cloned().collect();
        if g.regexes.get(&r).is_none_or(|old| old.topics != matched) {
            bump = true;
        }
        records.push(GroupRecord::ConsumerGroupRegularExpression(
            ConsumerGroupRegularExpressionKey { group_id: group_id.into(), regular_expression: r.clone() },
            Some(ConsumerGroupRegularExpressionValue {
                topics: matched.iter().cloned().collect(),
                version,
                timestamp: now_ms,
            }),
        ));
        g.regexes.insert(r, ResolvedRegex { topics: matched, version, timestamp: now_ms });
    }
    let hash = metadata_hash(&g.all_subscribed(g.members.values()), topics);
    if bump || hash != g.hash {
        records.push(epoch_record(group_id, g.epoch.saturating_add(1), hash));
    }
    records
}

/// The result of a heartbeat: the records to write (in order), then the
/// answer once they are durable.
pub type Outcome = (Vec<GroupRecord>, Answer);

/// `GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid`.
pub fn validate(hb: &Heartbeat, version: i16) -> Result<(), Refused> {
    let invalid = |m: &str| Err(refused(code::INVALID_REQUEST, m));
    if (version >= 1 || hb.member_epoch > 0 || hb.member_epoch == LEAVE_EPOCH) && hb.member_id.is_empty() {
        return invalid("MemberId can't be empty.");
    }
    if hb.group_id.is_empty() {
        return invalid("GroupId can't be empty.");
    }
    if hb.instance_id.as_deref() == Some("") {
        return invalid("InstanceId can't be empty.");
    }
    if hb.rack_id.as_deref() == Some("") {
        return invalid("RackId can't be empty.");
    }
    if hb.member_epoch == 0 {
        if hb.rebalance_timeout_ms == -1 {
            return invalid("RebalanceTimeoutMs must be provided in first request.");
        }
        if hb.owned.as_ref().is_none_or(|o| !o.is_empty()) {
            return invalid("TopicPartitions must be empty when (re-)joining.");
        }
        if hb.subscribed_topic_names.is_none() && hb.subscribed_topic_regex.is_none() {
            return invalid("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
        }
    } else if hb.member_epoch == LEAVE_STATIC_EPOCH {
        if hb.instance_id.is_none() {
            return invalid("InstanceId can't be null.");
        }
    } else if hb.member_epoch < LEAVE_STATIC_EPOCH {
        return invalid("MemberEpoch is invalid.");
    }
    if let Some(a) = &hb.server_assignor
        && !ASSIGNORS.contains(&a.as_str())
    {
        return Err(refused(
            code::UNSUPPORTED_ASSIGNOR,
            format!("ServerAssignor {a} is not supported. Supported assignors: {}.", ASSIGNORS.join(", ")),
        ));
    }
    Ok(())
}

/// One member as the protocol works on it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct M {
    id: String,
    epoch: i32,
    previous_epoch: i32,
    state: i8,
    instance_id: Option<String>,
    rack_id: Option<String>,
    rebalance_timeout_ms: i32,
    client_id: String,
    client_host: String,
    topics: BTreeSet<String>,
    regex: String,
    assignor: Option<String>,
    assigned: Owned,
    revoking: Owned,
}

impl M {
    fn new(id: &str) -> M {
        M {
            id: id.to_string(),
            epoch: 0,
            previous_epoch: -1,
            state: state::STABLE,
            instance_id: None,
            rack_id: None,
            rebalance_timeout_ms: -1,
            client_id: String::new(),
            client_host: String::new(),
            topics: BTreeSet::new(),
            regex: String::new(),
            assignor: None,
            assigned: Owned::new(),
            revoking: Owned::new(),
        }
    }

    fn of(m: &Member) -> M {
        let owned = |list: &[(String, Vec<i32>)]| -> Owned {
            let mut out = Owned::new();
            for (t, ps) in list {
                for p in ps {
                    let epoch = m.partition_epochs.get(&(t.clone(), *p)).copied().or(m.member_epoch).unwrap_or(0);
                    out.entry(t.clone()).or_default().insert(*p, epoch);
                }
            }
            out
        };
        M {
            id: m.member_id.clone(),
            epoch: m.member_epoch.unwrap_or(0),
            previous_epoch: m.previous_member_epoch.unwrap_or(-1),
            state: m.member_state.unwrap_or(state::STABLE),
            instance_id: m.group_instance_id.clone(),
            rack_id: m.rack_id.clone(),
            rebalance_timeout_ms: m.rebalance_timeout_ms,
            client_id: m.client_id.clone(),
            client_host: m.client_host.clone(),
            topics: m.subscribed_topic_names.iter().cloned().collect(),
            regex: m.subscribed_topic_regex.clone().unwrap_or_default(),
            assignor: m.server_assignor.clone(),
            assigned: owned(&m.assignment),
            revoking: owned(&m.pending_revocation),
        }
    }

    /// The fields of `ConsumerGroupMemberMetadata`.
    fn metadata(&self) -> impl PartialEq + '_ {
        (
            &self.instance_id,
            &self.rack_id,
            self.rebalance_timeout_ms,
            &self.client_id,
            &self.client_host,
            &self.topics,
            &self.regex,
            &self.assignor,
        )
    }

    /// `ModernGroupMember.isReconciledTo`.
    fn reconciled_to(&self, epoch: i32) -> bool {
        self.state == state::STABLE && self.epoch == epoch
    }

    /// `updateMemberEpoch`.
    fn bump(&mut self, epoch: i32) {
        self.previous_epoch = self.epoch;
        self.epoch = epoch;
    }
}

fn partitions_of(o: &Owned) -> Vec<(String, Vec<i32>)> {
    o.iter().map(|(t, ps)| (t.clone(), ps.keys().copied().collect())).collect()
}

fn member_record(group: &str, m: &M) -> GroupRecord {
    let key = ConsumerGroupMemberMetadataKey { group_id: group.into(), member_id: m.id.clone() };
    let value = ConsumerGroupMemberMetadataValue {
        instance_id: m.instance_id.clone(),
        rack_id: m.rack_id.clone(),
        client_id: m.client_id.clone(),
        client_host: m.client_host.clone(),
        subscribed_topic_names: m.topics.iter().cloned().collect(),
        subscribed_topic_regex: Some(m.regex.clone()),
        rebalance_timeout_ms: m.rebalance_timeout_ms,
        server_assignor: m.assignor.clone(),
        classic_member_metadata: None,
    };
    GroupRecord::ConsumerGroupMemberMetadata(key, Some(value))
}

fn current_record(group: &str, m: &M) -> GroupRecord {
    let list = |o: &Owned| -> Vec<CurrentPartitions> {
        o.iter()
            .map(|(t, ps)| CurrentPartitions {
                topic_id: t.clone(),
                partitions: ps.keys().copied().collect(),
                assignment_epochs: Some(ps.values().copied().collect()),
            })
            .collect()
    };
    let key = ConsumerGroupCurrentMemberAssignmentKey { group_id: group.into(), member_id: m.id.clone() };
    let value = ConsumerGroupCurrentMemberAssignmentValue {
        member_epoch: m.epoch,
        previous_member_epoch: m.previous_epoch,
        state: m.state,
        assigned_partitions: list(&m.assigned),
        partitions_pending_revocation: list(&m.revoking),
    };
    GroupRecord::ConsumerGroupCurrentMemberAssignment(key, Some(value))
}

fn target_record(group: &str, member: &str, target: &Target) -> GroupRecord {
    let list =
        target.iter().map(|(t, ps)| TargetPartitions { topic_id: t.clone(), partitions: ps.iter().copied().collect() });
    GroupRecord::ConsumerGroupTargetAssignmentMember(
        ConsumerGroupTargetAssignmentMemberKey { group_id: group.into(), member_id: member.into() },
        Some(ConsumerGroupTargetAssignmentMemberValue { topic_partitions: list.collect() }),
    )
}

fn epoch_record(group: &str, epoch: i32, hash: i64) -> GroupRecord {
    let key = ConsumerGroupMetadataKey { group_id: group.into() };
    GroupRecord::ConsumerGroupMetadata(key, Some(ConsumerGroupMetadataValue { epoch, metadata_hash: hash }))
}

/// `ConsumerGroupMember.isSubset`-style check: every owned partition is
/// one of `assigned`.
fn is_subset(owned: Option<&[(String, Vec<i32>)]>, assigned: &Owned) -> bool {
    owned.is_none_or(|o| o.iter().all(|(t, ps)| ps.iter().all(|p| assigned.get(t).is_some_and(|a| a.contains_key(p)))))
}

/// A topic's hash (`Utils.computeTopicHash`): XXH3-64 of a magic byte 0,
/// the topic id's two longs, its name, its partition count and each
/// partition's index and sorted racks (none here: a single node without
/// `broker.rack`), streamed as hash4j's `HashStream64` writes them (numbers
/// little-endian; a string as its UTF-16 chars, then its length).
fn topic_hash(name: &str, id: &str, partitions: i32) -> i64 {
    let mut b: Vec<u8> = vec![0];
    let id = logfmt::uuid::Uuid::parse(id).map_or([0; 16], |u| u.0);
    let (most, least) = id.split_at(8);
    b.extend(most.iter().rev());
    b.extend(least.iter().rev());
    let units: Vec<u16> = name.encode_utf16().collect();
    b.extend(units.iter().flat_map(|u| u.to_le_bytes()));
    b.extend(i32::try_from(units.len()).unwrap_or(i32::MAX).to_le_bytes());
    b.extend(partitions.to_le_bytes());
    for p in 0..partitions {
        b.extend(p.to_le_bytes());
    }
    i64::from_le_bytes(xxhash_rust::xxh3::xxh3_64(&b).to_le_bytes())
}

/// The hash of the subscribed topics' metadata a group epoch is computed
/// with, as Kafka 4.x computes it (`ModernGroup.computeMetadataHash`,
/// `Utils.computeGroupHash`: XXH3-64 of each existing subscribed topic's
/// hash in name order; 0 when none exists): a change of a subscribed
/// topic's id or partition count bumps the group epoch.
pub fn metadata_hash<'a>(subscribed: impl IntoIterator<Item = &'a String>, topics: &Topics) -> i64 {
    let names: BTreeSet<&String> = subscribed.into_iter().filter(|n| topics.contains_key(*n)).collect();
    if names.is_empty() {
        return 0;
    }
    let mut b = Vec::new();
    for (n, (id, partitions)) in names.into_iter().filter_map(|n| Some((n, topics.get(n)?))) {
        b.extend(topic_hash(n, id, *partitions).to_le_bytes());
    }
    i64::from_le_bytes(xxhash_rust::xxh3::xxh3_64(&b).to_le_bytes())
}

/// The `uniform` assignor (`UniformHomogeneousAssignmentBuilder`): every
/// member gets the same number of partitions, one more for the first ones
/// when they do not divide; a member keeps what it had up to its quota
/// and the rest is handed out in topic and partition order. Members in id
/// order (Kafka's follow its hash map).
fn uniform(
    members: &BTreeMap<String, BTreeSet<String>>,
    old: &BTreeMap<String, Target>,
    topics: &Topics,
) -> BTreeMap<String, Target> {
    let mut out: BTreeMap<String, Target> = members.keys().map(|m| (m.clone(), Target::new())).collect();
    // each group of members with the same subscription is assigned alone
    // (all of them when the subscription is homogeneous)
    let mut by_subscription: BTreeMap<&BTreeSet<String>, Vec<&String>> = BTreeMap::new();
    for (m, subs) in members {
        by_subscription.entry(subs).or_default().push(m);
    }
    let mut taken: BTreeSet<(String, i32)> = BTreeSet::new();
    for (subs, ids) in by_subscription {
        let ids: Vec<&String> = ids;
        // the group's partitions not taken by an earlier group
        let all: BTreeSet<(String, i32)> = subs
            .iter()
            .filter_map(|n| topics.get(n))
            .flat_map(|(id, partitions)| (0..*partitions).map(move |p| (id.clone(), p)))
            .filter(|tp| !taken.contains(tp))
            .collect();
        let total = all.len();
        let count = ids.len().max(1);
        let minimum = total.checked_div(count).unwrap_or(0);
        let mut extra = total.checked_rem(count).unwrap_or(0);
        let previously: BTreeSet<(String, i32)> = ids
            .iter()
            .filter_map(|m| old.get(*m))
            .flat_map(|t| t.iter().flat_map(|(id, ps)| ps.iter().map(move |p| (id.clone(), *p))))
            .collect();
        let mut unassigned: Vec<(String, i32)> = all.iter().filter(|tp| !previously.contains(*tp)).cloned().collect();
        let mut unfilled: Vec<(&String, usize)> = Vec::new();
        for (index, m) in ids.iter().enumerate() {
            let mut quota = minimum;
            let mut has_extra = false;
            if extra > 0 {
                quota = quota.saturating_add(1);
                has_extra = true;
            }
            let mine = out.entry((*m).clone()).or_default();
            for (id, ps) in old.get(*m).into_iter().flatten() {
                for p in ps {
                    // (a topic no longer subscribed, a partition gone or taken)
                    if !all.contains(&(id.clone(), *p)) {
                        continue;
                    }
                    if quota > 0 {
                        quota = quota.saturating_sub(1);
                        mine.entry(id.clone()).or_default().insert(*p);
                    } else {
                        unassigned.push((id.clone(), *p));
                    }
                }
            }
            if quota > 0 && has_extra && ids.len().saturating_sub(index) > extra {
                quota = quota.saturating_sub(1);
                has_extra = false;
            }
            if quota > 0 {
                unfilled.push((m, quota));
            }
            if has_extra {
                extra = extra.saturating_sub(1);
            }
        }
        unassigned.sort();
        let mut next = unassigned.into_iter();
        for (m, quota) in unfilled {
            let mine = out.entry(m.clone()).or_default();
            for (id, p) in next.by_ref().take(quota) {
                mine.entry(id).or_default().insert(p);
            }
        }
        taken.extend(all);
    }
    out
}

/// The server assignor `members` name most (`groups::preferred_assignor`).
fn preferred_assignor(members: &BTreeMap<String, M>) -> &str {
    logrules::groups::preferred_assignor(members.values().filter_map(|m| m.assignor.as_deref()))
}

/// The `range` assignor (`RangeAssignor`): members sorted - static ones
/// first by instance id, then the others by member id - and each topic's
/// partitions cut into consecutive ranges among the members subscribed to
/// it, the first ones getting one more when they do not divide (so topics
/// with as many partitions are co-partitioned). Not sticky.
fn range(members: &BTreeMap<String, M>, topics: &Topics) -> BTreeMap<String, Target> {
    let mut ids: Vec<&M> = members.values().collect();
    ids.sort_by(|a, b| match (&a.instance_id, &b.instance_id) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.id.cmp(&b.id),
    });
    // per topic: (partitions, members subscribed) -> (quota, extra, next)
    let mut ranges: BTreeMap<&String, (i32, i32, i32, i32)> = BTreeMap::new();
    for m in &ids {
        for t in m.topics.iter().filter(|t| topics.contains_key(*t)) {
            let e = ranges.entry(t).or_insert((0, 0, 0, 0));
            e.1 = e.1.saturating_add(1);
        }
    }
    for (t, e) in ranges.iter_mut() {
        let partitions = topics.get(*t).map_or(0, |(_, n)| *n);
        let members = e.1.max(1);
        *e =
            (partitions, partitions.checked_rem(members).unwrap_or(0), partitions.checked_div(members).unwrap_or(0), 0);
    }
    let mut out: BTreeMap<String, Target> = BTreeMap::new();
    for m in ids {
        let mine = out.entry(m.id.clone()).or_default();
        for t in &m.topics {
            let (Some((partitions, extra, quota, next)), Some((topic_id, _))) = (ranges.get_mut(t), topics.get(t))
            else {
                continue;
            };
            let mut q = *quota;
            if *extra > 0 {
                q = q.saturating_add(1);
                *extra = extra.saturating_sub(1);
            }
            let end = next.saturating_add(q).min(*partitions);
            if *next < end {
                mine.insert(topic_id.clone(), (*next..end).collect());
            }
            *next = end.max(*next);
        }
    }
    out
}

/// `CurrentAssignmentBuilder.build` for `m` towards `target` at
/// `target_epoch`; `owner_elsewhere` says whether another member still
/// owns a partition (`currentPartitionEpoch` != -1).
fn reconcile(
    m: &M,
    target_epoch: i32,
    target: &Target,
    subscribed_ids: &BTreeSet<String>,
    subscription_changed: bool,
    owned: Option<&[(String, Vec<i32>)]>,
    owner_elsewhere: &dyn Fn(&str, i32) -> bool,
) -> Result<M, Refused> {
    let owns_revoked = |revoking: &Owned| match owned {
        None => true,
        Some(o) => o.iter().any(|(t, ps)| ps.iter().any(|p| revoking.get(t).is_some_and(|r| r.contains_key(p)))),
    };
    let next = |m: &M| -> M {
        let mut assigned = Owned::new();
        let mut revoking = Owned::new();
        let mut pending: Target = Target::new();
        let mut unreleased = false;
        let topics: BTreeSet<&String> = target.keys().chain(m.assigned.keys()).collect();
        for t in topics {
            let empty = BTreeSet::new();
            let want = if subscribed_ids.contains(t) { target.get(t).unwrap_or(&empty) } else { &empty };
            let current = m.assigned.get(t).cloned().unwrap_or_default();
            let kept: BTreeMap<i32, i32> =
                current.iter().filter(|(p, _)| want.contains(p)).map(|(p, e)| (*p, *e)).collect();
            let gone: BTreeMap<i32, i32> =
                current.iter().filter(|(p, _)| !kept.contains_key(p)).map(|(p, e)| (*p, *e)).collect();
            let mut new: BTreeSet<i32> = want.iter().filter(|p| !kept.contains_key(p)).copied().collect();
            let before = new.len();
            let self_revoking = m.revoking.get(t);
            new.retain(|p| !owner_elsewhere(t, *p) || self_revoking.is_some_and(|r| r.contains_key(p)));
            unreleased |= new.len() != before;
            if !kept.is_empty() {
                assigned.insert(t.clone(), kept);
            }
            if !gone.is_empty() {
                revoking.insert(t.clone(), gone);
            }
            if !new.is_empty() {
                pending.insert(t.clone(), new);
            }
        }
        let mut out = m.clone();
        if !revoking.is_empty() && owns_revoked(&revoking) {
            out.state = state::UNREVOKED_PARTITIONS;
            out.bump(m.epoch);
            (out.assigned, out.revoking) = (assigned, revoking);
        } else {
            for (t, ps) in pending.iter() {
                let e = assigned.entry(t.clone()).or_default();
                for p in ps {
                    e.insert(*p, target_epoch);
                }
            }
            out.state = if unreleased { state::UNRELEASED_PARTITIONS } else { state::STABLE };
            out.bump(target_epoch);
            (out.assigned, out.revoking) = (assigned, Owned::new());
        }
        out
    };
    // (what `updateCurrentAssignment` does on a subscription change:
    // partitions of topics no longer subscribed are revoked at once)
    let resubscribe = |m: &M| -> M {
        let mut out = m.clone();
        let (keep, drop): (Owned, Owned) =
            m.assigned.clone().into_iter().partition(|(t, _)| subscribed_ids.contains(t));
        if drop.is_empty() {
            return out;
        }
        out.assigned = keep;
        for (t, ps) in drop {
            out.revoking.entry(t).or_default().extend(ps);
        }
        out.state = state::UNREVOKED_PARTITIONS;
        out
    };
    Ok(match m.state {
        state::STABLE if m.epoch != target_epoch => next(m),
        state::STABLE if subscription_changed => resubscribe(m),
        state::STABLE => m.clone(),
        state::UNREVOKED_PARTITIONS if owns_revoked(&m.revoking) => {
            if subscription_changed {
                resubscribe(m)
            } else {
                m.clone()
            }
        }
        state::UNREVOKED_PARTITIONS | state::UNRELEASED_PARTITIONS => next(m),
        _ => {
            if owned.is_none_or(|o| !o.is_empty()) {
                return Err(refused(
                    code::FENCED_MEMBER_EPOCH,
                    "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.",
                ));
            }
            let mut at = m.clone();
            at.epoch = target_epoch;
            next(&at)
        }
    })
}

/// A group as the protocol works on it.
struct G<'a> {
    id: &'a str,
    /// The metadata image.
    topics: &'a Topics,
    now_ms: i64,
    epoch: i32,
    assignment_epoch: i32,
    hash: i64,
    members: BTreeMap<String, M>,
    targets: BTreeMap<String, Target>,
    /// The resolved regular expressions.
    regexes: BTreeMap<String, ResolvedRegex>,
    /// When the regular expressions were last resolved (`i64::MIN`: never).
    last_refresh_ms: i64,
}

impl<'a> G<'a> {
    fn of(id: &'a str, g: Option<&Group>, topics: &'a Topics, now_ms: i64) -> G<'a> {
        let Some(g) = g else {
            return G {
                id,
                topics,
                now_ms,
                epoch: INITIAL_EPOCH,
                assignment_epoch: INITIAL_EPOCH,
                hash: 0,
                members: BTreeMap::new(),
                targets: BTreeMap::new(),
                regexes: BTreeMap::new(),
                last_refresh_ms: i64::MIN,
            };
        };
        let targets = g
            .targets
            .iter()
            .map(|(m, list)| {
                (m.clone(), list.iter().map(|(t, ps)| (t.clone(), ps.iter().copied().collect())).collect())
            })
            .collect();
        G {
            id,
            topics,
            now_ms,
            epoch: if g.generation > 0 { g.generation } else { INITIAL_EPOCH },
            assignment_epoch: g.assignment_epoch.unwrap_or(INITIAL_EPOCH),
            hash: g.metadata_hash,
            members: g.members.iter().map(|(k, m)| (k.clone(), M::of(m))).collect(),
            targets,
            regexes: g.regexes.clone(),
            last_refresh_ms: g.regexes.values().map(|r| r.timestamp).max().unwrap_or(i64::MIN),
        }
    }

    /// The topics `m` subscribes to: its names and its regular
    /// expression's resolved topics (`ConsumerGroup.computeSubscribedTopicNames`).
    fn subscribed(&self, m: &M) -> BTreeSet<String> {
        let mut t = m.topics.clone();
        if let Some(r) = self.regexes.get(&m.regex).filter(|_| !m.regex.is_empty()) {
            t.extend(r.topics.iter().cloned());
        }
        t
    }

    /// The topics `members` subscribe to.
    fn all_subscribed<'m>(&self, members: impl Iterator<Item = &'m M>) -> BTreeSet<String> {
        members.flat_map(|m| self.subscribed(m)).collect()
    }

    /// How many members subscribe to `regex`.
    fn subscribers(&self, regex: &str) -> usize {
        self.members.values().filter(|m| m.regex == regex).count()
    }

    /// `maybeUpdateRegularExpressions` for `member` becoming `updated`:
    /// whether its regular expression changed (and is already resolved),
    /// the tombstone of one it was the last to use, a new one compiled
    /// (`INVALID_REGULAR_EXPRESSION`), and whether the group's are to be
    /// resolved now (a new one, one unresolved, or the last resolution
    /// older than the refresh interval; never within 10 s of the last).
    fn regex_update(
        &self,
        member: &M,
        updated: &M,
        records: &mut Vec<GroupRecord>,
    ) -> Result<(RegexStatus, bool), Refused> {
        let (old, new) = (&member.regex, &updated.regex);
        let mut status = RegexStatus::NoChange;
        let mut refresh = false;
        if old != new {
            status = RegexStatus::Updated;
            if !old.is_empty() && self.subscribers(old) == 1 {
                records.push(regex_tombstone(self.id, old));
            }
            if !new.is_empty() {
                if self.subscribers(new) == 0 {
                    if let Err(e) = regex::Regex::new(new) {
                        return Err(refused(
                            code::INVALID_REGULAR_EXPRESSION,
                            format!("SubscribedTopicRegex `{new}` is not a valid regular expression: {e}."),
                        ));
                    }
                    refresh = true;
                } else if self.regexes.contains_key(new) {
                    status = RegexStatus::Resolved;
                }
            } else if !old.is_empty() {
                status = RegexStatus::Resolved;
            }
        }
        let subscribed: BTreeSet<&str> = self
            .members
            .values()
            .filter(|m| m.id != updated.id)
            .chain([updated])
            .map(|m| m.regex.as_str())
            .filter(|r| !r.is_empty())
            .collect();
        if !refresh && self.members.values().all(|m| m.regex.is_empty()) {
            return Ok((status, false));
        }
        if self.now_ms <= self.last_refresh_ms.saturating_add(REGEX_REFRESH_MIN_INTERVAL_MS) {
            return Ok((status, false));
        }
        refresh |= subscribed.len() != self.regexes.len();
        refresh |= self.now_ms > self.last_refresh_ms.saturating_add(REGEX_REFRESH_INTERVAL_MS);
        Ok((status, refresh && !subscribed.is_empty()))
    }

    /// Who owns each partition (assigned or pending revocation): what
    /// `ConsumerGroup.currentPartitionEpoch` keeps (one owner at a time).
    fn owners(&self) -> BTreeMap<(&str, i32), &str> {
        let mut out = BTreeMap::new();
        for m in self.members.values() {
            for (t, ps) in m.assigned.iter().chain(&m.revoking) {
                out.extend(ps.keys().map(|p| ((t.as_str(), *p), m.id.as_str())));
            }
        }
        out
    }

    /// `removeMember`: the tombstones of a member's current assignment,
    /// target assignment and metadata.
    fn remove(&self, id: &str) -> [GroupRecord; 3] {
        let (g, m) = (self.id.to_string(), id.to_string());
        [
            GroupRecord::ConsumerGroupCurrentMemberAssignment(
                ConsumerGroupCurrentMemberAssignmentKey { group_id: g.clone(), member_id: m.clone() },
                None,
            ),
            GroupRecord::ConsumerGroupTargetAssignmentMember(
                ConsumerGroupTargetAssignmentMemberKey { group_id: g.clone(), member_id: m.clone() },
                None,
            ),
            GroupRecord::ConsumerGroupMemberMetadata(
                ConsumerGroupMemberMetadataKey { group_id: g, member_id: m },
                None,
            ),
        ]
    }

    /// `consumerGroupFenceMembers`: each member removed, then (once for
    /// all) the bumped epoch.
    fn fence(&self, gone: &[&str]) -> Vec<GroupRecord> {
        if gone.is_empty() {
            return Vec::new();
        }
        let mut records: Vec<GroupRecord> = gone.iter().flat_map(|id| self.remove(id)).collect();
        let left: Vec<&M> = self.members.values().filter(|m| !gone.contains(&m.id.as_str())).collect();
        // `maybeDeleteResolvedRegularExpressions`: a regular expression no
        // member left uses is deleted
        let used: BTreeSet<&String> = left.iter().map(|m| &m.regex).collect();
        let deleted: BTreeSet<&String> = gone
            .iter()
            .filter_map(|id| self.members.get(*id))
            .map(|m| &m.regex)
            .filter(|r| !r.is_empty() && !used.contains(r))
            .collect();
        records.extend(deleted.iter().map(|r| regex_tombstone(self.id, r)));
        let hash = metadata_hash(&self.all_subscribed(left.into_iter()), self.topics);
        records.push(epoch_record(self.id, self.epoch.saturating_add(1), hash));
        records
    }

    /// The member a heartbeat is of, checked (`getOrMaybeSubscribe*ConsumerGroupMember`,
    /// `throwIfConsumerGroupMemberEpochIsInvalid`), and the static member it
    /// replaces.
    fn member_for(&self, hb: &Heartbeat, member_id: &str) -> Result<(M, Option<String>), Refused> {
        let joining = hb.member_epoch == 0;
        let group = &hb.group_id;
        if let (Some(instance), Some(m)) = (&hb.instance_id, self.members.get(member_id))
            && m.instance_id.as_deref().is_some_and(|i| i != instance)
        {
            let message = format!("Static member {member_id} with instance id {instance} is fenced.");
            return Err(refused(code::FENCED_INSTANCE_ID, message));
        }
        let (member, replaced) = match (&hb.instance_id, self.members.get(member_id)) {
            (_, Some(m)) => (m.clone(), None),
            (Some(instance), None) if joining => {
                match self.members.values().find(|m| m.instance_id.as_deref() == Some(instance.as_str())) {
                    Some(p) if p.epoch != LEAVE_STATIC_EPOCH => {
                        let message = format!(
                            "Static member {member_id} with instance id {instance} cannot join the group {group} since the instance id is owned by member {}.",
                            p.id
                        );
                        return Err(refused(code::UNRELEASED_INSTANCE_ID, message));
                    }
                    // the member copied with its new id, epoch 0
                    // (`ConsumerGroupMember.Builder(member, memberId)`)
                    Some(p) => {
                        let mut m = p.clone();
                        (m.id, m.epoch, m.previous_epoch) = (member_id.to_string(), 0, 0);
                        (m, Some(p.id.clone()))
                    }
                    None => (M::new(member_id), None),
                }
            }
            (None, None) if joining => (M::new(member_id), None),
            (_, None) => {
                let message = format!("Member {member_id} is not a member of group {group}.");
                return Err(refused(code::UNKNOWN_MEMBER_ID, message));
            }
        };
        let (sent, known) = (hb.member_epoch, member.epoch);
        let older_ok = sent == member.previous_epoch && is_subset(hb.owned.as_deref(), &member.assigned);
        if !joining && (sent > known || sent < known && !older_ok) {
            let than = if sent > known { "greater" } else { "smaller" };
            let message = format!(
                "The consumer group member has a {than} member epoch ({sent}) than the one known by the group coordinator ({known}). The member must abandon all its partitions and rejoin."
            );
            return Err(refused(code::FENCED_MEMBER_EPOCH, message));
        }
        Ok((member, replaced))
    }

    /// Step 3: the target assignment at `epoch` (a new one computed, its
    /// records added, when the last one is older), and `member_id`'s part.
    fn target(
        &self,
        members: &BTreeMap<String, M>,
        epoch: i32,
        member_id: &str,
        records: &mut Vec<GroupRecord>,
    ) -> (i32, Target) {
        if self.assignment_epoch >= epoch {
            return (self.assignment_epoch, self.targets.get(member_id).cloned().unwrap_or_default());
        }
        let new = if preferred_assignor(members) == "range" {
            range(members, self.topics)
        } else {
            let subscriptions: BTreeMap<String, BTreeSet<String>> =
                members.iter().map(|(id, m)| (id.clone(), self.subscribed(m))).collect();
            uniform(&subscriptions, &self.targets, self.topics)
        };
        for (id, t) in &new {
            if self.targets.get(id) != Some(t) {
                records.push(target_record(self.id, id, t));
            }
        }
        records.push(GroupRecord::ConsumerGroupTargetAssignmentMetadata(
            ConsumerGroupTargetAssignmentMetadataKey { group_id: self.id.into() },
            Some(ConsumerGroupTargetAssignmentMetadataValue {
                assignment_epoch: epoch,
                assignment_timestamp: self.now_ms,
            }),
        ));
        (epoch, new.get(member_id).cloned().unwrap_or_default())
    }
}

impl M {
    /// The member with what the heartbeat changes (`maybeUpdate*`).
    fn updated(&self, hb: &Heartbeat) -> M {
        let mut m = self.clone();
        if let Some(i) = &hb.instance_id {
            m.instance_id = Some(i.clone());
        }
        if let Some(r) = &hb.rack_id {
            m.rack_id = Some(r.clone());
        }
        if hb.rebalance_timeout_ms != -1 {
            m.rebalance_timeout_ms = hb.rebalance_timeout_ms;
        }
        if let Some(a) = &hb.server_assignor {
            m.assignor = Some(a.clone());
        }
        if let Some(names) = &hb.subscribed_topic_names {
            m.topics = names.iter().cloned().collect();
        }
        if let Some(r) = &hb.subscribed_topic_regex {
            m.regex = r.clone();
        }
        (m.client_id, m.client_host) = (hb.client_id.clone(), hb.client_host.clone());
        m
    }
}

/// A heartbeat (join, heartbeat or leave) of `group` (None: no consumer
/// group of that id yet) at `now_ms`, with `topics` as the metadata image,
/// `new_id` making a member id where the request has none and `timing` the
/// group's (`Timing::consumer`: its heartbeat interval is answered).
pub fn heartbeat(
    group: Option<&Group>,
    hb: &Heartbeat,
    topics: &Topics,
    now_ms: i64,
    timing: &Timing,
    new_id: impl FnOnce() -> String,
) -> Result<Outcome, Refused> {
    if let Some(g) = group
        && g.group_type != GroupType::Consumer
    {
        return Err(refused(code::GROUP_ID_NOT_FOUND, format!("Group {} is not a consumer group.", hb.group_id)));
    }
    let mut g = G::of(&hb.group_id, group, topics, now_ms);
    if hb.member_epoch == LEAVE_EPOCH || hb.member_epoch == LEAVE_STATIC_EPOCH {
        return leave(group, &g, hb);
    }
    let joining = hb.member_epoch == 0;
    if group.is_none() && !joining {
        return Err(refused(code::GROUP_ID_NOT_FOUND, format!("Consumer group {} not found.", hb.group_id)));
    }
    let member_id = if hb.member_id.is_empty() { new_id() } else { hb.member_id.clone() };
    let (member, replaced) = g.member_for(hb, &member_id)?;
    let mut records: Vec<GroupRecord> = Vec::new();
    if let Some(old) = replaced {
        // `replaceMember`: the old member removed, the new one written with
        // the old one's target and current assignment
        records.extend(g.remove(&old));
        let target = g.targets.remove(&old).unwrap_or_default();
        records.push(member_record(&hb.group_id, &member));
        records.push(target_record(&hb.group_id, &member_id, &target));
        records.push(current_record(&hb.group_id, &member));
        g.members.remove(&old);
        g.members.insert(member_id.clone(), member.clone());
        g.targets.insert(member_id.clone(), target);
    }
    // 1. the member, and its regular expression
    let updated = member.updated(hb);
    let is_new = !g.members.contains_key(&member_id);
    let names_changed = updated.topics != member.topics;
    if is_new || updated.metadata() != member.metadata() {
        records.push(member_record(&hb.group_id, &updated));
    }
    let (regex_status, resolve_regexes) = g.regex_update(&member, &updated, &mut records)?;
    let subscription_changed = names_changed || regex_status != RegexStatus::NoChange;
    // 2. the group epoch: bumped for new names or a regular expression
    // already resolved (a new one bumps it once resolved)
    let mut members = g.members.clone();
    members.insert(member_id.clone(), updated.clone());
    let hash = metadata_hash(&g.all_subscribed(members.values()), topics);
    let mut epoch = g.epoch;
    if names_changed || regex_status == RegexStatus::Resolved || hash != g.hash {
        epoch = epoch.saturating_add(1);
        records.push(epoch_record(&hb.group_id, epoch, hash));
    }
    // 3. the target assignment
    let (target_epoch, target) = g.target(&members, epoch, &member_id, &mut records);
    // 4. the member's reconciliation
    let subscribed_ids: BTreeSet<String> =
        g.subscribed(&updated).iter().filter_map(|n| topics.get(n)).map(|(id, _)| id.clone()).collect();
    let reconciled = if !subscription_changed && updated.reconciled_to(target_epoch) {
        updated.clone()
    } else {
        let owners = g.owners();
        let elsewhere = |t: &str, p: i32| owners.get(&(t, p)).is_some_and(|o| *o != member_id);
        let owned = hb.owned.as_deref();
        reconcile(&updated, target_epoch, &target, &subscribed_ids, subscription_changed, owned, &elsewhere)?
    };
    if reconciled != updated {
        records.push(current_record(&hb.group_id, &reconciled));
    }
    let full = hb.rebalance_timeout_ms != -1 && hb.subscribed_topic_names.is_some() && hb.owned.is_some();
    let changed = reconciled.assigned != member.assigned;
    let assignment = (joining || full || changed).then(|| partitions_of(&reconciled.assigned));
    let answer = Answer {
        member_id,
        member_epoch: reconciled.epoch,
        heartbeat_interval_ms: timing.heartbeat_interval_ms,
        assignment,
        resolve_regexes,
    };
    Ok((records, answer))
}

/// `consumerGroupLeave`.
fn leave(group: Option<&Group>, g: &G, hb: &Heartbeat) -> Result<Outcome, Refused> {
    if group.is_none() {
        return Err(refused(code::GROUP_ID_NOT_FOUND, format!("Consumer group {} not found.", hb.group_id)));
    }
    let answer = Answer {
        member_id: hb.member_id.clone(),
        member_epoch: hb.member_epoch,
        heartbeat_interval_ms: 0,
        assignment: None,
        resolve_regexes: false,
    };
    let member = match &hb.instance_id {
        None => g.members.get(&hb.member_id).ok_or_else(|| {
            refused(
                code::UNKNOWN_MEMBER_ID,
                format!("Member {} is not a member of group {}.", hb.member_id, hb.group_id),
            )
        })?,
        Some(instance) => {
            let m = g
                .members
                .values()
                .find(|m| m.instance_id.as_deref() == Some(instance.as_str()))
                .ok_or_else(|| refused(code::UNKNOWN_MEMBER_ID, format!("Instance id {instance} is unknown.")))?;
            if m.id != hb.member_id {
                return Err(refused(
                    code::FENCED_INSTANCE_ID,
                    format!(
                        "Static member {} with instance id {instance} is fenced by existing member {}.",
                        hb.member_id, m.id
                    ),
                ));
            }
            if hb.member_epoch == LEAVE_STATIC_EPOCH {
                // `consumerGroupStaticMemberGroupLeave`: the member stays
                // (its partitions too) with epoch -2 until it rejoins or
                // its session times out
                let mut left = m.clone();
                left.epoch = LEAVE_STATIC_EPOCH;
                // (its partitions' assignment epochs reset to 0, so the
                // instance's next member has them from epoch 0)
                left.revoking.clear();
                left.assigned.values_mut().flat_map(|ps| ps.values_mut()).for_each(|e| *e = 0);
                return Ok((vec![current_record(&hb.group_id, &left)], answer));
            }
            m
        }
    };
    Ok((g.fence(&[member.id.as_str()]), answer))
}

/// The records that fence `members` of `group` (their session or
/// rebalance timed out: `consumerGroupFenceMembers`).
pub fn fence(group: &Group, group_id: &str, members: &[&str], topics: &Topics) -> Vec<GroupRecord> {
    let g = G::of(group_id, Some(group), topics, 0);
    let known: Vec<&str> = members.iter().copied().filter(|m| g.members.contains_key(*m)).collect();
    g.fence(&known)
}

/// Whether `member` of `group` is waiting to revoke partitions
/// (UNREVOKED_PARTITIONS: its rebalance timeout runs).
pub fn revoking(group: &Group, member: &str) -> bool {
    group.members.get(member).is_some_and(|m| m.member_state == Some(state::UNREVOKED_PARTITIONS))
}

/// `ConsumerGroup.validateOffsetCommit` for a commit by `member_id` at
/// `member_epoch` (OffsetCommit v9+'s member epoch, or a generation) of
/// (topic id, partition): the error of each partition, or of all.
pub fn check_commit(
    group: &Group,
    member_id: &str,
    member_epoch: i32,
    version: i16,
    partition: Option<(&str, i32)>,
) -> Result<(), Refused> {
    if member_epoch < 0 && group.members.is_empty() {
        return Ok(());
    }
    let Some(m) = group.members.get(member_id) else {
        return Err(refused(code::UNKNOWN_MEMBER_ID, format!("Member {member_id} is not a member of group.")));
    };
    if version < 9 {
        return Err(refused(
            code::UNSUPPORTED_VERSION,
            "OffsetCommit version 9 or above must be used by members using the consumer group protocol",
        ));
    }
    let epoch = m.member_epoch.unwrap_or(0);
    if member_epoch == epoch {
        return Ok(());
    }
    if member_epoch > epoch {
        return Err(refused(
            code::STALE_MEMBER_EPOCH,
            format!("Received member epoch {member_epoch} is newer than current member epoch {epoch}."),
        ));
    }
    let Some((topic_id, p)) = partition else { return Ok(()) };
    match m.partition_epochs.get(&(topic_id.to_string(), p)) {
        None => Err(refused(code::STALE_MEMBER_EPOCH, "Partition is not assigned or pending revocation for member.")),
        Some(a) if member_epoch < *a => Err(refused(
            code::STALE_MEMBER_EPOCH,
            format!("Received member epoch {member_epoch} is older than assignment epoch {a}."),
        )),
        Some(_) => Ok(()),
    }
}

/// `ConsumerGroup.validateOffsetFetch`.
pub fn check_fetch(group: &Group, member_id: Option<&str>, member_epoch: i32) -> Result<(), Refused> {
    if member_id.is_none() && member_epoch < 0 {
        return Ok(());
    }
    let id = member_id.unwrap_or_default();
    let Some(m) = group.members.get(id) else {
        return Err(refused(code::UNKNOWN_MEMBER_ID, format!("Member {id} is not a member of group.")));
    };
    let epoch = m.member_epoch.unwrap_or(0);
    if member_epoch != epoch {
        return Err(refused(
            code::STALE_MEMBER_EPOCH,
            format!("The member epoch {member_epoch} does not match the current member epoch {epoch}."),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use logrules::groups::Groups;

    fn topics() -> Topics {
        [("t".to_string(), ("AAAAAAAAAAAAAAAAAAAAAQ".to_string(), 4))].into_iter().collect()
    }

    fn hb(member: &str, epoch: i32, owned: Option<Vec<(String, Vec<i32>)>>) -> Heartbeat {
        Heartbeat {
            group_id: "g".into(),
            member_id: member.into(),
            member_epoch: epoch,
            rebalance_timeout_ms: if epoch == 0 { 300_000 } else { -1 },
            subscribed_topic_names: (epoch == 0).then(|| vec!["t".to_string()]),
            owned: owned.or_else(|| (epoch == 0).then(Vec::new)),
            client_id: "c".into(),
            client_host: "/127.0.0.1".into(),
            ..Heartbeat::default()
        }
    }

    /// Send, replay what it wrote, return the answer.
    fn send(gs: &mut Groups, h: &Heartbeat) -> Answer {
        let (records, answer) =
            heartbeat(gs.groups.get("g"), h, &topics(), 1, &Timing::default(), String::new).unwrap();
        for r in records {
            gs.replay(r, (0, 0));
        }
        answer
    }

    fn parts(a: &Answer) -> Vec<i32> {
        a.assignment.clone().unwrap_or_default().into_iter().flat_map(|(_, p)| p).collect()
    }

    #[test]
    fn a_second_member_gets_half_once_the_first_revoked_it() {
        let mut gs = Groups::default();
        let a = send(&mut gs, &hb("a", 0, None));
        // a new group starts at epoch 1: the first member's join bumps it to 2
        assert_eq!((a.member_epoch, parts(&a)), (2, vec![0, 1, 2, 3]));
        let b = send(&mut gs, &hb("b", 0, None));
        // b's target is two partitions a still owns: nothing yet
        assert_eq!((b.member_epoch, parts(&b)), (3, vec![]));
        assert_eq!(gs.groups["g"].state(), "Reconciling");
        let owned = Some(vec![("AAAAAAAAAAAAAAAAAAAAAQ".to_string(), vec![0, 1, 2, 3])]);
        let a2 = send(&mut gs, &hb("a", 2, owned));
        // a must revoke two: it keeps epoch 2 and is told to keep two
        assert_eq!((a2.member_epoch, parts(&a2)), (2, vec![0, 1]));
        let owned = Some(vec![("AAAAAAAAAAAAAAAAAAAAAQ".to_string(), vec![0, 1])]);
        let a3 = send(&mut gs, &hb("a", 2, owned));
        assert_eq!((a3.member_epoch, a3.assignment), (3, None));
        let b2 = send(&mut gs, &hb("b", 3, Some(Vec::new())));
        assert_eq!((b2.member_epoch, parts(&b2)), (3, vec![2, 3]));
        assert_eq!(gs.groups["g"].state(), "Stable");
        // a stale epoch is fenced; leaving bumps the epoch
        assert_eq!(
            heartbeat(gs.groups.get("g"), &hb("a", 1, None), &topics(), 1, &Timing::default(), String::new)
                .unwrap_err()
                .code,
            code::FENCED_MEMBER_EPOCH
        );
        send(&mut gs, &hb("a", LEAVE_EPOCH, None));
        assert_eq!(gs.groups["g"].generation, 4);
        assert_eq!(gs.groups["g"].members.len(), 1);
    }

    /// A static member that leaves for a while (epoch -2) keeps its
    /// partitions; the instance's next member takes them over without a
    /// rebalance (`replaceMember`); a second member of a held instance is
    /// refused.
    #[test]
    fn a_static_member_is_replaced_without_a_rebalance() {
        let mut gs = Groups::default();
        let with_instance =
            |member: &str, epoch: i32| Heartbeat { instance_id: Some("i1".into()), ..hb(member, epoch, None) };
        let a = send(&mut gs, &with_instance("a", 0));
        assert_eq!((a.member_epoch, parts(&a)), (2, vec![0, 1, 2, 3]));
        let left = send(&mut gs, &with_instance("a", LEAVE_STATIC_EPOCH));
        assert_eq!(left.member_epoch, LEAVE_STATIC_EPOCH);
        assert_eq!(gs.groups["g"].members["a"].member_epoch, Some(LEAVE_STATIC_EPOCH));
        let b = send(&mut gs, &with_instance("b", 0));
        assert_eq!((b.member_epoch, parts(&b)), (2, vec![0, 1, 2, 3]), "the same partitions, no new epoch");
        let g = &gs.groups["g"];
        assert_eq!((g.generation, g.members.len(), g.state()), (2, 1, "Stable"));
        assert!(g.targets.contains_key("b") && !g.targets.contains_key("a"));
        let refused =
            heartbeat(gs.groups.get("g"), &with_instance("c", 0), &topics(), 1, &Timing::default(), String::new)
                .unwrap_err();
        assert_eq!(refused.code, code::UNRELEASED_INSTANCE_ID);
    }

    /// A member subscribed by regular expression (Kafka 4.3.1's
    /// `testConsumerGroupMemberJoinsWithNewRegex`): its join bumps no epoch
    /// and asks for the resolution; the resolution writes the regex's
    /// topics and bumps the epoch; the member is then assigned them; its
    /// leaving deletes the regex.
    #[test]
    fn a_regular_expression_is_resolved_then_assigned() {
        let mut gs = Groups::default();
        let by_regex = |epoch: i32, owned| Heartbeat {
            subscribed_topic_names: (epoch == 0).then(Vec::new),
            subscribed_topic_regex: (epoch == 0).then(|| "t.*".to_string()),
            ..hb("a", epoch, owned)
        };
        let a = send(&mut gs, &by_regex(0, None));
        assert!(a.resolve_regexes && parts(&a).is_empty());
        let epoch = gs.groups["g"].generation;
        let records = resolve_regexes(&gs.groups["g"], "g", &topics(), 2, 7);
        assert!(matches!(
            records.as_slice(),
            [GroupRecord::ConsumerGroupRegularExpression(..), GroupRecord::ConsumerGroupMetadata(..)]
        ));
        for r in records {
            gs.replay(r, (0, 0));
        }
        let g = &gs.groups["g"];
        assert!(g.generation > epoch, "the resolution bumps the epoch");
        assert_eq!(g.regexes["t.*"].topics.iter().map(String::as_str).collect::<Vec<_>>(), vec!["t"]);
        let bumped = g.generation;
        let a2 = send(&mut gs, &by_regex(a.member_epoch, Some(Vec::new())));
        assert_eq!((a2.member_epoch, parts(&a2)), (bumped, vec![0, 1, 2, 3]));
        assert!(!a2.resolve_regexes, "resolved within 10 s: not again");
        let bad = Heartbeat { subscribed_topic_regex: Some("t(".into()), ..by_regex(0, None) };
        let refused =
            heartbeat(None, &Heartbeat { member_id: "b".into(), ..bad }, &topics(), 1, &Timing::default(), String::new);
        assert_eq!(refused.unwrap_err().code, code::INVALID_REGULAR_EXPRESSION);
        send(&mut gs, &hb("a", LEAVE_EPOCH, None));
        assert!(gs.groups["g"].regexes.is_empty(), "the last subscriber left");
    }

    /// The hashes Kafka 4.3.1 wrote in the kafka4 fixture's
    /// `ConsumerGroupMetadata` records (`plain`: 1 partition, `keyed`: 4).
    #[test]
    fn metadata_hash_is_kafkas() {
        let topics: Topics = [
            ("plain".to_string(), ("sRfC5vrvQrS8tfs3O0VWpw".to_string(), 1)),
            ("keyed".to_string(), ("kFkQM6IqQHyMBIbV1126Qw".to_string(), 4)),
        ]
        .into_iter()
        .collect();
        assert_eq!(metadata_hash(&["plain".to_string()], &topics), -3011792693052023535);
        assert_eq!(metadata_hash(&["keyed".to_string()], &topics), -7596058130753915892);
    }

    #[test]
    fn uniform_keeps_what_members_had_and_spreads_the_rest() {
        let subs =
            |ids: &[&str]| ids.iter().map(|m| (m.to_string(), ["t".to_string()].into_iter().collect())).collect();
        let id = "AAAAAAAAAAAAAAAAAAAAAQ".to_string();
        let old: BTreeMap<String, Target> =
            [("a".to_string(), [(id.clone(), (0..4).collect())].into_iter().collect())].into_iter().collect();
        let new = uniform(&subs(&["a", "b", "c"]), &old, &topics());
        let n = |m: &str| new[m].values().map(BTreeSet::len).sum::<usize>();
        assert_eq!((n("a"), n("b"), n("c")), (2, 1, 1));
        assert!(new["a"][&id].iter().all(|p| *p < 4));
        assert_eq!(new["a"][&id], [0, 1].into_iter().collect());
    }

    /// `range`: static members first by instance id, then by member id;
    /// consecutive ranges, the first members one more; a topic's ranges
    /// among only the members subscribed to it.
    #[test]
    fn range_cuts_each_topic_in_member_order() {
        let (t, u) = ("AAAAAAAAAAAAAAAAAAAAAQ".to_string(), "AAAAAAAAAAAAAAAAAAAAAg".to_string());
        let topics: Topics =
            [("t".to_string(), (t.clone(), 4)), ("u".to_string(), (u.clone(), 3))].into_iter().collect();
        let member = |id: &str, instance: Option<&str>, subs: &[&str]| {
            let mut m = M::new(id);
            m.instance_id = instance.map(str::to_string);
            m.topics = subs.iter().map(|s| s.to_string()).collect();
            (id.to_string(), m)
        };
        let members: BTreeMap<String, M> =
            [member("a", None, &["t", "u"]), member("b", Some("z-static"), &["t"]), member("c", None, &["t", "u"])]
                .into_iter()
                .collect();
        let new = range(&members, &topics);
        let of =
            |m: &str, topic: &String| new[m].get(topic).cloned().unwrap_or_default().into_iter().collect::<Vec<_>>();
        // t: b (static) first, then a, c: 4 = 2 + 1 + 1
        assert_eq!((of("b", &t), of("a", &t), of("c", &t)), (vec![0, 1], vec![2], vec![3]));
        // u: only a and c: 3 = 2 + 1
        assert_eq!((of("a", &u), of("c", &u), of("b", &u)), (vec![0, 1], vec![2], vec![]));
        assert_eq!(preferred_assignor(&members), "uniform");
    }
}
