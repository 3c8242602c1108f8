//! What the group coordinator loads from `__consumer_offsets`
//! (`GroupMetadataManager.loadGroupsAndOffsets`, `GroupCoordinatorShard`
//! replaying `CoordinatorRecord`s): every partition read from its log
//! start, record by record, the last record of a key winning.
//!
//! * An offset commit (record types 0 and 1) sets the committed offset of
//!   (group, topic, partition); a tombstone removes it (a deleted group,
//!   deleted offsets, or offsets the coordinator expired: expiry is a
//!   tombstone in the log).
//! * A transactional offset commit (`sendOffsetsToTransaction`) is pending
//!   until its producer's marker in the same partition: COMMIT applies it,
//!   ABORT drops it (`completePendingTxnOffsetCommit`).
//! * Group metadata (type 2, classic groups) sets the group's protocol,
//!   generation, leader and members; a tombstone removes the group. A loaded
//!   classic group with members is `Stable`, without `Empty`
//!   (`GroupMetadata.loadGroup`).
//! * The KIP-848 records (types 3 to 8, consumer groups): the group epoch
//!   from `ConsumerGroupMetadata`, the target assignment epoch from
//!   `ConsumerGroupTargetAssignmentMetadata`, members from
//!   `ConsumerGroupMemberMetadata` and their epochs, states and assignments
//!   from `ConsumerGroupCurrentMemberAssignment`; tombstones remove them.
//!   The state is `ConsumerGroup.maybeUpdateGroupState`'s: Empty without
//!   members, Assigning while the group epoch is ahead of the target
//!   assignment's, Reconciling while a member is not stable at it, else
//!   Stable.
//! * Share groups (KIP-932, types 10 to 15) the same way
//!   (`ShareGroup.maybeUpdateGroupState`: Empty or Stable), with the
//!   partitions whose share state is initialized
//!   (`ShareGroupStatePartitionMetadata`), which `kafka-share-groups
//!   --describe` lists.
//! * Streams groups (KIP-1071, types 16 to 22): the group and topology
//!   epochs, members (process, client) and their active tasks
//!   (`StreamsGroup.maybeUpdateGroupState`: NotReady until the topology of
//!   the validated epoch is there).
//!
//! A member's record may come before its group's in one batch (Kafka writes
//! a new group's first member first): it creates the group, as
//! `GroupMetadataManager.replay` does (`getOrMaybeCreatePersisted*Group`).
//!
//! [`ShareStates`] is what the share coordinator loads from
//! `__share_group_state` (`ShareCoordinatorShard.replay`): per (group,
//! topic id, partition) the last ShareSnapshot, with each later ShareUpdate
//! merged (`ShareCoordinatorShard.merge`); [`share_lag`] is the lag
//! `kafka-share-groups --describe` shows from it.
//!
//! A record that does not decode is counted and skipped, as the coordinator
//! skips unknown record types.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use base64::Engine;
use kmsg::coordinator::{GroupRecord, ShareRecord};
use kmsg::records::consumer_group_current_member_assignment_value::TopicPartitions;
use kmsg::records::{
    ConsumerGroupRegularExpressionKey, ConsumerGroupRegularExpressionValue, ConsumerProtocolAssignment,
    GroupMetadataValue, share_group_state_partition_metadata_value,
};

use logfmt::control::ControlRecord;
use logfmt::error::{Error, Result};
use logfmt::limits::Limits;
use logfmt::partition::Partition;

/// Keys (offsets, groups, members) held at most; more is a damaged or
/// hostile log, not a coordinator's state.
pub const MAX_KEYS: usize = 10_000_000;

/// A classic group's state (`GroupState`): one enum for the coordinator's
/// load here and `logtool broker`'s group coordinator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GroupState {
    /// No members.
    Empty,
    /// Waiting for members to (re)join.
    PreparingRebalance,
    /// Joined: waiting for the leader's assignments.
    CompletingRebalance,
    /// Assigned.
    Stable,
}

impl GroupState {
    /// Kafka's name for it.
    pub fn name(self) -> &'static str {
        match self {
            GroupState::Empty => "Empty",
            GroupState::PreparingRebalance => "PreparingRebalance",
            GroupState::CompletingRebalance => "CompletingRebalance",
            GroupState::Stable => "Stable",
        }
    }
}

/// A group's lag on a partition, as `kafka-consumer-groups --describe`
/// shows it (`ConsumerGroupCommand`: the partition's latest offset for a
/// read_uncommitted reader, the high watermark, less the committed offset;
/// never negative).
pub fn lag(committed: i64, high_watermark: i64) -> i64 {
    high_watermark.saturating_sub(committed).max(0)
}

/// A committed offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    /// The offset.
    pub offset: i64,
    /// The leader epoch the consumer saw (-1 unknown).
    pub leader_epoch: i32,
    /// The commit's metadata string.
    pub metadata: String,
    /// When it was committed.
    pub commit_timestamp: i64,
    /// When it expires (value version 1 only).
    pub expire_timestamp: Option<i64>,
    /// The value's version.
    pub version: i16,
    /// Where the record is: `__consumer_offsets` partition and offset.
    pub at: (i32, i64),
}

/// A group member.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Member {
    /// Member id.
    pub member_id: String,
    /// Static membership id.
    pub group_instance_id: Option<String>,
    /// Client id.
    pub client_id: String,
    /// Client host.
    pub client_host: String,
    /// Assigned partitions (topic, or topic id for the modern groups, and
    /// partitions); a streams member's active tasks (subtopology, partitions).
    pub assignment: Vec<(String, Vec<i32>)>,
    /// The member epoch (modern groups).
    pub member_epoch: Option<i32>,
    /// The member state (modern groups: `modern.MemberState`, 0 stable; a
    /// streams member's `streams.MemberState`, whose values are one more,
    /// 1 stable, is kept in the modern numbering: [`streams_member_state`]).
    pub member_state: Option<i8>,
    /// The streams member's process id.
    pub process_id: Option<String>,
    /// The server-side assignor the consumer group member asks for.
    pub server_assignor: Option<String>,
    /// A consumer group member's subscribed topic names.
    pub subscribed_topic_names: Vec<String>,
    /// Its subscribed topic regex (empty: none; Kafka writes "").
    pub subscribed_topic_regex: Option<String>,
    /// Its rack.
    pub rack_id: Option<String>,
    /// Its rebalance timeout (-1 none).
    pub rebalance_timeout_ms: i32,
    /// The member epoch before the last bump (modern groups).
    pub previous_member_epoch: Option<i32>,
    /// The partitions it must revoke (topic id, partitions).
    pub pending_revocation: Vec<(String, Vec<i32>)>,
    /// The epoch each of its partitions (assigned or pending revocation)
    /// was assigned at, by (topic id, partition) (KIP-848; the member epoch
    /// where the record does not say).
    pub partition_epochs: BTreeMap<(String, i32), i32>,
}

