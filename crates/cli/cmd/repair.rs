//! The commands that write: `recover`, `truncate-to-hw`, `truncate`,
//! `reindex`, `retain`, `undo`.
//!
//! Each plans its work as changes on files (`logwrite::repair`). Without
//! `--execute` the plan is printed and nothing changes (exit 1 when there is
//! something to change, 0 when not). With it, the changes are staged in a
//! quarantine outside the log dir, then committed; a log dir a live broker
//! holds is refused.

use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use logfmt::logdir::{self, LogDirEntry, Target};
use logfmt::partition::{Partition, Targets};
use logwrite::repair::checkpoints::{CheckpointLimits, adjust_checkpoints};
use logwrite::repair::journal::{self, Repair};
use logwrite::repair::recover::{self, Interval, RecoverOptions};
use logwrite::repair::retain::{self, Rule};
use logwrite::repair::{Change, Changes, DryRun, Note, reindex, truncate};

use clap::Args;

use logwrite::repair::lines::{ChangeLine, LossLine, PartitionLine, RepairLine};

use crate::args::{GlobalOpts, IntervalArgs, LimitArgs, WriteArgs, parse_offset, parse_size, parse_time};
use crate::exit::Status;
use crate::output::{NoteLine, Output, WarningLine};

type Out = Output<BufWriter<io::StdoutLock<'static>>>;

fn output(global: &GlobalOpts) -> Out {
    Output::new(BufWriter::with_capacity(1 << 16, io::stdout().lock()), global.format)
}

/// `path` absolute, without `.`, `..` or symlinks, as every repair works on
/// it: `recover --execute .` from inside a log dir must plan the same
/// changes, and put its quarantine in the same place (beside the log dir),
/// as with the absolute path. A path that does not resolve is kept as given
/// (its error is said where it is read).
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The log dir of a path: itself, or the parent of a partition dir, or of
/// a file's partition dir (a log dir's own file: its parent).
fn log_dir_of(path: &Path) -> anyhow::Result<PathBuf> {
    Ok(match logdir::resolve(path)? {
        Target::LogDir(d) => d,
        Target::PartitionDir(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        Target::File(f) => log_dir_of_file(&f),
    })
}

/// The log dir a file is in: its dir when that is a log dir (a checkpoint),
/// else its partition dir's parent.
fn log_dir_of_file(f: &Path) -> PathBuf {
    let parent = f.parent().unwrap_or(Path::new("."));
    match logdir::resolve(parent) {
        Ok(Target::LogDir(d)) => d,
        _ => parent.parent().map(Path::to_path_buf).unwrap_or_default(),
    }
}

/// The partition dirs of a log dir or partition dir.
fn partitions(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    Ok(match logdir::resolve(path)? {
        Target::LogDir(d) => logdir::log_dir_entries(&d)?
            .into_iter()
            .filter_map(|e| if let LogDirEntry::Partition(p) = e { Some(p) } else { None })
            .collect(),
        Target::PartitionDir(p) => vec![p],
        Target::File(f) => anyhow::bail!("{} is a file; give a partition dir or a log dir", f.display()),
    })
}

/// A progress bar over the segments of `path` (a log dir, a partition dir
/// or a segment), and the planners' handle to it.
fn segment_progress(global: &GlobalOpts, path: &Path) -> (crate::progress::Progress, logwrite::repair::Progress) {
    let dirs = match logdir::resolve(path) {
        Ok(Target::File(f)) => f.parent().map(Path::to_path_buf).into_iter().collect(),
        _ => partitions(path).unwrap_or_default(),
    };
    let total: u64 = dirs.iter().map(|d| logdir::segment_bytes(d)).sum();
    let bar = crate::progress::Progress::new(total, global.quiet);
    let handle = bar.clone();
    (bar, logwrite::repair::Progress::new(move |n| handle.inc(n)))
}

/// A table lists at most this many changes one by one (else counted by
/// directory and kind, unless --details).
const CHANGES_LISTED: usize = 30;

fn emit_changes(out: &mut Out, changes: &[Change], notes: &[Note], details: bool, log_dir: &str) -> io::Result<()> {
    for n in notes {
        match n {
            Note::Loss(l) => out.report(&LossLine(l))?,
            Note::Info { path, message } => {
                let file = path.display().to_string();
                out.report(&NoteLine { file: &file, message: message.clone() })?
            }
            Note::Warning { path, message } => {
                let file = path.display().to_string();
                out.report(&WarningLine { file: &file, message: message.clone() })?
            }
        }
    }
    if details || changes.len() <= CHANGES_LISTED {
        for c in changes {
            out.report(c)?;
        }
        return Ok(());
    }
    for g in logwrite::repair::lines::change_groups(changes) {
        out.report(&g)?;
    }
    out.report(&NoteLine {
        file: log_dir,
        message: format!("{} changes, counted by directory and kind: --details lists each", changes.len()),
    })
}

/// What `changes` do to the disk space of the log dir's files, as `du`
/// counts it: (removed: the space removed files, cut tails and replaced
/// files' old content have allocated; written: the new content of replaced
/// and created files, in whole blocks of the log dir's filesystem).
fn space(changes: &[Change], log_dir: &Path) -> (u64, u64) {
    use logwrite::repair::Op;
    let block = block_size(log_dir);
    let blocks = |n: u64| n.div_ceil(block).saturating_mul(block);
    let held = |c: &Change| std::fs::metadata(&c.file).map_or(c.size_before.unwrap_or(0), |m| journal::allocated(&m));
    let (mut removed, mut written) = (0u64, 0u64);
    for c in changes {
        let (before, after) = (c.size_before.unwrap_or(0), c.size_after.unwrap_or(0));
        match c.op {
            Op::Remove => removed = removed.saturating_add(held(c)),
            Op::Truncate => removed = removed.saturating_add(blocks(before).saturating_sub(blocks(after))),
            Op::Replace => {
                removed = removed.saturating_add(held(c));
                written = written.saturating_add(blocks(after));
            }
            Op::Create => written = written.saturating_add(blocks(after)),
            Op::Rename => {}
        }
    }
    (removed, written)
}

/// The log dir's filesystem block size (4096 where it cannot be read).
fn block_size(dir: &Path) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(dir).map_or(4096, |m| m.blksize()).max(512)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        4096
    }
}

