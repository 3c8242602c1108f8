//! `logtool groups`: groups of every type (classic, consumer, share,
//! streams) as the group coordinator loads them (`logfmt::rules::groups`),
//! with lag against the partitions' high watermarks (`logfmt::rules::log`),
//! share groups' start offsets and lag from the share coordinator's state
//! (`__share_group_state`), and `--which`: the partition a group's records
//! go to (`logfmt::internal::partition_for_group`).

use std::collections::HashMap;
use std::io::{self, BufWriter};

use logfmt::groups::{GroupPartitionLine, committed_offset_line, group_line, share_offset_line};
use logfmt::internal::{CONSUMER_OFFSETS_TOPIC, SHARE_GROUP_STATE_TOPIC, partition_for_group};
use logfmt::partition::{Partition, open_log_dirs};
use logfmt::rules::groups::{Groups, ShareStates};
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
    let Split { mut offsets_topic, mut share_state_topic, data, topic_names } = split(dirs);
    let topic_name = |id: &str| topic_names.get(id).cloned();
    if offsets_topic.is_empty() {
        anyhow::bail!("no __consumer_offsets partition in {}", dirs_text(args));
    }
    offsets_topic.sort_by_key(|p| p.name.partition);
    share_state_topic.sort_by_key(|p| p.name.partition);
    let size = |ps: &[Partition]| ps.iter().flat_map(|p| &p.segments).map(|s| s.size).sum::<u64>();
    let progress = Progress::new(size(&offsets_topic).saturating_add(size(&share_state_topic)), global.quiet);
    let groups = Groups::load_with_progress(&offsets_topic, &limits, &mut |n| progress.inc(n))?;
    let shares = ShareStates::load(&share_state_topic, &limits, &mut |n| progress.inc(n))?;
    progress.finish();
    for (undecoded, topic) in [(groups.undecoded, CONSUMER_OFFSETS_TOPIC), (shares.undecoded, SHARE_GROUP_STATE_TOPIC)]
    {
        if undecoded > 0 {
            out.report(&NoteLine {
                file: &dirs_text(args),
                message: format!("{undecoded} record(s) of {topic} did not decode and were skipped"),
            })?;
        }
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
        out.report(&group_line(name, g, here.contains(&coordinator).then_some(coordinator), &topic_name))?;
    }
    // each data partition's offsets, read once however many groups commit to it
    let mut offsets: HashMap<(String, i32), Offsets> = HashMap::new();
    let mut offsets_of = |topic: &str, partition: i32| -> anyhow::Result<Option<Offsets>> {
        let key = (topic.to_string(), partition);
        Ok(match (offsets.get(&key), data.get(&key)) {
            (Some(o), _) => Some(*o),
            (None, Some(p)) => {
                let o = Offsets::of(p, &limits)?;
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
        out.report(&committed_offset_line((group, topic, *partition), c, o))?;
    }
    // share groups: each partition whose share state is initialized, as
    // kafka-share-groups --describe lists them
    for (group, g) in groups.groups.iter().filter(|(g, _)| wanted(g)) {
        for (topic_id, topic, partitions) in &g.share_partitions {
            for &partition in partitions.iter().filter(|p| offset_wanted(topic, **p)) {
                let state = shares.partitions.get(&(group.clone(), topic_id.clone(), partition));
                let o = offsets_of(topic, partition)?;
                out.report(&share_offset_line((group, topic, topic_id, partition), state, o))?;
            }
        }
    }
    out.finish()?;
    Ok(Status::Clean)
}

/// The partitions of the log dirs: `__consumer_offsets`, `__share_group_state`
/// and the data partitions (by topic and partition), and the topic names
/// of the metadata log by topic id (the modern groups' assignments).
struct Split {
    offsets_topic: Vec<Partition>,
    share_state_topic: Vec<Partition>,
    data: HashMap<(String, i32), Partition>,
    topic_names: HashMap<String, String>,
}

fn split(dirs: Vec<(logfmt::partition::LogDir, Vec<Partition>)>) -> Split {
    let topic_names = dirs
        .iter()
        .filter_map(|(ld, _)| ld.metadata.as_ref())
        .flat_map(|m| m.topics.iter().map(|(name, id)| (id.to_string(), name.clone())))
        .collect();
    let mut s = Split { offsets_topic: Vec::new(), share_state_topic: Vec::new(), data: HashMap::new(), topic_names };
    for p in dirs.into_iter().flat_map(|(_, parts)| parts) {
        if p.name.topic == CONSUMER_OFFSETS_TOPIC {
            s.offsets_topic.push(p);
        } else if p.name.topic == SHARE_GROUP_STATE_TOPIC {
            s.share_state_topic.push(p);
        } else if !p.is_metadata_log() {
            s.data.insert((p.name.topic.clone(), p.name.partition), p);
        }
    }
    s
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
