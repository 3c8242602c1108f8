//! The classic group coordinator (`GroupCoordinator`, `GroupMetadata` of
//! Kafka 3.9): groups, members, rebalances and committed offsets, held in
//! memory and written to `__consumer_offsets` as Kafka writes them
//! (`GroupMetadataManager`: an `OffsetCommitKey` (record type 1) / `OffsetCommitValue` v3
//! per committed partition, a `GroupMetadataKey` (type 2) / `GroupMetadataValue`
//! v3 when a rebalance completes), in the partition Kafka's hash names, so
//! `logtool groups`, `dump` and a real Kafka read them back.
//!
//! States (`GroupState`): Empty → PreparingRebalance (a member joined or
//! left) → CompletingRebalance (every member rejoined, or the rebalance
//! timed out: a new generation, a leader, a protocol) → Stable (the
//! leader's SyncGroup brought the assignments). A new group's first
//! rebalance waits `group.initial.rebalance.delay.ms` for more members
//! (`InitialDelayedJoin`). A member whose session times out is removed when
//! the group is next touched.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use bytes::Bytes;
use kmsg::records::group_metadata_value::MemberMetadata;
use kmsg::records::{GroupMetadataKey, GroupMetadataValue, OffsetCommitKey, OffsetCommitValue};

/// `group.min.session.timeout.ms` / `group.max.session.timeout.ms`.
pub const SESSION_TIMEOUT_RANGE: (i32, i32) = (6000, 1_800_000);

/// A group's state (one enum with `logrules::groups`).
pub use logrules::groups::GroupState as State;

/// A member.
#[derive(Clone, Debug)]
pub struct Member {
    /// Its member id.
    pub id: String,
    /// `group.instance.id` of a static member.
    pub instance_id: Option<String>,
    /// The client id it joined with.
    pub client_id: String,
    /// Its host, as Kafka names it (`/` and the address).
    pub client_host: String,
    /// Its session timeout.
    pub session_timeout_ms: i32,
    /// Its rebalance timeout.
    pub rebalance_timeout_ms: i32,
    /// (protocol name, metadata), in the member's order of preference.
    pub protocols: Vec<(String, Bytes)>,
    /// What the leader's SyncGroup assigned it.
    pub assignment: Bytes,
    last_heartbeat: Instant,
    /// Rejoined in the current rebalance.
    joined: bool,
}

impl Member {
    /// Its metadata for `protocol`.
    pub fn metadata(&self, protocol: Option<&str>) -> Bytes {
        self.protocols.iter().find(|(n, _)| Some(n.as_str()) == protocol).map(|(_, m)| m.clone()).unwrap_or_default()
    }
}

/// A committed offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed {
    /// The offset.
    pub offset: i64,
    /// The leader epoch committed with it (-1: none).
    pub leader_epoch: i32,
    /// The client's metadata string.
    pub metadata: String,
    /// When it was committed (ms).
    pub commit_timestamp: i64,
}

/// What a completed join tells one member.
#[derive(Clone, Debug)]
pub struct JoinResult {
    /// The new generation.
    pub generation: i32,
    /// The protocol chosen.
    pub protocol: Option<String>,
    /// The leader's member id.
    pub leader: String,
    /// The members and their metadata (the leader's answer only).
    pub members: Vec<(String, Option<String>, Bytes)>,
}

/// A classic group.
#[derive(Debug)]
pub struct Group {
    /// The group id.
    pub id: String,
    /// Its state.
    pub state: State,
    /// Its generation.
    pub generation: i32,
    /// The protocol type its members joined with (`consumer`, ...).
    pub protocol_type: Option<String>,
    /// The protocol chosen at the last rebalance.
    pub protocol: Option<String>,
    /// The leader's member id.
    pub leader: Option<String>,
    /// Its members, by id.
    pub members: BTreeMap<String, Member>,
    /// Member ids handed out with MEMBER_ID_REQUIRED, not joined yet.
    pending: HashSet<String>,
    /// When the current join phase ends at the latest.
    deadline: Option<Instant>,
    /// The results of the last completed join, by member.
    pub results: BTreeMap<String, JoinResult>,
    /// Its committed offsets, by (topic, partition).
    pub offsets: BTreeMap<(String, i32), Committed>,
    /// When its state last changed (ms).
    pub state_timestamp: i64,
}