/// Plan with `plan`; print; with `--execute`, stage and commit (with
/// `purge`, then delete the repair's quarantine: no undo).
fn run_plan(
    global: &GlobalOpts,
    write: &WriteArgs,
    purge: bool,
    log_dir: &Path,
    command: &str,
    mut plan: impl FnMut(&mut dyn Changes, &mut Out) -> anyhow::Result<()>,
) -> anyhow::Result<Status> {
    let mut out = output(global);
    out.relative_to(log_dir);
    let log_dir_s = log_dir.display().to_string();
    let details = write.details || global.format == crate::args::Format::Json;
    let quarantine = write.quarantine.clone().unwrap_or_else(|| journal::default_quarantine(log_dir));
    if !write.execute {
        let elsewhere = journal::other_filesystem(&quarantine, log_dir);
        let mut dry = DryRun::default();
        plan(&mut dry, &mut out)?;
        emit_changes(&mut out, &dry.changes, &dry.notes, details, &log_dir_s)?;
        let dry_space = space(&dry.changes, log_dir);
        // say now what --execute would meet: a live broker's lock
        if let logfmt::lock::LockState::Held(holder) = logfmt::lock::log_dir_lock(log_dir) {
            out.report(&WarningLine {
                file: &log_dir_s,
                message: format!(
                    "{holder} holds this log dir's .lock (a live broker?): --execute will be refused until it stops"
                ),
            })?;
        }
        out.report(
            &(RepairLine {
                command: command.into(),
                log_dir: log_dir_s,
                executed: false,
                changes: dry.changes.len(),
                id: None,
                quarantine: elsewhere.then(|| quarantine.display().to_string()),
                state: "planned".into(),
                removed_bytes: dry_space.0,
                written_bytes: dry_space.1,
                purged: purge,
                other_filesystem: elsewhere,
            }),
        )?;
        out.finish()?;
        return Ok(if dry.changes.is_empty() { Status::Clean } else { Status::Problems });
    }
    let mut repair = match Repair::begin(log_dir, &quarantine, command) {
        Ok(r) => r,
        // (a full disk before the first change: the journal could not be made)
        Err(e @ journal::RepairError::Io(_)) => {
            return Err(anyhow::Error::new(e).context(format!("{log_dir_s}: nothing was changed")));
        }
        Err(e) => return Err(e.into()),
    };
    for id in &repair.rolled_forward {
        let q = quarantine.display().to_string();
        out.report(&NoteLine { file: &q, message: format!("finished the interrupted repair {id} first") })?;
    }
    if let Err(e) = plan(&mut repair, &mut out) {
        // staging never touches the log dir
        repair.abandon()?;
        return Err(e.context(format!("{log_dir_s}: nothing was changed")));
    }
    let changes = std::mem::take(&mut repair.changes);
    let notes = std::mem::take(&mut repair.notes);
    // (measured before the commit moves the files)
    let (removed_bytes, written_bytes) = space(&changes, log_dir);
    emit_changes(&mut out, &changes, &notes, details, &log_dir_s)?;
    let dir = repair.final_dir().display().to_string();
    let elsewhere = repair.elsewhere();
    let (id, state, quarantine) = if changes.is_empty() {
        let id = repair.id().to_string();
        repair.abandon()?;
        (id, "nothing to do".to_string(), None)
    } else {
        let m = repair.commit()?;
        if purge {
            // --purge: the quarantined bytes go at once (no undo)
            journal::purge(&quarantine, log_dir, std::slice::from_ref(&m.id)).map_err(|e| {
                anyhow::Error::new(e)
                    .context(format!("{log_dir_s}: the changes were made; purging their quarantine failed"))
            })?;
            (m.id.clone(), "purged".to_string(), None)
        } else {
            (m.id.clone(), m.state.name().to_string(), Some(dir))
        }
    };
    out.report(
        &(RepairLine {
            command: command.into(),
            log_dir: log_dir_s,
            executed: true,
            changes: changes.len(),
            id: Some(id),
            quarantine,
            state,
            removed_bytes,
            written_bytes,
            purged: purge,
            other_filesystem: elsewhere,
        }),
    )?;
    out.finish()?;
    Ok(Status::Clean)
}

