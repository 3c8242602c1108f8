//! The KIP-932 share group protocol as Kafka 4.3.1's group coordinator
//! runs it: a `ShareGroupHeartbeat` (join, heartbeat, leave) or a session
//! timeout in, the records the coordinator writes to `__consumer_offsets`
//! and the answer out (`GroupMetadataManager.shareGroupHeartbeat`,
//! `shareGroupLeave`, `shareGroupFenceMember`; the `simple` assignor,
//! `SimpleHomogeneousAssignmentBuilder`; `ShareGroupAssignmentBuilder`),
//! and the share-state initialization it asks of the share coordinator
//! (`maybeCreateInitializeShareGroupStateRequest`,
//! `initializeShareGroupState`).
//!
//! Nothing here changes a group: a group changes only when its records are
//! replayed ([`logrules::groups::Groups::replay`]), as Kafka's coordinator
//! replays what it writes; `logtool broker` asks this and replays what it
//! wrote, `logtool groups` replays what is on disk.
//!
//! One heartbeat, in Kafka's order:
//! 1. the member is created (epoch 0) or checked (an epoch ahead of the
//!    coordinator's, or behind it other than the previous one, is
//!    `FENCED_MEMBER_EPOCH`); a changed member writes
//!    `ShareGroupMemberMetadata`;
//! 2. a changed subscription, a change of the subscribed topics' metadata
//!    (their hash), or initialized partitions no target holds yet bump the
//!    group epoch (`ShareGroupMetadata`);
//! 3. a group epoch ahead of the target assignment's computes a new target
//!    over the partitions whose share state is initialized
//!    (`ShareGroupTargetAssignmentMember` for each member whose target
//!    changed, then `ShareGroupTargetAssignmentMetadata`);
//! 4. the member takes its target at once - a share partition is shared,
//!    nothing waits for a revocation (`ShareGroupCurrentMemberAssignment`);
//! 5. subscribed partitions whose share state is not initialized are
//!    marked initializing (`ShareGroupStatePartitionMetadata`) and handed
//!    to the share coordinator ([`Outcome::initialize`]), which writes
//!    their first `ShareSnapshot`; then [`initialized`] moves them to
//!    initialized, and the next heartbeat assigns them.
//!
//! A member that leaves (epoch -1) or is fenced writes the tombstones of its
//! current assignment, target assignment and metadata, then a bumped group
//! epoch.
//!
//! Not modelled: `group.share.assignment.interval.ms` (a target is computed
//! whenever the group epoch is ahead of it, as with an interval of 0);
//! members subscribed to different topics are assigned by the homogeneous
//! rule over every subscribed topic, each member then keeping the
//! partitions of its own topics (Kafka's `SimpleHeterogeneousAssignmentBuilder`
//! may pick other members).

use std::collections::{BTreeMap, BTreeSet};

use kmsg::coordinator::GroupRecord;
use kmsg::records::share_group_current_member_assignment_value::TopicPartitions as CurrentPartitions;
use kmsg::records::share_group_state_partition_metadata_value::{TopicInfo, TopicPartitionsInfo};
use kmsg::records::share_group_target_assignment_member_value::TopicPartition as TargetPartitions;
use kmsg::records::*;

use crate::consumer_group::{Refused, Topics, code, metadata_hash};
use crate::group_config::Timing;
use logrules::groups::{Group, GroupType, Member};

/// `group.share.max.size` (Kafka's default).
pub const MAX_SIZE: usize = 200;
/// The share group assignor (`SimpleAssignor`), as describe names it.
pub const ASSIGNOR: &str = "simple";
/// The member epoch of a member leaving (`LEAVE_GROUP_MEMBER_EPOCH`).
pub const LEAVE_EPOCH: i32 = -1;
/// A new group's epoch and target assignment epoch (`ModernGroup`,
/// `TargetAssignmentMetadata.INITIAL`).
const INITIAL_EPOCH: i32 = 1;

/// A ShareGroupHeartbeat request's fields.
#[derive(Clone, Debug, Default)]
pub struct Heartbeat {
    /// The group.
    pub group_id: String,
    /// The member id (the client makes it).
    pub member_id: String,
    /// The member epoch: 0 joins, -1 leaves.
    pub member_epoch: i32,
    /// The rack.
    pub rack_id: Option<String>,
    /// None: unchanged.
    pub subscribed_topic_names: Option<Vec<String>>,
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
    /// The partitions the member may fetch (topic id, partitions), when the
    /// answer carries them.
    pub assignment: Option<Vec<(String, Vec<i32>)>>,
}

/// Partitions by topic id.
type Target = BTreeMap<String, BTreeSet<i32>>;