/// The Kafka error codes the coordinator answers with.
mod code {
    /// `UNKNOWN_MEMBER_ID`.
    pub const UNKNOWN_MEMBER_ID: i16 = 25;
    /// `ILLEGAL_GENERATION`.
    pub const ILLEGAL_GENERATION: i16 = 22;
    /// `INCONSISTENT_GROUP_PROTOCOL`.
    pub const INCONSISTENT_GROUP_PROTOCOL: i16 = 23;
    /// `INVALID_SESSION_TIMEOUT`.
    pub const INVALID_SESSION_TIMEOUT: i16 = 26;
    /// `REBALANCE_IN_PROGRESS`.
    pub const REBALANCE_IN_PROGRESS: i16 = 27;
    /// `MEMBER_ID_REQUIRED`.
    pub const MEMBER_ID_REQUIRED: i16 = 79;
    /// `FENCED_INSTANCE_ID`.
    pub const FENCED_INSTANCE_ID: i16 = 82;
}
pub use code::*;

impl Group {
    /// A new, empty group.
    pub fn new(id: &str) -> Group {
        Group {
            id: id.to_string(),
            state: State::Empty,
            generation: 0,
            protocol_type: None,
            protocol: None,
            leader: None,
            members: BTreeMap::new(),
            pending: HashSet::new(),
            deadline: None,
            results: BTreeMap::new(),
            offsets: BTreeMap::new(),
            state_timestamp: -1,
        }
    }

    /// Remove the members whose session expired (not while they wait in a
    /// join); a rebalance starts when some went.
    pub fn expire(&mut self, now: Instant) {
        let dead: Vec<String> = self
            .members
            .values()
            .filter(|m| {
                !(self.state == State::PreparingRebalance && m.joined)
                    && now.duration_since(m.last_heartbeat)
                        > Duration::from_millis(u64::try_from(m.session_timeout_ms).unwrap_or(0))
            })
            .map(|m| m.id.clone())
            .collect();
        for id in &dead {
            self.members.remove(id);
        }
        if !dead.is_empty() {
            self.prepare_rebalance(now);
        }
    }

    fn max_rebalance_timeout(&self) -> Duration {
        Duration::from_millis(
            u64::try_from(self.members.values().map(|m| m.rebalance_timeout_ms).max().unwrap_or(0)).unwrap_or(0),
        )
    }

    /// Start (or keep) a rebalance: every member must rejoin.
    fn prepare_rebalance(&mut self, now: Instant) {
        if self.state == State::PreparingRebalance {
            return;
        }
        self.state = State::PreparingRebalance;
        for m in self.members.values_mut() {
            m.joined = false;
        }
        self.deadline = Some(crate::after(now, self.max_rebalance_timeout()));
    }

    /// JoinGroup, the part before waiting: the member (re)joins. Returns its
    /// id, or MEMBER_ID_REQUIRED with a new id, or a refusal.
    #[allow(clippy::too_many_arguments)]
    pub fn join(
        &mut self,
        now: Instant,
        member_id: &str,
        instance_id: Option<String>,
        client_id: &str,
        client_host: &str,
        session_timeout_ms: i32,
        rebalance_timeout_ms: i32,
        protocol_type: &str,
        protocols: Vec<(String, Bytes)>,
        require_known_id: bool,
        initial_delay: Duration,
        new_id: impl FnOnce() -> String,
    ) -> Result<String, (i16, Option<String>)> {
        self.expire(now);
        if !(SESSION_TIMEOUT_RANGE.0..=SESSION_TIMEOUT_RANGE.1).contains(&session_timeout_ms) {
            return Err((INVALID_SESSION_TIMEOUT, None));
        }
        if protocol_type.is_empty() || protocols.is_empty() {
            return Err((INCONSISTENT_GROUP_PROTOCOL, None));
        }
        if !self.members.is_empty() {
            // every member must share the type and one protocol
            let same_type = self.protocol_type.as_deref() == Some(protocol_type);
            let shared =
                protocols.iter().any(|(p, _)| self.members.values().all(|m| m.protocols.iter().any(|(q, _)| q == p)));
            if !same_type || !shared {
                return Err((INCONSISTENT_GROUP_PROTOCOL, None));
            }
        }
        // a static member's (KIP-345) current member id
        let holder = instance_id
            .as_deref()
            .and_then(|i| self.members.values().find(|m| m.instance_id.as_deref() == Some(i)))
            .map(|m| m.id.clone());
        let mut carried = None;
        let id = if member_id.is_empty() {
            let id = new_id();
            if let Some(old) = holder {
                // `GroupCoordinator.doStaticNewMemberJoinGroup`: the new
                // id replaces the one its instance id had (that one is
                // fenced from now on), with its assignment
                carried = self.members.remove(&old).map(|m| m.assignment);
            } else if require_known_id && instance_id.is_none() {
                // (a static member joins at once: no MEMBER_ID_REQUIRED)
                self.pending.insert(id.clone());
                return Err((MEMBER_ID_REQUIRED, Some(id)));
            }
            id
        } else if holder.as_deref().is_some_and(|h| h != member_id) {
            return Err((FENCED_INSTANCE_ID, None));
        } else if self.members.contains_key(member_id) || self.pending.contains(member_id) {
            member_id.to_string()
        } else {
            return Err((UNKNOWN_MEMBER_ID, None));
        };
        self.pending.remove(&id);
        let was_empty = self.state == State::Empty;
        self.members.insert(
            id.clone(),
            Member {
                id: id.clone(),
                instance_id,
                client_id: client_id.to_string(),
                client_host: client_host.to_string(),
                session_timeout_ms,
                rebalance_timeout_ms,
                protocols,
                assignment: carried.or_else(|| self.members.get(&id).map(|m| m.assignment.clone())).unwrap_or_default(),
                last_heartbeat: now,
                joined: false,
            },
        );
        self.protocol_type = Some(protocol_type.to_string());
        if self.state != State::PreparingRebalance {
            self.prepare_rebalance(now);
            if was_empty {
                // InitialDelayedJoin: wait for more members first
                self.deadline = Some(crate::after(now, initial_delay.min(self.max_rebalance_timeout())));
            }
        } else if let Some(d) = self.deadline {
            // a new member during the initial delay extends it (up to the rebalance timeout)
            if self.generation == 0 || self.results.is_empty() {
                self.deadline =
                    Some(d.max(crate::after(now, initial_delay)).min(crate::after(now, self.max_rebalance_timeout())));
            }
        }
        if let Some(m) = self.members.get_mut(&id) {
            m.joined = true;
        }
        Ok(id)
    }