pub fn recover(global: &GlobalOpts, args: &RecoverArgs) -> anyhow::Result<Status> {
    let path = &resolved(&args.path);
    if let Target::File(f) = logdir::resolve(path)? {
        anyhow::bail!("{} is a file; give a partition dir or a log dir (recovery is of whole partitions)", f.display());
    }
    let log_dir = log_dir_of(path)?;
    let (bar, progress) = segment_progress(global, path);
    let opts = RecoverOptions {
        all: args.all,
        interval: args.interval.index_interval_bytes.map_or(Interval::FromMetadata, Interval::Override),
        metadata: args.interval.metadata_dir.clone(),
        zookeeper: args.interval.zookeeper.read()?,
        limits: args.limits.limits(),
        allow_data_loss: args.allow_data_loss,
        roll: args.roll,
        progress,
        kafka_version: args.kafka_version,
    };
    run_plan(global, &args.write, false, &log_dir, "recover", |changes, out| {
        let recovered = recover::recover(path, &opts, changes);
        bar.finish();
        for r in recovered? {
            if r.segments_recovered == 0 {
                continue;
            }
            out.report(&PartitionLine::from(&r))?;
        }
        Ok(())
    })
}

pub fn truncate_to_hw(global: &GlobalOpts, args: &TruncateToHwArgs) -> anyhow::Result<Status> {
    let path = &resolved(&args.path);
    let log_dir = log_dir_of(path)?;
    let parts = partitions(path)?;
    if args.hw.is_some() && parts.len() != 1 {
        anyhow::bail!("--hw needs a single partition dir");
    }
    let limits = args.limits.limits();
    run_plan(global, &args.write, false, &log_dir, "truncate-to-hw", |changes, _out| {
        let mut lim = CheckpointLimits::default();
        // read under the lock run_plan holds
        let targets = Targets::of(path, &limits)?;
        for dir in &parts {
            let p = targets.open(dir)?;
            if p.is_metadata_log() {
                continue;
            }
            let Some(hw) = logwrite::repair::truncate::truncation_point(&p, args.hw) else {
                changes.note(Note::Warning {
                    path: dir.clone(),
                    message: "no high watermark in replication-offset-checkpoint: left alone (Kafka would use 0)"
                        .into(),
                });
                continue;
            };
            if let Some(loss) = truncate::truncate_partition(&p, hw, &limits, &mut lim, changes)? {
                changes.note(Note::Loss(loss));
            }
        }
        adjust_checkpoints(&log_dir, &lim, &limits, changes)?;
        Ok(())
    })
}

