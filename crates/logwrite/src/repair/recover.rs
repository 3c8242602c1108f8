//! `recover`: what Kafka's log loading does after an unclean shutdown, offline.
//!
//! Mirrors `LogLoader.recoverLog` and `LogSegment.recover` (Kafka 3.9):
//!
//! * **the log's recovery** (`recoverLog`): after an unclean shutdown (no
//!   `.kafka_cleanshutdown`), every segment from the one holding the
//!   partition's recovery point to the last is recovered; after a clean one,
//!   none; the KRaft metadata log is always recovered from offset 0
//!   (`--all`: every segment). A cut segment ends it: every later segment is
//!   removed, and the log ends there;
//! * **a segment's own recovery** (`loadSegmentFiles` -> `recoverSegment`):
//!   a segment whose `.index` is missing is recovered alone, wherever it is
//!   and after a clean shutdown too; a cut stays inside it, the later
//!   segments are kept, and the log end is the last segment's as before
//!   ([`logrules::recovery::SegmentRecovery`]). A `.timeindex` missing
//!   beside its `.index` is created empty, as Kafka's load does;
//! * recovering a segment rebuilds its `.index`, `.timeindex` and `.txnindex`
//!   ([`logrules::recovery`]), and cuts the `.log` at the first batch
//!   Kafka rejects or whose header does not fit ([`logfmt::sanity`]);
//! * then the leader-epoch cache gets the epochs of the recovered batches and
//!   loses entries at or after the log end, producer snapshots past the
//!   end are removed, and the log dir's checkpoints are lowered to the end:
//!   all no-ops when the log end did not move.
//!
//! **Rolling** ([`RecoverOptions::roll`]): Kafka's own recovery leaves the
//! recovery point where it was, so every later unclean start recovers the
//! same segments again, and the active segment (which holds all unflushed
//! data when segments are large) always. With `roll`, each recovered
//! partition (not the metadata log) is left as Kafka leaves it after rolling
//! and flushing at the recovered log end ([`logrules::log`]): its
//! recovered files are fsynced, a new empty segment and a producer snapshot
//! are made at the log end, and the recovery point is raised to it. The
//! broker's next start then recovers nothing but the empty segment. No
//! partition is rolled when the recovery removed segments after a cut.
//!
//! The index interval is the topic's `index.interval.bytes`, from the KRaft
//! metadata log of the same log dir ([`logfmt::metadata`]).
//!
//! **Where Kafka fails.** A batch whose CRC is valid but whose header does not
//! fit its position (a flipped `baseOffset`, `partitionLeaderEpoch`, `magic`)
//! is kept by Kafka's recovery, which then refuses to load the log or serves
//! garbage offsets; logtool cuts exactly before it, keeps every byte before
//! it, and the plan names the field, what Kafka would have done and what the
//! cut loses ([`super::Loss`]: records, offsets, times, the damaged batch
//! included). A cut in a rolled (not the active) segment removes every later
//! segment: the plan shows the cost, and `--execute` needs
//! [`RecoverOptions::allow_data_loss`]. A batch larger than logtool's limit
//! that lies whole in the file cannot be checked: recovery stops with an
//! error naming the limit it needs; a length running past the end of the
//! file is a cut point like any other.

use std::path::{Path, PathBuf};

use super::checkpoints::{CheckpointLimits, adjust_checkpoints};
use rayon::prelude::*;

use super::{Changes, Loss, Note, Recorded, write_if_changed};
use logfmt::batch::BatchHeader;
use logfmt::cursor::{Cursor, End};
use logfmt::error::Result;
use logfmt::limits::Limits;
use logfmt::log::Item;
use logfmt::logdir::{self, LogDirEntry, Target};
use logfmt::metadata::{self, ClusterMetadata, ConfigSource};
use logfmt::partition::{BatchInfo, LogDirCheckpoints, Partition, Segment, batch_info, scan};
use logfmt::sanity::HeaderField;
use logfmt::spec::names as n;
use logrules::config::Version;
use logrules::epochs::EpochCache;
use logrules::producer::ProducerState;
use logrules::recovery::{self, SegmentRecovery, Stop, recover_segment};

/// Where the index interval comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interval {
    /// Given on the command line.
    Override(u64),
    /// The topic's config in the log dir's metadata log (or Kafka's default).
    FromMetadata,
}

/// Options of a recovery.
#[derive(Clone, Debug)]
pub struct RecoverOptions {
    /// Recover every segment, not only those above the recovery point.
    pub all: bool,
    /// The index interval.
    pub interval: Interval,
    /// Where the KRaft metadata log is, when not in the log dir itself.
    pub metadata: Option<PathBuf>,
    /// A ZooKeeper-mode cluster's metadata (`--zookeeper-data`), used where
    /// no metadata log is found.
    pub zookeeper: Option<ClusterMetadata>,
    /// Reading limits.
    pub limits: Limits,
    /// Cut a rolled segment too, which removes every later one.
    pub allow_data_loss: bool,
    /// Roll and flush each recovered partition at its log end (module docs).
    pub roll: bool,
    /// Told each segment's size once it is recovered or passed over.
    pub progress: super::Progress,
    /// The Kafka release whose start is done (what its load refuses);
    /// `None`: the one the dir's `metadata.version` implies.
    pub kafka_version: Option<Version>,
}