    /// Whether the join phase can complete now (every member rejoined and
    /// no initial delay pending, or the deadline passed).
    pub fn join_ready(&self, now: Instant) -> bool {
        if self.state != State::PreparingRebalance {
            return false;
        }
        let past = self.deadline.is_none_or(|d| now >= d);
        let all = self.members.values().all(|m| m.joined);
        past || (all && self.generation > 0 && !self.results.is_empty())
    }

    /// When the join phase ends at the latest.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Complete the join phase (`GroupCoordinator.onCompleteJoin`): members
    /// that did not rejoin go, a new generation, the protocol most members
    /// prefer, a leader. Returns whether the group is now empty (its
    /// metadata is then written at once).
    pub fn complete_join(&mut self, now_ms: i64) -> bool {
        self.members.retain(|_, m| m.joined);
        self.generation = self.generation.saturating_add(1);
        self.deadline = None;
        self.results.clear();
        self.state_timestamp = now_ms;
        if self.members.is_empty() {
            self.state = State::Empty;
            self.protocol = None;
            self.leader = None;
            return true;
        }
        // GroupMetadata.selectProtocol: each member votes for its most
        // preferred protocol among those every member supports
        let candidates: Vec<String> = self
            .members
            .values()
            .next()
            .map(|m| m.protocols.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|p| self.members.values().all(|m| m.protocols.iter().any(|(q, _)| q == p)))
            .collect();
        let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
        for m in self.members.values() {
            if let Some((p, _)) = m.protocols.iter().find(|(p, _)| candidates.contains(p)) {
                let n = votes.entry(p.as_str()).or_default();
                *n = n.saturating_add(1);
            }
        }
        let protocol = candidates.iter().max_by_key(|p| votes.get(p.as_str()).copied().unwrap_or(0)).cloned();
        self.protocol = protocol;
        if self.leader.as_ref().is_none_or(|l| !self.members.contains_key(l)) {
            self.leader = self.members.keys().next().cloned();
        }
        let leader = self.leader.clone().unwrap_or_default();
        let all: Vec<(String, Option<String>, Bytes)> = self
            .members
            .values()
            .map(|m| (m.id.clone(), m.instance_id.clone(), m.metadata(self.protocol.as_deref())))
            .collect();
        for id in self.members.keys() {
            let members = if *id == leader { all.clone() } else { Vec::new() };
            self.results.insert(
                id.clone(),
                JoinResult {
                    generation: self.generation,
                    protocol: self.protocol.clone(),
                    leader: leader.clone(),
                    members,
                },
            );
        }
        self.state = State::CompletingRebalance;
        false
    }