impl Member {
    /// Its current assignment (`*CurrentMemberAssignment`).
    fn assigned(&mut self, epoch: i32, state: i8, assignment: Vec<(String, Vec<i32>)>) {
        (self.member_epoch, self.member_state, self.assignment) = (Some(epoch), Some(state), assignment);
    }

    /// `ModernGroupMember.isReconciledTo`: stable at the target assignment's epoch.
    fn is_reconciled_to(&self, assignment_epoch: Option<i32>) -> bool {
        self.member_state == Some(MEMBER_STATE_STABLE) && self.member_epoch == assignment_epoch
    }
}

/// `MemberState.STABLE`.
const MEMBER_STATE_STABLE: i8 = 0;

/// A streams member's state (`streams.MemberState`: STABLE 1,
/// UNREVOKED_TASKS 2, UNRELEASED_TASKS 3, UNKNOWN 127, as Kafka 4.4.0's jar
/// has them) in the numbering of `modern.MemberState` (STABLE 0,
/// UNREVOKED_PARTITIONS 1, UNRELEASED_PARTITIONS 2, UNKNOWN 127).
pub fn streams_member_state(value: i8) -> i8 {
    match value {
        1..=3 => value.saturating_sub(1),
        other => other,
    }
}

/// The group types of Kafka 4.x's group coordinator (`Group.GroupType`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GroupType {
    /// Classic groups (JoinGroup/SyncGroup).
    #[default]
    Classic,
    /// KIP-848 consumer groups.
    Consumer,
    /// KIP-932 share groups.
    Share,
    /// KIP-1071 streams groups.
    Streams,
}

impl GroupType {
    /// Kafka's name (`kafka-groups --list`'s TYPE).
    pub fn name(self) -> &'static str {
        match self {
            GroupType::Classic => "Classic",
            GroupType::Consumer => "Consumer",
            GroupType::Share => "Share",
            GroupType::Streams => "Streams",
        }
    }

    /// The protocol of the type: `classic`, `consumer`, `share` or
    /// `streams` (`kafka-groups --list`'s PROTOCOL of a modern group; a
    /// classic group's is its protocol type).
    pub fn protocol(self) -> &'static str {
        match self {
            GroupType::Classic => "classic",
            GroupType::Consumer => "consumer",
            GroupType::Share => "share",
            GroupType::Streams => "streams",
        }
    }
}

/// The server-side assignor a KIP-848 group uses when its members name
/// none: the first of `group.consumer.assignors` (Kafka 4.x's default
/// `uniform,range`; `GroupCoordinatorConfig`), as `kafka-consumer-groups
/// --describe --state` shows it.
pub const CONSUMER_GROUP_DEFAULT_ASSIGNOR: &str = "uniform";

/// A group's last known state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    /// Its type.
    pub group_type: GroupType,
    /// The classic group's protocol type (`consumer`, `connect`, ...).
    pub protocol_type: Option<String>,
    /// The assignor (classic: the chosen protocol; consumer: the members'
    /// server assignor).
    pub assignor: Option<String>,
    /// Generation (classic) or group epoch (modern groups).
    pub generation: i32,
    /// The target assignment's epoch (modern groups).
    pub assignment_epoch: Option<i32>,
    /// A consumer group's resolved regular expressions: the topics each
    /// matches, the metadata version and time it was resolved at
    /// (`ConsumerGroupRegularExpression`).
    pub regexes: BTreeMap<String, ResolvedRegex>,
    /// The topology's epoch (streams), and the epoch the coordinator
    /// validated it at.
    pub topology_epoch: Option<i32>,
    /// The validated topology epoch (streams; -1 none).
    pub validated_topology_epoch: Option<i32>,
    /// The leader (classic).
    pub leader: Option<String>,
    /// Members, by id.
    pub members: BTreeMap<String, Member>,
    /// When its state last changed (classic, value version 2+).
    pub state_timestamp: Option<i64>,
    /// Share groups: the partitions whose share state is initialized
    /// (topic id, topic name, partitions).
    pub share_partitions: Vec<(String, String, Vec<i32>)>,
    /// Share groups: the partitions whose share state is being initialized
    /// (topic id, topic name, partitions).
    pub share_initializing: Vec<(String, String, Vec<i32>)>,
    /// Share groups: the topics whose share state is being deleted (topic
    /// id, topic name).
    pub share_deleting: Vec<(String, String)>,
    /// Consumer and share groups: each member's target assignment (topic
    /// id, partitions), by member id (`*TargetAssignmentMember`).
    pub targets: BTreeMap<String, Vec<(String, Vec<i32>)>>,
    /// Consumer and share groups: the hash of the subscribed topics' metadata the
    /// group epoch was computed with.
    pub metadata_hash: i64,
}

