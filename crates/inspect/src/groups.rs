//! What `logtool groups` reports, built here so the command only prints
//! it ([`Coordinators::answer`]): each group as the group coordinator loads it (`rules::groups`),
//! and each committed offset with its lag (`rules::groups::lag` against
//! `rules::log::Offsets`).

/// The partition of an internal topic that holds a key (a group id, a
/// transactional id): `partition-of`.
pub use logrules::internal::partition_for_key;

use std::collections::HashMap;

use serde::Serialize;

use logfmt::error::{Error, Result};
use logfmt::limits::Limits;
use logfmt::logdir::LogDirsOf;
use logfmt::partition::{LogDir, Partition};
use logfmt::report::{Report, Shown};
use logrules::groups::{Commit, Group, Groups, SharePartitionState, ShareStates, lag, share_lag};
use logrules::internal::{CONSUMER_OFFSETS_TOPIC, SHARE_GROUP_STATE_TOPIC, partition_for_group};
use logrules::log::Offsets;

/// The log dirs `logtool groups` was given, opened: the coordinators'
/// partitions (`__consumer_offsets`, `__share_group_state`), the data
/// partitions whose lag to measure, the topic names of the metadata log by
/// id, and `__consumer_offsets`' partition count.
pub struct Coordinators {
    given: LogDirsOf,
    offsets_topic: Vec<Partition>,
    share_state_topic: Vec<Partition>,
    data: HashMap<(String, i32), Partition>,
    topic_names: HashMap<String, String>,
    /// `__consumer_offsets`' partition count.
    pub partitions: i32,
    /// Where that count comes from.
    pub partitions_from: &'static str,
}

/// What `logtool groups` answers, in its order (see [`Coordinators::answer`]).
pub enum GroupsLine {
    /// Records that did not decode (the message).
    Note(String),
    /// A group asked for (`--group`) is not there (the message).
    Missing(String),
    /// A group.
    Group(GroupLine),
    /// A committed offset.
    Offset(CommittedOffsetLine),
    /// A share partition.
    Share(ShareOffsetLine),
}

impl Coordinators {
    /// Split the opened log dirs; `partitions`: `__consumer_offsets`'
    /// partition count when given, else the metadata log's, else Kafka's
    /// default.
    pub fn new(given: LogDirsOf, dirs: Vec<(LogDir, Vec<Partition>)>, partitions: Option<i32>) -> Coordinators {
        let (partitions, partitions_from) = match partitions {
            Some(n) => (n, "given"),
            None => {
                dirs.iter().find_map(|(ld, _)| ld.metadata.as_ref()?.partition_count(CONSUMER_OFFSETS_TOPIC)).map_or(
                    (logrules::config::OFFSETS_TOPIC_PARTITIONS, "Kafka's default offsets.topic.num.partitions"),
                    |n| (n, "from the metadata log"),
                )
            }
        };
        let topic_names = dirs
            .iter()
            .filter_map(|(ld, _)| ld.metadata.as_ref())
            .flat_map(|m| m.topics.iter().map(|(name, id)| (id.to_string(), name.clone())))
            .collect();
        let mut c = Coordinators {
            given,
            offsets_topic: Vec::new(),
            share_state_topic: Vec::new(),
            data: HashMap::new(),
            topic_names,
            partitions,
            partitions_from,
        };
        for p in dirs.into_iter().flat_map(|(_, parts)| parts) {
            if p.name.topic == CONSUMER_OFFSETS_TOPIC {
                c.offsets_topic.push(p);
            } else if p.name.topic == SHARE_GROUP_STATE_TOPIC {
                c.share_state_topic.push(p);
            } else if !p.is_metadata_log() {
                c.data.insert((p.name.topic.clone(), p.name.partition), p);
            }
        }
        c.offsets_topic.sort_by_key(|p| p.name.partition);
        c.share_state_topic.sort_by_key(|p| p.name.partition);
        c
    }

    /// The `__consumer_offsets` partition of `group` (`--which`).
    pub fn which(&self, group: &str) -> GroupPartitionLine {
        GroupPartitionLine {
            group: group.to_string(),
            partition: partition_for_group(group, self.partitions),
            partitions: self.partitions,
            partitions_from: self.partitions_from,
        }
    }

