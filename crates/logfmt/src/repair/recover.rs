//! `recover`: what Kafka's log loading does after an unclean shutdown, offline.
//!
//! Mirrors `LogLoader.recoverLog` and `LogSegment.recover` (Kafka 3.9):
//!
//! * after an unclean shutdown (no `.kafka_cleanshutdown`), every segment from
//!   the one holding the partition's recovery point to the last is recovered;
//!   after a clean one, none; the KRaft metadata log is always recovered from
//!   offset 0; any segment whose `.index` is missing is recovered regardless
//!   (`--all`: every segment);
//! * recovering a segment rebuilds its `.index`, `.timeindex` and `.txnindex`
//!   ([`crate::rules::recovery`]), and cuts the `.log` at the first batch
//!   Kafka rejects or whose header does not fit ([`crate::sanity`]); a cut
//!   segment ends the recovery: every later segment is removed;
//! * then the leader-epoch cache gets the epochs of the recovered batches and
//!   loses entries at or after the new log end, producer snapshots past the
//!   end are removed, and the log dir's checkpoints are lowered to the end.
//!
//! The index interval is the topic's `index.interval.bytes`, from the KRaft
//! metadata log of the same log dir ([`crate::metadata`]).

use std::path::{Path, PathBuf};

use super::checkpoints::{CheckpointLimits, adjust_checkpoints};
use super::{Changes, Note, write_if_changed};
use crate::error::Result;
use crate::limits::Limits;
use crate::logdir::{self, LogDirEntry, Target};
use crate::metadata::{self, ClusterMetadata, ConfigSource};
use crate::partition::{LogDirCheckpoints, Partition};
use crate::rules::epochs::EpochCache;
use crate::rules::producer::ProducerState;
use crate::rules::recovery::{self, Stop, recover_segment};
use crate::spec::names as n;

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
    /// Reading limits.
    pub limits: Limits,
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
    /// Segments removed after a cut.
    pub segments_removed: usize,
    /// The log end offset after recovery.
    pub log_end: i64,
    /// The index interval used and where it came from.
    pub interval: (u64, String),
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
                    "Kafka's default (no metadata log found: give --metadata-dir if metadata.log.dir is elsewhere)"
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
            return Err(crate::Error::malformed(
                0,
                "recover target",
                format!("{} is a file; give a partition or log dir", f.display()),
            ));
        }
    };
    let clean = log_dir.join(n::CLEAN_SHUTDOWN).exists();
    let checkpoints = LogDirCheckpoints::read(&log_dir, &opts.limits);
    let meta = metadata::read_metadata_at(opts.metadata.as_deref().unwrap_or(&log_dir), &opts.limits).ok().flatten();
    let node = metadata::node_id(&log_dir, &opts.limits);
    if clean && !opts.all {
        changes.note(Note::Info {
            path: log_dir.join(n::CLEAN_SHUTDOWN),
            message: "the broker shut down cleanly: like Kafka, only the metadata log and segments without .index are recovered (--all: every segment)".into(),
        });
    }
    let mut out = Vec::new();
    let mut lim = CheckpointLimits::default();
    for dir in partitions {
        let p = Partition::open_with(&dir, &checkpoints)?;
        let first = recovery::first_to_recover(&p, clean, opts.all);
        let interval = index_interval(&opts.interval, meta.as_ref(), node.as_deref(), &p.name.topic);
        let r = recover_partition(&p, first, &interval, &opts.limits, changes)?;
        if r.cut.is_some() || r.segments_recovered > 0 {
            lim.log_end.insert((p.name.topic.clone(), p.name.partition), r.log_end);
        }
        out.push(r);
    }
    adjust_checkpoints(&log_dir, &lim, &opts.limits, changes)?;
    Ok(out)
}

