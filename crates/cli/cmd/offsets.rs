//! `logtool offset-for-time`: Kafka's ListOffsets answers from the files
//! (`logrules::offsets`), for a partition dir or the partitions of a log dir.

use std::io::{self, BufWriter};
use std::path::PathBuf;

use inspect::offsets::PartitionOffsets;
use logfmt::partition::Targets;
use logfmt::spec::names as n;

use clap::Args;

use crate::args::{GlobalOpts, LimitArgs, TimeQuery, parse_time_query};
use crate::exit::Status;
use crate::output::{NoteLine, Output};

pub fn run(global: &GlobalOpts, args: &OffsetForTimeArgs) -> anyhow::Result<Status> {
    let limits = args.limits.limits();
    // (a relative path, `.` inside a partition dir: as the absolute one)
    let path = std::fs::canonicalize(&args.path).unwrap_or_else(|_| args.path.clone());
    let targets = Targets::of(&path, &limits)?.live();
    if !targets.is_log_dir && args.topic.is_some() {
        anyhow::bail!("--topic goes with a log dir; {} is a partition dir", args.path.display());
    }
    let log_dir = targets.log_dir_path().to_path_buf();
    // what a broker started on the dir knows: its metadata log, here or elsewhere
    let log_dir_state = match &args.metadata_dir {
        None => std::sync::Arc::clone(&targets.log_dir),
        Some(m) => {
            let mut state = logfmt::partition::LogDir::read(&log_dir, &limits);
            state.metadata = Some(
                logfmt::metadata::read_metadata_at(m, &limits)?
                    .ok_or_else(|| anyhow::anyhow!("{}: no KRaft metadata log there", m.display()))?,
            );
            std::sync::Arc::new(state)
        }
    };
    let dirs: Vec<PathBuf> = targets
        .partitions
        .iter()
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).and_then(logfmt::naming::parse_partition_dir);
            !targets.is_log_dir
                || name.is_some_and(|pd| {
                    pd.topic != n::CLUSTER_METADATA_TOPIC && args.topic.as_ref().is_none_or(|t| *t == pd.topic)
                })
        })
        .cloned()
        .collect();
    if dirs.is_empty() {
        match &args.topic {
            Some(t) => anyhow::bail!("{}: no partition of topic {t:?}", log_dir.display()),
            None => anyhow::bail!("{}: no partitions", log_dir.display()),
        }
    }
    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    if !log_dir.join(n::CLEAN_SHUTDOWN).exists() && log_dir.join(n::META_PROPERTIES).exists() {
        let file = log_dir.display().to_string();
        out.report(&NoteLine {
            file: &file,
            message: "the log dir was not shut down cleanly: answers are from the files as they are; \
                      a broker would recover the unflushed segments first (logtool recover)"
                .into(),
        })?;
    }
    // markers the transaction coordinator (`__transaction_state` of this log
    // dir) writes once a broker starts
    let now_ms = jiff::Timestamp::now().as_millisecond();
    let pending = inspect::offsets::pending_markers(&log_dir, now_ms, &limits)?;
    // tiered partitions' remote segments: __remote_log_metadata of this log dir
    let remote = inspect::offsets::read_remote_log(&targets.log_dir, &limits)?;
    for q in &args.times {
        if let Some((given, zone)) = &q.assumed_zone {
            out.report(&NoteLine {
                file: given,
                message: format!("no zone given: taken in {zone}, the instant {}", q.shown),
            })?;
        }
    }
    let mut missing = false;
    for dir in &dirs {
        let partition = targets.open(dir)?;
        let mut p = PartitionOffsets::open(&partition, &limits)?;
        p.set_remote(&partition, remote.as_ref(), &limits);
        let markers: Vec<&str> = pending
            .get(&(p.topic.clone(), p.partition))
            .map_or_else(Vec::new, |ids| ids.iter().map(String::as_str).collect());
        p.after_start(&partition, &log_dir_state, &markers, &limits);
        for q in &args.times {
            let a = p.answer(q.spec)?;
            missing |= a.offset.is_none();
            // (JSON keeps the query as given; tables show the instant used)
            let text = if global.format == crate::args::Format::Json { &q.text } else { &q.shown };
            out.report(&inspect::offsets::line(&p, text, q.spec, a))?;
        }
    }
    out.finish()?;
    Ok(if missing { Status::Problems } else { Status::Clean })
}

#[derive(Args, Debug)]
pub struct OffsetForTimeArgs {
    /// A partition dir, or a log dir (then every partition, or those of --topic).
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Epoch milliseconds; an RFC 3339 / ISO 8601 date-time such as 2026-11-21T09:14:00Z
    /// or 2026-11-21T09:14 (without a zone offset: the local time zone); earliest (-2),
    /// latest (-1), max-timestamp (-3), earliest-local (-4) or latest-tiered (-5).
    #[arg(required = true, value_name = "TIME", value_parser = parse_time_query, allow_negative_numbers = true)]
    pub times: Vec<TimeQuery>,
    /// With a log dir: only the partitions of this topic.
    #[arg(long, value_name = "TOPIC")]
    pub topic: Option<String>,
    /// The KRaft metadata log (a __cluster_metadata-0 dir or the log dir holding it),
    /// when metadata.log.dir is not this log dir: it says which partitions lead
    /// alone, whose high watermark is the log end once a broker starts.
    #[arg(long, value_name = "DIR")]
    pub metadata_dir: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
}
