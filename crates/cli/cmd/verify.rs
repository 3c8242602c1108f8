//! `logtool verify`: find every problem in log dirs, partitions or files.
//!
//! Paths are expanded into units of work: a log dir's own files (checked
//! first, since its checkpoints give each partition its context), then every
//! partition, checked in parallel on a rayon pool, then single files. Reports
//! are printed in walking order once all are done. Nothing is written.

use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::time::Instant;

use std::sync::Arc;

use inspect::KafkaVersion as Version;
use inspect::schedule::{self, Pass};
use inspect::verify::{self, Kind, Options, Report, Severity, StartPlanLine, VerifySummaryLine};
use logfmt::logdir::{self, LogDirEntry, Target};
use logfmt::partition::LogDir;

use clap::{Args, ValueEnum};

use crate::args::{GlobalOpts, LimitArgs};
use crate::exit::Status;
use crate::output::Output;
use crate::progress::Progress;

enum Unit {
    /// Findings already made (a log dir's own files, or a path that failed).
    Done(Report),
    /// A partition dir, with what its log dir says about it.
    Partition(PathBuf, Arc<LogDir>),
    File(PathBuf),
}

/// Expand `path` into units; `versions` gets the Kafka release judged for
/// each log dir (and what chose it).
fn plan(
    path: &Path,
    opts: &Options,
    units: &mut Vec<Unit>,
    versions: &mut Vec<(Version, String, verify::DirMode)>,
    failed: &mut Vec<logfmt::Error>,
) {
    match logdir::resolve(path) {
        // a path that is no Kafka data at all (or cannot be read): an
        // error of the command (exit 2, JSON `command_error`), the other
        // paths checked meanwhile
        Err(e) => failed.push(e),
        Ok(Target::File(p)) => {
            // a repair of its log dir that stopped part way concerns it too
            if let Some(log_dir) =
                std::fs::canonicalize(&p).ok().as_deref().and_then(Path::parent).and_then(Path::parent)
            {
                units.push(Unit::Done(verify::unfinished_repairs(log_dir, opts)));
            }
            units.push(Unit::File(p))
        }
        Ok(Target::PartitionDir(p)) => {
            // the parent's checkpoints (and coordinator state) describe this
            // partition, if it is a log dir: read as for the whole log dir
            let parent = std::fs::canonicalize(&p).ok().as_deref().and_then(Path::parent).map(Path::to_path_buf);
            let log_dir = match parent {
                Some(log_dir) => {
                    units.push(Unit::Done(verify::unfinished_repairs(&log_dir, opts)));
                    let (ld, report) = verify::partition_context(&log_dir, opts);
                    units.push(Unit::Done(report));
                    ld
                }
                None => LogDir::default(),
            };
            versions.push(version_of(&log_dir, opts));
            units.push(Unit::Partition(p, Arc::new(log_dir)));
        }
        Ok(Target::LogDir(p)) => {
            let (log_dir, report) = verify::check_log_dir(&p, opts);
            versions.push(version_of(&log_dir, opts));
            let log_dir = Arc::new(log_dir);
            units.push(Unit::Done(report));
            match logdir::log_dir_entries(&p) {
                Err(e) => failed.push(e),
                Ok(entries) => {
                    for e in entries {
                        if let LogDirEntry::Partition(d) = e {
                            units.push(Unit::Partition(d, Arc::clone(&log_dir)));
                        }
                    }
                }
            }
        }
    }
}

/// The release judged for `log_dir`, and why that one.
fn version_of(log_dir: &LogDir, opts: &Options) -> (Version, String, verify::DirMode) {
    let v = opts.version_for(log_dir);
    let why = match (opts.kafka_version, log_dir.metadata.as_ref().and_then(|m| m.metadata_version)) {
        (Some(_), _) => "--kafka-version".to_string(),
        (None, Some(level)) => format!(
            "the dir's metadata.version {}",
            inspect::verify::metadata_version_name(level).unwrap_or("(unknown)")
        ),
        (None, None) => "no metadata.version here: the default".to_string(),
    };
    (v, why, verify::mode_of(log_dir))
}

fn size_of(unit: &Unit) -> u64 {
    let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    match unit {
        Unit::Done(_) => 0,
        Unit::File(p) => len(p),
        Unit::Partition(d, _) => logdir::partition_files(d).map(|fs| fs.iter().map(|f| len(f)).sum()).unwrap_or(0),
    }
}