/// What recovery found in one partition.
#[derive(Clone, Debug, Default)]
pub struct PartitionRecovery {
    /// The partition directory.
    pub dir: PathBuf,
    /// Segments recovered.
    pub segments_recovered: usize,
    /// Where the log was cut: (segment file, byte position, bytes removed).
    pub cut: Option<(PathBuf, u64, u64)>,
    /// The header field of the batch cut at, when that was why.
    pub cut_field: Option<HeaderField>,
    /// Segments removed after a cut.
    pub segments_removed: usize,
    /// The log end offset after recovery.
    pub log_end: i64,
    /// The index interval used and where it came from.
    pub interval: (u64, String),
    /// The base of the new segment it was rolled to and where the recovery
    /// point now is ([`RecoverOptions::roll`]).
    pub rolled_at: Option<i64>,
}

/// The index interval for `topic`, and where it came from.
pub fn index_interval(
    interval: &Interval,
    meta: Option<&ClusterMetadata>,
    node: Option<&str>,
    topic: &str,
) -> (u64, String) {
    match interval {
        Interval::Override(v) => (*v, "--index-interval-bytes".into()),
        Interval::FromMetadata => {
            if topic == n::CLUSTER_METADATA_TOPIC {
                return (4096, "the metadata log's fixed default".into());
            }
            let Some(meta) = meta else {
                return (
                    4096,
                    "Kafka's default: no topic configs found (give --metadata-dir if metadata.log.dir is elsewhere, --zookeeper-data for a ZooKeeper-mode cluster)"
                        .into(),
                );
            };
            let (v, src) = meta.topic_config(topic, metadata::INDEX_INTERVAL_BYTES, node);
            match v.parse::<u64>() {
                Ok(v) => (v, src.describe()),
                Err(_) => {
                    (4096, format!("Kafka's default (unreadable value {v:?} from {})", ConfigSource::describe(&src)))
                }
            }
        }
    }
}

/// Plan (or, with a [`super::journal::Repair`] sink, stage) the recovery of
/// `path`: a log dir or one partition directory.
pub fn recover(path: &Path, opts: &RecoverOptions, changes: &mut dyn Changes) -> Result<Vec<PartitionRecovery>> {
    let (log_dir, partitions) = match logdir::resolve(path)? {
        Target::LogDir(d) => {
            let parts = logdir::log_dir_entries(&d)?
                .into_iter()
                .filter_map(|e| if let LogDirEntry::Partition(p) = e { Some(p) } else { None })
                .collect();
            (d, parts)
        }
        Target::PartitionDir(p) => (p.parent().map(Path::to_path_buf).unwrap_or_default(), vec![p]),
        Target::File(f) => {
            return Err(logfmt::Error::malformed(
                0,
                "recover target",
                format!("{} is a file; give a partition or log dir", f.display()),
            ));
        }
    };
    let clean = log_dir.join(n::CLEAN_SHUTDOWN).exists();
    if logdir::is_brokers(&log_dir) && !log_dir.join(n::META_PROPERTIES).exists() {
        changes.note(Note::Warning {
            path: log_dir.join(n::META_PROPERTIES),
            message: "missing: Kafka does not start on an unformatted log dir (MetaPropertiesEnsemble); recover cannot know its node.id, cluster.id and directory.id: restore it from a backup or another copy of this broker's dir".into(),
        });
    }
    let checkpoints = LogDirCheckpoints::read(&log_dir, &opts.limits);
    let from =
        super::reindex::MetadataFrom { metadata_dir: opts.metadata.as_deref(), zookeeper: opts.zookeeper.as_ref() };
    let meta = from.read(&log_dir, &opts.limits);
    meta_properties_file(&log_dir, meta.as_ref(), &opts.limits, changes)?;
    let version = opts
        .kafka_version
        .unwrap_or_else(|| logrules::start::implied_version(meta.as_ref().and_then(|m| m.metadata_version)));
    let node = metadata::node_id_with(&log_dir, meta.as_ref(), &opts.limits);
    if partitions.iter().any(|d| !d.ends_with(format!("{}-0", n::CLUSTER_METADATA_TOPIC))) {
        missing_checkpoints(&log_dir, clean, changes);
    }
    if clean && !opts.all {
        changes.note(Note::Info {
            path: log_dir.join(n::CLEAN_SHUTDOWN),
            message: "the broker shut down cleanly: like Kafka, only the metadata log and segments without .index are recovered (--all: every segment)".into(),
        });
    }
    // a `-delete` dir is Kafka's to delete (`LogManager.loadLog` ->
    // `addLogToBeDeleted`, after file.delete.delay.ms): not recovered
    let (deleting, partitions): (Vec<PathBuf>, Vec<PathBuf>) = partitions.into_iter().partition(|d| {
        d.file_name()
            .and_then(|n| n.to_str())
            .and_then(logfmt::naming::parse_partition_dir)
            .is_some_and(|pd| matches!(pd.state, logfmt::naming::DirState::Delete(_)))
    });
    for d in deleting {
        changes.note(Note::Info {
            path: d,
            message: "scheduled for deletion: Kafka deletes this dir after its start, so it is not recovered".into(),
        });
    }
    let mut out = Vec::new();
    let mut lim = CheckpointLimits { replace_unreadable: true, ..CheckpointLimits::default() };
    // Partitions are recovered on every core (Kafka: one thread per log dir
    // by default); each partition's changes are recorded and handed to
    // `changes` in partition order, a few partitions at a time so that the
    // rebuilt indexes held in memory stay bounded.
    let executing = changes.executing();
    let chunk = rayon::current_num_threads().saturating_mul(2).max(1);
    for dirs in partitions.chunks(chunk) {
        let done: Vec<Result<(Partition, PartitionRecovery, Recorded)>> = dirs
            .par_iter()
            .map(|dir| {
                let mut p = Partition::open_with(dir, &checkpoints)?;
                p.remote_storage_enable =
                    logfmt::partition::remote_storage_enable(meta.as_ref(), &p.name.topic, node.as_deref());
                let first = recovery::first_to_recover(&p, clean, opts.all);
                let interval = index_interval(&opts.interval, meta.as_ref(), node.as_deref(), &p.name.topic);
                let mut rec = Recorded::new(executing);
                let r = recover_partition(&p, (first, version), clean, &interval, opts, &mut rec)?;
                topic_id_file(&p, meta.as_ref(), &opts.limits, &mut rec)?;
                Ok((p, r, rec))
            })
            .collect();
        for d in done {
            let (p, r, rec) = d?;
            rec.replay(changes)?;
            if r.cut.is_some() || r.segments_recovered > 0 {
                lim.log_end.insert((p.name.topic.clone(), p.name.partition), r.log_end);
            }
            if let Some(at) = r.rolled_at {
                lim.recovery_point.insert((p.name.topic.clone(), p.name.partition), at);
            }
            out.push(r);
        }
    }
    adjust_checkpoints(&log_dir, &lim, &opts.limits, changes)?;
    Ok(out)
}