    /// Check a member and generation (SyncGroup, Heartbeat, OffsetCommit).
    pub fn check_member(&self, member_id: &str, generation: i32) -> Result<(), i16> {
        if !self.members.contains_key(member_id) {
            return Err(UNKNOWN_MEMBER_ID);
        }
        if generation != self.generation {
            return Err(ILLEGAL_GENERATION);
        }
        Ok(())
    }

    /// Heartbeat.
    pub fn heartbeat(&mut self, now: Instant, member_id: &str, generation: i32) -> i16 {
        self.expire(now);
        if let Err(code) = self.check_member(member_id, generation) {
            return code;
        }
        if let Some(m) = self.members.get_mut(member_id) {
            m.last_heartbeat = now;
        }
        if self.state == State::PreparingRebalance { REBALANCE_IN_PROGRESS } else { 0 }
    }

    /// The leader's SyncGroup: every member's assignment; the group is
    /// Stable.
    pub fn assign(&mut self, assignments: BTreeMap<String, Bytes>) {
        for (id, m) in self.members.iter_mut() {
            m.assignment = assignments.get(id).cloned().unwrap_or_default();
        }
        self.state = State::Stable;
    }

    /// LeaveGroup of one member.
    pub fn leave(&mut self, now: Instant, member_id: &str) -> i16 {
        if self.members.remove(member_id).is_none() {
            return UNKNOWN_MEMBER_ID;
        }
        self.prepare_rebalance(now);
        // nobody left to rejoin: the rebalance completes at once
        if self.members.is_empty() {
            self.deadline = Some(now);
        }
        0
    }

    /// The `GroupMetadataKey` (type 2) and `GroupMetadataValue` v3 record of the
    /// group now (`GroupMetadataManager.groupMetadataValue`).
    pub fn metadata_record(&self) -> (Vec<u8>, Option<Vec<u8>>) {
        use base64::Engine;
        let b64 = |b: &Bytes| base64::engine::general_purpose::STANDARD.encode(b);
        let key = GroupMetadataKey { group: self.id.clone() };
        let key = kmsg::coordinator::encode_group_key_message(2, &key).unwrap_or_default();
        let members = self
            .members
            .values()
            .map(|m| MemberMetadata {
                member_id: m.id.clone(),
                group_instance_id: m.instance_id.clone(),
                client_id: m.client_id.clone(),
                client_host: m.client_host.clone(),
                rebalance_timeout: m.rebalance_timeout_ms,
                session_timeout: m.session_timeout_ms,
                subscription: b64(&m.metadata(self.protocol.as_deref())),
                assignment: b64(&m.assignment),
            })
            .collect();
        let value = GroupMetadataValue {
            protocol_type: self.protocol_type.clone().unwrap_or_default(),
            generation: self.generation,
            protocol: self.protocol.clone(),
            leader: self.leader.clone(),
            current_state_timestamp: self.state_timestamp,
            members,
        };
        (key, kmsg::coordinator::encode_message(3, &value).ok())
    }
}