/// `file` relative to the first of `roots` it lies under (a root that is the
/// file itself shows its name).
fn relative(file: &Path, roots: &[PathBuf]) -> String {
    for r in roots {
        if let Ok(rel) = file.strip_prefix(r) {
            if rel.as_os_str().is_empty() {
                return r.file_name().map_or_else(|| r.display().to_string(), |n| n.to_string_lossy().into_owned());
            }
            return rel.display().to_string();
        }
    }
    file.display().to_string()
}

pub fn run(global: &GlobalOpts, args: &VerifyArgs) -> anyhow::Result<Status> {
    let started = Instant::now();
    let threads = args.limits.threads(args.threads);
    let opts = Options {
        limits: args.limits.limits_for(threads),
        max_per_kind: args.max_per_kind,
        read_ahead: true,
        kafka_version: args.kafka_version,
        deep: args.deep,
    };
    let mut units = Vec::new();
    let mut versions = Vec::new();
    let mut failed = Vec::new();
    for p in &args.paths {
        plan(p, &opts, &mut units, &mut versions, &mut failed);
    }
    // several log dirs given: one broker's, whose replicas must not repeat
    let log_dirs: Vec<PathBuf> = args
        .paths
        .iter()
        .filter_map(|p| match logdir::resolve(p) {
            Ok(Target::LogDir(d)) => Some(d),
            _ => None,
        })
        .collect();
    if log_dirs.len() > 1 {
        units.push(Unit::Done(verify::check_broker(&log_dirs, &opts)));
    }
    let total: u64 = units.iter().map(size_of).sum();
    let progress = Progress::new(total, global.quiet);
    let reports = check_units(units, opts, threads, &progress)?;
    progress.finish();

    let threshold = match args.fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
        FailOn::Info => Severity::Info,
    };
    let mut out = Output::new(BufWriter::with_capacity(1 << 16, io::stdout().lock()), global.format);
    let mut summary = VerifySummaryLine::default();
    let mut start = verify::StartTally::default();
    let mut status = Status::Clean;
    let shown = Severity::from(args.severity);
    let mut findings: Vec<verify::Finding> = Vec::new();
    for r in &reports {
        start.add(&r.start);
        summary.add(r);
        for f in &r.findings {
            if matches!(f.kind, Kind::IoError | Kind::NotKafkaFile | Kind::MemoryBudget) {
                status = status.merge(Status::Error);
            } else if f.severity >= threshold {
                status = status.merge(Status::Problems);
            }
            if f.severity < shown {
                continue;
            }
            if global.format == crate::args::Format::Json {
                // JSON: every finding, in walking order
                out.report(f)?;
            } else {
                // tables show paths relative to the argument they were found under
                findings.push(verify::Finding { file: PathBuf::from(relative(&f.file, &args.paths)), ..f.clone() });
            }
        }
    }
    // tables: errors first, then warnings, then info (folded by kind
    // unless --details), each in walking order
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    for row in fold(findings, args.details) {
        out.report(&row)?;
    }
    if let Some((version, from, mode)) = versions.first() {
        out.report(&StartPlanLine::new(*version, from.clone(), mode, &start))?;
    }
    summary.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    if !failed.is_empty()
        && reports.iter().all(|r| r.findings.is_empty())
        && summary.partitions == 0
        && summary.files == 0
    {
        // nothing was checked: no summary that reads as a clean claim
        out.finish()?;
    } else {
        out.report(&(summary))?;
        out.finish()?;
    }
    if !failed.is_empty() {
        let all: Vec<String> = failed.iter().map(ToString::to_string).collect();
        anyhow::bail!("{}", all.join("; "));
    }
    Ok(status)
}

/// Info findings of one kind in more than [`FOLD_AT`] rows are shown as
/// one row (`--details` lists each).
const FOLD_AT: usize = 3;