pub fn truncate(global: &GlobalOpts, args: &TruncateArgs) -> anyhow::Result<Status> {
    let path = &resolved(&args.path);
    let parts = partitions(path)?;
    let [dir] = parts.as_slice() else { anyhow::bail!("truncate --to needs a single partition dir") };
    let log_dir = log_dir_of(dir)?;
    let limits = args.limits.limits();
    run_plan(global, &args.write, false, &log_dir, "truncate", |changes, _out| {
        truncate::truncate(&Partition::open(dir, &limits)?, args.to, &limits, changes)?;
        Ok(())
    })
}

pub fn reindex(global: &GlobalOpts, args: &ReindexArgs) -> anyhow::Result<Status> {
    let path = &resolved(&args.path);
    let log_dir = log_dir_of(path)?;
    let interval = args.interval.index_interval_bytes.map_or(Interval::FromMetadata, Interval::Override);
    let limits = args.limits.limits();
    let zookeeper = args.interval.zookeeper.read()?;
    let (bar, progress) = segment_progress(global, path);
    run_plan(global, &args.write, false, &log_dir, "reindex", |changes, out| {
        let from = reindex::MetadataFrom {
            metadata_dir: args.interval.metadata_dir.as_deref(),
            zookeeper: zookeeper.as_ref(),
        };
        let rebuilt = reindex::reindex(path, &interval, from, &limits, &progress, changes);
        bar.finish();
        for r in rebuilt? {
            out.report(&PartitionLine::from(&r))?;
        }
        Ok(())
    })
}

pub fn retain(global: &GlobalOpts, args: &RetainArgs) -> anyhow::Result<Status> {
    let path = &resolved(&args.path);
    let log_dir = log_dir_of(path)?;
    let parts = partitions(path)?;
    let limits = args.limits.limits();
    let rule = match (args.before, args.max_bytes, args.log_start) {
        (Some(t), _, _) => Rule::Before(t),
        (_, Some(n), _) => Rule::MaxBytes(n),
        (_, _, Some(o)) => Rule::LogStart(o),
        _ => anyhow::bail!("one of --before, --max-bytes, --log-start is needed"),
    };
    let zookeeper = args.zookeeper.read()?;
    run_plan(global, &args.write, args.purge, &log_dir, "retain", |changes, _out| {
        let mut lim = CheckpointLimits::default();
        // read under the lock run_plan holds
        let targets = Targets::of_with(path, &limits, zookeeper.as_ref())?;
        // tiered partitions: what remote storage holds (__remote_log_metadata)
        let remote = inspect::offsets::read_remote_log(&targets.log_dir, &limits)?;
        for dir in &parts {
            let p = targets.open(dir)?;
            if p.is_metadata_log() {
                continue;
            }
            let policy = targets.log_dir.cleanup_policy(&p.name.topic).or_else(|| args.assume_policy.clone());
            let tiered = retain::tiered_view(&p, &targets.log_dir, remote.as_ref(), &limits);
            if let Some(loss) =
                retain::retain_partition(&p, rule, policy.as_deref(), tiered.as_ref(), &limits, &mut lim, changes)?
            {
                changes.note(Note::Loss(loss));
            }
        }
        adjust_checkpoints(&log_dir, &lim, &limits, changes)?;
        Ok(())
    })
}

pub fn compact(global: &GlobalOpts, args: &CompactArgs) -> anyhow::Result<Status> {
    let path = &resolved(&args.path);
    use logwrite::repair::compact::{
        CompactOptions, DEFAULT_LOAD_FACTOR, DEFAULT_PRODUCER_ID_EXPIRATION_MS, PassOptions, compact_partition,
    };
    let log_dir = log_dir_of(path)?;
    let parts = partitions(path)?;
    let limits = args.limits.limits();
    let pool = logfmt::budget::pool_for(args.limits.memory, 1).0;
    let (bar, progress) = segment_progress(global, path);
    let opts = CompactOptions {
        pass: PassOptions {
            limits,
            map_memory: args.dedupe_buffer.unwrap_or(pool / 2),
            load_factor: DEFAULT_LOAD_FACTOR,
            now_ms: args.now.unwrap_or_else(|| jiff::Timestamp::now().as_millisecond()),
            producer_id_expiration_ms: DEFAULT_PRODUCER_ID_EXPIRATION_MS,
        },
        progress,
    };
    run_plan(global, &args.write, args.purge, &log_dir, "compact", |changes, out| {
        let mut lim = CheckpointLimits::default();
        let targets = Targets::of(path, &limits)?;
        for dir in &parts {
            let p = targets.open(dir)?;
            if !args.topic.is_empty() && !args.topic.contains(&p.name.topic) {
                continue;
            }
            let c = compact_partition(&p, &targets.log_dir, &opts, &mut lim, changes)?;
            // a log dir's partitions that are not compacted are not listed
            if c.skipped.is_none() || !targets.is_log_dir || !args.topic.is_empty() {
                out.report(&c)?;
            }
        }
        bar.finish();
        adjust_checkpoints(&log_dir, &lim, &limits, changes)?;
        Ok(())
    })
}