/// What a heartbeat does: the records to write (in order), the answer,
/// and the share partitions to initialize once they are written (topic id,
/// topic name, partitions).
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The records, in the order Kafka writes them.
    pub records: Vec<GroupRecord>,
    /// The answer.
    pub answer: Answer,
    /// The partitions whose share state the share coordinator initializes
    /// (`InitializeShareGroupState`, start offset -1).
    pub initialize: Vec<(String, String, Vec<i32>)>,
}

fn refused(code: i16, message: impl Into<String>) -> Refused {
    Refused { code, message: message.into() }
}

/// `GroupCoordinatorService.throwIfShareGroupHeartbeatRequestIsInvalid`.
pub fn validate(hb: &Heartbeat) -> Result<(), Refused> {
    if hb.member_id.is_empty() {
        return Err(refused(code::INVALID_REQUEST, "MemberId can't be empty."));
    }
    if hb.group_id.is_empty() {
        return Err(refused(code::INVALID_REQUEST, "GroupId can't be empty."));
    }
    if hb.rack_id.as_deref() == Some("") {
        return Err(refused(code::INVALID_REQUEST, "RackId can't be empty."));
    }
    if hb.member_epoch == 0 {
        if hb.subscribed_topic_names.as_ref().is_none_or(Vec::is_empty) {
            return Err(refused(code::INVALID_REQUEST, "SubscribedTopicNames must be set in first request."));
        }
    } else if hb.member_epoch < LEAVE_EPOCH {
        return Err(refused(code::INVALID_REQUEST, "MemberEpoch is invalid."));
    }
    Ok(())
}

/// A member as the heartbeat changes it (`ShareGroupMember`).
#[derive(Clone, PartialEq, Eq)]
struct M {
    epoch: i32,
    previous_epoch: i32,
    rack_id: Option<String>,
    client_id: String,
    client_host: String,
    topics: BTreeSet<String>,
    assigned: Target,
}

impl M {
    fn new() -> M {
        M {
            epoch: 0,
            previous_epoch: -1,
            rack_id: None,
            client_id: String::new(),
            client_host: String::new(),
            topics: BTreeSet::new(),
            assigned: Target::new(),
        }
    }

    fn of(m: &Member) -> M {
        M {
            epoch: m.member_epoch.unwrap_or(0),
            previous_epoch: m.previous_member_epoch.unwrap_or(-1),
            rack_id: m.rack_id.clone(),
            client_id: m.client_id.clone(),
            client_host: m.client_host.clone(),
            topics: m.subscribed_topic_names.iter().cloned().collect(),
            assigned: target_of(&m.assignment),
        }
    }

    /// The fields of `ShareGroupMemberMetadata`.
    fn metadata(&self) -> impl PartialEq + '_ {
        (&self.rack_id, &self.client_id, &self.client_host, &self.topics)
    }
}

fn target_of(list: &[(String, Vec<i32>)]) -> Target {
    list.iter().map(|(t, ps)| (t.clone(), ps.iter().copied().collect())).collect()
}

fn list_of(t: &Target) -> Vec<(String, Vec<i32>)> {
    t.iter().filter(|(_, ps)| !ps.is_empty()).map(|(t, ps)| (t.clone(), ps.iter().copied().collect())).collect()
}

fn member_record(group: &str, id: &str, m: &M) -> GroupRecord {
    GroupRecord::ShareGroupMemberMetadata(
        ShareGroupMemberMetadataKey { group_id: group.into(), member_id: id.into() },
        Some(ShareGroupMemberMetadataValue {
            rack_id: m.rack_id.clone(),
            client_id: m.client_id.clone(),
            client_host: m.client_host.clone(),
            subscribed_topic_names: m.topics.iter().cloned().collect(),
        }),
    )
}

fn current_record(group: &str, id: &str, m: &M) -> GroupRecord {
    let partitions = m
        .assigned
        .iter()
        .filter(|(_, ps)| !ps.is_empty())
        .map(|(t, ps)| CurrentPartitions { topic_id: t.clone(), partitions: ps.iter().copied().collect() });
    GroupRecord::ShareGroupCurrentMemberAssignment(
        ShareGroupCurrentMemberAssignmentKey { group_id: group.into(), member_id: id.into() },
        Some(ShareGroupCurrentMemberAssignmentValue {
            member_epoch: m.epoch,
            previous_member_epoch: m.previous_epoch,
            state: 0,
            assigned_partitions: partitions.collect(),
        }),
    )
}

