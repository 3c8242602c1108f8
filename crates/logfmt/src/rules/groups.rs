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

use serde_json::Value;

use crate::control::ControlRecord;
use crate::error::{Error, Result};
use crate::internal::Decoder;
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

fn text(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

fn int(v: &Value, k: &str) -> Option<i64> {
    v.get(k).and_then(Value::as_i64)
}

/// `[{topic(Name)?, partitions}]` as the assignment schemas spell it.
fn assignment(v: Option<&Value>) -> Vec<(String, Vec<i32>)> {
    let Some(list) = v.and_then(Value::as_array) else { return Vec::new() };
    list.iter()
        .filter_map(|t| {
            let topic = text(t, "topic").or_else(|| text(t, "topicId"))?;
            let parts = t.get("partitions")?.as_array()?;
            Some((topic, parts.iter().filter_map(Value::as_i64).filter_map(|p| i32::try_from(p).ok()).collect()))
        })
        .collect()
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
            let d = Decoder::ConsumerOffsets.decode(rec.key, rec.value);
            let txn = h.is_transactional().then_some(h.producer_id);
            self.apply(&d, (p.name.partition, rec.offset), txn);
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
    fn apply(&mut self, d: &Value, at: (i32, i64), txn: Option<i64>) {
        if d.get("error").is_some() {
            self.undecoded = self.undecoded.saturating_add(1);
            return;
        }
        let key = d.get("key").unwrap_or(&Value::Null);
        let value = d.get("value").filter(|v| !v.is_null());
        let group = text(key, "group").or_else(|| text(key, "groupId")).unwrap_or_default();
        match d.get("record").and_then(Value::as_str).unwrap_or_default() {
            "OffsetCommit" => {
                let k = (group, text(key, "topic").unwrap_or_default(), int(key, "partition").unwrap_or(-1) as i32);
                let commit = value.map(|v| Commit {
                    offset: int(v, "offset").unwrap_or(-1),
                    leader_epoch: int(v, "leaderEpoch").unwrap_or(-1) as i32,
                    metadata: text(v, "metadata").unwrap_or_default(),
                    commit_timestamp: int(v, "commitTimestamp").unwrap_or(-1),
                    expire_timestamp: int(v, "expireTimestamp").filter(|t| *t >= 0),
                    version: d.get("version").and_then(Value::as_i64).unwrap_or(0) as i16,
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
            "GroupMetadata" => match value {
                None => {
                    self.groups.remove(&group);
                }
                Some(v) => {
                    let members = v
                        .get("members")
                        .and_then(Value::as_array)
                        .map(|ms| {
                            ms.iter()
                                .map(|m| Member {
                                    member_id: text(m, "memberId").unwrap_or_default(),
                                    group_instance_id: text(m, "groupInstanceId"),
                                    client_id: text(m, "clientId").unwrap_or_default(),
                                    client_host: text(m, "clientHost").unwrap_or_default(),
                                    assignment: m
                                        .get("assignment")
                                        .map(|a| assignment(a.get("assignedPartitions")))
                                        .unwrap_or_default(),
                                })
                                .map(|m| (m.member_id.clone(), m))
                                .collect()
                        })
                        .unwrap_or_default();
                    self.groups.insert(
                        group,
                        Group {
                            protocol: "classic",
                            protocol_type: text(v, "protocolType"),
                            assignor: text(v, "protocol"),
                            generation: int(v, "generation").unwrap_or(0) as i32,
                            leader: text(v, "leader"),
                            members,
                            state_timestamp: int(v, "currentStateTimestamp").filter(|t| *t >= 0),
                        },
                    );
                }
            },
            "ConsumerGroupMetadata" => match value {
                None => {
                    self.groups.remove(&group);
                }
                Some(v) => {
                    let g = self.groups.entry(group).or_default();
                    g.protocol = "consumer";
                    g.protocol_type = Some("consumer".into());
                    g.generation = int(v, "epoch").unwrap_or(0) as i32;
                }
            },
            "ConsumerGroupMemberMetadata" | "ConsumerGroupCurrentMemberAssignment" => {
                let member = text(key, "memberId").unwrap_or_default();
                let Some(g) = self.groups.get_mut(&group) else { return };
                match value {
                    None => {
                        g.members.remove(&member);
                    }
                    Some(v) => {
                        let m = g.members.entry(member.clone()).or_default();
                        m.member_id = member;
                        if let Some(c) = text(v, "clientId") {
                            m.client_id = c;
                            m.client_host = text(v, "clientHost").unwrap_or_default();
                            m.group_instance_id = text(v, "instanceId");
                        }
                        if v.get("assignedPartitions").is_some() {
                            m.assignment = assignment(v.get("assignedPartitions"));
                        }
                    }
                }
            }
            _ => {}
        }
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
        let d = Decoder::ConsumerOffsets.decode(Some(key), value);
        g.apply(&d, (0, 0), txn);
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
