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
//!   from `ConsumerGroupMetadata`, members from `ConsumerGroupMemberMetadata`
//!   and their assignments from `ConsumerGroupCurrentMemberAssignment`;
//!   tombstones remove them.
//!
//! A record that does not decode is counted and skipped, as the coordinator
//! skips unknown record types.

use std::collections::{BTreeMap, HashMap};

use base64::Engine;
use kmsg::coordinator::GroupRecord;
use kmsg::records::{ConsumerProtocolAssignment, GroupMetadataValue};

use crate::control::ControlRecord;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::partition::Partition;

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
    /// Assigned partitions (topic, partitions).
    pub assignment: Vec<(String, Vec<i32>)>,
}

/// A group's last known state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    /// `classic` or `consumer` (KIP-848).
    pub protocol: &'static str,
    /// The classic group's protocol type (`consumer`, `connect`, ...).
    pub protocol_type: Option<String>,
    /// The assignor (classic) .
    pub assignor: Option<String>,
    /// Generation (classic) or group epoch (consumer).
    pub generation: i32,
    /// The leader (classic).
    pub leader: Option<String>,
    /// Members, by id.
    pub members: BTreeMap<String, Member>,
    /// When its state last changed (classic, value version 2+).
    pub state_timestamp: Option<i64>,
}

impl Group {
    /// The state the coordinator loads it in.
    pub fn state(&self) -> GroupState {
        if self.members.is_empty() { GroupState::Empty } else { GroupState::Stable }
    }
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
        })
        .map(|m| (m.member_id.clone(), m))
        .collect();
    Group {
        protocol: "classic",
        protocol_type: Some(v.protocol_type),
        assignor: v.protocol,
        generation: v.generation,
        leader: v.leader,
        members,
        state_timestamp: Some(v.current_state_timestamp).filter(|t| *t >= 0),
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
                if let Ok(ControlRecord::EndTxn(m)) = crate::control::parse(rec, position) {
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
            GroupRecord::ConsumerGroupMetadata(key, None) => {
                self.groups.remove(&key.group_id);
            }
            GroupRecord::ConsumerGroupMetadata(key, Some(v)) => {
                let g = self.groups.entry(key.group_id).or_default();
                g.protocol = "consumer";
                g.protocol_type = Some("consumer".into());
                g.generation = v.epoch;
            }
            GroupRecord::ConsumerGroupMemberMetadata(key, value) => {
                let Some(m) = self.member(&key.group_id, &key.member_id, value.is_some()) else { return };
                if let Some(v) = value {
                    m.client_id = v.client_id;
                    m.client_host = v.client_host;
                    m.group_instance_id = v.instance_id;
                }
            }
            GroupRecord::ConsumerGroupCurrentMemberAssignment(key, value) => {
                let Some(m) = self.member(&key.group_id, &key.member_id, value.is_some()) else { return };
                if let Some(v) = value {
                    m.assignment = v.assigned_partitions.into_iter().map(|t| (t.topic_id, t.partitions)).collect();
                }
            }
            GroupRecord::Other(_) => {}
        }
    }

    /// A KIP-848 member: made when `present` (with its group, which a
    /// member's record may come before: Kafka writes a new group's first
    /// member before the group's metadata in one batch, and
    /// `GroupMetadataManager.replay` creates the group
    /// (`getOrMaybeCreatePersistedConsumerGroup`)), removed (and `None`)
    /// when its record is a tombstone.
    fn member(&mut self, group: &str, member: &str, present: bool) -> Option<&mut Member> {
        if !present {
            self.groups.get_mut(group)?.members.remove(member);
            return None;
        }
        let g = self.groups.entry(group.to_string()).or_insert_with(|| Group {
            protocol: "consumer",
            protocol_type: Some("consumer".into()),
            ..Group::default()
        });
        let m = g.members.entry(member.to_string()).or_default();
        m.member_id = member.to_string();
        Some(m)
    }
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
        assert_eq!((grp.protocol, grp.generation), ("consumer", 1));
        let m = &grp.members["m1"];
        assert_eq!((m.client_id.as_str(), m.client_host.as_str()), ("c1", "/127.0.0.1"));
        // a tombstone of a member of no group makes no group
        let gone = kmsg::coordinator::encode_group_key(5, &json!({"groupId": "h", "memberId": "m"})).unwrap();
        apply(&mut g, &gone, None, None);
        assert!(!g.groups.contains_key("h"));
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
