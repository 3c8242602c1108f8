//! `logtool offset-for-time`: Kafka's ListOffsets answers from the files
//! (`logfmt::offsets`), for a partition dir or the partitions of a log dir.

use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use logfmt::logdir::{self, Target};
use logfmt::offsets::PartitionOffsets;
use logfmt::partition::{LogDirCheckpoints, Partition};
use logfmt::spec::names as n;

use crate::args::{GlobalOpts, OffsetForTimeArgs};
use crate::exit::Status;
use crate::output::{Line, NoteLine, OffsetLine, Output};

pub fn run(global: &GlobalOpts, args: &OffsetForTimeArgs) -> anyhow::Result<Status> {
    let limits = args.limits.limits();
    let (log_dir, dirs): (PathBuf, Vec<PathBuf>) = match logdir::resolve(&args.path)? {
        Target::LogDir(d) => {
            let dirs: Vec<PathBuf> = logdir::live_partitions(&d)?
                .into_iter()
                .filter(|(pd, _)| {
                    pd.topic != n::CLUSTER_METADATA_TOPIC && args.topic.as_ref().is_none_or(|t| *t == pd.topic)
                })
                .map(|(_, p)| p)
                .collect();
            if dirs.is_empty() {
                match &args.topic {
                    Some(t) => anyhow::bail!("{}: no partition of topic {t:?}", d.display()),
                    None => anyhow::bail!("{}: no partitions", d.display()),
                }
            }
            (d, dirs)
        }
        Target::PartitionDir(p) => {
            if args.topic.is_some() {
                anyhow::bail!("--topic goes with a log dir; {} is a partition dir", p.display());
            }
            (p.parent().map(Path::to_path_buf).unwrap_or_default(), vec![p])
        }
        Target::File(f) => anyhow::bail!("{} is a file; give a partition dir or a log dir", f.display()),
    };
    let checkpoints = LogDirCheckpoints::read(&log_dir, &limits);
    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    if !log_dir.join(n::CLEAN_SHUTDOWN).exists() && log_dir.join(n::META_PROPERTIES).exists() {
        let file = log_dir.display().to_string();
        out.emit(&Line::Note(NoteLine {
            file: &file,
            message: "the log dir was not shut down cleanly: answers are from the files as they are; \
                      a broker would recover the unflushed segments first (logtool recover)"
                .into(),
        }))?;
    }
    let mut missing = false;
    for dir in &dirs {
        let p = PartitionOffsets::open(&Partition::open_with(dir, &checkpoints)?, &limits)?;
        for q in &args.times {
            let a = p.answer(q.spec)?;
            missing |= a.offset.is_none();
            out.emit(&Line::Offset(OffsetLine {
                topic: p.topic.clone(),
                partition: p.partition,
                dir: p.dir.display().to_string(),
                query: q.text.clone(),
                time: q.spec.kafka_value(),
                offset: a.offset,
                timestamp: a.timestamp,
                leader_epoch: a.leader_epoch,
                segment: a.segment.map(|s| s.display().to_string()),
                position: a.position,
                detail: a.detail,
            }))?;
        }
    }
    out.finish()?;
    Ok(if missing { Status::Problems } else { Status::Clean })
}