/// Cut the log where recovery of segment `i` stopped (`rebuilt`), as
/// Kafka's recovery does: the segment truncated after its last valid batch,
/// and, in the log's recovery (`how`), every later segment removed; what is
/// lost is said, and cutting a rolled segment needs `--allow-data-loss`.
/// Returns the segment's new end.
fn cut(
    p: &Partition,
    i: usize,
    how: SegmentRecovery,
    rebuilt: &recovery::Rebuilt,
    opts: &RecoverOptions,
    changes: &mut dyn Changes,
    out: &mut PartitionRecovery,
) -> Result<i64> {
    let limits = &opts.limits;
    let Some(seg) = p.segments.get(i) else { return Ok(0) };
    let new_end = logrules::log::segment_end(rebuilt.next_offset, seg.base);
    let field = match &rebuilt.stop {
        Some(Stop::Invalid { field, .. }) => *field,
        _ => None,
    };
    let reason = match &rebuilt.stop {
        Some(Stop::Invalid { position, error, torn_tail: true, .. }) => {
            format!("a torn write from byte {position}: {}", error.message())
        }
        Some(Stop::Invalid { position, error, field: Some(f), .. }) => {
            format!("the batch at byte {position} has a wrong {f} ({})", error.message())
        }
        Some(Stop::Invalid { position, error, .. }) => {
            format!("Kafka rejects the batch at byte {position}: {}", error.message())
        }
        _ => "invalid bytes".into(),
    };
    let removes_later = how == SegmentRecovery::Log;
    let loss = loss_after_cut(p, i, rebuilt.valid_bytes, field, new_end, removes_later, limits)?;
    let later = p.segments.len().saturating_sub(i.saturating_add(1));
    if let Some(f) = field {
        changes.note(Note::Warning {
            path: seg.log.clone(),
            message: format!("{reason}: logtool cuts the log before it. {}", recovery::what_kafka_does(f)),
        });
    }
    if later > 0 {
        let lost = format!(
            "{} record(s), offsets {}",
            loss.records,
            logfmt::report::offset_range(loss.from_offset, loss.to_offset.saturating_sub(1))
        );
        let message = if removes_later {
            format!(
                "the damage is in a rolled segment: cutting there removes the {later} segment(s) after it too ({lost})"
            )
        } else {
            format!(
                "the damage is in a rolled segment Kafka's load recovers alone: it cuts there and keeps the {later} segment(s) after it ({lost})"
            )
        };
        if changes.executing() && !opts.allow_data_loss {
            return Err(logfmt::Error::refused(format!(
                "{}: {message}; nothing was changed: rerun with --allow-data-loss to cut anyway",
                seg.log.display()
            )));
        }
        changes.note(Note::Warning {
            path: seg.log.clone(),
            message: format!("{message}; --execute needs --allow-data-loss"),
        });
    }
    if loss.batches > 0 || loss.records > 0 {
        changes.note(Note::Loss(loss));
    }
    changes.truncate(&seg.log, rebuilt.valid_bytes, &reason)?;
    out.cut = Some((seg.log.clone(), rebuilt.valid_bytes, rebuilt.size.saturating_sub(rebuilt.valid_bytes)));
    out.cut_field = field;
    if removes_later {
        for later in p.segments.iter().skip(i.saturating_add(1)) {
            for f in later.files() {
                changes.remove(&f, "after a cut, Kafka deletes every later segment")?;
            }
            out.segments_removed = out.segments_removed.saturating_add(1);
        }
    }
    Ok(new_end)
}

