//! `logtool diff-replicas` and `logtool digest`: replicas of one partition
//! after a failover (`repl_check`).

use std::io::{self, BufWriter};
use std::path::PathBuf;

use repl_check::diff::{self, Options};
use repl_check::lines::{DiffSummaryLine, DigestLine, DivergentRecordLine};
use repl_check::replica::{self, SourceKind};

use clap::Args;

use crate::args::{GlobalOpts, LimitArgs, RecordFilterArgs};
use crate::exit::Status;
use crate::output::{NoteLine, Output};
use crate::progress::Progress;

/// `--leader`: a 1-based position or one of the paths.
fn leader_index(args: &DiffReplicasArgs) -> anyhow::Result<Option<usize>> {
    let Some(l) = &args.leader else { return Ok(None) };
    if let Ok(n) = l.parse::<usize>()
        && (1..=args.replicas.len()).contains(&n)
    {
        return Ok(Some(n - 1));
    }
    let want = PathBuf::from(l);
    let canon = |p: &PathBuf| p.canonicalize().unwrap_or_else(|_| p.clone());
    match args.replicas.iter().position(|p| *p == want || canon(p) == canon(&want)) {
        Some(i) => Ok(Some(i)),
        None => {
            anyhow::bail!("--leader {l}: neither a position from 1 to {} nor one of the replicas", args.replicas.len())
        }
    }
}

/// The replicas to compare, one partition at a time: the arguments as they
/// are (partition dirs or digests of one partition), or, given log dirs,
/// each partition that two or more of them hold (by name; the KRaft
/// metadata log is Raft's, not replicated by the ISR protocol, and left
/// out), with the position of `--leader` among that partition's replicas.
/// Paths of different levels, a segment file, or partition dirs of
/// different partitions are refused (exit 2), never compared as if alike.
struct Group {
    paths: Vec<PathBuf>,
    leader: Option<usize>,
    /// A digest read from stdin (`-`), kept until the comparison is done.
    _stdin: Option<tempfile::NamedTempFile>,
}

/// `-` among the replicas: a digest on stdin (what `digest -o -` writes),
/// copied to a temporary file (a digest is read more than once) whose path
/// takes its place. At most one.
fn stdin_digest(replicas: &mut [PathBuf]) -> anyhow::Result<Option<tempfile::NamedTempFile>> {
    let mut dashes = replicas.iter_mut().filter(|p| p.as_os_str() == "-");
    let Some(slot) = dashes.next() else { return Ok(None) };
    if dashes.next().is_some() {
        anyhow::bail!("stdin (-) can hold one digest, not two");
    }
    let mut tmp = tempfile::NamedTempFile::new()?;
    io::copy(&mut io::stdin().lock(), tmp.as_file_mut())?;
    *slot = tmp.path().to_path_buf();
    Ok(Some(tmp))
}