    /// The bytes [`Coordinators::answer`] reads (for a progress bar).
    pub fn bytes(&self) -> u64 {
        let size = |ps: &[Partition]| ps.iter().flat_map(|p| &p.segments).map(|s| s.size).sum::<u64>();
        size(&self.offsets_topic).saturating_add(size(&self.share_state_topic))
    }

    fn dirs_text(&self) -> String {
        self.given.log_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    /// Every group (or only `group`) as the coordinators load them, their
    /// committed offsets and lag, and share partitions' start offsets and
    /// lag; partition dirs given narrow it to the groups a
    /// `__consumer_offsets-N` coordinates and to the commits to a data
    /// partition. `done` is told the size of each segment read.
    pub fn answer(&self, group: Option<&str>, limits: &Limits, done: &mut dyn FnMut(u64)) -> Result<Vec<GroupsLine>> {
        if self.offsets_topic.is_empty() {
            return Err(Error::refused(format!("no __consumer_offsets partition in {}", self.dirs_text())));
        }
        let groups = Groups::load_with_progress(&self.offsets_topic, limits, done)?;
        let shares = ShareStates::load(&self.share_state_topic, limits, done)?;
        let mut out = Vec::new();
        for (undecoded, topic) in
            [(groups.undecoded, CONSUMER_OFFSETS_TOPIC), (shares.undecoded, SHARE_GROUP_STATE_TOPIC)]
        {
            if undecoded > 0 {
                out.push(GroupsLine::Note(format!("{undecoded} record(s) of {topic} did not decode and were skipped")));
            }
        }
        // partition dirs given: the groups a __consumer_offsets-N coordinates,
        // and the groups committing to a data partition (its commits only)
        let named = |p: &str| logfmt::naming::parse_partition_dir(p).map(|d| (d.topic, d.partition));
        let given = &self.given.partitions;
        let coordinators: Vec<i32> = given
            .iter()
            .filter_map(|p| named(p))
            .filter(|(t, _)| t == CONSUMER_OFFSETS_TOPIC)
            .map(|(_, n)| n)
            .collect();
        let data_named: Vec<(String, i32)> =
            given.iter().filter_map(|p| named(p)).filter(|(t, _)| t != CONSUMER_OFFSETS_TOPIC).collect();
        let commits_to =
            |g: &str| groups.offsets.keys().any(|(og, t, p)| og == g && data_named.contains(&(t.clone(), *p)));
        let in_scope = |g: &str| {
            given.is_empty() || coordinators.contains(&partition_for_group(g, self.partitions)) || commits_to(g)
        };
        let wanted = |g: &str| group.is_none_or(|w| w == g) && in_scope(g);
        // every group with metadata or offsets
        let mut names: Vec<&String> = groups.groups.keys().chain(groups.offsets.keys().map(|(g, _, _)| g)).collect();
        names.sort();
        names.dedup();
        let here: Vec<i32> = self.offsets_topic.iter().map(|p| p.name.partition).collect();
        let names: Vec<&String> = names.into_iter().filter(|g| wanted(g)).collect();
        if let Some(group) = group
            && names.is_empty()
        {
            // as kafka-consumer-groups says it: the group does not exist (here)
            let coordinator = partition_for_group(group, self.partitions);
            let place = if here.contains(&coordinator) {
                format!("its coordinator partition __consumer_offsets-{coordinator} holds no metadata or offsets of it")
            } else {
                format!("its coordinator partition __consumer_offsets-{coordinator} is not in these log dirs")
            };
            out.push(GroupsLine::Missing(format!("consumer group '{group}' does not exist: {place}")));
            return Ok(out);
        }
        let topic_name = |id: &str| self.topic_names.get(id).cloned();
        for name in names {
            let coordinator = partition_for_group(name, self.partitions);
            let g = groups.groups.get(name);
            out.push(GroupsLine::Group(group_line(
                name,
                g,
                here.contains(&coordinator).then_some(coordinator),
                &topic_name,
            )));
        }
        // each data partition's offsets, read once however many groups commit to it
        let mut offsets: HashMap<(String, i32), Offsets> = HashMap::new();
        let mut offsets_of = |topic: &str, partition: i32| -> Result<Option<Offsets>> {
            let key = (topic.to_string(), partition);
            Ok(match (offsets.get(&key), self.data.get(&key)) {
                (Some(o), _) => Some(*o),
                (None, Some(p)) => {
                    let o = Offsets::of(p, limits)?;
                    offsets.insert(key, o);
                    Some(o)
                }
                (None, None) => None,
            })
        };
        let offset_wanted = |t: &String, p: i32| data_named.is_empty() || data_named.contains(&(t.clone(), p));
        for ((group, topic, partition), c) in
            groups.offsets.iter().filter(|((g, t, p), _)| wanted(g) && offset_wanted(t, *p))
        {
            let o = offsets_of(topic, *partition)?;
            out.push(GroupsLine::Offset(committed_offset_line((group, topic, *partition), c, o)));
        }
        // share groups: each partition whose share state is initialized, as
        // kafka-share-groups --describe lists them
        for (group, g) in groups.groups.iter().filter(|(g, _)| wanted(g)) {
            for (topic_id, topic, partitions) in &g.share_partitions {
                for &partition in partitions.iter().filter(|p| offset_wanted(topic, **p)) {
                    let state = shares.partitions.get(&(group.clone(), topic_id.clone(), partition));
                    let o = offsets_of(topic, partition)?;
                    out.push(GroupsLine::Share(share_offset_line((group, topic, topic_id, partition), state, o)));
                }
            }
        }
        Ok(out)
    }
}

/// A committed offset's line: (group, topic, partition), the commit, and
/// the partition's offsets when the partition is in these log dirs.
pub fn committed_offset_line(
    (group, topic, partition): (&str, &str, i32),
    c: &Commit,
    offsets: Option<Offsets>,
) -> CommittedOffsetLine {
    let (high_watermark, log_end_offset) = (offsets.map(|o| o.high_watermark), offsets.map(|o| o.log_end));
    CommittedOffsetLine {
        group: group.to_string(),
        topic: topic.to_string(),
        partition,
        offset: c.offset,
        leader_epoch: c.leader_epoch,
        metadata: c.metadata.clone(),
        commit_timestamp: c.commit_timestamp,
        expire_timestamp: c.expire_timestamp,
        high_watermark,
        log_end_offset,
        lag: high_watermark.map(|hw| lag(c.offset, hw)),
        coordinator_partition: c.at.0,
        record_offset: c.at.1,
        member: None,
    }
}

/// A group's line: its metadata as the coordinator loaded it (none: only
/// offsets), and the partition of its coordinator when it is here.
/// `topic_name` names a modern group's assigned topics by id (from the
/// metadata log; an id it does not know is kept).
pub fn group_line(
    name: &str,
    g: Option<&Group>,
    coordinator_partition: Option<i32>,
    topic_name: &dyn Fn(&str) -> Option<String>,
) -> GroupLine {
    let streams = g.is_some_and(|g| g.group_type == logrules::groups::GroupType::Streams);
    GroupLine {
        group: name.to_string(),
        coordinator_partition,
        group_type: g.map(|g| g.group_type.name()),
        protocol: g.map(|g| g.group_type.protocol()),
        protocol_type: g.and_then(|g| g.protocol_type.clone()),
        assignor: g.and_then(|g| g.assignor()),
        state: g.map_or("Empty", |g| g.state()),
        generation: g.map(|g| g.generation),
        assignment_epoch: g.and_then(|g| g.assignment_epoch),
        topology_epoch: g.and_then(|g| g.topology_epoch),
        leader: g.and_then(|g| g.leader.clone()),
        members: g
            .map(|g| {
                g.members
                    .values()
                    .map(|m| MemberOut {
                        member_id: m.member_id.clone(),
                        group_instance_id: m.group_instance_id.clone(),
                        client_id: m.client_id.clone(),
                        client_host: m.client_host.clone(),
                        member_epoch: m.member_epoch,
                        process_id: m.process_id.clone(),
                        assignment: m
                            .assignment
                            .iter()
                            .map(|(t, p)| {
                                let named = if streams { None } else { topic_name(t) };
                                (named.unwrap_or_else(|| t.clone()), p.clone())
                            })
                            .collect(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        state_timestamp: g.and_then(|g| g.state_timestamp),
    }
}

/// A share group's partition: its start offset and lag as
/// `kafka-share-groups --describe` shows them (`share_offset`), from the
/// share coordinator's state and the partition's offsets when the
/// partition is in these log dirs.
pub fn share_offset_line(
    (group, topic, topic_id, partition): (&str, &str, &str, i32),
    state: Option<&SharePartitionState>,
    offsets: Option<Offsets>,
) -> ShareOffsetLine {
    let high_watermark = offsets.map(|o| o.high_watermark);
    // a start offset of -1 is none (ListShareGroupOffsetsHandler)
    let start_offset = state.map(|s| s.start_offset).filter(|o| *o >= 0);
    ShareOffsetLine {
        group: group.to_string(),
        topic: topic.to_string(),
        topic_id: topic_id.to_string(),
        partition,
        start_offset,
        leader_epoch: state.filter(|_| start_offset.is_some()).map(|s| s.leader_epoch),
        delivery_complete_count: state.map(|s| s.delivery_complete_count).filter(|c| *c >= 0),
        high_watermark,
        lag: state.zip(high_watermark).and_then(|(s, hw)| share_lag(s, hw)).filter(|l| *l >= 0),
        coordinator_partition: state.map(|s| s.at.0),
        record_offset: state.map(|s| s.at.1),
    }
}

/// A share group's partition (`share_offset`).
#[derive(Serialize)]
pub struct ShareOffsetLine {
    /// Group id.
    pub group: String,
    /// Topic.
    pub topic: String,
    /// Topic id.
    pub topic_id: String,
    /// Partition.
    pub partition: i32,
    /// The share-partition start offset (none: not initialized, or no
    /// state in these log dirs).
    pub start_offset: Option<i64>,
    /// Its leader epoch.
    pub leader_epoch: Option<i32>,
    /// Deliveries completed at or after the start offset.
    pub delivery_complete_count: Option<i32>,
    /// The partition's high watermark, when it is here.
    pub high_watermark: Option<i64>,
    /// Lag: the high watermark less the start offset and the completed deliveries.
    pub lag: Option<i64>,
    /// The `__share_group_state` partition of its state.
    pub coordinator_partition: Option<i32>,
    /// The offset there of the state's last record.
    pub record_offset: Option<i64>,
}

impl Report for ShareOffsetLine {
    const TYPE: &'static str = "share_offset";

    fn show(&self) -> Shown {
        let c = self;
        let opt = |v: Option<i64>| v.map_or("-".into(), |v| v.to_string());
        Shown::Row(
            &["GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LOG-END-OFFSET (HW)", "LAG", "LEADER-EPOCH"],
            vec![
                c.group.clone(),
                c.topic.clone(),
                c.partition.to_string(),
                opt(c.start_offset),
                opt(c.high_watermark),
                opt(c.lag),
                opt(c.leader_epoch.map(i64::from)),
            ],
        )
    }
}

/// A member of a group, as the coordinator loaded it.
#[derive(Serialize)]
pub struct MemberOut {
    /// Member id.
    pub member_id: String,
    /// Static membership id.
    pub group_instance_id: Option<String>,
    /// Client id.
    pub client_id: String,
    /// Client host.
    pub client_host: String,
    /// Member epoch (modern groups).
    pub member_epoch: Option<i32>,
    /// Process id (streams groups).
    pub process_id: Option<String>,
    /// Assigned partitions by topic (a modern group's topics by id where
    /// the metadata log does not name them); a streams member's active
    /// tasks by subtopology.
    pub assignment: Vec<(String, Vec<i32>)>,
}

/// The `__consumer_offsets` partition of a group (`group_partition`).
#[derive(Serialize)]
pub struct GroupPartitionLine {
    /// Group id.
    pub group: String,
    /// Partition.
    pub partition: i32,
    /// `__consumer_offsets` partitions.
    pub partitions: i32,
    /// Where that count comes from.
    pub partitions_from: &'static str,
}

impl Report for GroupPartitionLine {
    const TYPE: &'static str = "group_partition";

    fn show(&self) -> Shown {
        let g = self;
        Shown::Text(format!(
            "group {:?} is in __consumer_offsets-{} (of {} partitions, {})",
            g.group, g.partition, g.partitions, g.partitions_from
        ))
    }
}

/// A group (`group`).
#[derive(Serialize)]
pub struct GroupLine {
    /// Group id.
    pub group: String,
    /// Its coordinator partition, when in these log dirs.
    pub coordinator_partition: Option<i32>,
    /// `Classic`, `Consumer`, `Share` or `Streams` (none: only offsets).
    pub group_type: Option<&'static str>,
    /// `classic`, `consumer`, `share` or `streams` (none: only offsets).
    pub protocol: Option<&'static str>,
    /// Protocol type (`consumer`...).
    pub protocol_type: Option<String>,
    /// The chosen assignor.
    pub assignor: Option<String>,
    /// State, as the coordinator names it.
    pub state: &'static str,
    /// Generation (classic) or group epoch.
    pub generation: Option<i32>,
    /// The target assignment's epoch (modern groups).
    pub assignment_epoch: Option<i32>,
    /// The topology's epoch (streams groups).
    pub topology_epoch: Option<i32>,
    /// Leader member.
    pub leader: Option<String>,
    /// Members.
    pub members: Vec<MemberOut>,
    /// When the state last changed.
    pub state_timestamp: Option<i64>,
}

impl Report for GroupLine {
    const TYPE: &'static str = "group";

    fn show(&self) -> Shown {
        let g = self;
        let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        Shown::Row(
            &["GROUP", "TYPE", "STATE", "ASSIGNOR", "EPOCH", "MEMBERS", "LEADER", "COORDINATOR"],
            vec![
                g.group.clone(),
                match (g.group_type, &g.protocol_type) {
                    // a classic group's protocol type: consumer, connect...
                    (Some(t @ "Classic"), Some(p)) => format!("{t} ({p})"),
                    (Some(t), _) => t.to_string(),
                    _ => "-".into(),
                },
                g.state.to_string(),
                opt(&g.assignor),
                g.generation.map_or("-".into(), |v| v.to_string()),
                g.members
                    .iter()
                    .map(|m| {
                        format!(
                            "{} ({}/{})",
                            logfmt::report::clip(&m.client_id),
                            logfmt::report::clip(&m.client_host),
                            m.assignment.iter().map(|(_, p)| p.len()).sum::<usize>()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                g.leader.as_deref().map(|l| logfmt::report::clip(l).into_owned()).unwrap_or_else(|| "-".into()),
                g.coordinator_partition.map_or("-".into(), |p| format!("__consumer_offsets-{p}")),
            ],
        )
    }
}

/// A committed offset and its lag (`committed_offset`).
#[derive(Serialize)]
pub struct CommittedOffsetLine {
    /// Group id.
    pub group: String,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Committed offset.
    pub offset: i64,
    /// Leader epoch of the commit (-1: none).
    pub leader_epoch: i32,
    /// Commit metadata.
    pub metadata: String,
    /// Commit time.
    pub commit_timestamp: i64,
    /// Expiry time (v1 commits).
    pub expire_timestamp: Option<i64>,
    /// The partition's high watermark, when it is here.
    pub high_watermark: Option<i64>,
    /// Its log end offset.
    pub log_end_offset: Option<i64>,
    /// Lag against the high watermark.
    pub lag: Option<i64>,
    /// The `__consumer_offsets` partition of the commit.
    pub coordinator_partition: i32,
    /// The commit record's offset there.
    pub record_offset: i64,
    /// The member the partition is assigned to (consumer id, host, client
    /// id), for the table: a caller that has the group's members sets it
    /// (JSON has them in the `group` line).
    #[serde(skip)]
    pub member: Option<(String, String, String)>,
}

/// The columns of the lag table (`CommittedOffsetLine`), as
/// `kafka-consumer-groups --describe` names them: its LOG-END-OFFSET is the
/// high watermark (what a consumer can read, as Kafka's tool asks for it).
pub const LAG_COLUMNS: &[&str] =
    &["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"];

impl Report for CommittedOffsetLine {
    const TYPE: &'static str = "committed_offset";

    fn show(&self) -> Shown {
        let c = self;
        let opt = |v: Option<i64>| v.map_or("-".into(), |v| v.to_string());
        let clip = |v: &str| logfmt::report::clip(v).into_owned();
        let (member, host, client) = match &c.member {
            Some((m, h, id)) => (clip(m), clip(h), clip(id)),
            None => ("-".into(), "-".into(), "-".into()),
        };
        Shown::Row(
            LAG_COLUMNS,
            vec![
                c.group.clone(),
                c.topic.clone(),
                c.partition.to_string(),
                c.offset.to_string(),
                opt(c.high_watermark),
                opt(c.lag),
                member,
                host,
                client,
            ],
        )
    }
}