impl Group {
    /// The state the coordinator loads it in: a classic group's
    /// (`GroupMetadata.loadGroup`), or a modern group's as its type computes
    /// it (see the module docs).
    pub fn state(&self) -> &'static str {
        let reconciled = || self.members.values().all(|m| m.is_reconciled_to(self.assignment_epoch));
        let behind = self.assignment_epoch.is_none_or(|a| self.generation > a);
        match self.group_type {
            _ if self.members.is_empty() => GroupState::Empty.name(),
            GroupType::Classic | GroupType::Share => GroupState::Stable.name(),
            GroupType::Streams
                if self.topology_epoch.is_none() || self.topology_epoch != self.validated_topology_epoch =>
            {
                "NotReady"
            }
            GroupType::Consumer | GroupType::Streams if behind => "Assigning",
            GroupType::Consumer | GroupType::Streams if !reconciled() => "Reconciling",
            GroupType::Consumer | GroupType::Streams => "Stable",
        }
    }

    /// The assignor: a classic group's chosen protocol; a consumer group's
    /// server assignor, the one its members name most
    /// (`ConsumerGroup.computePreferredServerAssignor`), else the broker's
    /// default.
    pub fn assignor(&self) -> Option<String> {
        if self.group_type != GroupType::Consumer {
            return self.assignor.clone();
        }
        Some(preferred_assignor(self.members.values().filter_map(|m| m.server_assignor.as_deref())).to_string())
    }

    fn modern(group_type: GroupType) -> Group {
        Group { group_type, protocol_type: Some(group_type.protocol().into()), ..Group::default() }
    }
}

/// The server assignor a consumer group's members name most, else the
/// default (`ConsumerGroup.computePreferredServerAssignor`; a tie goes to
/// the name last in order).
pub fn preferred_assignor<'a>(named: impl Iterator<Item = &'a str>) -> &'a str {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for a in named {
        let n = counts.entry(a).or_default();
        *n = n.saturating_add(1);
    }
    counts.into_iter().max_by_key(|(_, n)| *n).map_or(CONSUMER_GROUP_DEFAULT_ASSIGNOR, |(a, _)| a)
}

/// A regular expression's resolution (`ResolvedRegularExpression`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResolvedRegex {
    /// The topics it matched.
    pub topics: BTreeSet<String>,
    /// The metadata image's version it was resolved against.
    pub version: i64,
    /// When it was resolved.
    pub timestamp: i64,
}

/// (group, topic, partition).
pub type OffsetKey = (String, String, i32);

/// What the coordinator holds after loading.
#[derive(Clone, Debug, Default)]
pub struct Groups {
    /// Committed offsets by (group, topic, partition).
    pub offsets: BTreeMap<OffsetKey, Commit>,
    /// Groups by id.
    pub groups: BTreeMap<String, Group>,
    /// Records that did not decode.
    pub undecoded: u64,
    /// Transactional commits still waiting for their marker, by producer.
    pending: HashMap<i64, Vec<(OffsetKey, Option<Commit>)>>,
}

/// A member's assignment: (topic, or topic id for KIP-848 groups, and partitions).
type Assignment = Vec<(String, Vec<i32>)>;

/// A classic `consumer`-protocol member's assignment (the bytes of
/// `ConsumerProtocolAssignment`; none when they do not decode, as
/// DumpLogSegments leaves them undecoded).
fn classic_assignment(bytes: &str) -> Assignment {
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(bytes) else { return Vec::new() };
    let Ok((_, a)) = kmsg::coordinator::decode_message::<ConsumerProtocolAssignment>(&bytes) else {
        return Vec::new();
    };
    a.assigned_partitions.into_iter().map(|t| (t.topic, t.partitions)).collect()
}

fn classic_group(v: GroupMetadataValue) -> Group {
    let consumer = v.protocol_type == "consumer";
    let members = v
        .members
        .into_iter()
        .map(|m| Member {
            assignment: if consumer { classic_assignment(&m.assignment) } else { Vec::new() },
            member_id: m.member_id,
            group_instance_id: m.group_instance_id,
            client_id: m.client_id,
            client_host: m.client_host,
            ..Member::default()
        })
        .map(|m| (m.member_id.clone(), m))
        .collect();
    Group {
        group_type: GroupType::Classic,
        protocol_type: Some(v.protocol_type),
        assignor: v.protocol,
        generation: v.generation,
        leader: v.leader,
        members,
        state_timestamp: Some(v.current_state_timestamp).filter(|t| *t >= 0),
        ..Group::default()
    }
}

impl Groups {
    /// Load every `__consumer_offsets` partition given (see the module docs).
    pub fn load(partitions: &[Partition], limits: &Limits) -> Result<Groups> {
        Self::load_with_progress(partitions, limits, &mut |_| {})
    }

    /// [`Groups::load`], telling `done` the size of each segment read.
    pub fn load_with_progress(partitions: &[Partition], limits: &Limits, done: &mut dyn FnMut(u64)) -> Result<Groups> {
        let mut g = Groups::default();
        for p in partitions {
            g.load_partition(p, limits, done)?;
        }
        Ok(g)
    }

    fn keys(&self) -> usize {
        self.offsets.len().saturating_add(self.groups.len()).saturating_add(self.pending.len())
    }

    fn load_partition(&mut self, p: &Partition, limits: &Limits, done: &mut dyn FnMut(u64)) -> Result<()> {
        let undecoded = super::log::for_each_record(p, limits, done, &mut |h, position, rec| {
            if h.is_control() {
                if let Ok(ControlRecord::EndTxn(m)) = logfmt::control::parse(rec, position) {
                    self.end_txn(h.producer_id, m.commit);
                }
                return Ok(());
            }
            let d = kmsg::coordinator::decode_group_record(rec.key, rec.value);
            let txn = h.is_transactional().then_some(h.producer_id);
            self.apply(d, (p.name.partition, rec.offset), txn);
            if self.keys() > MAX_KEYS {
                return Err(Error::refused(format!(
                    "{}: more than {MAX_KEYS} groups, offsets and members; not a coordinator's state",
                    p.dir.display()
                )));
            }
            Ok(())
        })?;
        self.undecoded = self.undecoded.saturating_add(undecoded);
        Ok(())
    }

    fn end_txn(&mut self, producer_id: i64, commit: bool) {
        let Some(pending) = self.pending.remove(&producer_id) else { return };
        if commit {
            for (key, c) in pending {
                match c {
                    Some(c) => self.offsets.insert(key, c),
                    None => self.offsets.remove(&key),
                };
            }
        }
    }

    /// Replay one record as the coordinator wrote it at `at` (not in a
    /// transaction), as a load reads it back: `logtool broker`'s
    /// coordinator keeps its groups by replaying what it writes.
    pub fn replay(&mut self, record: GroupRecord, at: (i32, i64)) {
        self.apply(Ok(record), at, None);
    }