/// The `OffsetCommitKey` (type 1) and `OffsetCommitValue` v3 record of one
/// committed partition (`GroupMetadataManager.offsetCommitValue`).
pub fn offset_record(group: &str, topic: &str, partition: i32, c: &Committed) -> (Vec<u8>, Option<Vec<u8>>) {
    let key = OffsetCommitKey { group: group.to_string(), topic: topic.to_string(), partition };
    let key = kmsg::coordinator::encode_group_key_message(1, &key).unwrap_or_default();
    let value = OffsetCommitValue {
        offset: c.offset,
        leader_epoch: c.leader_epoch,
        metadata: c.metadata.clone(),
        commit_timestamp: c.commit_timestamp,
        ..Default::default()
    };
    (key, kmsg::coordinator::encode_message(3, &value).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join(g: &mut Group, now: Instant, id: &str, protocols: &[&str]) -> Result<String, (i16, Option<String>)> {
        let protocols = protocols.iter().map(|p| (p.to_string(), Bytes::from(format!("meta-{id}-{p}")))).collect();
        g.join(
            now,
            id,
            None,
            "client",
            "/127.0.0.1",
            10_000,
            20_000,
            "consumer",
            protocols,
            true,
            Duration::from_millis(100),
            || format!("{id}-new"),
        )
    }

    /// A static member (KIP-345, `group.instance.id`) joins without
    /// MEMBER_ID_REQUIRED; joining again with a new member id replaces its
    /// old one, which is fenced, and keeps its assignment.
    #[test]
    fn a_static_member_joins_at_once_and_replaces_its_old_id() {
        let t0 = Instant::now();
        let mut g = Group::new("g");
        let protocols = || vec![("range".to_string(), Bytes::from_static(b"m"))];
        let static_join = |g: &mut Group, id: &str, new: &str| {
            let new = new.to_string();
            g.join(
                t0,
                id,
                Some("gi".into()),
                "c",
                "/h",
                10_000,
                20_000,
                "consumer",
                protocols(),
                true,
                Duration::ZERO,
                move || new,
            )
        };
        assert_eq!(static_join(&mut g, "", "a").unwrap(), "a");
        assert!(g.join_ready(t0));
        g.complete_join(1);
        g.assign([("a".to_string(), Bytes::from_static(b"p0"))].into());
        assert_eq!(static_join(&mut g, "", "b").unwrap(), "b");
        assert!(!g.members.contains_key("a"));
        assert_eq!(g.members["b"].assignment, Bytes::from_static(b"p0"));
        assert_eq!(static_join(&mut g, "a", "c"), Err((FENCED_INSTANCE_ID, None)));
    }

    #[test]
    fn a_first_rebalance_waits_then_a_second_member_makes_another() {
        let t0 = Instant::now();
        let mut g = Group::new("g");
        // v4+: the first join gets an id to come back with
        assert_eq!(join(&mut g, t0, "", &["range"]), Err((MEMBER_ID_REQUIRED, Some("-new".into()))));
        assert_eq!(join(&mut g, t0, "-new", &["range", "roundrobin"]).unwrap(), "-new");
        // the initial delay holds the join phase open
        assert!(!g.join_ready(t0));
        assert!(g.join_ready(t0 + Duration::from_millis(100)));
        assert!(!g.complete_join(1));
        assert_eq!((g.state, g.generation, g.protocol.as_deref()), (State::CompletingRebalance, 1, Some("range")));
        let r = &g.results["-new"];
        assert_eq!((r.leader.as_str(), r.members.len()), ("-new", 1));
        g.assign([("-new".to_string(), Bytes::from_static(b"all"))].into());
        assert_eq!(g.state, State::Stable);
        assert_eq!(g.heartbeat(t0, "-new", 1), 0);
        assert_eq!(g.heartbeat(t0, "-new", 0), ILLEGAL_GENERATION);
        assert_eq!(g.heartbeat(t0, "x", 1), UNKNOWN_MEMBER_ID);
        // a second member: a rebalance the first learns of by heartbeat
        let t1 = t0 + Duration::from_millis(200);
        g.pending.insert("b".into());
        join(&mut g, t1, "b", &["roundrobin", "range"]).unwrap();
        assert_eq!(g.heartbeat(t1, "-new", 1), REBALANCE_IN_PROGRESS);
        assert!(!g.join_ready(t1), "waits for the first to rejoin");
        join(&mut g, t1, "-new", &["range", "roundrobin"]).unwrap();
        assert!(g.join_ready(t1));
        g.complete_join(2);
        assert_eq!(g.generation, 2);
        assert_eq!(g.results["-new"].members.len(), 2, "the leader learns every member");
        assert!(g.results["b"].members.is_empty());
        // a member that does not rejoin in time is dropped
        let t2 = t1 + Duration::from_millis(50);
        assert_eq!(g.leave(t2, "b"), 0);
        assert_eq!(g.state, State::PreparingRebalance);
        assert!(!g.join_ready(t2));
        assert!(g.join_ready(t2 + Duration::from_millis(20_000)));
        assert!(g.complete_join(3), "nobody rejoined: the group is empty");
        assert_eq!((g.state, g.generation), (State::Empty, 3));
    }

    #[test]
    fn records_decode_as_the_coordinator_wrote_them() {
        let mut g = Group::new("g");
        g.protocol_type = Some("consumer".into());
        let (key, value) = g.metadata_record();
        let d = logrules::internal::Decoder::ConsumerOffsets.decode(Some(&key), value.as_deref());
        assert_eq!((d["record"].as_str(), d["version"].as_i64()), (Some("GroupMetadata"), Some(3)));
        let c = Committed { offset: 5, leader_epoch: -1, metadata: "m".into(), commit_timestamp: 9 };
        let (key, value) = offset_record("g", "t", 2, &c);
        let d = logrules::internal::Decoder::ConsumerOffsets.decode(Some(&key), value.as_deref());
        assert_eq!(d["key"]["topic"], "t");
        assert_eq!((d["value"]["offset"].as_i64(), d["version"].as_i64()), (Some(5), Some(3)));
    }
}
