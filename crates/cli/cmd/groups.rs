//! `logtool groups`: the arguments, and the lines of `logfmt::groups`
//! (groups of every type as the coordinators load them, committed offsets
//! and lag, share partitions' start offsets and lag; `--which`: the
//! partition a group's records go to) printed.

use std::io::{self, BufWriter};

use logfmt::groups::{Coordinators, GroupsLine};
use logfmt::partition::open_log_dirs;

use clap::Args;

use crate::args::{GlobalOpts, LimitArgs};
use crate::exit::Status;
use crate::output::{NoteLine, Output, WarningLine};
use crate::progress::Progress;
use std::path::PathBuf;

pub fn run(global: &GlobalOpts, args: &GroupsArgs) -> anyhow::Result<Status> {
    let limits = args.limits.limits();
    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    // a partition dir is answered for as its log dir answers for it
    let given =
        logfmt::logdir::log_dirs_of(&args.log_dirs, "the group coordinator's state (__consumer_offsets) is there")?;
    let dirs = open_log_dirs(&given.log_dirs, &limits)?;
    let coordinators = Coordinators::new(given, dirs, args.partitions);
    if let Some(g) = &args.which {
        out.report(&coordinators.which(g))?;
        out.finish()?;
        return Ok(Status::Clean);
    }
    let progress = Progress::new(coordinators.bytes(), global.quiet);
    let lines = coordinators.answer(args.group.as_deref(), &limits, &mut |n| progress.inc(n));
    progress.finish();
    let file = dirs_text(args);
    let mut status = Status::Clean;
    for line in lines? {
        match line {
            GroupsLine::Note(message) => out.report(&NoteLine { file: &file, message })?,
            GroupsLine::Missing(message) => {
                out.report(&WarningLine { file: &file, message })?;
                status = Status::Problems;
            }
            GroupsLine::Group(g) => out.report(&g)?,
            GroupsLine::Offset(c) => out.report(&c)?,
            GroupsLine::Share(s) => out.report(&s)?,
        }
    }
    out.finish()?;
    Ok(status)
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