fn target_record(group: &str, id: &str, t: &Target) -> GroupRecord {
    let partitions = t
        .iter()
        .filter(|(_, ps)| !ps.is_empty())
        .map(|(t, ps)| TargetPartitions { topic_id: t.clone(), partitions: ps.iter().copied().collect() });
    GroupRecord::ShareGroupTargetAssignmentMember(
        ShareGroupTargetAssignmentMemberKey { group_id: group.into(), member_id: id.into() },
        Some(ShareGroupTargetAssignmentMemberValue { topic_partitions: partitions.collect() }),
    )
}

fn epoch_record(group: &str, epoch: i32, hash: i64) -> GroupRecord {
    GroupRecord::ShareGroupMetadata(
        ShareGroupMetadataKey { group_id: group.into() },
        Some(ShareGroupMetadataValue { epoch, metadata_hash: hash }),
    )
}

/// (topic id, topic name, partitions) lists as the record carries them.
type InitList = Vec<(String, String, Vec<i32>)>;

fn state_record(
    group: &str,
    initializing: &InitList,
    initialized: &InitList,
    deleting: &[(String, String)],
) -> GroupRecord {
    let info = |l: &InitList| -> Vec<TopicPartitionsInfo> {
        l.iter()
            .map(|(id, name, ps)| TopicPartitionsInfo {
                topic_id: id.clone(),
                topic_name: name.clone(),
                partitions: ps.clone(),
            })
            .collect()
    };
    GroupRecord::ShareGroupStatePartitionMetadata(
        ShareGroupStatePartitionMetadataKey { group_id: group.into() },
        Some(ShareGroupStatePartitionMetadataValue {
            initializing_topics: info(initializing),
            initialized_topics: info(initialized),
            deleting_topics: deleting
                .iter()
                .map(|(id, name)| TopicInfo { topic_id: id.clone(), topic_name: name.clone() })
                .collect(),
        }),
    )
}

/// `combineInitMaps`: the union, by topic id, of two lists.
fn combine(a: &InitList, b: &InitList) -> InitList {
    let mut by_id: BTreeMap<String, (String, BTreeSet<i32>)> = BTreeMap::new();
    for (id, name, ps) in a.iter().chain(b) {
        let e = by_id.entry(id.clone()).or_insert_with(|| (name.clone(), BTreeSet::new()));
        e.1.extend(ps.iter().copied());
    }
    by_id.into_iter().map(|(id, (name, ps))| (id, name, ps.into_iter().collect())).collect()
}