pub fn undo(global: &GlobalOpts, args: &UndoArgs) -> anyhow::Result<Status> {
    // the path a repair was given: its log dir, or one of its partition dirs
    let given = resolved(&args.log_dir);
    let log_dir = match logdir::resolve(&given) {
        Ok(Target::PartitionDir(p)) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        Ok(Target::File(f)) => log_dir_of_file(&f),
        Ok(Target::LogDir(_)) => given,
        // (not "no repair to undo": that would be a clean claim about a dir
        // that is not a log dir at all, such as the parent of one)
        Err(e) => {
            return Err(anyhow::Error::new(e)
                .context("undo takes the log dir a repair changed (or a partition dir or file in it)"));
        }
    };
    let quarantine = args.write.quarantine.clone().unwrap_or_else(|| journal::default_quarantine(&log_dir));
    let mut out = output(global);
    let m = match journal::undo(&quarantine, &log_dir, args.id.as_deref(), args.write.execute) {
        Ok(m) => m,
        Err(e @ journal::RepairError::NotApplied(..)) => {
            // nothing to do is no error: said, exit 0
            let file = log_dir.display().to_string();
            out.report(&NoteLine { file: &file, message: e.to_string() })?;
            out.finish()?;
            return Ok(Status::Clean);
        }
        Err(journal::RepairError::NothingToUndo(dir, q)) if args.id.is_none() => {
            // nothing to do is no error (GUIDE.md: 0 done, or nothing to do)
            let file = dir.display().to_string();
            let message = format!("no repair to undo in {}", q.display());
            out.report(&NoteLine { file: &file, message })?;
            out.finish()?;
            return Ok(Status::Clean);
        }
        Err(e) => return Err(e.into()),
    };
    out.relative_to(&m.log_dir);
    for step in m.steps.iter().rev() {
        // (sizes: the file as the repair left it, and as the undo leaves it)
        let (op, file, repaired, after, why) = match step {
            journal::Step::Remove { file, size } => ("restore", file, None, Some(*size), "removed by the repair"),
            journal::Step::Truncate { file, from_size, to_size, .. } => {
                ("extend", file, Some(*to_size), Some(*from_size), "its cut bytes are appended back")
            }
            journal::Step::Write { file, old_size: Some(old), new_size, .. } => {
                ("restore", file, Some(*new_size), Some(*old), "the original content comes back")
            }
            journal::Step::Write { file, old_size: None, new_size, .. } => {
                ("remove", file, Some(*new_size), None, "created by the repair")
            }
            journal::Step::Rename { to, .. } => {
                ("rename", to, None, None, "renamed back to its name before the repair")
            }
        };
        let path = m.log_dir.join(file);
        // a plan: the file as it is now
        let before = if args.write.execute { repaired } else { std::fs::metadata(&path).ok().map(|md| md.len()) };
        let (now, after) = (before, after);
        out.report(&ChangeLine {
            op,
            file: path.display().to_string(),
            size_before: now,
            size_after: after,
            why: why.into(),
        })?;
    }
    out.report(
        &(RepairLine {
            command: format!("undo of {} ({})", m.id, m.command),
            log_dir: m.log_dir.display().to_string(),
            executed: args.write.execute,
            changes: m.steps.len(),
            id: Some(m.id.clone()),
            quarantine: Some(quarantine.display().to_string()),
            state: m.state.name().into(),
            removed_bytes: 0,
            written_bytes: 0,
            purged: false,
            other_filesystem: false,
        }),
    )?;
    out.finish()?;
    Ok(if args.write.execute || m.steps.is_empty() { Status::Clean } else { Status::Problems })
}