fn recover_partition(
    p: &Partition,
    first: Option<usize>,
    interval: &(u64, String),
    limits: &Limits,
    changes: &mut dyn Changes,
) -> Result<PartitionRecovery> {
    let mut out = PartitionRecovery { dir: p.dir.clone(), interval: interval.clone(), ..PartitionRecovery::default() };
    let mut cache = EpochCache::load(p.epochs(limits));
    let mut txn: Option<ProducerState> = None;
    let mut log_end = None;
    for (i, seg) in p.segments.iter().enumerate() {
        if !recovery::needs_recovery(p, i, first) {
            continue;
        }
        let mut state = match txn.take() {
            Some(t) => t,
            None => ProducerState::at(p, seg.base, limits)?,
        };
        let rebuilt = recover_segment(seg, interval.0, &mut state, cache.latest_epoch(), limits)?;
        txn = Some(state);
        out.segments_recovered = out.segments_recovered.saturating_add(1);
        if let Some(Stop::OverLimit { position, error }) = &rebuilt.stop {
            changes.note(Note::Warning {
                path: seg.log.clone(),
                message: format!("a batch at byte {position} is larger than logtool's limit ({error}); raise --max-batch-size: nothing was recovered from here"),
            });
            return Ok(out);
        }
        for &(e, o) in &rebuilt.epochs {
            cache.assign(e, o);
        }
        let why = "rebuilt as Kafka's recovery builds it";
        write_if_changed(changes, &seg.sibling(n::INDEX_FILE_SUFFIX), &rebuilt.offset_index, why)?;
        write_if_changed(changes, &seg.sibling(n::TIME_INDEX_FILE_SUFFIX), &rebuilt.time_index, why)?;
        let txn_path = seg.sibling(n::TXN_INDEX_FILE_SUFFIX);
        if !rebuilt.txn_index.is_empty() || txn_path.exists() {
            write_if_changed(changes, &txn_path, &rebuilt.txn_index_bytes(), why)?;
        }
        if rebuilt.valid_bytes < rebuilt.size {
            let reason = match &rebuilt.stop {
                Some(Stop::Invalid { position, error, torn_tail: true, .. }) => {
                    format!("a torn write from byte {position}: {}", error.message())
                }
                Some(Stop::Invalid { position, error, field: Some(f), .. }) => {
                    format!("the batch at byte {position} has a wrong {f}: {}", error.message())
                }
                Some(Stop::Invalid { position, error, .. }) => {
                    format!("Kafka rejects the batch at byte {position}: {}", error.message())
                }
                _ => "invalid bytes".into(),
            };
            changes.truncate(&seg.log, rebuilt.valid_bytes, &reason)?;
            out.cut = Some((seg.log.clone(), rebuilt.valid_bytes, rebuilt.size.saturating_sub(rebuilt.valid_bytes)));
            for later in p.segments.iter().skip(i.saturating_add(1)) {
                for f in later.files() {
                    changes.remove(&f, "after a cut, Kafka deletes every later segment")?;
                }
                out.segments_removed = out.segments_removed.saturating_add(1);
            }
            log_end = Some(rebuilt.next_offset.unwrap_or(seg.base));
            break;
        }
        log_end = rebuilt.next_offset.or(Some(seg.base)).map(|e| e.max(seg.base));
    }
    if out.segments_recovered == 0 {
        out.log_end = crate::rules::log::log_end_offset(p, limits)?;
        return Ok(out);
    }
    let end = log_end.unwrap_or(0);
    out.log_end = end;
    cache.truncate_from_end(end);
    let epochs_path = p.epochs_path();
    if epochs_path.exists() || !cache.entries().is_empty() {
        write_if_changed(changes, &epochs_path, &cache.to_checkpoint(), "leader epochs of the recovered log")?;
    }
    for path in crate::rules::log::snapshots_past(p, end) {
        changes.remove(&path, "a producer snapshot past the new log end (Kafka deletes it)")?;
    }
    if let Some(hw) = p.checkpoints.high_watermark.filter(|&hw| hw > end) {
        changes.note(Note::Warning {
            path: p.dir.clone(),
            message: format!(
                "the high watermark {hw} is above the recovered log end {end}: acknowledged records were lost"
            ),
        });
    }
    Ok(out)
}