/// The simple assignor (`SimpleHomogeneousAssignmentBuilder`): each
/// assignable partition shared by `ceil(members / partitions)` members,
/// each member given its share of `sharing * partitions` assignments (the
/// first ones one more when they do not divide); a member keeps what it
/// had up to its share, over-shared partitions are taken from members,
/// and the rest handed out round the unfilled members in partition order.
/// Members in id order (Kafka's follow its hash maps).
fn simple(
    old: &BTreeMap<String, Target>,
    subscribed: &BTreeSet<String>,
    assignable: &Target,
) -> BTreeMap<String, Target> {
    let ids: Vec<&String> = old.keys().collect();
    let n = ids.len();
    let partitions: Vec<(String, i32)> = assignable
        .iter()
        .filter(|(t, _)| subscribed.contains(*t))
        .flat_map(|(t, ps)| ps.iter().map(move |p| (t.clone(), *p)))
        .collect();
    if subscribed.is_empty() || n == 0 {
        return old.clone();
    }
    let t = partitions.len();
    let sharing = if t == 0 { 0 } else { n.div_ceil(t) };
    let total = sharing.saturating_mul(t);
    let ceil_share = |i: usize| total.saturating_mul(i).div_ceil(n);
    let desired: Vec<usize> = (0..n).map(|i| ceil_share(i.saturating_add(1)).saturating_sub(ceil_share(i))).collect();
    let mut new: BTreeMap<usize, Target> = BTreeMap::new();
    let mut by_partition: BTreeMap<(String, i32), BTreeSet<usize>> = BTreeMap::new();
    let mut by_member: BTreeMap<usize, BTreeSet<(String, i32)>> = BTreeMap::new();
    let mut unfilled: BTreeSet<usize> = BTreeSet::new();
    let mut overfilled: BTreeSet<usize> = BTreeSet::new();
    // revokeUnassignablePartitions
    for (i, id) in ids.iter().enumerate() {
        let Some(mine) = old.get(*id) else { continue };
        let want = desired.get(i).copied().unwrap_or(0);
        let mut count = 0usize;
        let mut changed: Option<Target> = None;
        for (topic, ps) in mine {
            if subscribed.contains(topic) {
                for p in ps {
                    count = count.saturating_add(1);
                    by_partition.entry((topic.clone(), *p)).or_default().insert(i);
                    by_member.entry(i).or_default().insert((topic.clone(), *p));
                    if count >= want && changed.is_none() {
                        changed = Some(mine.clone());
                    }
                }
            } else {
                changed.get_or_insert_with(|| mine.clone()).remove(topic);
            }
        }
        if let Some(c) = changed {
            new.insert(i, c);
        }
        if count < want {
            unfilled.insert(i);
        } else if count > want {
            overfilled.insert(i);
        }
    }
    // revokeOverfilledMembers
    for i in overfilled {
        let want = desired.get(i).copied().unwrap_or(0);
        let Some(have) = by_member.get_mut(&i) else { continue };
        while have.len() > want {
            let Some(tp) = have.pop_first() else { break };
            if let Some(ps) = new.get_mut(&i).and_then(|a| a.get_mut(&tp.0)) {
                ps.remove(&tp.1);
            }
            if let Some(ms) = by_partition.get_mut(&tp) {
                ms.remove(&i);
            }
        }
    }
    // revokeOversharedPartitions
    for (tp, members) in &mut by_partition {
        while members.len() > sharing {
            let Some(i) = members.pop_first() else { break };
            let a = new.entry(i).or_insert_with(|| ids.get(i).and_then(|id| old.get(*id)).cloned().unwrap_or_default());
            if let Some(ps) = a.get_mut(&tp.0) {
                ps.remove(&tp.1);
            }
            if let Some(m) = by_member.get_mut(&i) {
                m.remove(tp);
            }
            unfilled.insert(i);
        }
    }
    for tp in &partitions {
        by_partition.entry(tp.clone()).or_default();
    }
    // assignRemainingPartitions
    let mut order: Vec<usize> = unfilled.iter().copied().collect();
    let mut cursor = 0usize;
    let mut assigned_this_round = false;
    for (tp, members) in &mut by_partition {
        if order.is_empty() {
            break;
        }
        let mut to_make = sharing.saturating_sub(members.len());
        while to_make > 0 {
            if cursor >= order.len() {
                if !assigned_this_round {
                    break;
                }
                cursor = 0;
                assigned_this_round = false;
            }
            let Some(&i) = order.get(cursor) else { break };
            if members.contains(&i) {
                cursor = cursor.saturating_add(1);
                continue;
            }
            let a = new.entry(i).or_insert_with(|| ids.get(i).and_then(|id| old.get(*id)).cloned().unwrap_or_default());
            a.entry(tp.0.clone()).or_default().insert(tp.1);
            members.insert(i);
            let have = by_member.entry(i).or_default();
            have.insert(tp.clone());
            to_make = to_make.saturating_sub(1);
            assigned_this_round = true;
            if have.len() >= desired.get(i).copied().unwrap_or(0) {
                order.remove(cursor);
            } else {
                cursor = cursor.saturating_add(1);
            }
        }
    }
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            let mut a = new.remove(&i).or_else(|| old.get(*id).cloned()).unwrap_or_default();
            a.retain(|_, ps| !ps.is_empty());
            ((*id).clone(), a)
        })
        .collect()
}

/// The group as a heartbeat sees it.
struct G<'a> {
    group: Option<&'a Group>,
    topics: &'a Topics,
}