    /// Apply one decoded record at `at`; `txn` is the producer of a
    /// transactional batch.
    fn apply(&mut self, d: kmsg::Result<GroupRecord>, at: (i32, i64), txn: Option<i64>) {
        let Ok(d) = d else {
            self.undecoded = self.undecoded.saturating_add(1);
            return;
        };
        match d {
            GroupRecord::OffsetCommit(key, value) => {
                let k = (key.group, key.topic, key.partition);
                let commit = value.map(|(version, v)| Commit {
                    offset: v.offset,
                    leader_epoch: v.leader_epoch,
                    metadata: v.metadata,
                    commit_timestamp: v.commit_timestamp,
                    expire_timestamp: Some(v.expire_timestamp).filter(|t| *t >= 0),
                    version,
                    at,
                });
                match (txn, commit) {
                    (Some(pid), c) => self.pending.entry(pid).or_default().push((k, c)),
                    (None, Some(c)) => {
                        self.offsets.insert(k, c);
                    }
                    (None, None) => {
                        self.offsets.remove(&k);
                    }
                }
            }
            GroupRecord::GroupMetadata(key, None) => {
                self.groups.remove(&key.group);
            }
            GroupRecord::GroupMetadata(key, Some(v)) => {
                self.groups.insert(key.group, classic_group(v));
            }
            modern => self.apply_modern(modern),
        }
    }

    /// A record of a consumer, share or streams group.
    fn apply_modern(&mut self, d: GroupRecord) {
        match d {
            GroupRecord::ConsumerGroupMetadata(key, value) => {
                let hash = value.as_ref().map(|v| v.metadata_hash);
                self.metadata(GroupType::Consumer, &key.group_id, value.map(|v| (v.epoch, None)));
                if let Some(h) = hash {
                    self.group(GroupType::Consumer, &key.group_id).metadata_hash = h;
                }
            }
            GroupRecord::StreamsGroupMetadata(key, value) => {
                let value = value.map(|v| (v.epoch, Some(v.validated_topology_epoch)));
                self.metadata(GroupType::Streams, &key.group_id, value);
            }
            GroupRecord::ConsumerGroupTargetAssignmentMetadata(key, Some(v)) => {
                self.group(GroupType::Consumer, &key.group_id).assignment_epoch = Some(v.assignment_epoch);
            }
            GroupRecord::ConsumerGroupRegularExpression(key, v) => self.regex(key, v),
            GroupRecord::StreamsGroupTargetAssignmentMetadata(key, Some(v)) => {
                self.group(GroupType::Streams, &key.group_id).assignment_epoch = Some(v.assignment_epoch);
            }
            GroupRecord::StreamsGroupTopology(key, Some(v)) => {
                self.group(GroupType::Streams, &key.group_id).topology_epoch = Some(v.epoch);
            }
            GroupRecord::StreamsGroupTopology(key, None) => {
                if let Some(g) = self.groups.get_mut(&key.group_id) {
                    g.topology_epoch = None;
                }
            }
            GroupRecord::ConsumerGroupMemberMetadata(k, value) => {
                self.member(GroupType::Consumer, &k.group_id, &k.member_id, value, |m, v| {
                    (m.client_id, m.client_host) = (v.client_id, v.client_host);
                    (m.group_instance_id, m.server_assignor) = (v.instance_id, v.server_assignor);
                    (m.subscribed_topic_names, m.subscribed_topic_regex) =
                        (v.subscribed_topic_names, v.subscribed_topic_regex);
                    (m.rack_id, m.rebalance_timeout_ms) = (v.rack_id, v.rebalance_timeout_ms);
                });
            }
            GroupRecord::ConsumerGroupTargetAssignmentMember(k, value) => {
                let target =
                    value.map(|v| v.topic_partitions.into_iter().map(|t| (t.topic_id, t.partitions)).collect());
                self.target(GroupType::Consumer, &k.group_id, k.member_id, target);
            }
            GroupRecord::StreamsGroupMemberMetadata(k, value) => {
                self.member(GroupType::Streams, &k.group_id, &k.member_id, value, |m, v| {
                    (m.client_id, m.client_host) = (v.client_id, v.client_host);
                    (m.group_instance_id, m.process_id) = (v.instance_id, Some(v.process_id));
                });
            }
            GroupRecord::ConsumerGroupCurrentMemberAssignment(k, value) => {
                self.member(GroupType::Consumer, &k.group_id, &k.member_id, value, |m, v| {
                    m.partition_epochs.clear();
                    let mut epochs = |t: &TopicPartitions| {
                        let given = t.assignment_epochs.as_deref().unwrap_or_default();
                        for (i, p) in t.partitions.iter().enumerate() {
                            let epoch = given.get(i).copied().unwrap_or(v.member_epoch);
                            m.partition_epochs.insert((t.topic_id.clone(), *p), epoch);
                        }
                    };
                    v.assigned_partitions.iter().for_each(&mut epochs);
                    v.partitions_pending_revocation.iter().for_each(&mut epochs);
                    let revoking = v.partitions_pending_revocation.into_iter().map(|t| (t.topic_id, t.partitions));
                    m.pending_revocation = revoking.collect();
                    m.previous_member_epoch = Some(v.previous_member_epoch);
                    let assigned = v.assigned_partitions.into_iter().map(|t| (t.topic_id, t.partitions));
                    m.assigned(v.member_epoch, v.state, assigned.collect());
                });
            }
            GroupRecord::StreamsGroupCurrentMemberAssignment(k, value) => {
                self.member(GroupType::Streams, &k.group_id, &k.member_id, value, |m, v| {
                    let active = v.active_tasks.into_iter().map(|t| (t.subtopology_id, t.partitions));
                    m.assigned(v.member_epoch, streams_member_state(v.state), active.collect());
                });
            }
            // (a tombstone of a target assignment's metadata comes with the
            // group's own tombstone, which removes the group)
            GroupRecord::ConsumerGroupTargetAssignmentMetadata(_, None)
            | GroupRecord::StreamsGroupTargetAssignmentMetadata(_, None)
            | GroupRecord::Other(_) => {}
            // (read by `apply`)
            GroupRecord::OffsetCommit(..) | GroupRecord::GroupMetadata(..) => {}
            share => self.apply_share(share),
        }
    }

