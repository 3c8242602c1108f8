//! `logtool groups`: consumer groups as the group coordinator loads them
//! (`logfmt::rules::groups`), with lag against the partitions' high
//! watermarks (`logfmt::rules::log`), and `--which`: the partition a group's
//! records go to (`logfmt::internal::partition_for_group`).

use std::collections::HashMap;
use std::io::{self, BufWriter};

use logfmt::groups::{GroupPartitionLine, committed_offset_line, group_line};
use logfmt::internal::{CONSUMER_OFFSETS_TOPIC, partition_for_group};
use logfmt::partition::{Partition, open_log_dirs};
use logfmt::rules::groups::Groups;
use logfmt::rules::log::Offsets;

use clap::Args;

use crate::args::{GlobalOpts, LimitArgs};
use crate::exit::Status;
use crate::output::{NoteLine, Output, WarningLine};
use crate::progress::Progress;
use std::path::PathBuf;

/// Kafka's default `offsets.topic.num.partitions`.
const DEFAULT_OFFSETS_PARTITIONS: i32 = logfmt::rules::config::OFFSETS_TOPIC_PARTITIONS;

pub fn run(global: &GlobalOpts, args: &GroupsArgs) -> anyhow::Result<Status> {
    let limits = args.limits.limits();
    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    // a partition dir is answered for as its log dir answers for it
    let given =
        logfmt::logdir::log_dirs_of(&args.log_dirs, "the group coordinator's state (__consumer_offsets) is there")?;
    let dirs = open_log_dirs(&given.log_dirs, &limits)?;
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
    // partition dirs given: the groups a __consumer_offsets-N coordinates,
    // and the groups committing to a data partition (its commits only)
    let named = |p: &str| logfmt::naming::parse_partition_dir(p).map(|d| (d.topic, d.partition));
    let coordinators: Vec<i32> = given
        .partitions
        .iter()
        .filter_map(|p| named(p))
        .filter(|(t, _)| t == CONSUMER_OFFSETS_TOPIC)
        .map(|(_, n)| n)
        .collect();
    let data_named: Vec<(String, i32)> =
        given.partitions.iter().filter_map(|p| named(p)).filter(|(t, _)| t != CONSUMER_OFFSETS_TOPIC).collect();
    let commits_to = |g: &str| groups.offsets.keys().any(|(og, t, p)| og == g && data_named.contains(&(t.clone(), *p)));
    let in_scope = |g: &str| {
        given.partitions.is_empty() || coordinators.contains(&partition_for_group(g, partitions)) || commits_to(g)
    };
    let wanted = |g: &str| args.group.as_deref().is_none_or(|w| w == g) && in_scope(g);
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
    let offset_wanted = |t: &String, p: i32| data_named.is_empty() || data_named.contains(&(t.clone(), p));
    for ((group, topic, partition), c) in
        groups.offsets.iter().filter(|((g, t, p), _)| wanted(g) && offset_wanted(t, *p))
    {
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
        out.report(&committed_offset_line((group, topic, *partition), c, o))?;
    }
    out.finish()?;
    Ok(Status::Clean)
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
