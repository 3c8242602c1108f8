//! `logtool fixture`: a log dir from a spec (the `fixture` crate), and the
//! list of shipped specs.

use std::io::{self, BufWriter};

use anyhow::Context;

use clap::Args;

use logfmt::report::{Report, Shown};
use serde::Serialize;

use crate::args::GlobalOpts;
use crate::exit::Status;
use crate::output::Output;
use crate::progress::Progress;
use std::path::PathBuf;

pub fn run(global: &GlobalOpts, args: &FixtureArgs) -> anyhow::Result<Status> {
    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    if args.list {
        for (name, text) in fixture::shipped::SPECS {
            let description = fixture::spec::parse(text).map(|s| s.description).unwrap_or_default();
            out.report(&(SpecLine { name: name.to_string(), description }))?;
        }
        out.finish()?;
        return Ok(Status::Clean);
    }
    let (Some(spec_arg), Some(dir)) = (&args.spec, &args.out) else {
        anyhow::bail!("give a SPEC and --out DIR (or --list)");
    };
    // a shipped spec's name wins unless a spec *file* of that name is here
    // (a directory named `crash/` is no spec)
    let text = match fixture::shipped::get(spec_arg) {
        Some(t) if !std::path::Path::new(spec_arg).is_file() => t.to_string(),
        _ => std::fs::read_to_string(spec_arg)
            .with_context(|| format!("{spec_arg}: not a spec file or a shipped spec (--list)"))?,
    };
    let spec = fixture::spec::parse(&text).with_context(|| spec_arg.clone())?;
    let opts = fixture::Options { seed: args.seed, replicas: args.replicas, kafka_version: args.kafka_version };
    let occupied = dir.read_dir().is_ok_and(|mut d| d.next().is_some());
    let progress = Progress::records(fixture::total_records(&spec), global.quiet);
    let report = fixture::build_with_progress(&spec, dir, &opts, &mut |n| progress.inc(n));
    progress.finish();
    // an error names the spec it comes from, or the output dir when it is
    // the dir's fault
    let report = report.with_context(|| {
        if occupied { format!("{} (the --out dir)", dir.display()) } else { format!("spec {spec_arg}") }
    })?;
    for n in &report.nodes {
        for p in &n.partitions {
            out.report(&(WrittenLine { node_id: n.node_id, log_dir: n.dir.display().to_string(), partition: p }))?;
        }
    }
    out.report(
        &(FixtureSummaryLine {
            out: dir.display().to_string(),
            seed: report.seed,
            cluster_id: report.cluster_id.clone(),
            nodes: report.nodes.iter().map(|n| n.dir.display().to_string()).collect(),
            divergence: report.divergence.clone(),
            damage: report.damage.clone(),
        }),
    )?;
    out.finish()?;
    Ok(Status::Clean)
}

#[derive(Args, Debug)]
pub struct FixtureArgs {
    /// A spec file, or the name of a shipped spec.
    #[arg(value_name = "SPEC", required_unless_present = "list")]
    pub spec: Option<String>,
    /// Where to write (must be empty or absent).
    #[arg(long, value_name = "DIR", required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// The seed of every generator (default: the spec's).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Write N replicas that diverged (default: the spec's [replicas], else 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=9))]
    pub replicas: Option<u32>,
    /// Write the dir as this Kafka release formats and writes it: 3.9 (3.9.1, the
    /// default), 4.3 (4.3.1) or 4.4 (4.4.0): its metadata.version and feature levels;
    /// topic configs are checked against that release (default: the spec's
    /// kafka_version).
    #[arg(long, value_name = "VERSION", value_parser = crate::cmd::verify::parse_writable_version)]
    pub kafka_version: Option<inspect::KafkaVersion>,
    /// List the shipped specs.
    #[arg(long, conflicts_with_all = ["spec", "out"])]
    pub list: bool,
}

#[derive(Serialize)]
pub struct WrittenLine<'a> {
    pub node_id: i32,
    pub log_dir: String,
    #[serde(flatten)]
    pub partition: &'a fixture::PartitionReport,
}

impl<'a> Report for WrittenLine<'a> {
    const TYPE: &'static str = "written";

    fn show(&self) -> Shown {
        let w = self;
        const WRITTEN: &[&str] =
            &["NODE", "PARTITION", "SEGMENTS", "BATCHES", "RECORDS", "LOG START", "LOG END", "HW", "EPOCH"];
        let p = w.partition;
        Shown::Row(
            WRITTEN,
            vec![
                w.node_id.to_string(),
                p.name.clone(),
                p.segments.to_string(),
                p.batches.to_string(),
                p.records.to_string(),
                p.log_start_offset.to_string(),
                p.log_end_offset.to_string(),
                p.high_watermark.to_string(),
                p.leader_epoch.to_string(),
            ],
        )
    }
}

#[derive(Serialize)]
pub struct SpecLine {
    pub name: String,
    pub description: String,
}

impl Report for SpecLine {
    const TYPE: &'static str = "spec";

    fn show(&self) -> Shown {
        let sp = self;
        Shown::Row(&["SPEC", "DESCRIPTION"], vec![sp.name.clone(), sp.description.clone()])
    }
}

#[derive(Serialize)]
pub struct FixtureSummaryLine {
    pub out: String,
    pub seed: u64,
    pub cluster_id: String,
    pub nodes: Vec<String>,
    pub divergence: std::collections::BTreeMap<String, i64>,
    pub damage: Vec<String>,
}

impl Report for FixtureSummaryLine {
    const TYPE: &'static str = "summary";

    fn show(&self) -> Shown {
        let f = self;
        let mut s = String::new();
        for d in &f.damage {
            s.push_str(&format!("\ndamage: {d}"));
        }
        for (p, o) in &f.divergence {
            s.push_str(&format!("\n{p}: the replicas diverge at offset {o}"));
        }
        s.push_str(&format!(
            "\nwrote {} (seed {}, cluster id {}); start Kafka with log.dirs and metadata.log.dir = {}",
            f.out,
            f.seed,
            f.cluster_id,
            f.nodes.join(", ")
        ));
        Shown::Text(s)
    }
}