/// `at`: the first segment the log's recovery recovers
/// ([`recovery::first_to_recover`]), and the release whose start is done.
fn recover_partition(
    p: &Partition,
    (first, version): (Option<usize>, Version),
    clean: bool,
    interval: &(u64, String),
    opts: &RecoverOptions,
    changes: &mut dyn Changes,
) -> Result<PartitionRecovery> {
    let limits = &opts.limits;
    let mut out = PartitionRecovery { dir: p.dir.clone(), interval: interval.clone(), ..PartitionRecovery::default() };
    if leftovers(p, limits, changes)? {
        return Ok(out);
    }
    let (mut cache, epochs_rebuilt) = epochs_at_start(p, limits, changes)?;
    let mut txn: Option<ProducerState> = None;
    // the log end as the recoveries leave it: set by the log's recovery
    // (which runs to the last segment or cuts) and by a segment's own
    // recovery of the last segment; else the last segment's, as it was
    let mut log_end = None;
    let last = p.segments.len().saturating_sub(1);
    // the recoveries run, in order, for the producer snapshots they touch
    let mut steps = Vec::new();
    let mut last_cut = false;
    let hidden = hidden_by_index(p, clean && first.is_none(), limits)?;
    for (i, seg) in p.segments.iter().enumerate() {
        opts.progress.done(seg.size);
        let check = recovery::load_check(seg, version);
        let mut how = recovery::recovery_of(check, i, first);
        // departures from Kafka's start: a garbage last .index that hides
        // records, a .txnindex the release refuses (it does not start)
        if how == SegmentRecovery::None
            && ((i == last && hidden.is_some()) || matches!(check, recovery::LoadCheck::TxnIndexVersionRefused { .. }))
        {
            how = SegmentRecovery::Segment;
        }
        if how == SegmentRecovery::None {
            if recovery::time_index_created_empty(p, i, first, version) {
                changes.write(
                    &seg.sibling(n::TIME_INDEX_FILE_SUFFIX),
                    &[],
                    "Kafka's load creates a lost .timeindex empty beside its .index (LogSegment.sanityCheck)",
                )?;
            }
            continue;
        }
        let mut state = match (how, txn.take()) {
            // the log's recovery carries the producer state from segment to segment
            (SegmentRecovery::Log, Some(t)) => t,
            // rolling takes a producer snapshot: keep every producer's entry
            (SegmentRecovery::Log, None) if opts.roll => ProducerState::at_with_entries(p, seg.base, limits)?,
            // a segment's own recovery starts from the snapshots below it, as
            // recoverSegment's own ProducerStateManager does
            _ => ProducerState::at(p, seg.base, limits)?,
        };
        let rebuilt = recover_segment(seg, interval.0, &mut state, cache.latest_epoch(), limits)?;
        if how == SegmentRecovery::Log {
            txn = Some(state);
        }
        out.segments_recovered = out.segments_recovered.saturating_add(1);
        if let Some(Stop::OverLimit { position, size, .. }) = &rebuilt.stop {
            // not damage: a batch too large to check within the limit; the
            // advice names a limit that reads every batch of the partition
            let mut need = *size;
            for (j, s) in p.segments.iter().enumerate().skip(i) {
                need = need.max(logfmt::log::largest_entry(&s.log, if j == i { *position } else { 0 })?);
            }
            return Err(logfmt::Error::refused(format!(
                "{}: the batch at byte {position} is {size} bytes, more than --max-batch-size allows; rerun with --max-batch-size {need} to check it (the largest batch from there on; nothing was changed)",
                seg.log.display()
            )));
        }
        for &(e, o) in &rebuilt.epochs {
            cache.assign(e, o);
        }
        let why = why_rebuilt(check, how, hidden.filter(|_| i == last), version);
        let why = why.as_str();
        write_if_changed(changes, &seg.sibling(n::INDEX_FILE_SUFFIX), &rebuilt.offset_index, why)?;
        write_if_changed(changes, &seg.sibling(n::TIME_INDEX_FILE_SUFFIX), &rebuilt.time_index, why)?;
        let txn_path = seg.sibling(n::TXN_INDEX_FILE_SUFFIX);
        if !rebuilt.txn_index.is_empty() || txn_path.exists() {
            write_if_changed(changes, &txn_path, &rebuilt.txn_index_bytes(), why)?;
        }
        let was_cut = rebuilt.valid_bytes < rebuilt.size;
        let end = if was_cut {
            cut(p, i, how, &rebuilt, opts, changes, &mut out)?
        } else {
            logrules::log::segment_end(rebuilt.next_offset, seg.base)
        };
        steps.push(recovery::Recovered { index: i, how, end, valid_bytes: rebuilt.valid_bytes });
        last_cut |= was_cut && i == last;
        if how == SegmentRecovery::Log || i == last {
            log_end = Some(end);
        }
        if how == SegmentRecovery::Log && was_cut {
            break;
        }
    }
    if out.segments_recovered == 0 {
        out.log_end = logrules::log::log_end_offset(p, limits)?;
        if epochs_rebuilt {
            cut_epochs(p, &mut cache, out.log_end, changes)?;
        }
        // a producer snapshot lost or unreadable: Kafka's load writes one
        // again, and so does recover (a load that would only delete stray
        // snapshots, Kafka's housekeeping, is left to Kafka)
        if !p.is_metadata_log() {
            let plan = recovery::snapshots_on_load(p, &[], p.segments.len(), out.log_end, clean, now_ms(), limits)?;
            if !plan.written.is_empty() {
                apply_snapshots(p, &plan, changes)?;
            }
        }
        return Ok(out);
    }
    let end = match log_end {
        Some(end) => end,
        None => logrules::log::log_end_offset(p, limits)?,
    };
    out.log_end = end;
    let end_moved = steps.iter().any(|s| s.how == SegmentRecovery::Log) || last_cut;
    if end_moved || epochs_rebuilt {
        cut_epochs(p, &mut cache, end, changes)?;
    }
    let kept = p.segments.len().saturating_sub(out.segments_removed);
    let snapshot_at_end = load_snapshots(p, &steps, kept, end, clean, limits, changes)?;
    if let Some(hw) = p.checkpoints.high_watermark.filter(|&hw| hw > end) {
        changes.note(Note::Warning {
            path: p.dir.clone(),
            message: format!(
                "the high watermark {hw} is above the recovered log end {end}: acknowledged records were lost"
            ),
        });
    }
    if opts.roll && !p.is_metadata_log() && out.segments_removed == 0 {
        let recovered: Vec<&Segment> = steps.iter().filter_map(|s| p.segments.get(s.index)).collect();
        let state = if snapshot_at_end { None } else { txn.as_ref() };
        out.rolled_at = Some(roll(p, &recovered, end, state, changes)?);
    }
    Ok(out)
}