impl G<'_> {
    /// The group epoch (a new group's is 1: `ModernGroup`).
    fn epoch(&self) -> i32 {
        self.group.map_or(INITIAL_EPOCH, |g| if g.generation > 0 { g.generation } else { INITIAL_EPOCH })
    }

    /// The target assignment's epoch (`TargetAssignmentMetadata.INITIAL`).
    fn assignment_epoch(&self) -> i32 {
        self.group.and_then(|g| g.assignment_epoch).unwrap_or(INITIAL_EPOCH)
    }

    fn initialized(&self) -> InitList {
        self.group.map(|g| g.share_partitions.clone()).unwrap_or_default()
    }

    fn initializing(&self) -> InitList {
        self.group.map(|g| g.share_initializing.clone()).unwrap_or_default()
    }

    /// The initialized partitions, by topic id.
    fn assignable(&self) -> Target {
        self.group
            .map(|g| g.share_partitions.iter().map(|(id, _, ps)| (id.clone(), ps.iter().copied().collect())).collect())
            .unwrap_or_default()
    }

    /// Every member's subscribed topic names, with `id`'s as `m`'s (none:
    /// without it).
    fn subscribed(&self, id: &str, m: Option<&M>) -> BTreeSet<String> {
        let others = self.group.into_iter().flat_map(|g| g.members.iter()).filter(|(k, _)| *k != id);
        let mut names: BTreeSet<String> = others.flat_map(|(_, m)| m.subscribed_topic_names.iter().cloned()).collect();
        if let Some(m) = m {
            names.extend(m.topics.iter().cloned());
        }
        names
    }

    /// `initializedAssignmentPending`: an initialized, subscribed topic
    /// whose partitions the target assignment does not hold all of.
    fn initialized_assignment_pending(&self) -> bool {
        let Some(g) = self.group else { return false };
        if g.members.is_empty() || g.share_partitions.is_empty() {
            return false;
        }
        let subscribed = self.subscribed("", None);
        if subscribed.is_empty() {
            return false;
        }
        let mut assigned: Target = Target::new();
        for t in g.targets.values() {
            for (topic, ps) in t {
                assigned.entry(topic.clone()).or_default().extend(ps.iter().copied());
            }
        }
        g.share_partitions.iter().filter(|(_, name, _)| subscribed.contains(name)).any(|(id, _, ps)| {
            let want: BTreeSet<i32> = ps.iter().copied().collect();
            assigned.get(id) != Some(&want)
        })
    }

    /// `subscribedTopicsChangeMap`: the subscribed partitions neither
    /// initialized nor initializing (Kafka retries those initializing for
    /// longer than `group.share.initialize.retry.interval.ms`; here an
    /// initialization completes before the next request).
    fn to_initialize(&self, subscribed: &BTreeSet<String>) -> InitList {
        let known = combine(&self.initialized(), &self.initializing());
        subscribed
            .iter()
            .filter_map(|name| {
                let (id, count) = self.topics.get(name)?;
                let have: BTreeSet<i32> =
                    known.iter().filter(|(k, _, _)| k == id).flat_map(|(_, _, ps)| ps.iter().copied()).collect();
                let missing: Vec<i32> = (0..*count).filter(|p| !have.contains(p)).collect();
                (!missing.is_empty()).then(|| (id.clone(), name.clone(), missing))
            })
            .collect()
    }
}

/// The member a heartbeat is of, checked
/// (`getOrMaybeCreateShareGroup`, `throwIfShareGroupIsFull`,
/// `throwIfShareGroupMemberEpochIsInvalid`).
fn member_of(group: Option<&Group>, existing: Option<&Member>, hb: &Heartbeat) -> Result<M, Refused> {
    if group.is_none() && hb.member_epoch != 0 {
        return Err(refused(code::GROUP_ID_NOT_FOUND, format!("Share group {} not found.", hb.group_id)));
    }
    if existing.is_none() && group.is_some_and(|g| g.members.len() >= MAX_SIZE) {
        return Err(refused(
            code::GROUP_MAX_SIZE_REACHED,
            format!("The share group has reached its maximum capacity of {MAX_SIZE} members."),
        ));
    }
    let member = match existing {
        Some(m) => M::of(m),
        None if hb.member_epoch == 0 => M::new(),
        None => {
            return Err(refused(
                code::UNKNOWN_MEMBER_ID,
                format!("Member {} is not a member of group {}.", hb.member_id, hb.group_id),
            ));
        }
    };
    if hb.member_epoch != 0 {
        if hb.member_epoch > member.epoch {
            return Err(refused(
                code::FENCED_MEMBER_EPOCH,
                format!(
                    "The share group member has a greater member epoch ({}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                    hb.member_epoch, member.epoch
                ),
            ));
        }
        if hb.member_epoch < member.epoch && hb.member_epoch != member.previous_epoch {
            return Err(refused(
                code::FENCED_MEMBER_EPOCH,
                format!(
                    "The share group member has a smaller member epoch ({}) than the one known by the group coordinator ({}), and it does not match the previous member epoch ({}). The member must abandon all its partitions and rejoin.",
                    hb.member_epoch, member.epoch, member.previous_epoch
                ),
            ));
        }
    }
    Ok(member)
}

