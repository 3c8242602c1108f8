//! What `logtool groups` reports, built here so the command only prints
//! it: each group as the group coordinator loads it (`rules::groups`),
//! and each committed offset with its lag (`rules::groups::lag` against
//! `rules::log::Offsets`).

use serde::Serialize;

use crate::report::{Report, Shown};
use crate::rules::groups::{Commit, Group, SharePartitionState, lag, share_lag};
use crate::rules::log::Offsets;

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
    let streams = g.is_some_and(|g| g.group_type == crate::rules::groups::GroupType::Streams);
    GroupLine {
        group: name.to_string(),
        coordinator_partition,
        group_type: g.map(|g| g.group_type.name()),
        protocol: g.map(|g| g.protocol),
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
                            crate::report::clip(&m.client_id),
                            crate::report::clip(&m.client_host),
                            m.assignment.iter().map(|(_, p)| p.len()).sum::<usize>()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                g.leader.as_deref().map(|l| crate::report::clip(l).into_owned()).unwrap_or_else(|| "-".into()),
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
}

/// The columns of the lag table (`CommittedOffsetLine`), as
/// `kafka-consumer-groups --describe` names its first six.
pub const LAG_COLUMNS: &[&str] = &[
    "GROUP",
    "TOPIC",
    "PARTITION",
    "CURRENT-OFFSET",
    "LOG-END-OFFSET (HW)",
    "LAG",
    "LOG END",
    "COMMITTED",
    "METADATA",
];

impl Report for CommittedOffsetLine {
    const TYPE: &'static str = "committed_offset";

    fn show(&self) -> Shown {
        let c = self;
        let opt = |v: Option<i64>| v.map_or("-".into(), |v| v.to_string());
        Shown::Row(
            LAG_COLUMNS,
            vec![
                c.group.clone(),
                c.topic.clone(),
                c.partition.to_string(),
                c.offset.to_string(),
                opt(c.high_watermark),
                opt(c.lag),
                opt(c.log_end_offset),
                crate::report::time_text(c.commit_timestamp),
                crate::report::clip(&c.metadata).into_owned(),
            ],
        )
    }
}