    /// A record of a share group.
    fn apply_share(&mut self, d: GroupRecord) {
        match d {
            GroupRecord::ShareGroupMetadata(key, value) => {
                let hash = value.as_ref().map(|v| v.metadata_hash);
                self.metadata(GroupType::Share, &key.group_id, value.map(|v| (v.epoch, None)));
                if let Some(h) = hash {
                    self.group(GroupType::Share, &key.group_id).metadata_hash = h;
                }
            }
            GroupRecord::ShareGroupTargetAssignmentMetadata(key, Some(v)) => {
                self.group(GroupType::Share, &key.group_id).assignment_epoch = Some(v.assignment_epoch);
            }
            GroupRecord::ShareGroupStatePartitionMetadata(key, value) => {
                if let Some(v) = value {
                    let g = self.group(GroupType::Share, &key.group_id);
                    let list = |l: Vec<share_group_state_partition_metadata_value::TopicPartitionsInfo>| {
                        l.into_iter().map(|t| (t.topic_id, t.topic_name, t.partitions)).collect()
                    };
                    g.share_partitions = list(v.initialized_topics);
                    g.share_initializing = list(v.initializing_topics);
                    g.share_deleting = v.deleting_topics.into_iter().map(|t| (t.topic_id, t.topic_name)).collect();
                } else if let Some(g) = self.groups.get_mut(&key.group_id) {
                    g.share_partitions.clear();
                    g.share_initializing.clear();
                    g.share_deleting.clear();
                }
            }
            GroupRecord::ShareGroupMemberMetadata(k, value) => {
                self.member(GroupType::Share, &k.group_id, &k.member_id, value, |m, v| {
                    (m.client_id, m.client_host) = (v.client_id, v.client_host);
                    (m.rack_id, m.subscribed_topic_names) = (v.rack_id, v.subscribed_topic_names);
                });
            }
            GroupRecord::ShareGroupTargetAssignmentMember(k, value) => {
                let target =
                    value.map(|v| v.topic_partitions.into_iter().map(|t| (t.topic_id, t.partitions)).collect());
                self.target(GroupType::Share, &k.group_id, k.member_id, target);
            }
            GroupRecord::ShareGroupCurrentMemberAssignment(k, value) => {
                self.member(GroupType::Share, &k.group_id, &k.member_id, value, |m, v| {
                    m.previous_member_epoch = Some(v.previous_member_epoch);
                    let assigned = v.assigned_partitions.into_iter().map(|t| (t.topic_id, t.partitions));
                    m.assigned(v.member_epoch, v.state, assigned.collect());
                });
            }
            // (a target metadata tombstone comes with the group's own)
            _ => {}
        }
    }

    /// A consumer group's resolved regular expression (or its tombstone).
    fn regex(&mut self, key: ConsumerGroupRegularExpressionKey, v: Option<ConsumerGroupRegularExpressionValue>) {
        let g = self.group(GroupType::Consumer, &key.group_id);
        match v {
            Some(v) => {
                let topics = v.topics.into_iter().collect();
                g.regexes.insert(
                    key.regular_expression,
                    ResolvedRegex { topics, version: v.version, timestamp: v.timestamp },
                );
            }
            None => {
                g.regexes.remove(&key.regular_expression);
            }
        }
    }

    /// A member's target assignment (`*TargetAssignmentMember`), or its
    /// tombstone.
    fn target(&mut self, group_type: GroupType, group: &str, member: String, target: Option<Assignment>) {
        let g = self.group(group_type, group);
        match target {
            Some(t) => {
                g.targets.insert(member, t);
            }
            None => {
                g.targets.remove(&member);
            }
        }
    }

    /// A modern group's metadata record: its epoch (and a streams group's
    /// validated topology epoch) set, or the group removed by a tombstone.
    fn metadata(&mut self, group_type: GroupType, group: &str, value: Option<(i32, Option<i32>)>) {
        match value {
            None => {
                self.groups.remove(group);
            }
            Some((epoch, validated)) => {
                let g = self.group(group_type, group);
                g.generation = epoch;
                g.validated_topology_epoch = validated;
            }
        }
    }

    /// A modern group of `group_type`, made when it is not there yet (a
    /// classic group of the id is replaced, as a conversion does).
    fn group(&mut self, group_type: GroupType, group: &str) -> &mut Group {
        let g = self.groups.entry(group.to_string()).or_insert_with(|| Group::modern(group_type));
        if g.group_type != group_type {
            *g = Group::modern(group_type);
        }
        g
    }

    /// A modern group's member: made (with its group, which a member's
    /// record may come before) and filled from `value`, or removed when the
    /// record is a tombstone.
    fn member<V>(
        &mut self,
        group_type: GroupType,
        group: &str,
        member: &str,
        value: Option<V>,
        fill: impl FnOnce(&mut Member, V),
    ) {
        let Some(v) = value else {
            if let Some(g) = self.groups.get_mut(group) {
                g.members.remove(member);
            }
            return;
        };
        let m = self.group(group_type, group).members.entry(member.to_string()).or_default();
        m.member_id = member.to_string();
        fill(m, v);
    }
}

/// A share partition's state as the share coordinator holds it
/// (`ShareGroupOffset`), of which `kafka-share-groups --describe` shows
/// the start offset and the lag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharePartitionState {
    /// The share-partition start offset (-1: not initialized).
    pub start_offset: i64,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The state epoch (of the last snapshot).
    pub state_epoch: i32,
    /// Offsets at or after the start offset whose delivery is complete
    /// (-1: not known; KIP-1226).
    pub delivery_complete_count: i32,
    /// Where the last record of it is: `__share_group_state` partition and offset.
    pub at: (i32, i64),
    /// The snapshot epoch (of the last snapshot).
    pub snapshot_epoch: i32,
    /// The state batches past the start offset, updates merged
    /// ([`combine_batches`]).
    pub state_batches: Vec<StateBatch>,
    /// Updates written since the last snapshot (`snapshotUpdateCount`).
    pub updates: u32,
}

/// (group, topic id, partition).
pub type SharePartitionKey = (String, String, i32);

