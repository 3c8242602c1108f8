//! `logtool groups`: consumer groups as the group coordinator loads them
//! (`logfmt::rules::groups`), with lag against the partitions' high
//! watermarks (`logfmt::rules::log`), and `--which`: the partition a group's
//! records go to (`logfmt::internal::partition_for_group`).

use std::collections::HashMap;
use std::io::{self, BufWriter};

use logfmt::internal::{CONSUMER_OFFSETS_TOPIC, partition_for_group};
use logfmt::partition::{Partition, open_log_dirs};
use logfmt::rules::groups::{Group, GroupState, Groups, lag};
use logfmt::rules::log::Offsets;

use clap::Args;

use logfmt::report::{Report, Shown};
use serde::Serialize;

use crate::args::{GlobalOpts, LimitArgs};
use crate::exit::Status;
use crate::output::{NoteLine, Output, WarningLine};
use crate::progress::Progress;
use std::path::PathBuf;

/// Kafka's default `offsets.topic.num.partitions`.
const DEFAULT_OFFSETS_PARTITIONS: i32 = 50;

pub fn run(global: &GlobalOpts, args: &GroupsArgs) -> anyhow::Result<Status> {
    let limits = args.limits.limits();
    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    let dirs = open_log_dirs(&args.log_dirs, &limits)?;
    // __consumer_offsets' partition count: given, from a metadata log, or Kafka's default
    let (partitions, partitions_from) = match args.partitions {
        Some(n) => (n, "given"),
        None => dirs
            .iter()
            .find_map(|(ld, _)| ld.metadata.as_ref()?.partition_count(CONSUMER_OFFSETS_TOPIC))
            .map_or((DEFAULT_OFFSETS_PARTITIONS, "Kafka's default offsets.topic.num.partitions"), |n| {
                (n, "from the metadata log")
            }),
    };
    if let Some(g) = &args.which {
        out.report(
            &(GroupPartitionLine {
                group: g.clone(),
                partition: partition_for_group(g, partitions),
                partitions,
                partitions_from,
            }),
        )?;
        out.finish()?;
        return Ok(Status::Clean);
    }
    let mut offsets_topic: Vec<Partition> = Vec::new();
    let mut data: HashMap<(String, i32), Partition> = HashMap::new();
    for (_, parts) in dirs {
        for p in parts {
            if p.name.topic == CONSUMER_OFFSETS_TOPIC {
                offsets_topic.push(p);
            } else if !p.is_metadata_log() {
                data.insert((p.name.topic.clone(), p.name.partition), p);
            }
        }
    }
    if offsets_topic.is_empty() {
        anyhow::bail!("no __consumer_offsets partition in {}", dirs_text(args));
    }
    offsets_topic.sort_by_key(|p| p.name.partition);
    let progress = Progress::new(offsets_topic.iter().flat_map(|p| &p.segments).map(|s| s.size).sum(), global.quiet);
    let groups = Groups::load_with_progress(&offsets_topic, &limits, &mut |n| progress.inc(n))?;
    progress.finish();
    if groups.undecoded > 0 {
        out.report(&NoteLine {
            file: &dirs_text(args),
            message: format!("{} record(s) of __consumer_offsets did not decode and were skipped", groups.undecoded),
        })?;
    }
    let wanted = |g: &str| args.group.as_deref().is_none_or(|w| w == g);
    // every group with metadata or offsets
    let mut names: Vec<&String> = groups.groups.keys().chain(groups.offsets.keys().map(|(g, _, _)| g)).collect();
    names.sort();
    names.dedup();
    let here: Vec<i32> = offsets_topic.iter().map(|p| p.name.partition).collect();
    let names: Vec<&String> = names.into_iter().filter(|g| wanted(g)).collect();
    if let Some(group) = &args.group
        && names.is_empty()
    {
        // as kafka-consumer-groups says it: the group does not exist (here)
        let coordinator = partition_for_group(group, partitions);
        let place = if here.contains(&coordinator) {
            format!("its coordinator partition __consumer_offsets-{coordinator} holds no metadata or offsets of it")
        } else {
            format!("its coordinator partition __consumer_offsets-{coordinator} is not in these log dirs")
        };
        out.report(&WarningLine {
            file: &dirs_text(args),
            message: format!("consumer group '{group}' does not exist: {place}"),
        })?;
        out.finish()?;
        return Ok(Status::Problems);
    }
    for name in names {
        let coordinator = partition_for_group(name, partitions);
        let g = groups.groups.get(name);
        out.report(&group_line(name, g, here.contains(&coordinator).then_some(coordinator)))?;
    }
    // each data partition's offsets, read once however many groups commit to it
    let mut offsets: HashMap<(String, i32), Offsets> = HashMap::new();
    for ((group, topic, partition), c) in groups.offsets.iter().filter(|((g, _, _), _)| wanted(g)) {
        let key = (topic.clone(), *partition);
        let o = match (offsets.get(&key), data.get(&key)) {
            (Some(o), _) => Some(*o),
            (None, Some(p)) => {
                let o = Offsets::of(p, &limits)?;
                offsets.insert(key, o);
                Some(o)
            }
            (None, None) => None,
        };
        let (high_watermark, log_end_offset) = (o.map(|o| o.high_watermark), o.map(|o| o.log_end));
        out.report(
            &(CommittedOffsetLine {
                group: group.clone(),
                topic: topic.clone(),
                partition: *partition,
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
            }),
        )?;
    }
    out.finish()?;
    Ok(Status::Clean)
}