/// A heartbeat: a join, a heartbeat (`shareGroupHeartbeat`) or a leave
/// (member epoch -1, `shareGroupLeave`), at `now_ms` (a new target
/// assignment's timestamp), `timing` the group's (`Timing::share`: its
/// heartbeat interval is answered).
pub fn heartbeat(
    group: Option<&Group>,
    hb: &Heartbeat,
    topics: &Topics,
    now_ms: i64,
    timing: &Timing,
) -> Result<Outcome, Refused> {
    validate(hb)?;
    if let Some(g) = group
        && g.group_type != GroupType::Share
    {
        return Err(refused(code::GROUP_ID_NOT_FOUND, format!("Group {} is not a share group.", hb.group_id)));
    }
    if hb.member_epoch == LEAVE_EPOCH {
        return leave(group, hb, topics);
    }
    let g = G { group, topics };
    let existing = group.and_then(|g| g.members.get(&hb.member_id));
    let member = member_of(group, existing, hb)?;
    let mut records = Vec::new();
    let mut updated = member.clone();
    if let Some(r) = &hb.rack_id {
        updated.rack_id = Some(r.clone());
    }
    if let Some(names) = &hb.subscribed_topic_names {
        updated.topics = names.iter().cloned().collect();
    }
    updated.client_id.clone_from(&hb.client_id);
    updated.client_host.clone_from(&hb.client_host);
    // 1. the member
    let mut bump = false;
    if existing.is_none() || updated.metadata() != member.metadata() {
        records.push(member_record(&hb.group_id, &hb.member_id, &updated));
        bump = updated.topics != member.topics;
    }
    let mut epoch = g.epoch();
    if g.assignment_epoch() >= epoch {
        bump |= g.initialized_assignment_pending();
    }
    // 2. the group epoch
    let subscribed = g.subscribed(&hb.member_id, Some(&updated));
    let hash = metadata_hash(&subscribed, topics);
    if bump || hash != group.map_or(0, |g| g.metadata_hash) {
        epoch = epoch.saturating_add(1);
        records.push(epoch_record(&hb.group_id, epoch, hash));
    }
    // 3. the target assignment
    let mut target = group.and_then(|g| g.targets.get(&hb.member_id)).map(|t| target_of(t)).unwrap_or_default();
    let mut target_epoch = g.assignment_epoch();
    if target_epoch < epoch {
        let mut old: BTreeMap<String, Target> = group
            .map(|g| {
                g.members
                    .keys()
                    .map(|id| (id.clone(), g.targets.get(id).map(|t| target_of(t)).unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default();
        old.entry(hb.member_id.clone()).or_default();
        let subscribed_ids: BTreeSet<String> =
            subscribed.iter().filter_map(|n| topics.get(n).map(|(id, _)| id.clone())).collect();
        let mut new = simple(&old, &subscribed_ids, &g.assignable());
        // each member keeps the partitions of the topics it subscribes to
        for (id, t) in &mut new {
            let names: BTreeSet<String> = if *id == hb.member_id {
                updated.topics.clone()
            } else {
                group
                    .and_then(|g| g.members.get(id))
                    .map(|m| m.subscribed_topic_names.iter().cloned().collect())
                    .unwrap_or_default()
            };
            let ids: BTreeSet<&String> = names.iter().filter_map(|n| topics.get(n).map(|(i, _)| i)).collect();
            t.retain(|topic, _| ids.contains(topic));
        }
        for (id, t) in &new {
            let before = group.and_then(|g| g.targets.get(id)).map(|t| target_of(t));
            if before.as_ref() != Some(t) {
                records.push(target_record(&hb.group_id, id, t));
            }
        }
        records.push(GroupRecord::ShareGroupTargetAssignmentMetadata(
            ShareGroupTargetAssignmentMetadataKey { group_id: hb.group_id.clone() },
            Some(ShareGroupTargetAssignmentMetadataValue { assignment_epoch: epoch, assignment_timestamp: now_ms }),
        ));
        target = new.remove(&hb.member_id).unwrap_or_default();
        target_epoch = epoch;
    }
    // 4. the member takes its target
    let before = updated.clone();
    if target_epoch != updated.epoch {
        updated.previous_epoch = updated.epoch;
        updated.epoch = target_epoch;
        updated.assigned = filter(&target, &updated.topics, topics);
    } else if bump {
        updated.assigned = filter(&target, &updated.topics, topics);
    }
    if updated != before {
        records.push(current_record(&hb.group_id, &hb.member_id, &updated));
    }
    let full = hb.member_epoch == 0 || hb.subscribed_topic_names.is_some() || updated.assigned != member.assigned;
    let answer = Answer {
        member_id: hb.member_id.clone(),
        member_epoch: updated.epoch,
        heartbeat_interval_ms: timing.heartbeat_interval_ms,
        assignment: full.then(|| list_of(&updated.assigned)),
    };
    // 5. the partitions to initialize
    let initialize = g.to_initialize(&subscribed);
    if !initialize.is_empty() {
        let initializing = combine(&g.initializing(), &initialize);
        let deleting = group.map(|g| g.share_deleting.clone()).unwrap_or_default();
        let deleting: Vec<(String, String)> =
            deleting.into_iter().filter(|(id, _)| !initializing.iter().any(|(i, _, _)| i == id)).collect();
        records.push(state_record(&hb.group_id, &initializing, &g.initialized(), &deleting));
    }
    Ok(Outcome { records, answer, initialize })
}

/// `ShareGroupAssignmentBuilder.filterAssignedPartitions`: the partitions
/// of the topics the member subscribes to.
fn filter(target: &Target, names: &BTreeSet<String>, topics: &Topics) -> Target {
    let ids: BTreeSet<&String> = names.iter().filter_map(|n| topics.get(n).map(|(i, _)| i)).collect();
    target.iter().filter(|(t, _)| ids.contains(t)).map(|(t, ps)| (t.clone(), ps.clone())).collect()
}

/// The records of a member leaving or fenced (`shareGroupFenceMember`).
fn fence_records(group: &Group, group_id: &str, member: &str, topics: &Topics) -> Vec<GroupRecord> {
    let subscribed: BTreeSet<String> = group
        .members
        .iter()
        .filter(|(k, _)| *k != member)
        .flat_map(|(_, m)| m.subscribed_topic_names.iter().cloned())
        .collect();
    vec![
        GroupRecord::ShareGroupCurrentMemberAssignment(
            ShareGroupCurrentMemberAssignmentKey { group_id: group_id.into(), member_id: member.into() },
            None,
        ),
        GroupRecord::ShareGroupTargetAssignmentMember(
            ShareGroupTargetAssignmentMemberKey { group_id: group_id.into(), member_id: member.into() },
            None,
        ),
        GroupRecord::ShareGroupMemberMetadata(
            ShareGroupMemberMetadataKey { group_id: group_id.into(), member_id: member.into() },
            None,
        ),
        epoch_record(group_id, group.generation.saturating_add(1), metadata_hash(&subscribed, topics)),
    ]
}

/// `shareGroupLeave`.
fn leave(group: Option<&Group>, hb: &Heartbeat, topics: &Topics) -> Result<Outcome, Refused> {
    let Some(g) = group else {
        return Err(refused(code::GROUP_ID_NOT_FOUND, format!("Share group {} not found.", hb.group_id)));
    };
    if !g.members.contains_key(&hb.member_id) {
        return Err(refused(
            code::UNKNOWN_MEMBER_ID,
            format!("Member {} is not a member of group {}.", hb.member_id, hb.group_id),
        ));
    }
    Ok(Outcome {
        records: fence_records(g, &hb.group_id, &hb.member_id, topics),
        answer: Answer {
            member_id: hb.member_id.clone(),
            member_epoch: LEAVE_EPOCH,
            heartbeat_interval_ms: 0,
            assignment: None,
        },
        initialize: Vec::new(),
    })
}

/// A member whose session ended (`group.share.session.timeout.ms` without
/// a heartbeat) is fenced: the records to write.
pub fn fence(group: &Group, group_id: &str, member: &str, topics: &Topics) -> Vec<GroupRecord> {
    if !group.members.contains_key(member) {
        return Vec::new();
    }
    fence_records(group, group_id, member, topics)
}

/// After the share coordinator initialized `done` (topic id, name,
/// partitions): the record moving them from initializing to initialized
/// (`initializeShareGroupState`).
pub fn initialized(group: &Group, group_id: &str, done: &InitList) -> GroupRecord {
    let initialized = combine(&group.share_partitions, done);
    let mut initializing = Vec::new();
    for (id, name, ps) in &group.share_initializing {
        let left: Vec<i32> =
            ps.iter().copied().filter(|p| !done.iter().any(|(d, _, dps)| d == id && dps.contains(p))).collect();
        if !left.is_empty() {
            initializing.push((id.clone(), name.clone(), left));
        }
    }
    state_record(group_id, &initializing, &initialized, &group.share_deleting)
}

#[cfg(test)]
mod tests {
    use super::*;
    use logrules::groups::Groups;

    fn topics() -> Topics {
        [("s".to_string(), ("AAAAAAAAAAAAAAAAAAAAAQ".to_string(), 3))].into_iter().collect()
    }

    fn join(member: &str) -> Heartbeat {
        Heartbeat {
            group_id: "g".into(),
            member_id: member.into(),
            member_epoch: 0,
            subscribed_topic_names: Some(vec!["s".into()]),
            client_id: "c".into(),
            client_host: "/127.0.0.1".into(),
            ..Heartbeat::default()
        }
    }

    fn replay(groups: &mut Groups, records: Vec<GroupRecord>) {
        for r in records {
            groups.replay(r, (0, -1));
        }
    }

    /// Kafka's order for a first member: it joins with nothing assignable
    /// (epoch 2: a new group's is 1), the topic's partitions are
    /// initialized, the next heartbeat bumps the epoch and assigns them all.
    #[test]
    fn a_member_is_assigned_once_the_share_state_is_initialized() {
        let mut groups = Groups::default();
        let t = topics();
        let o = heartbeat(None, &join("m1"), &t, 0, &Timing::default()).unwrap();
        let kinds: Vec<&str> = o
            .records
            .iter()
            .map(|r| match r {
                GroupRecord::ShareGroupMemberMetadata(..) => "member",
                GroupRecord::ShareGroupMetadata(..) => "epoch",
                GroupRecord::ShareGroupTargetAssignmentMember(..) => "target",
                GroupRecord::ShareGroupTargetAssignmentMetadata(..) => "target-epoch",
                GroupRecord::ShareGroupCurrentMemberAssignment(..) => "current",
                GroupRecord::ShareGroupStatePartitionMetadata(..) => "state",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["member", "epoch", "target", "target-epoch", "current", "state"]);
        assert_eq!(o.answer.member_epoch, 2);
        assert_eq!(o.answer.assignment, Some(vec![]));
        assert_eq!(o.initialize, vec![("AAAAAAAAAAAAAAAAAAAAAQ".to_string(), "s".to_string(), vec![0, 1, 2])]);
        replay(&mut groups, o.records);
        let g = groups.groups.get("g").unwrap();
        let r = initialized(g, "g", &o.initialize);
        replay(&mut groups, vec![r]);
        let g = groups.groups.get("g").unwrap();
        assert_eq!(g.share_partitions.len(), 1);
        assert!(g.share_initializing.is_empty());
        let hb = Heartbeat { member_epoch: 2, subscribed_topic_names: None, ..join("m1") };
        let o = heartbeat(Some(g), &hb, &t, 0, &Timing::default()).unwrap();
        assert_eq!(o.answer.member_epoch, 3);
        assert_eq!(o.answer.assignment, Some(vec![("AAAAAAAAAAAAAAAAAAAAAQ".to_string(), vec![0, 1, 2])]));
        assert!(o.initialize.is_empty());
        replay(&mut groups, o.records);
        // a second member: the partitions are split 2 and 1
        let g = groups.groups.get("g").unwrap();
        let o = heartbeat(Some(g), &join("m2"), &t, 0, &Timing::default()).unwrap();
        assert_eq!(o.answer.member_epoch, 4);
        replay(&mut groups, o.records);
        let g = groups.groups.get("g").unwrap();
        let sizes: Vec<usize> = g.targets.values().map(|t| t.iter().map(|(_, p)| p.len()).sum()).collect();
        assert_eq!(sizes.iter().sum::<usize>(), 3);
        assert!(sizes.contains(&1) && sizes.contains(&2), "{sizes:?}");
        // the first member leaves: tombstones and a bump
        let leave = Heartbeat { member_epoch: LEAVE_EPOCH, subscribed_topic_names: None, ..join("m1") };
        let o = heartbeat(Some(g), &leave, &t, 0, &Timing::default()).unwrap();
        assert_eq!(o.records.len(), 4);
        assert_eq!(o.answer.member_epoch, LEAVE_EPOCH);
        replay(&mut groups, o.records);
        assert_eq!(groups.groups.get("g").unwrap().members.len(), 1);
    }

    #[test]
    fn a_stale_epoch_is_fenced() {
        let mut groups = Groups::default();
        let t = topics();
        replay(&mut groups, heartbeat(None, &join("m1"), &t, 0, &Timing::default()).unwrap().records);
        let g = groups.groups.get("g").unwrap();
        let hb = Heartbeat { member_epoch: 7, ..join("m1") };
        assert_eq!(heartbeat(Some(g), &hb, &t, 0, &Timing::default()).unwrap_err().code, code::FENCED_MEMBER_EPOCH);
        let hb = Heartbeat { member_epoch: 0, subscribed_topic_names: None, ..join("m1") };
        assert_eq!(heartbeat(Some(g), &hb, &t, 0, &Timing::default()).unwrap_err().code, code::INVALID_REQUEST);
    }

    #[test]
    fn the_simple_assignor_shares_partitions_when_members_outnumber_them() {
        let old: BTreeMap<String, Target> =
            ["a", "b", "c", "d"].iter().map(|m| (m.to_string(), Target::new())).collect();
        let subscribed: BTreeSet<String> = ["t".to_string()].into_iter().collect();
        let assignable: Target = [("t".to_string(), [0, 1].into_iter().collect())].into_iter().collect();
        let new = simple(&old, &subscribed, &assignable);
        for t in new.values() {
            assert_eq!(t.get("t").map(BTreeSet::len), Some(1), "{new:?}");
        }
        let per_partition: Vec<usize> = [0, 1]
            .iter()
            .map(|p| new.values().filter(|t| t.get("t").is_some_and(|ps| ps.contains(p))).count())
            .collect();
        assert_eq!(per_partition, [2, 2]);
    }
}