/// The files of a temporary suffix in `p`, as Kafka's load handles them
/// ([`recovery::leftovers_on_load`]): a `.cleaned` file and a `.swap` of an
/// unfinished split are removed; `.deleted` files are left to Kafka, which
/// deletes them on any start, and said; interrupted swaps are completed
/// ([`recovery::swaps_on_load`]). Returns whether swaps were: the rest of
/// the partition's recovery is then for a next run, on the files swapped in.
fn leftovers(p: &Partition, limits: &Limits, changes: &mut dyn Changes) -> Result<bool> {
    let mut deleted = 0usize;
    for (f, what) in recovery::leftovers_on_load(p) {
        match what {
            recovery::Leftover::Cleaned => {
                changes.remove(&f, "the output of a cleaning that did not finish: Kafka's load deletes it")?;
            }
            recovery::Leftover::SwapInvalid => changes.remove(
                &f,
                "part of a segment split that did not finish (at or above a .cleaned file): Kafka's load deletes it",
            )?,
            recovery::Leftover::Deleted => deleted = deleted.saturating_add(1),
            recovery::Leftover::Swap => {}
        }
    }
    if deleted > 0 {
        changes.note(Note::Info {
            path: p.dir.clone(),
            message: format!("{deleted} .deleted file(s): Kafka deletes them on its next start; left to it"),
        });
    }
    let swaps = recovery::swaps_on_load(p, limits)?;
    for f in &swaps.removed {
        changes.remove(f, "replaced by an interrupted swap: Kafka's load deletes it before it completes the swap")?;
    }
    for (from, to) in &swaps.renamed {
        changes.rename(from, to, "an interrupted swap, completed as Kafka's load completes it")?;
    }
    if !swaps.renamed.is_empty() {
        changes.note(Note::Info {
            path: p.dir.clone(),
            message: "an interrupted swap is completed first, as Kafka's load does; run recover again after --execute to recover the partition as it then is".into(),
        });
    }
    Ok(!swaps.renamed.is_empty())
}

/// The leader-epoch cache recovery starts from: the checkpoint's, or, when
/// it does not parse (Kafka does not start: `rules::start::unreadable_file_refusal`),
/// the one the batches give ([`recovery::epochs_from_batches`]), said, and
/// to be written.
fn epochs_at_start(p: &Partition, limits: &Limits, changes: &mut dyn Changes) -> Result<(EpochCache, bool)> {
    let path = p.epochs_path();
    if !path.exists() || logfmt::checkpoint::read_epochs(&path, limits).is_ok() {
        return Ok((EpochCache::load(p.epochs(limits)), false));
    }
    changes.note(Note::Warning {
        path,
        message: "does not parse: Kafka takes the log dir offline at start (a broker with no other log dir halts); recover writes the epochs the batches carry".into(),
    });
    Ok((recovery::epochs_from_batches(p, limits)?, true))
}