/// What the share coordinator loads from `__share_group_state` (see the
/// module docs).
#[derive(Clone, Debug, Default)]
pub struct ShareStates {
    /// Each share partition's state.
    pub partitions: BTreeMap<SharePartitionKey, SharePartitionState>,
    /// Records that did not decode.
    pub undecoded: u64,
}

/// `PartitionFactory.UNINITIALIZED_START_OFFSET` and
/// `UNINITIALIZED_DELIVERY_COMPLETE_COUNT`.
const UNINITIALIZED: i64 = -1;

/// A share partition's lag as `kafka-share-groups --describe` shows it
/// (`GroupCoordinatorService.computeShareGroupLagAndBuildResponse`: the
/// partition's latest offset for a read_uncommitted reader - the high
/// watermark - less the start offset and the deliveries completed after
/// it; none while either is not initialized).
pub fn share_lag(s: &SharePartitionState, high_watermark: i64) -> Option<i64> {
    if s.start_offset == UNINITIALIZED || i64::from(s.delivery_complete_count) == UNINITIALIZED {
        return None;
    }
    Some(high_watermark.saturating_sub(s.start_offset).saturating_sub(i64::from(s.delivery_complete_count)))
}

impl ShareStates {
    /// Load every `__share_group_state` partition given.
    pub fn load(partitions: &[Partition], limits: &Limits, done: &mut dyn FnMut(u64)) -> Result<ShareStates> {
        let mut s = ShareStates::default();
        for p in partitions {
            let undecoded = super::log::for_each_record(p, limits, done, &mut |h, _, rec| {
                if h.is_control() {
                    return Ok(());
                }
                s.apply(kmsg::coordinator::decode_share_record(rec.key, rec.value), (p.name.partition, rec.offset));
                if s.partitions.len() > MAX_KEYS {
                    return Err(Error::refused(format!(
                        "{}: more than {MAX_KEYS} share partitions; not a share coordinator's state",
                        p.dir.display()
                    )));
                }
                Ok(())
            })?;
            s.undecoded = s.undecoded.saturating_add(undecoded);
        }
        Ok(s)
    }

    /// Replay one record the share coordinator wrote at `at`, as a load
    /// reads it back (`logtool broker`'s share coordinator keeps its state
    /// by replaying what it writes).
    pub fn replay(&mut self, record: ShareRecord, at: (i32, i64)) {
        self.apply(Ok(record), at);
    }

    /// `ShareCoordinatorShard.handleShareSnapshot` / `handleShareUpdate`.
    fn apply(&mut self, r: kmsg::Result<ShareRecord>, at: (i32, i64)) {
        let Ok(r) = r else {
            self.undecoded = self.undecoded.saturating_add(1);
            return;
        };
        match r {
            ShareRecord::Snapshot(k, None) => {
                self.partitions.remove(&(k.group_id, k.topic_id, k.partition));
            }
            ShareRecord::Snapshot(k, Some(v)) => {
                let batches: Vec<_> = v
                    .state_batches
                    .iter()
                    .map(|b| (b.first_offset, b.last_offset, b.delivery_state, b.delivery_count))
                    .collect();
                let state = SharePartitionState {
                    start_offset: v.start_offset,
                    leader_epoch: v.leader_epoch,
                    state_epoch: v.state_epoch,
                    delivery_complete_count: v.delivery_complete_count,
                    at,
                    snapshot_epoch: v.snapshot_epoch,
                    state_batches: combine_batches(&[], &batches, v.start_offset),
                    updates: 0,
                };
                self.partitions.insert((k.group_id, k.topic_id, k.partition), state);
            }
            // (an update is never a tombstone; one that is changes nothing)
            ShareRecord::Update(_, None) => {}
            ShareRecord::Update(k, Some(v)) => {
                let key = (k.group_id, k.topic_id, k.partition);
                let batches: Vec<_> = v
                    .state_batches
                    .iter()
                    .map(|b| (b.first_offset, b.last_offset, b.delivery_state, b.delivery_count))
                    .collect();
                match self.partitions.get_mut(&key) {
                    // ShareCoordinatorShard.merge
                    Some(s) => {
                        if v.start_offset != UNINITIALIZED {
                            s.start_offset = v.start_offset;
                        }
                        if v.leader_epoch != -1 {
                            s.leader_epoch = v.leader_epoch;
                        }
                        s.delivery_complete_count = v.delivery_complete_count;
                        s.at = at;
                        s.state_batches = combine_batches(&s.state_batches, &batches, s.start_offset);
                        s.updates = s.updates.saturating_add(1);
                    }
                    // ShareGroupOffset.fromRecord(ShareUpdateValue)
                    None => {
                        let state = SharePartitionState {
                            start_offset: v.start_offset,
                            leader_epoch: v.leader_epoch,
                            // ShareGroupOffset.UNINITIALIZED_EPOCH
                            state_epoch: 0,
                            delivery_complete_count: v.delivery_complete_count,
                            at,
                            snapshot_epoch: v.snapshot_epoch,
                            state_batches: combine_batches(&[], &batches, v.start_offset),
                            updates: 1,
                        };
                        self.partitions.insert(key, state);
                    }
                }
            }
        }
    }
}

/// A persisted state batch: first offset, last offset, persisted state,
/// delivery count.
pub type StateBatch = (i64, i64, i8, i16);