fn groups(args: &DiffReplicasArgs, out: &mut Output<BufWriter<io::StdoutLock<'static>>>) -> anyhow::Result<Vec<Group>> {
    use logfmt::logdir::{LogDirEntry, Target};
    let leader = leader_index(args)?;
    let mut replicas = args.replicas.clone();
    let stdin = stdin_digest(&mut replicas)?;
    let mut targets = Vec::new();
    for p in &replicas {
        let t = if p.is_dir() { logfmt::logdir::resolve(p)? } else { Target::File(p.clone()) };
        if let Target::File(f) = &t {
            let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if logfmt::naming::classify(&name).kind != logfmt::naming::FileKind::Unknown {
                anyhow::bail!(
                    "{}: a file of a partition, not a replica: give its partition dir (or a digest of it, `logtool digest`)",
                    f.display()
                );
            }
        }
        targets.push(t);
    }
    let log_dirs: Vec<&PathBuf> =
        targets.iter().filter_map(|t| if let Target::LogDir(d) = t { Some(d) } else { None }).collect();
    if log_dirs.is_empty() {
        let names: std::collections::BTreeSet<String> = replicas
            .iter()
            .filter(|p| p.is_dir())
            .filter_map(|p| p.canonicalize().ok()?.file_name().map(|n| n.to_string_lossy().into_owned()))
            .filter(|n| logfmt::naming::parse_partition_dir(n).is_some())
            .collect();
        if names.len() > 1 {
            anyhow::bail!(
                "replicas of one partition are compared, and these are of {}",
                names.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        return Ok(vec![Group { paths: replicas, leader, _stdin: stdin }]);
    }
    if log_dirs.len() != targets.len() {
        anyhow::bail!(
            "give log dirs (every partition they share is compared) or partition dirs or digests of one partition, not both"
        );
    }
    let mut held: std::collections::BTreeMap<String, Vec<(usize, PathBuf)>> = std::collections::BTreeMap::new();
    for (i, d) in log_dirs.iter().enumerate() {
        for e in logfmt::logdir::log_dir_entries(d)? {
            if let LogDirEntry::Partition(p) = e {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                if name != format!("{}-0", logfmt::spec::names::CLUSTER_METADATA_TOPIC) {
                    held.entry(name).or_default().push((i, p));
                }
            }
        }
    }
    let mut out_groups = Vec::new();
    for (name, replicas) in held {
        if replicas.len() < 2 {
            let only = replicas.first().map(|(_, p)| p.display().to_string()).unwrap_or_default();
            out.report(&NoteLine {
                file: &only,
                message: format!("{name}: in one of the log dirs only, not compared"),
            })?;
            continue;
        }
        let leader = leader.and_then(|l| replicas.iter().position(|(i, _)| *i == l));
        out_groups.push(Group { paths: replicas.into_iter().map(|(_, p)| p).collect(), leader, _stdin: None });
    }
    if out_groups.is_empty() {
        anyhow::bail!("the log dirs share no partition: nothing to compare");
    }
    Ok(out_groups)
}

pub fn diff(global: &GlobalOpts, args: &DiffReplicasArgs) -> anyhow::Result<Status> {
    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    let groups = groups(args, &mut out)?;
    let several = groups.len() > 1;
    let mut diverged = 0usize;
    for g in &groups {
        if diff_one(global, args, g, &mut out)? {
            diverged += 1;
        }
    }
    if several {
        let message = format!("{} partition(s) compared: {diverged} diverged", groups.len());
        out.report(&NoteLine { file: "", message })?;
    }
    out.finish()?;
    Ok(if diverged > 0 { Status::Problems } else { Status::Clean })
}

/// Compare the replicas of one partition; whether they diverged.
fn diff_one(
    global: &GlobalOpts,
    args: &DiffReplicasArgs,
    group: &Group,
    out: &mut Output<BufWriter<io::StdoutLock<'static>>>,
) -> anyhow::Result<bool> {
    let limits = args.limits.limits();
    let opts = Options { leader: group.leader, limits };
    let mut report = diff::diff(&group.paths, &opts)?;
    // a digest from stdin is the replica `-`, as given (not its temporary file)
    if let Some(tmp) = &group._stdin {
        for r in &mut report.replicas {
            if r.info.path == tmp.path() {
                r.info.path = PathBuf::from("-");
            }
        }
    }
    for r in &report.replicas {
        out.report(r)?;
    }
    // the notes, for people (JSON has them in the replica lines)
    if global.format == crate::args::Format::Table {
        for r in &report.replicas {
            let file = r.info.path.display().to_string();
            for n in &r.notes {
                out.report(&NoteLine { file: &file, message: n.clone() })?;
            }
            if r.records_lost > 0 {
                out.report(&NoteLine {
                    file: &file,
                    message: format!(
                        "Kafka truncates it to {} and {} record(s) in {} batch(es) are lost: offsets {}, leader epoch(s) {}, {} to {}",
                        r.truncate_to.unwrap_or(-1),
                        r.records_lost,
                        r.batches_lost,
                        r.lost_range.map_or("-".into(), |(a, b)| logfmt::report::offset_range(a, b.saturating_sub(1))),
                        r.lost_epochs.iter().map(ToString::to_string).collect::<Vec<_>>().join(","),
                        crate::output::fmt_time(r.lost_time_range.0),
                        crate::output::fmt_time(r.lost_time_range.1),
                    ),
                })?;
                if r.records_lost_below_hw > 0 {
                    out.report(&NoteLine {
                        file: &file,
                        message: format!(
                            "{} of them were below its high watermark {}: committed records, lost to an unclean election",
                            r.records_lost_below_hw,
                            r.info.high_watermark.unwrap_or(-1)
                        ),
                    })?;
                }
            }
        }
    }
    let leader =
        report.replicas.iter().find(|r| r.is_leader).map(|r| r.info.path.display().to_string()).unwrap_or_default();
    let redact = crate::redact::Redactor::from_args(&args.redact)?;
    if args.records && report.diverged {
        for r in &report.replicas {
            let from = if r.is_leader { report.divergence_offset } else { r.divergence_offset };
            let Some(from) = from else { continue };
            let path = r.info.path.display().to_string();
            if r.info.source != SourceKind::Dir {
                out.report(&NoteLine { file: &path, message: "a digest holds no records".into() })?;
                continue;
            }
            let keep = |c: &repl_check::records::Candidate<'_>| {
                args.filter.batch(c.producer_id, c.is_transactional)
                    && args.filter.record(c.key, c.value, c.headers.iter().copied())
            };
            let (records, more) =
                repl_check::records::records_from(&r.info.path, from, args.max_records, &limits, &keep)?;
            for d in records {
                let key = match (&redact, &d.key) {
                    (Some(red), Some(k)) => Some(red.token(k)),
                    (None, Some(k)) => Some(k.iter().map(|b| format!("{b:02x}")).collect()),
                    (_, None) => None,
                };
                let key_text = match (&redact, &d.key) {
                    (_, None) => None,
                    (Some(_), Some(_)) => key.clone(),
                    (None, Some(k)) => Some(crate::output::clip(&String::from_utf8_lossy(k)).into_owned()),
                };
                out.report(
                    &(DivergentRecordLine {
                        replica: path.clone(),
                        offset: d.offset,
                        epoch: d.epoch,
                        timestamp: d.timestamp,
                        key,
                        value_size: d.value_size,
                        // a checksum of a short value gives it away: keyed too
                        value_crc32c: d.value_crc32c.map(|c| redact.as_ref().map_or(c, |red| red.hash_u32(c))),
                        control: d.is_control,
                        key_text,
                    }),
                )?;
            }
            if more {
                out.report(&NoteLine {
                    file: &path,
                    message: format!("more records follow (--max-records {})", args.max_records),
                })?;
            }
        }
    }
    out.report(&DiffSummaryLine::of(&report, leader))?;
    Ok(report.diverged)
}

pub fn digest(global: &GlobalOpts, args: &DigestArgs) -> anyhow::Result<Status> {
    let limits = args.limits.limits();
    if !args.path.exists() {
        anyhow::bail!("{}: no such file or directory", args.path.display());
    }
    if !args.path.is_dir() {
        anyhow::bail!("{}: a file; give a partition dir", args.path.display());
    }
    if let logfmt::logdir::Target::LogDir(d) = logfmt::logdir::resolve(&args.path)? {
        anyhow::bail!("{}: a log dir; a digest is of one partition: give a partition dir in it", d.display());
    }
    let (info, stream) = replica::open(&args.path, &limits)?;
    let progress = Progress::new(logfmt::logdir::segment_bytes(&args.path), global.quiet);
    let mut stream = WithProgress { inner: stream, progress: &progress };
    let to_stdout = args.output.as_os_str() == "-";
    let w = if to_stdout {
        repl_check::digest::write_to(&info, &mut stream, io::stdout().lock())?
    } else {
        repl_check::digest::write(&info, &mut stream, &args.output)?
    };
    progress.finish();
    let line = DigestLine {
        file: if to_stdout { "-".into() } else { args.output.display().to_string() },
        source: args.path.display().to_string(),
        batches: w.batches,
        bytes: w.bytes,
    };
    // with the digest on stdout, what would be said there goes to stderr
    let mut out: Output<Box<dyn io::Write>> = Output::new(
        if to_stdout { Box::new(io::stderr().lock()) } else { Box::new(BufWriter::new(io::stdout().lock())) },
        global.format,
    );
    if let Some(why) = stream.inner.stopped_early() {
        let file = args.path.display().to_string();
        out.report(&NoteLine { file: &file, message: why })?;
    }
    if !(to_stdout && global.quiet) {
        out.report(&line)?;
    }
    out.finish()?;
    Ok(Status::Clean)
}

/// A replica's batches, counted on the progress bar as they are read.
struct WithProgress<'a> {
    inner: Box<dyn replica::BatchStream>,
    progress: &'a Progress,
}