/// `meta.properties` as the node the metadata log knows needs it, every
/// other line as it was:
/// - naming another node than the one the metadata log registered the
///   dir's `directory.id` for: Kafka, configured as that node, does not
///   start (`rules::start::node_id_refusal`); the registered node id;
/// - without the `directory.id` the KRaft voter set or the node's only
///   registered dir names (`rules::start::directory_id_on_start`): Kafka
///   writes a new one and then does not start (a voter) or moves the dir's
///   partitions to it; that directory id.
fn meta_properties_file(
    log_dir: &Path,
    meta: Option<&ClusterMetadata>,
    limits: &Limits,
    changes: &mut dyn Changes,
) -> Result<()> {
    use logrules::start::{self, DirectoryIdOnStart};
    let path = log_dir.join(n::META_PROPERTIES);
    let (Some(meta), Ok(props)) = (meta, logfmt::properties::read_meta_properties(&path, limits)) else {
        return Ok(());
    };
    let get = |k: &str| props.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    let registered = metadata::node_id_with(log_dir, Some(meta), limits).and_then(|v| v.parse::<i32>().ok());
    let stored = get("node.id").and_then(|v| v.parse::<i32>().ok());
    let mut set: Vec<(&str, String)> = Vec::new();
    let mut why = Vec::new();
    if let (Some(registered), Some(stored)) = (registered, stored)
        && let Some(refusal) = start::node_id_refusal(stored, registered)
    {
        set.push(("node.id", registered.to_string()));
        why.push(format!(
            "{}: Kafka does not start ({}); node.id={registered} as registered",
            refusal.what, refusal.message
        ));
    }
    let directory = match get("directory.id") {
        Some(v) => logfmt::uuid::Uuid::parse(v).map(Some),
        None => Some(None),
    };
    if let (Some(node), Some(directory)) = (registered.or(stored), directory) {
        match start::directory_id_on_start(directory, node, meta) {
            Some(DirectoryIdOnStart::Refused { refusal, expected }) => {
                set.push(("directory.id", expected.to_string()));
                why.push(format!(
                    "{}: Kafka does not start ({}); directory.id={expected} as the voter set names it",
                    refusal.what, refusal.message
                ));
            }
            Some(DirectoryIdOnStart::Reassigned { expected }) => {
                set.push(("directory.id", expected.to_string()));
                why.push(format!("no directory.id {expected}, which node {node} registered this dir as: Kafka would write a new one and move the dir's partitions to it; written back"));
            }
            None => {}
        }
    }
    if set.is_empty() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&logfmt::read_bounded(&path, limits.max_text_file_size, "meta.properties")?)
        .into_owned();
    changes.write(&path, set_properties(&text, &set).as_bytes(), &why.join("; "))
}

/// `text` (a properties file) with each `(key, value)` of `set` in place of
/// the key's line, or, for a key it does not have, after the `node.id` line
/// (where `kafka-storage format` puts `directory.id`).
fn set_properties(text: &str, set: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(text.len().saturating_add(64));
    let has = |key: &str| text.split_inclusive('\n').any(|l| l.split_once('=').is_some_and(|(k, _)| k.trim() == key));
    for line in text.split_inclusive('\n') {
        let key = line.split_once('=').map(|(k, _)| k.trim());
        match set.iter().find(|(k, _)| Some(*k) == key) {
            Some((k, v)) => out.push_str(&format!("{k}={v}\n")),
            None => out.push_str(line),
        }
        if key == Some("node.id") {
            for (k, v) in set.iter().filter(|(k, _)| !has(k)) {
                out.push_str(&format!("{k}={v}\n"));
            }
        }
    }
    out
}

/// The log dir checkpoints missing beside partitions, said: Kafka creates
/// each empty at start (`rules::start::missing_checkpoint`), so recover
/// leaves them to it.
fn missing_checkpoints(log_dir: &Path, clean: bool, changes: &mut dyn Changes) {
    for name in n::LOG_DIR_CHECKPOINTS {
        let path = log_dir.join(name);
        if let Some(what) = logrules::start::missing_checkpoint(name, clean)
            && !path.exists()
        {
            changes.note(Note::Info { path, message: format!("{what}; recover leaves it to Kafka") });
        }
    }
}

/// `partition.metadata` of `p` when it does not parse (Kafka does not
/// start) or is missing beside segments (Kafka sets the dir aside as
/// stray): written with the topic's id from the metadata log, when it has it.
fn topic_id_file(
    p: &Partition,
    meta: Option<&ClusterMetadata>,
    limits: &Limits,
    changes: &mut dyn Changes,
) -> Result<()> {
    let path = p.dir.join(n::PARTITION_METADATA);
    let why = match &p.partition_metadata {
        Some(f) if logfmt::properties::read_partition_metadata(f, limits).is_err() => {
            "does not parse: Kafka takes the log dir offline at start; written again with the topic id of the metadata log"
        }
        None if !p.segments.is_empty() && !p.is_metadata_log() => {
            "missing: Kafka sets the partition dir aside as stray and serves it empty; written with the topic id of the metadata log"
        }
        _ => return Ok(()),
    };
    match meta.and_then(|m| m.topics.get(&p.name.topic)) {
        Some(id) => changes.write(&path, &logfmt::emit::partition_metadata(id), why),
        None => {
            changes.note(Note::Warning {
                path,
                message: format!(
                    "{why}, but the metadata log here does not name the topic: left as it is (give --metadata-dir)"
                ),
            });
            Ok(())
        }
    }
}