/// A group's line: its metadata as the coordinator loaded it (none: only
/// offsets), and the partition of its coordinator when it is here.
fn group_line(name: &str, g: Option<&Group>, coordinator_partition: Option<i32>) -> GroupLine {
    GroupLine {
        group: name.to_string(),
        coordinator_partition,
        protocol: g.map(|g| g.protocol),
        protocol_type: g.and_then(|g| g.protocol_type.clone()),
        assignor: g.and_then(|g| g.assignor.clone()),
        state: g.map_or(GroupState::Empty, |g| g.state()).name(),
        generation: g.map(|g| g.generation),
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
                        assignment: m.assignment.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        state_timestamp: g.and_then(|g| g.state_timestamp),
    }
}

fn dirs_text(args: &GroupsArgs) -> String {
    args.log_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
}

#[derive(Args, Debug)]
pub struct GroupsArgs {
    /// Log dirs: those holding __consumer_offsets partitions, and those holding the
    /// partitions whose lag to measure.
    #[arg(value_name = "LOG_DIR", required_unless_present = "which")]
    pub log_dirs: Vec<PathBuf>,
    /// Only this group.
    #[arg(long, value_name = "GROUP")]
    pub group: Option<String>,
    /// Which __consumer_offsets partition holds GROUP (Kafka's hash of the group id), then stop.
    #[arg(long, value_name = "GROUP")]
    pub which: Option<String>,
    /// __consumer_offsets' partition count for --which (default: from the metadata log of
    /// the log dirs, else 50, Kafka's default offsets.topic.num.partitions).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..))]
    pub partitions: Option<i32>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Serialize)]
pub struct MemberOut {
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub assignment: Vec<(String, Vec<i32>)>,
}

#[derive(Serialize)]
pub struct GroupPartitionLine {
    pub group: String,
    pub partition: i32,
    pub partitions: i32,
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

#[derive(Serialize)]
pub struct GroupLine {
    pub group: String,
    pub coordinator_partition: Option<i32>,
    pub protocol: Option<&'static str>,
    pub protocol_type: Option<String>,
    pub assignor: Option<String>,
    pub state: &'static str,
    pub generation: Option<i32>,
    pub leader: Option<String>,
    pub members: Vec<MemberOut>,
    pub state_timestamp: Option<i64>,
}

impl Report for GroupLine {
    const TYPE: &'static str = "group";

    fn show(&self) -> Shown {
        let g = self;
        let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        Shown::Row(
            &["GROUP", "STATE", "PROTOCOL", "ASSIGNOR", "GENERATION", "MEMBERS", "LEADER", "COORDINATOR"],
            vec![
                g.group.clone(),
                g.state.to_string(),
                match (g.protocol, &g.protocol_type) {
                    (Some(p), Some(t)) => format!("{p} ({t})"),
                    (Some(p), None) => p.to_string(),
                    _ => "-".into(),
                },
                opt(&g.assignor),
                g.generation.map_or("-".into(), |v| v.to_string()),
                g.members
                    .iter()
                    .map(|m| {
                        format!(
                            "{} ({}/{})",
                            crate::output::clip(&m.client_id),
                            crate::output::clip(&m.client_host),
                            m.assignment.iter().map(|(_, p)| p.len()).sum::<usize>()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                g.leader.as_deref().map(|l| crate::output::clip(l).into_owned()).unwrap_or_else(|| "-".into()),
                g.coordinator_partition.map_or("-".into(), |p| format!("__consumer_offsets-{p}")),
            ],
        )
    }
}

#[derive(Serialize)]
pub struct CommittedOffsetLine {
    pub group: String,
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    pub leader_epoch: i32,
    pub metadata: String,
    pub commit_timestamp: i64,
    pub expire_timestamp: Option<i64>,
    pub high_watermark: Option<i64>,
    pub log_end_offset: Option<i64>,
    pub lag: Option<i64>,
    pub coordinator_partition: i32,
    pub record_offset: i64,
}

impl Report for CommittedOffsetLine {
    const TYPE: &'static str = "committed_offset";

    fn show(&self) -> Shown {
        let c = self;
        let opt = |v: Option<i64>| v.map_or("-".into(), |v| v.to_string());
        Shown::Row(
            &[
                "GROUP",
                "TOPIC",
                "PARTITION",
                "CURRENT-OFFSET",
                "LOG-END-OFFSET (HW)",
                "LAG",
                "LOG END",
                "COMMITTED",
                "METADATA",
            ],
            vec![
                c.group.clone(),
                c.topic.clone(),
                c.partition.to_string(),
                c.offset.to_string(),
                opt(c.high_watermark),
                opt(c.lag),
                opt(c.log_end_offset),
                crate::output::fmt_time(c.commit_timestamp),
                crate::output::clip(&c.metadata).into_owned(),
            ],
        )
    }
}
