//! `logtool groups`: the arguments, and the lines of `inspect::groups`
//! (groups of every type as the coordinators load them, committed offsets
//! and lag, share partitions' start offsets and lag; `--which`: the
//! partition a group's records go to) printed.

use std::io::{self, BufWriter};

use std::collections::HashMap;

use inspect::groups::{Coordinators, GroupLine, GroupsLine};
use logfmt::partition::open_log_dirs;
use logfmt::report::{Report, Shown};
use serde::Serialize;

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
    let table = global.format != crate::args::Format::Json;
    // (group, topic, partition) -> the member it is assigned to
    let mut owner: HashMap<(String, String, i32), (String, String, String)> = HashMap::new();
    for line in lines? {
        match line {
            GroupsLine::Note(message) => out.report(&NoteLine { file: &file, message })?,
            GroupsLine::Missing(message) => {
                out.report(&WarningLine { file: &file, message })?;
                status = Status::Problems;
            }
            // JSON: every field; tables: as kafka-consumer-groups --describe
            // lays them out (--state, --members, or the offsets)
            GroupsLine::Group(g) if table => {
                for m in &g.members {
                    for (topic, parts) in &m.assignment {
                        for p in parts {
                            let who = (m.member_id.clone(), m.client_host.clone(), m.client_id.clone());
                            owner.insert((g.group.clone(), topic.clone(), *p), who);
                        }
                    }
                }
                if args.members {
                    for m in &g.members {
                        out.report(&MemberRow {
                            group: &g.group,
                            member: &m.member_id,
                            host: &m.client_host,
                            client: &m.client_id,
                            partitions: m.assignment.iter().map(|(_, p)| p.len()).sum(),
                        })?;
                    }
                } else {
                    out.report(&StateRow(&g))?;
                }
            }
            GroupsLine::Group(g) => out.report(&g)?,
            GroupsLine::Offset(mut c) if table => {
                if args.members || args.state {
                    continue;
                }
                c.member = owner.get(&(c.group.clone(), c.topic.clone(), c.partition)).cloned();
                out.report(&c)?;
            }
            GroupsLine::Offset(c) => out.report(&c)?,
            GroupsLine::Share(_) if table && (args.members || args.state) => {}
            GroupsLine::Share(s) => out.report(&s)?,
        }
    }
    out.finish()?;
    Ok(status)
}

/// A group as `kafka-consumer-groups --describe --state` shows it (tables).
#[derive(Serialize)]
struct StateRow<'a>(#[serde(skip)] &'a GroupLine);

impl Report for StateRow<'_> {
    const TYPE: &'static str = "group";

    fn show(&self) -> Shown {
        let g = self.0;
        Shown::Row(
            &["GROUP", "COORDINATOR", "TYPE", "STATE", "ASSIGNMENT-STRATEGY", "EPOCH", "#MEMBERS"],
            vec![
                g.group.clone(),
                g.coordinator_partition.map_or("-".into(), |p| format!("__consumer_offsets-{p}")),
                match (g.group_type, &g.protocol_type) {
                    // a classic group's protocol type when not a consumer's:
                    // connect...
                    (Some(t @ "Classic"), Some(p)) if p != "consumer" => format!("{t}({p})"),
                    (Some(t), _) => t.to_string(),
                    _ => "-".into(),
                },
                g.state.to_string(),
                g.assignor.clone().unwrap_or_else(|| "-".into()),
                g.generation.map_or("-".into(), |v| v.to_string()),
                g.members.len().to_string(),
            ],
        )
    }
}

/// A member as `kafka-consumer-groups --describe --members` shows it.
#[derive(Serialize)]
struct MemberRow<'a> {
    group: &'a str,
    member: &'a str,
    host: &'a str,
    client: &'a str,
    partitions: usize,
}

impl Report for MemberRow<'_> {
    const TYPE: &'static str = "member";

    fn show(&self) -> Shown {
        Shown::Row(
            &["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"],
            vec![
                self.group.to_string(),
                logfmt::report::clip(self.member).into_owned(),
                logfmt::report::clip(self.host).into_owned(),
                logfmt::report::clip(self.client).into_owned(),
                self.partitions.to_string(),
            ],
        )
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
    #[arg(long, value_name = "N", value_parser = crate::args::parse_partitions)]
    pub partitions: Option<i32>,
    /// Tables: each group's members (CONSUMER-ID, HOST, CLIENT-ID, #PARTITIONS), as
    /// kafka-consumer-groups --describe --members.
    #[arg(long, conflicts_with = "state")]
    pub members: bool,
    /// Tables: each group's state only (COORDINATOR, STATE, ASSIGNMENT-STRATEGY,
    /// #MEMBERS), as kafka-consumer-groups --describe --state.
    #[arg(long)]
    pub state: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}