impl replica::BatchStream for WithProgress<'_> {
    fn next_batch(&mut self) -> repl_check::Result<Option<replica::BatchSummary>> {
        let b = self.inner.next_batch()?;
        if let Some(b) = &b {
            self.progress.inc(u64::from(b.size));
        }
        Ok(b)
    }

    fn stopped_early(&self) -> Option<String> {
        self.inner.stopped_early()
    }
}

#[derive(Args, Debug)]
pub struct DiffReplicasArgs {
    /// Partition dirs or digest files of the same partition (two or more; `-`:
    /// a digest on stdin), or log dirs: every partition two or more of them
    /// hold is compared.
    #[arg(required = true, num_args = 2.., value_name = "REPLICA")]
    pub replicas: Vec<PathBuf>,
    /// Which replica leads: its position (1 = the first REPLICA) or its path.
    /// Default: the highest latest leader epoch, then the longest log.
    #[arg(long, value_name = "REPLICA")]
    pub leader: Option<String>,
    /// Also list the records of the divergent range (partition dirs only).
    #[arg(long)]
    pub records: bool,
    /// With --records, at most N records per replica.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_records: usize,
    #[command(flatten)]
    pub filter: RecordFilterArgs,
    #[command(flatten)]
    pub redact: crate::redact::RedactArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct DigestArgs {
    /// A partition dir.
    #[arg(value_name = "PARTITION")]
    pub path: PathBuf,
    /// Where to write the digest (`-`: standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub limits: LimitArgs,
}