/// The batches the share coordinator holds after `newer` are written over
/// `older` with start offset `start` (`PersisterStateBatchCombiner`:
/// what is before the start is pruned, a newer batch wins where they
/// overlap, neighbours alike are merged).
pub fn combine_batches(older: &[StateBatch], newer: &[StateBatch], start: i64) -> Vec<StateBatch> {
    // intervals by first offset, none overlapping
    let mut map: BTreeMap<i64, (i64, i8, i16)> = BTreeMap::new();
    for &(first, last, state, count) in older.iter().chain(newer) {
        let first = first.max(start);
        if last < first {
            continue;
        }
        // cut what overlaps [first, last]
        let overlapping: Vec<(i64, (i64, i8, i16))> =
            map.range(..=last).filter(|(_, (l, _, _))| *l >= first).map(|(f, v)| (*f, *v)).collect();
        for (f, (l, s, c)) in overlapping {
            map.remove(&f);
            if f < first {
                map.insert(f, (first.saturating_sub(1), s, c));
            }
            if l > last {
                map.insert(last.saturating_add(1), (l, s, c));
            }
        }
        map.insert(first, (last, state, count));
    }
    let mut out: Vec<StateBatch> = Vec::new();
    for (f, (l, s, c)) in map {
        match out.last_mut() {
            Some(b) if b.1.saturating_add(1) == f && b.2 == s && b.3 == c => b.1 = l,
            _ => out.push((f, l, s, c)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn commit_key(group: &str, topic: &str, partition: i32) -> Vec<u8> {
        kmsg::coordinator::encode_group_key(1, &json!({"group": group, "topic": topic, "partition": partition}))
            .unwrap()
    }

    fn commit_value(version: i16, offset: i64) -> Vec<u8> {
        let mut v = json!({"offset": offset, "metadata": "m", "commitTimestamp": 1000});
        if version == 1 {
            v["expireTimestamp"] = json!(2000);
        }
        if version >= 3 {
            v["leaderEpoch"] = json!(4);
        }
        kmsg::coordinator::encode_versioned("OffsetCommitValue", version, &v).unwrap()
    }

    fn apply(g: &mut Groups, key: &[u8], value: Option<&[u8]>, txn: Option<i64>) {
        g.apply(kmsg::coordinator::decode_group_record(Some(key), value), (0, 0), txn);
    }

    /// Kafka writes a new KIP-848 group's first member
    /// (ConsumerGroupMemberMetadata) before the group's
    /// ConsumerGroupMetadata, in one batch: the member keeps its client id
    /// and host (before, it was dropped: its group did not exist yet).
    #[test]
    fn a_member_before_its_group_record_is_kept() {
        let mut g = Groups::default();
        let member_key = kmsg::coordinator::encode_group_key(5, &json!({"groupId": "g", "memberId": "m1"})).unwrap();
        let member = kmsg::coordinator::encode_versioned(
            "ConsumerGroupMemberMetadataValue",
            0,
            &json!({"clientId": "c1", "clientHost": "/127.0.0.1", "subscribedTopicNames": ["t"]}),
        )
        .unwrap();
        apply(&mut g, &member_key, Some(&member), None);
        let group_key = kmsg::coordinator::encode_group_key(3, &json!({"groupId": "g"})).unwrap();
        let group = kmsg::coordinator::encode_versioned("ConsumerGroupMetadataValue", 0, &json!({"epoch": 1})).unwrap();
        apply(&mut g, &group_key, Some(&group), None);
        let grp = &g.groups["g"];
        assert_eq!((grp.group_type, grp.generation), (GroupType::Consumer, 1));
        let m = &grp.members["m1"];
        assert_eq!((m.client_id.as_str(), m.client_host.as_str()), ("c1", "/127.0.0.1"));
        // a tombstone of a member of no group makes no group
        let gone = kmsg::coordinator::encode_group_key(5, &json!({"groupId": "h", "memberId": "m"})).unwrap();
        apply(&mut g, &gone, None, None);
        assert!(!g.groups.contains_key("h"));
    }

    fn record(
        record_type: i16,
        key: serde_json::Value,
        value: Option<(&str, serde_json::Value)>,
    ) -> (Vec<u8>, Option<Vec<u8>>) {
        let k = kmsg::coordinator::encode_group_key(record_type, &key).unwrap();
        (k, value.map(|(name, v)| kmsg::coordinator::encode_versioned(name, 0, &v).unwrap()))
    }

    fn replay(g: &mut Groups, records: &[(Vec<u8>, Option<Vec<u8>>)]) {
        for (k, v) in records {
            apply(g, k, v.as_deref(), None);
        }
    }

    /// `ConsumerGroup.maybeUpdateGroupState`: Assigning while the group
    /// epoch is ahead of the target assignment's, Reconciling while a member
    /// is not stable at it, then Stable; Empty once its member leaves.
    #[test]
    fn a_consumer_groups_state_follows_its_epochs() {
        let mut g = Groups::default();
        let member = json!({"groupId": "g", "memberId": "m"});
        replay(
            &mut g,
            &[
                record(
                    5,
                    member.clone(),
                    Some(("ConsumerGroupMemberMetadataValue", json!({"clientId": "c", "serverAssignor": null}))),
                ),
                record(3, json!({"groupId": "g"}), Some(("ConsumerGroupMetadataValue", json!({"epoch": 2})))),
            ],
        );
        assert_eq!(g.groups["g"].state(), "Assigning");
        let target = json!({"assignmentEpoch": 2, "assignmentTimestamp": 0});
        replay(
            &mut g,
            &[record(6, json!({"groupId": "g"}), Some(("ConsumerGroupTargetAssignmentMetadataValue", target)))],
        );
        let assignment = |epoch: i32, state: i8| {
            record(
                8,
                json!({"groupId": "g", "memberId": "m"}),
                Some((
                    "ConsumerGroupCurrentMemberAssignmentValue",
                    json!({"memberEpoch": epoch, "previousMemberEpoch": 0, "state": state, "assignedPartitions": []}),
                )),
            )
        };
        replay(&mut g, &[assignment(1, 0)]);
        assert_eq!(g.groups["g"].state(), "Reconciling");
        replay(&mut g, &[assignment(2, 2)]);
        assert_eq!(g.groups["g"].state(), "Reconciling", "unreleased partitions");
        replay(&mut g, &[assignment(2, 0)]);
        assert_eq!(g.groups["g"].state(), "Stable");
        assert_eq!(g.groups["g"].assignor().as_deref(), Some("uniform"));
        replay(&mut g, &[record(5, member, None)]);
        assert_eq!(g.groups["g"].state(), "Empty");
        assert_eq!(g.groups["g"].group_type.name(), "Consumer");
    }

    /// `StreamsGroup.maybeUpdateGroupState`: a member is reconciled when
    /// its `streams.MemberState` is STABLE, which is 1 (not the 0 of
    /// `modern.MemberState`): one live member at the target assignment's
    /// epoch is Stable, as `kafka-streams-groups --describe` said of Kafka
    /// 4.3.1's and 4.4.0's groups (issue 50).
    #[test]
    fn a_streams_group_is_stable_once_its_member_is() {
        let mut g = Groups::default();
        let group = json!({"groupId": "w"});
        let member = json!({"groupId": "w", "memberId": "m"});
        let assignment = |state: i8| {
            record(
                22,
                member.clone(),
                Some((
                    "StreamsGroupCurrentMemberAssignmentValue",
                    json!({"memberEpoch": 2, "previousMemberEpoch": 1, "state": state,
                           "activeTasks": [], "standbyTasks": [], "warmupTasks": [],
                           "activeTasksPendingRevocation": [], "standbyTasksPendingRevocation": [],
                           "warmupTasksPendingRevocation": []}),
                )),
            )
        };
        replay(
            &mut g,
            &[
                record(
                    19,
                    member.clone(),
                    Some((
                        "StreamsGroupMemberMetadataValue",
                        json!({"instanceId": null, "rackId": null, "clientId": "c", "clientHost": "/h",
                               "rebalanceTimeoutMs": 1000, "topologyEpoch": 0, "processId": "p",
                               "userEndpoint": null, "clientTags": []}),
                    )),
                ),
                record(
                    23,
                    group.clone(),
                    Some(("StreamsGroupTopologyValue", json!({"epoch": 0, "subtopologies": []}))),
                ),
                record(
                    17,
                    group.clone(),
                    Some((
                        "StreamsGroupMetadataValue",
                        json!({"epoch": 2, "metadataHash": 0, "validatedTopologyEpoch": 0}),
                    )),
                ),
                record(
                    20,
                    group,
                    Some((
                        "StreamsGroupTargetAssignmentMetadataValue",
                        json!({"assignmentEpoch": 2, "assignmentTimestamp": 0}),
                    )),
                ),
                assignment(2),
            ],
        );
        assert_eq!(g.groups["w"].state(), "Reconciling", "unrevoked tasks");
        replay(&mut g, &[assignment(1)]);
        assert_eq!(g.groups["w"].state(), "Stable");
    }

    /// `ShareCoordinatorShard`: a snapshot replaces, an update merges (an
    /// uninitialized start offset keeps the last; the delivery complete
    /// count is the update's); the lag is none until both are known.
    #[test]
    fn share_state_snapshots_and_updates_merge_as_the_share_coordinator_does() {
        let key = |t: i16| {
            let mut k = t.to_be_bytes().to_vec();
            let name = if t == 0 { "ShareSnapshotKey" } else { "ShareUpdateKey" };
            let v = json!({"groupId": "s", "topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "partition": 0});
            k.extend(kmsg::coordinator::encode_versioned(name, 0, &v).unwrap().split_off(2));
            k
        };
        let snapshot = kmsg::coordinator::encode_versioned(
            "ShareSnapshotValue",
            0,
            &json!({"snapshotEpoch": 0, "stateEpoch": 2, "leaderEpoch": 0, "startOffset": -1,
                    "createTimestamp": 0, "writeTimestamp": 0, "stateBatches": []}),
        )
        .unwrap();
        let update = |start: i64, complete: i32| {
            kmsg::coordinator::encode_versioned(
                "ShareUpdateValue",
                0,
                &json!({"snapshotEpoch": 0, "leaderEpoch": -1, "startOffset": start,
                        "deliveryCompleteCount": complete, "stateBatches": []}),
            )
            .unwrap()
        };
        let mut s = ShareStates::default();
        let mut at = 0;
        let mut apply = |s: &mut ShareStates, t: i16, v: &[u8]| {
            at += 1;
            s.apply(kmsg::coordinator::decode_share_record(Some(&key(t)), Some(v)), (0, at));
        };
        apply(&mut s, 0, &snapshot);
        let state = |s: &ShareStates| s.partitions.values().next().unwrap().clone();
        assert_eq!(share_lag(&state(&s), 100), None, "not initialized");
        apply(&mut s, 1, &update(20, 5));
        assert_eq!((state(&s).start_offset, state(&s).state_epoch, state(&s).leader_epoch), (20, 2, 0));
        assert_eq!(share_lag(&state(&s), 100), Some(75));
        apply(&mut s, 1, &update(-1, 7));
        assert_eq!((state(&s).start_offset, state(&s).delivery_complete_count), (20, 7));
        assert_eq!(state(&s).at, (0, 3));
        // a snapshot replaces all of it
        apply(&mut s, 0, &snapshot);
        assert_eq!(state(&s).start_offset, -1);
    }

    #[test]
    fn every_commit_version_loads() {
        for version in 0..=4 {
            let mut g = Groups::default();
            apply(&mut g, &commit_key("g", "t", 0), Some(&commit_value(version, 42)), None);
            let c = &g.offsets[&("g".to_string(), "t".to_string(), 0)];
            assert_eq!((c.offset, c.version, c.commit_timestamp), (42, version, 1000), "v{version}");
            assert_eq!(c.expire_timestamp, (version == 1).then_some(2000), "v{version}");
            assert_eq!(c.leader_epoch, if version >= 3 { 4 } else { -1 }, "v{version}");
        }
    }

    #[test]
    fn last_commit_wins_tombstones_remove_and_transactions_wait_for_their_marker() {
        let mut g = Groups::default();
        let k = commit_key("g", "t", 0);
        apply(&mut g, &k, Some(&commit_value(3, 1)), None);
        apply(&mut g, &k, Some(&commit_value(3, 2)), None);
        assert_eq!(g.offsets.values().next().unwrap().offset, 2);
        // a transactional commit counts once committed, an aborted one never
        apply(&mut g, &k, Some(&commit_value(3, 10)), Some(7));
        assert_eq!(g.offsets.values().next().unwrap().offset, 2);
        g.end_txn(7, true);
        assert_eq!(g.offsets.values().next().unwrap().offset, 10);
        apply(&mut g, &k, Some(&commit_value(3, 50)), Some(7));
        g.end_txn(7, false);
        assert_eq!(g.offsets.values().next().unwrap().offset, 10);
        // deleted or expired: a tombstone
        apply(&mut g, &k, None, None);
        assert!(g.offsets.is_empty());
        // a record that does not decode is counted, not fatal
        apply(&mut g, &[0, 99], Some(&[1, 2]), None);
        assert_eq!(g.undecoded, 1);
    }
}