/// A garbage `.index` of the last segment that would make Kafka's load
/// after a clean shutdown (`clean_load`) hide records: recover departs
/// from Kafka's start here and rebuilds it, as Kafka does a lost one.
fn hidden_by_index(p: &Partition, clean_load: bool, limits: &Limits) -> Result<Option<recovery::HiddenLogEnd>> {
    if !clean_load {
        return Ok(None);
    }
    Ok(recovery::hidden_log_end(p, logrules::log::log_end_offset(p, limits)?))
}

/// Why recover rebuilt `seg`'s indexes, as a change's reason; `hidden`:
/// the last segment's garbage `.index` would hide records.
fn why_rebuilt(
    check: recovery::LoadCheck,
    how: SegmentRecovery,
    hidden: Option<recovery::HiddenLogEnd>,
    version: Version,
) -> String {
    match (hidden, how) {
        (Some(h), SegmentRecovery::Segment) => format!(
            "its .index's last entry (offset {}) is past every batch: Kafka's load after a clean shutdown would take the log end {} and hide offsets {}..{}; rebuilt instead, as Kafka rebuilds a lost one",
            h.entry_offset,
            h.kafka,
            h.kafka,
            h.actual.saturating_sub(1)
        ),
        (_, SegmentRecovery::Segment) => alone_because(check, version),
        _ => "rebuilt as Kafka's recovery builds it".to_string(),
    }
}

/// Why Kafka's load recovers a segment alone, its [`recovery::load_check`]
/// being `check`, as a change's reason (or why recover does where Kafka
/// `version` does not start).
fn alone_because(check: recovery::LoadCheck, version: Version) -> String {
    match check {
        recovery::LoadCheck::TxnIndexCorrupt { .. } => {
            "its .txnindex has an entry ending below the segment (CorruptIndexException): Kafka's load recovers this segment alone and rebuilds it".into()
        }
        recovery::LoadCheck::TxnIndexVersionRefused { version: read, .. } => format!(
            "its .txnindex has an entry of version {read}, which Kafka {} does not start on (TransactionIndex: KafkaException); rebuilt as Kafka's recovery of this segment builds it, so that it starts",
            version.name()
        ),
        _ => "its .index is missing: Kafka's load recovers this segment alone and rebuilds it".into(),
    }
}

/// The leader epochs of `p` once its log end moved to `end` (the log's
/// recovery ran, or a cut in the last segment): entries at or past it go.
fn cut_epochs(p: &Partition, cache: &mut EpochCache, end: i64, changes: &mut dyn Changes) -> Result<()> {
    cache.truncate_from_end(end);
    let epochs_path = p.epochs_path();
    if epochs_path.exists() || !cache.entries().is_empty() {
        write_if_changed(changes, &epochs_path, &cache.to_checkpoint(), "leader epochs of the recovered log")?;
    }
    Ok(())
}

/// The producer snapshots of `p` as Kafka's load leaves them after the
/// recoveries `steps`, `kept` segments left and the log ending at `end`
/// ([`recovery::snapshots_on_load`]; the metadata log: those past the end
/// removed). Returns whether a snapshot stands at the end.
fn load_snapshots(
    p: &Partition,
    steps: &[recovery::Recovered],
    kept: usize,
    end: i64,
    clean: bool,
    limits: &Limits,
    changes: &mut dyn Changes,
) -> Result<bool> {
    let mut snapshot_at_end = false;
    if p.is_metadata_log() {
        for path in logrules::log::snapshots_past(p, end) {
            changes.remove(&path, "a producer snapshot past the new log end (Kafka deletes it)")?;
        }
    } else {
        let plan = recovery::snapshots_on_load(p, steps, kept, end, clean, now_ms(), limits)?;
        let at_end = p.dir.join(logfmt::naming::segment_file_name(end, n::PRODUCER_SNAPSHOT_FILE_SUFFIX));
        snapshot_at_end =
            plan.written.iter().any(|(o, _)| *o == end) || (at_end.exists() && !plan.removed.contains(&at_end));
        apply_snapshots(p, &plan, changes)?;
    }
    Ok(snapshot_at_end)
}