/// `findings` (sorted by severity) with the info ones of a kind that has
/// more than [`FOLD_AT`] folded into one row: its count, where, and the
/// kind's meaning.
fn fold(findings: Vec<verify::Finding>, details: bool) -> Vec<verify::Finding> {
    if details {
        return findings;
    }
    let mut count: std::collections::HashMap<Kind, usize> = std::collections::HashMap::new();
    let mut places: std::collections::HashMap<Kind, std::collections::BTreeSet<PathBuf>> =
        std::collections::HashMap::new();
    for f in findings.iter().filter(|f| f.severity == Severity::Info) {
        *count.entry(f.kind).or_default() += 1;
        places.entry(f.kind).or_default().insert(f.file.clone());
    }
    let mut out = Vec::with_capacity(findings.len());
    let mut folded: Vec<Kind> = Vec::new();
    for f in findings {
        let n = count.get(&f.kind).copied().unwrap_or(0);
        if f.severity != Severity::Info || n <= FOLD_AT {
            out.push(f);
            continue;
        }
        if folded.contains(&f.kind) {
            continue;
        }
        folded.push(f.kind);
        let files = places.get(&f.kind).map_or(0, std::collections::BTreeSet::len);
        out.push(verify::Finding {
            file: PathBuf::from(format!("({files} files)")),
            position: None,
            end_position: None,
            offset: None,
            message: format!("{n} findings: {} (--details lists each)", f.kind.description()),
            ..f
        });
    }
    out
}

/// Check every unit on `threads` threads (`inspect::schedule`: the largest
/// first, read-ahead where cores would idle, a unit the memory budget
/// refused checked again alone), reports in the order given.
fn check_units(units: Vec<Unit>, opts: Options, threads: usize, progress: &Progress) -> anyhow::Result<Vec<Report>> {
    // reports already made stay where they are; the rest is scheduled
    let mut reports: Vec<Option<Report>> = Vec::new();
    let mut work: Vec<(Unit, u64)> = Vec::new();
    for u in units {
        match u {
            Unit::Done(r) => reports.push(Some(r)),
            u => {
                reports.push(None);
                let size = size_of(&u);
                work.push((u, size));
            }
        }
    }
    let check = |u: &Unit, pass: Pass| {
        let opts = Options { read_ahead: pass.read_ahead(), ..opts };
        let inc = |n: u64| progress.inc(n);
        match u {
            Unit::Done(_) => Report::default(),
            Unit::Partition(d, log_dir) => {
                let mut r = verify::check_partition(d, log_dir, &opts, &inc);
                if d.parent()
                    .is_some_and(|ld| matches!(logfmt::lock::log_dir_lock(ld), logfmt::lock::LockState::Held(_)))
                {
                    verify::while_live(&mut r);
                }
                r
            }
            Unit::File(f) => verify::check_file(f, &opts, &inc),
        }
    };
    let mut checked = schedule::run(work, threads, check)?.into_iter();
    Ok(reports.into_iter().map(|r| r.or_else(|| checked.next()).unwrap_or_default()).collect())
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Log dirs, partition dirs or files to check.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Exit with 1 when a finding is at least this severe.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// List at most N findings of one kind per file; the rest are counted.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_per_kind: usize,
    /// Check this many partitions at once (default: one per core).
    #[arg(short = 'j', long, value_name = "N", value_parser = crate::args::parse_threads)]
    pub threads: Option<std::num::NonZeroUsize>,
    /// Judge what this Kafka release does when it starts on the dir (stray partitions,
    /// configs it refuses): 3.9, 4.0, 4.1, 4.2, 4.3 or 4.4 (or x.y.z). Default: the release
    /// the dir's metadata.version implies (3.9 when it has none; the newest for a newer dir).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub kafka_version: Option<Version>,
    /// Show findings at least this severe (the exit code still follows --fail-on).
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = FailOn::Info)]
    pub severity: FailOn,
    /// List every info finding (without it, an info kind found more than 3 times is one
    /// row with its count).
    #[arg(long)]
    pub details: bool,
    /// Read every record of every batch (message format v2), decompressing those that are
    /// compressed, as DumpLogSegments --deep-iteration does. Without it a batch whose CRC
    /// holds is checked by its CRC and header, as Kafka's recovery checks it; a batch whose
    /// CRC holds but whose records do not decode or disagree with its header is found only
    /// with --deep. Slower, most of all on compressed topics.
    #[arg(long)]
    pub deep: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

impl From<FailOn> for Severity {
    fn from(f: FailOn) -> Severity {
        match f {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
        }
    }
}

pub fn parse_version(s: &str) -> Result<Version, String> {
    Version::parse(s).ok_or_else(|| format!("{s:?}: the releases logtool knows are {}", Version::known()))
}

/// A release the writer makes dirs of (`broker`, `fixture`).
pub fn parse_writable_version(s: &str) -> Result<Version, String> {
    let v = parse_version(s)?;
    logwrite::write::logdir::check_writes(v)?;
    Ok(v)
}

/// Severity threshold for the exit code.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    Error,
    Warning,
    Info,
}