#[derive(Args, Debug)]
pub struct RecoverArgs {
    /// A log dir or a partition dir.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Recover every segment, not only those from the recovery point on.
    #[arg(long)]
    pub all: bool,
    /// Cut a damaged rolled segment too. That removes every segment after it,
    /// intact or not (the plan shows what is lost); without it, --execute
    /// refuses such a cut and changes nothing.
    #[arg(long)]
    pub allow_data_loss: bool,
    /// Then roll each recovered partition at its log end and raise its recovery
    /// point there, as Kafka does when it rolls and flushes a segment: the
    /// recovered files are fsynced, an empty segment and a producer snapshot are
    /// made at the log end, and the broker's next start has nothing left to
    /// recover (without it, Kafka recovers the same segments again).
    #[arg(long)]
    pub roll: bool,
    /// Do what this Kafka release's start does where releases differ (a .txnindex
    /// entry version 4.4 refuses): 3.9, 4.0, 4.1, 4.2, 4.3 or 4.4 (or x.y.z). Default:
    /// the release the dir's metadata.version implies.
    #[arg(long, value_name = "VERSION", value_parser = super::verify::parse_version)]
    pub kafka_version: Option<inspect::KafkaVersion>,
    #[command(flatten)]
    pub interval: IntervalArgs,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct TruncateToHwArgs {
    /// A log dir or a partition dir.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Use this high watermark instead of the checkpointed one (a partition dir only).
    #[arg(long, value_name = "OFFSET", value_parser = parse_offset)]
    pub hw: Option<i64>,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct TruncateArgs {
    /// A partition dir.
    #[arg(value_name = "PARTITION")]
    pub path: PathBuf,
    /// The new log end offset: records at and after it are removed.
    #[arg(long, value_name = "OFFSET", value_parser = parse_offset)]
    pub to: i64,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct ReindexArgs {
    /// A segment file, a partition dir or a log dir.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    #[command(flatten)]
    pub interval: IntervalArgs,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("rule").required(true).args(["before", "max_bytes", "log_start"])))]
pub struct RetainArgs {
    /// A log dir or a partition dir.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// With --execute, delete the removed bytes at once instead of keeping them in the
    /// quarantine: the space is freed now, and `logtool undo` cannot put them back.
    #[arg(long)]
    pub purge: bool,
    /// Delete segments whose newest record is older than TIME: epoch milliseconds, or
    /// an RFC 3339 date-time (without a zone: the local time zone).
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub before: Option<i64>,
    /// Delete the oldest segments while each partition stays above N bytes.
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub max_bytes: Option<u64>,
    /// Move the log start offset to OFFSET and delete the segments below it.
    #[arg(long, value_name = "OFFSET", value_parser = parse_offset)]
    pub log_start: Option<i64>,
    /// The cleanup.policy of topics whose policy nothing read says (a ZooKeeper-mode
    /// dir without --zookeeper-data): without it, --before and --max-bytes skip them.
    #[arg(long, value_name = "POLICY", value_parser = ["delete", "compact", "compact,delete"])]
    pub assume_policy: Option<String>,
    #[command(flatten)]
    pub zookeeper: crate::args::ZookeeperArgs,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct CompactArgs {
    /// A log dir or a partition dir.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// With --execute, delete the removed bytes at once instead of keeping them in the
    /// quarantine: the space is freed now, and `logtool undo` cannot put them back.
    #[arg(long)]
    pub purge: bool,
    /// Only this topic's partitions (repeatable).
    #[arg(long, value_name = "TOPIC")]
    pub topic: Vec<String>,
    /// The key map's memory, as Kafka's log.cleaner.dedupe.buffer.size (default: half of
    /// --memory); taken from --memory.
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub dedupe_buffer: Option<u64>,
    /// The cleaner's clock (epoch milliseconds or RFC 3339): delete horizons are set and
    /// passed against it (default: now).
    #[arg(long, value_name = "TIME", value_parser = parse_time, hide_short_help = true)]
    pub now: Option<i64>,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct UndoArgs {
    /// The log dir a repair changed, or the partition dir the repair was given.
    #[arg(value_name = "PATH")]
    pub log_dir: PathBuf,
    /// The repair to undo (default: the latest).
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    #[command(flatten)]
    pub write: WriteArgs,
}