/// The wall clock in ms: a load now expires producers by it.
fn now_ms() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// Stage what Kafka's load does to `p`'s producer snapshots (`plan`).
fn apply_snapshots(p: &Partition, plan: &recovery::SnapshotsOnLoad, changes: &mut dyn Changes) -> Result<()> {
    for path in &plan.removed {
        changes.remove(path, "Kafka's load deletes this producer snapshot (rules::recovery::snapshots_on_load)")?;
    }
    for (offset, state) in &plan.written {
        let path = p.dir.join(logfmt::naming::segment_file_name(*offset, n::PRODUCER_SNAPSHOT_FILE_SUFFIX));
        let bytes = logfmt::emit::producer_snapshot(&state.snapshot_entries());
        write_if_changed(changes, &path, &bytes, "the producer snapshot Kafka's load writes here")?;
    }
    Ok(())
}

/// Leave `p`, whose segments `recovered` were recovered up to `end`, as
/// Kafka leaves a log it rolled and flushed at `end` (`UnifiedLog.roll`,
/// `flushUptoOffsetExclusive`): the recovered files made durable (those
/// below the recovery point were flushed by the broker), a new empty segment at `end` unless the last
/// segment already starts there empty, a producer snapshot at `end` from
/// `state` (`None`: the load's snapshots already hold one there). Returns the new recovery point (`end`), which the caller writes.
fn roll(
    p: &Partition,
    recovered: &[&Segment],
    end: i64,
    state: Option<&ProducerState>,
    changes: &mut dyn Changes,
) -> Result<i64> {
    if changes.executing() {
        // what the recovery point promises: every byte below it is on disk
        // (the files the repair rewrites are made durable by the journal)
        for seg in recovered.iter().filter(|s| s.base <= end) {
            for f in seg.files() {
                std::fs::File::open(&f).and_then(|h| h.sync_all()).map_err(|e| logfmt::Error::io(e, Some(&f)))?;
            }
        }
    }
    let (files, snapshot) = logrules::log::roll_files(&p.dir, end);
    let why = "a new segment at the recovered log end, as Kafka rolls";
    if !p.segments.iter().any(|s| s.base == end) {
        for f in &files {
            changes.write(f, &[], why)?;
        }
    }
    if !snapshot.exists()
        && let Some(state) = state
    {
        let bytes = logfmt::emit::producer_snapshot(&state.snapshot_entries());
        changes.write(&snapshot, &bytes, "the producer snapshot Kafka takes when it rolls")?;
    }
    changes.note(Note::Info {
        path: p.dir.clone(),
        message: format!(
            "roll at the log end {end} and raise the recovery point to it: the broker's next start then recovers nothing here"
        ),
    });
    Ok(end)
}

/// What cutting segment `i` of `p` at byte `cut` loses: the batches after the
/// cut in that segment (the damaged one included, from its header when only
/// a field outside the CRC is wrong: its records are intact, its offsets
/// follow `new_end`) and, when the cut removes them, every batch of the
/// later segments.
fn loss_after_cut(
    p: &Partition,
    i: usize,
    cut: u64,
    field: Option<HeaderField>,
    new_end: i64,
    removes_later: bool,
    limits: &Limits,
) -> Result<Loss> {
    let mut loss = Loss::new(&p.dir);
    let Some(seg) = p.segments.get(i) else { return Ok(loss) };
    let mut r = seg.reader(limits)?;
    let mut scratch = Vec::new();
    while let Some(item) = r.next_item()? {
        match item {
            Item::Entry(e) if e.position() >= cut => loss.add(&batch_info(&e, &mut scratch, limits)),
            Item::Damage(d) if d.end > cut => {
                let header = if d.start == cut && field.is_some() { header_at(&seg.log, d.start) } else { None };
                match header {
                    Some(h) => {
                        let delta = i64::from(h.last_offset_delta.max(0));
                        loss.add(&BatchInfo {
                            position: d.start,
                            size: d.end.saturating_sub(d.start),
                            base_offset: new_end,
                            last_offset: new_end.saturating_add(delta),
                            records: u64::try_from(h.records_count).unwrap_or(0),
                            epoch: if field == Some(HeaderField::PartitionLeaderEpoch) {
                                -1
                            } else {
                                h.partition_leader_epoch
                            },
                            first_timestamp: h.base_timestamp.min(h.max_timestamp),
                            max_timestamp: h.max_timestamp,
                        });
                    }
                    None => loss.bytes = loss.bytes.saturating_add(d.end.saturating_sub(d.start.max(cut))),
                }
            }
            _ => {}
        }
    }
    if removes_later {
        for later in p.segments.iter().skip(i.saturating_add(1)) {
            scan(later, limits, |b| loss.add(b))?;
        }
    }
    if loss.batches == 0 {
        loss.from_offset = new_end;
        loss.to_offset = new_end;
    }
    Ok(loss)
}

/// The v2 batch header at `position` of `log` (for a batch whose CRC covers
/// it but whose position does not fit).
fn header_at(log: &Path, position: u64) -> Option<BatchHeader> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(log).ok()?;
    f.seek(SeekFrom::Start(position)).ok()?;
    let mut buf = [0u8; logfmt::spec::batch::RECORD_BATCH_OVERHEAD];
    f.read_exact(&mut buf).ok()?;
    BatchHeader::read(&mut Cursor::new(&buf, position, End::File)).ok()
}
