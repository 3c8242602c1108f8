//! Finding every problem in a log dir, a partition or a file.
//!
//! Verification is a report, not an exception: every check adds [`Finding`]s
//! (file, byte range, offset, [`Kind`], [`Severity`], message) and goes on.
//! Only the caller decides what is fatal. Nothing here writes.
//!
//! * [`check_log_dir`]: the log dir's own files (`meta.properties`, the four
//!   offset checkpoints, the clean-shutdown marker, `.lock`, foreign
//!   directories), returning what the checkpoints say about each partition.
//! * [`check_partition`]: every segment in one streaming pass each (see
//!   `segment.rs`), then segment continuity, checkpoints against the log end,
//!   the leader-epoch checkpoint against the batches' epochs, producer
//!   snapshots, `partition.metadata`.
//! * [`check_file`]: one file on its own.
//!
//! Severities: `error` is damage or a state Kafka mishandles (data loss,
//! wrong answers, refusing to start); `warning` is an inconsistency Kafka
//! repairs itself at startup or that older brokers legitimately wrote;
//! `info` is normal-but-notable. Each (file, kind) is listed at most
//! [`Options::max_per_kind`] times; the rest are counted.

mod segment;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::checkpoint::{self, EpochEntry};
use crate::limits::Limits;
use crate::lock::{self, LockState};
use crate::log::{Item, LogReader};
use crate::logdir::{self, LogDirEntry};
use crate::naming::{self, FileKind, TempSuffix};
use crate::spec::names as n;
use segment::{PartitionState, SegmentChecker, SegmentFiles, SegmentSummary};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Normal but worth knowing.
    Info,
    /// Inconsistent, but Kafka copes (or older brokers wrote it so).
    Warning,
    /// Damage, or a state Kafka mishandles.
    Error,
}

impl Severity {
    /// `info`, `warning`, `error`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! kinds {
    ($($variant:ident => $name:literal, $sev:ident, $doc:literal;)*) => {
        /// What was found. `name()` is the stable name used in output.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Kind {
            $(#[doc = $doc] $variant,)*
        }

        impl Kind {
            /// The name used in output (snake_case).
            pub fn name(self) -> &'static str {
                match self { $(Kind::$variant => $name,)* }
            }

            /// The severity this kind is reported with.
            pub fn severity(self) -> Severity {
                match self { $(Kind::$variant => Severity::$sev,)* }
            }

            /// One line on what the kind means.
            pub fn description(self) -> &'static str {
                match self { $(Kind::$variant => $doc,)* }
            }

            /// Every kind.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant,)*];
        }
    };
}

kinds! {
    IoError => "io_error", Error, "a file could not be read";
    Corrupt => "corrupt", Error, "bytes in a segment that are not a readable batch";
    TruncatedTail => "truncated_tail", Warning, "a partial batch at the end of the active segment: a torn write, normal after a crash";
    ZeroedTail => "zeroed_tail", Warning, "zero-filled bytes at the end of the active segment, normal after a crash";
    TruncatedSegment => "truncated_segment", Error, "a rolled (not active) segment ends inside a batch";
    ZeroedRegion => "zeroed_region", Error, "zero-filled bytes in the middle of a segment";
    CrcMismatch => "crc_mismatch", Error, "a batch or message whose checksum does not match its bytes";
    RecordCountMismatch => "record_count_mismatch", Error, "recordsCount does not fit lastOffsetDelta";
    OffsetGapInBatch => "offset_gap_in_batch", Warning, "fewer records than offsets in a batch of a partition the cleaner never compacted";
    RecordInvalid => "record_invalid", Error, "records that do not decode exactly to the batch's length and count";
    RecordOffsetInvalid => "record_offset_invalid", Error, "record offsets outside the batch's range or not increasing";
    DecompressionFailed => "decompression_failed", Error, "a compressed payload that does not decompress";
    ControlRecordInvalid => "control_record_invalid", Error, "a control batch whose record is not a valid control record";
    MaxTimestampMismatch => "max_timestamp_mismatch", Warning, "maxTimestamp is not the largest record timestamp (CreateTime)";
    BaseTimestampMismatch => "base_timestamp_mismatch", Warning, "the first record's timestamp is not baseTimestamp (and no delete horizon is set)";
    OffsetRegression => "offset_regression", Error, "a batch whose offsets do not come after the previous batch's";
    OffsetOutOfSegment => "offset_out_of_segment", Error, "a batch outside its segment's offset range";
    SequenceGap => "sequence_gap", Warning, "a producer's sequence numbers skip or repeat between its batches";
    SequenceGapCompacted => "sequence_gap_compacted", Info, "a producer sequence gap in a compacted partition (the cleaner removed batches)";
    ProducerEpochRegression => "producer_epoch_regression", Warning, "a producer writes with an epoch lower than before";
    LeaderEpochRegression => "leader_epoch_regression", Error, "a batch whose partition leader epoch is lower than an earlier batch's";
    SegmentOverlap => "segment_overlap", Error, "a segment starting at or below the previous segment's last offset";
    SegmentGap => "segment_gap", Info, "offsets missing between two segments of a compacted partition (the cleaner removed them)";
    OffsetGap => "offset_gap", Warning, "offsets missing between two segments of a partition the cleaner never compacted";
    SegmentBaseOffsetMismatch => "segment_base_offset_mismatch", Error, "a segment's first batch lies below the base offset in its name";
    EmptySegment => "empty_segment", Info, "a rolled segment without batches";
    LeftoverFile => "leftover_file", Info, "a .deleted/.cleaned/.tmp/.part file; Kafka removes it at startup";
    LeftoverSwap => "leftover_swap", Warning, "a .swap file from an interrupted log-cleaner swap; Kafka completes the swap at startup";
    OrphanIndex => "orphan_index", Warning, "an index file without its .log; Kafka deletes it at startup";
    IndexMissing => "index_missing", Warning, "a segment without .index; Kafka rebuilds it at startup";
    TimeIndexMissing => "time_index_missing", Info, "a segment without .timeindex; Kafka recreates it empty";
    IndexNotMonotonic => "index_not_monotonic", Error, "index entries that do not increase: lookups give wrong answers";
    IndexEntryMismatch => "index_entry_mismatch", Error, "an offset index entry that does not point at the batch it must";
    IndexEntryNotBatchEnd => "index_entry_not_batch_end", Warning, "an offset index entry whose offset is not the last offset of its batch";
    IndexEntryInvalid => "index_entry_invalid", Error, "an index entry that cannot be read";
    IndexBeyondLogEnd => "index_beyond_log_end", Error, "index entries past the end of the log: a stale index";
    TimeIndexMismatch => "time_index_mismatch", Warning, "a time index entry that does not match the batches: timestamp lookups may be off";
    IndexPreallocated => "index_preallocated", Info, "the zero-filled preallocated tail of the active segment's index (unclean shutdown)";
    IndexNotTrimmed => "index_not_trimmed", Warning, "a zero-filled tail in a rolled segment's index, which Kafka trims at roll";
    IndexGarbageTail => "index_garbage_tail", Warning, "non-zero bytes after an index's last entry";
    IndexPartialEntry => "index_partial_entry", Warning, "an index file length that is not a whole number of entries";
    TxnIndexMissingEntry => "txn_index_missing_entry", Error, "an ABORT marker with no .txnindex entry: read_committed consumers see aborted records";
    TxnIndexExtraEntry => "txn_index_extra_entry", Warning, "a .txnindex entry with no ABORT marker";
    TxnIndexMismatch => "txn_index_mismatch", Error, "a .txnindex entry that names another producer than its marker";
    HighWatermarkAboveLogEnd => "high_watermark_above_log_end", Error, "replication-offset-checkpoint says the high watermark is past the log end";
    RecoveryPointAboveLogEnd => "recovery_point_above_log_end", Error, "recovery-point-offset-checkpoint says the recovery point is past the log end";
    LogStartOutOfRange => "log_start_out_of_range", Error, "log-start-offset-checkpoint says the log starts past its end";
    LogStartAboveHighWatermark => "log_start_above_high_watermark", Error, "the log start offset is above the high watermark";
    CleanerOffsetAboveLogEnd => "cleaner_offset_above_log_end", Warning, "cleaner-offset-checkpoint is past the log end";
    CheckpointMalformed => "checkpoint_malformed", Error, "a checkpoint file Kafka cannot parse (it takes the log dir offline)";
    CheckpointPartitionMissing => "checkpoint_partition_missing", Warning, "a checkpoint names a partition this log dir does not hold";
    LeaderEpochNotIncreasing => "leader_epoch_not_increasing", Error, "leader-epoch-checkpoint entries whose epochs or offsets do not increase";
    LeaderEpochMismatch => "leader_epoch_mismatch", Error, "batches whose leader epoch disagrees with leader-epoch-checkpoint";
    LeaderEpochBeyondLogEnd => "leader_epoch_beyond_log_end", Warning, "a leader-epoch entry past the log end; Kafka drops it at startup";
    LeaderEpochCheckpointMissing => "leader_epoch_checkpoint_missing", Warning, "v2 batches carry leader epochs but there is no leader-epoch-checkpoint";
    ProducerSnapshotCorrupt => "producer_snapshot_corrupt", Warning, "a producer snapshot that does not parse or whose CRC fails; Kafka deletes it and rebuilds from the log";
    ProducerSnapshotBeyondLogEnd => "producer_snapshot_beyond_log_end", Warning, "a producer snapshot past the log end (or holding offsets past its own); Kafka deletes it";
    PartitionMetadataMissing => "partition_metadata_missing", Warning, "no partition.metadata (topic id)";
    PartitionMetadataInvalid => "partition_metadata_invalid", Error, "partition.metadata that does not parse";
    MetaPropertiesMissing => "meta_properties_missing", Warning, "a log dir without meta.properties";
    MetaPropertiesInvalid => "meta_properties_invalid", Error, "meta.properties without a valid version and node/broker id";
    ForeignDirectory => "foreign_directory", Error, "a directory that is not a partition: Kafka 3.9 refuses to start";
    LogDirLocked => "log_dir_locked", Info, "a live process (a broker) holds the log dir's .lock; files may change while read";
    UncleanShutdown => "unclean_shutdown", Info, "no clean-shutdown marker: Kafka recovers the segments above the recovery point at startup";
    Note => "note", Info, "something worth knowing about the check itself";
    FindingsCapped => "findings_capped", Info, "more findings of one kind in one file than are listed";
}

/// One problem found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The file (or directory) concerned.
    pub file: PathBuf,
    /// Absolute byte position, when it has one.
    pub position: Option<u64>,
    /// End (exclusive) of a damaged byte range.
    pub end_position: Option<u64>,
    /// The Kafka offset concerned, when known.
    pub offset: Option<i64>,
    /// What.
    pub kind: Kind,
    /// How bad.
    pub severity: Severity,
    /// Details in words.
    pub message: String,
}

/// Options for verification.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Limits for reading.
    pub limits: Limits,
    /// Findings listed per (file, kind); the rest are counted.
    pub max_per_kind: usize,
    /// Read a large segment ahead on its own thread and check its batches on
    /// all cores. Worth it when there are fewer partitions than cores; each
    /// segment checked this way holds about four slabs (16 MiB) in memory.
    pub read_ahead: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { limits: Limits::default(), max_per_kind: 100, read_ahead: true }
    }
}

/// What was read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Segment files read.
    pub files: u64,
    /// Partition directories.
    pub partitions: u64,
    /// Batches (and legacy messages).
    pub batches: u64,
    /// Records.
    pub records: u64,
    /// Bytes of segments read.
    pub bytes: u64,
}

impl Stats {
    /// Add `other` to this.
    pub fn add(&mut self, other: &Stats) {
        self.files = self.files.saturating_add(other.files);
        self.partitions = self.partitions.saturating_add(other.partitions);
        self.batches = self.batches.saturating_add(other.batches);
        self.records = self.records.saturating_add(other.records);
        self.bytes = self.bytes.saturating_add(other.bytes);
    }
}

/// Findings and statistics of one check.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// In the order found.
    pub findings: Vec<Finding>,
    /// What was read.
    pub stats: Stats,
}

/// Collects findings, listing each (file, kind) at most `cap` times.
pub(crate) struct Findings {
    list: Vec<Finding>,
    counts: HashMap<(PathBuf, Kind), usize>,
    cap: usize,
}

impl Findings {
    fn new(cap: usize) -> Findings {
        Findings { list: Vec::new(), counts: HashMap::new(), cap }
    }

    pub(crate) fn push(
        &mut self,
        file: &Path,
        position: Option<u64>,
        end_position: Option<u64>,
        offset: Option<i64>,
        kind: Kind,
        message: String,
    ) {
        let n = self.counts.entry((file.to_path_buf(), kind)).or_insert(0);
        *n = n.saturating_add(1);
        if *n <= self.cap {
            self.list.push(Finding {
                file: file.to_path_buf(),
                position,
                end_position,
                offset,
                kind,
                severity: kind.severity(),
                message,
            });
        }
    }

    fn finish(mut self) -> Vec<Finding> {
        let mut capped: Vec<(&(PathBuf, Kind), &usize)> = self.counts.iter().filter(|(_, n)| **n > self.cap).collect();
        capped.sort();
        for ((file, kind), n) in capped {
            self.list.push(Finding {
                file: file.clone(),
                position: None,
                end_position: None,
                offset: None,
                kind: Kind::FindingsCapped,
                severity: Severity::Info,
                message: format!(
                    "{} more {} finding(s) not listed ({} in all)",
                    n.saturating_sub(self.cap),
                    kind.name(),
                    n
                ),
            });
        }
        self.list
    }
}

/// What a log dir's checkpoint files say about one partition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartitionContext {
    /// From `replication-offset-checkpoint`.
    pub high_watermark: Option<i64>,
    /// From `recovery-point-offset-checkpoint`.
    pub recovery_point: Option<i64>,
    /// From `log-start-offset-checkpoint`.
    pub log_start_offset: Option<i64>,
    /// From `cleaner-offset-checkpoint` (present: the cleaner has compacted it).
    pub cleaner_offset: Option<i64>,
}

/// Per-partition checkpoint values of a log dir, keyed by (topic, partition).
pub type Contexts = HashMap<(String, i32), PartitionContext>;

/// Read a log dir's four offset checkpoints without reporting anything.
pub fn log_dir_contexts(dir: &Path, limits: &Limits) -> Contexts {
    let mut out = Findings::new(0);
    read_contexts(dir, limits, &mut out)
}

fn read_contexts(dir: &Path, limits: &Limits, out: &mut Findings) -> Contexts {
    let mut contexts: Contexts = HashMap::new();
    for (name, set) in [
        (n::REPLICATION_OFFSET_CHECKPOINT, (|c, v| c.high_watermark = Some(v)) as fn(&mut PartitionContext, i64)),
        (n::RECOVERY_POINT_OFFSET_CHECKPOINT, |c, v| c.recovery_point = Some(v)),
        (n::LOG_START_OFFSET_CHECKPOINT, |c, v| c.log_start_offset = Some(v)),
        (n::CLEANER_OFFSET_CHECKPOINT, |c, v| c.cleaner_offset = Some(v)),
    ] {
        let path = dir.join(name);
        if !path.exists() {
            continue;
        }
        match checkpoint::read_offsets(&path, limits) {
            Ok(c) => {
                for (_, e) in c.entries {
                    set(contexts.entry((e.topic, e.partition)).or_default(), e.offset);
                }
            }
            Err(e) => out.error(&path, &e, Kind::CheckpointMalformed),
        }
    }
    contexts
}

/// Check a log dir's own files. Returns what its checkpoints say about each
/// partition (for [`check_partition`]) and the findings.
pub fn check_log_dir(dir: &Path, opts: &Options) -> (Contexts, Report) {
    let mut out = Findings::new(opts.max_per_kind);
    match lock::log_dir_lock(dir) {
        LockState::Held { pid } => out.push(
            &dir.join(n::LOCK),
            None,
            None,
            None,
            Kind::LogDirLocked,
            format!("held by pid {pid}: a live broker is using this log dir; files may change while they are read (verify only reads)"),
        ),
        LockState::Unknown | LockState::NoLockFile | LockState::Free => {}
    }
    let meta = dir.join(n::META_PROPERTIES);
    if meta.exists() {
        match crate::properties::read_meta_properties(&meta, &opts.limits) {
            Ok(props) => {
                let get = |k: &str| props.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
                let ok = match get("version") {
                    Some("0") => get("broker.id").is_some_and(|v| v.parse::<i32>().is_ok()),
                    Some("1") => {
                        get("node.id").is_some_and(|v| v.parse::<i32>().is_ok()) && get("cluster.id").is_some()
                    }
                    _ => false,
                };
                if !ok {
                    out.push(
                        &meta,
                        None,
                        None,
                        None,
                        Kind::MetaPropertiesInvalid,
                        "no valid version with its node.id/broker.id and cluster.id".into(),
                    );
                }
            }
            Err(e) => out.error(&meta, &e, Kind::MetaPropertiesInvalid),
        }
    } else {
        out.push(
            &meta,
            None,
            None,
            None,
            Kind::MetaPropertiesMissing,
            "the broker writes it when it formats or first uses the dir".into(),
        );
    }
    if !dir.join(n::CLEAN_SHUTDOWN).exists() {
        out.push(
            &dir.join(n::CLEAN_SHUTDOWN),
            None,
            None,
            None,
            Kind::UncleanShutdown,
            "no clean-shutdown marker: the broker did not stop cleanly (or is running)".into(),
        );
    }
    let contexts = read_contexts(dir, &opts.limits, &mut out);
    let mut present = std::collections::HashSet::new();
    match logdir::log_dir_entries(dir) {
        Err(e) => out.error(dir, &e, Kind::IoError),
        Ok(entries) => {
            for e in entries {
                match e {
                    LogDirEntry::Partition(p) => {
                        let name = p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                        if let Some(pd) = naming::parse_partition_dir(&name)
                            && pd.state == naming::DirState::Live
                        {
                            present.insert((pd.topic, pd.partition));
                        }
                    }
                    LogDirEntry::Foreign(d) => out.push(
                        &d,
                        None,
                        None,
                        None,
                        Kind::ForeignDirectory,
                        "not a partition directory: Kafka 3.9 refuses to start on a log dir holding it".into(),
                    ),
                    LogDirEntry::File(f) => {
                        let name = f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                        if name.ends_with(n::TMP_FILE_SUFFIX) {
                            out.push(
                                &f,
                                None,
                                None,
                                None,
                                Kind::LeftoverFile,
                                "left over by an interrupted checkpoint write".into(),
                            );
                        }
                    }
                }
            }
        }
    }
    let mut missing: Vec<&(String, i32)> = contexts.keys().filter(|k| !present.contains(*k)).collect();
    missing.sort();
    for (topic, partition) in missing {
        out.push(
            dir,
            None,
            None,
            None,
            Kind::CheckpointPartitionMissing,
            format!("the checkpoints name {topic}-{partition}, which has no directory here"),
        );
    }
    (contexts, Report { findings: out.finish(), stats: Stats::default() })
}

/// The files of one partition directory, sorted out.
#[derive(Default)]
struct PartitionFiles {
    segments: BTreeMap<i64, [Option<PathBuf>; 4]>,
    producer_snapshots: Vec<(i64, PathBuf)>,
    kraft_snapshots: Vec<PathBuf>,
    leader_epochs: Option<PathBuf>,
    partition_metadata: Option<PathBuf>,
}

fn sort_files(files: Vec<PathBuf>, out: &mut Findings) -> PartitionFiles {
    let mut pf = PartitionFiles::default();
    for f in files {
        let name = f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let fname = naming::classify(&name);
        if let Some(sfx) = fname.suffix {
            let (kind, what) = match sfx {
                TempSuffix::Swap => (Kind::LeftoverSwap, "a log-cleaner swap interrupted"),
                TempSuffix::Deleted => (Kind::LeftoverFile, "scheduled for deletion"),
                TempSuffix::Cleaned => (Kind::LeftoverFile, "log-cleaner output never swapped in"),
                TempSuffix::Partial => (Kind::LeftoverFile, "a KRaft snapshot never completed"),
            };
            out.push(&f, None, None, fname.offset, kind, format!("{what}; Kafka deals with it at startup"));
            continue;
        }
        let slot = match fname.kind {
            FileKind::Log => Some(0),
            FileKind::OffsetIndex => Some(1),
            FileKind::TimeIndex => Some(2),
            FileKind::TxnIndex => Some(3),
            _ => None,
        };
        match (slot, fname.offset) {
            (Some(i), Some(off)) => {
                if let Some(s) = pf.segments.entry(off).or_default().get_mut(i) {
                    *s = Some(f);
                }
            }
            _ => match fname.kind {
                FileKind::ProducerSnapshot => pf.producer_snapshots.push((fname.offset.unwrap_or(0), f)),
                FileKind::KraftSnapshot => pf.kraft_snapshots.push(f),
                FileKind::LeaderEpochCheckpoint => pf.leader_epochs = Some(f),
                FileKind::PartitionMetadata => pf.partition_metadata = Some(f),
                _ if name.ends_with(n::TMP_FILE_SUFFIX) => {
                    out.push(&f, None, None, None, Kind::LeftoverFile, "left over by an interrupted write".into())
                }
                _ => {}
            },
        }
    }
    pf
}

/// Check one partition directory. `ctx` holds its entries in the log dir's
/// checkpoints (if known); `progress` is told the bytes read as it goes.
pub fn check_partition(dir: &Path, ctx: Option<&PartitionContext>, opts: &Options, progress: &dyn Fn(u64)) -> Report {
    let mut out = Findings::new(opts.max_per_kind);
    let mut stats = Stats { partitions: 1, ..Stats::default() };
    let files = match logdir::partition_files(dir) {
        Ok(f) => f,
        Err(e) => {
            out.error(dir, &e, Kind::IoError);
            return Report { findings: out.finish(), stats };
        }
    };
    let pf = sort_files(files, &mut out);
    let ctx = ctx.copied().unwrap_or_default();
    let mut st = PartitionState::new(ctx.cleaner_offset.is_some());
    let logs: Vec<(i64, &[Option<PathBuf>; 4])> =
        pf.segments.iter().filter(|(_, f)| f[0].is_some()).map(|(b, f)| (*b, f)).collect();
    for (base, f) in &pf.segments {
        if f[0].is_none() {
            for p in f.iter().flatten() {
                out.push(
                    p,
                    None,
                    None,
                    Some(*base),
                    Kind::OrphanIndex,
                    format!("no {} for this index", naming::segment_file_name(*base, n::LOG_FILE_SUFFIX)),
                );
            }
        }
    }
    let mut prev: Option<(i64, SegmentSummary)> = None;
    for (i, &(base, f)) in logs.iter().enumerate() {
        let [Some(log), index, time_index, txn_index] = f.clone() else { continue };
        let is_last = i.saturating_add(1) == logs.len();
        let size = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
        if index.is_none() && size > 0 {
            out.push(&log, None, None, Some(base), Kind::IndexMissing, "this segment has no .index".into());
        }
        if time_index.is_none() && size > 0 {
            out.push(&log, None, None, Some(base), Kind::TimeIndexMissing, "this segment has no .timeindex".into());
        }
        let seg = SegmentFiles {
            base,
            log: log.clone(),
            index,
            time_index,
            txn_index,
            is_last,
            next_base: logs.get(i.saturating_add(1)).map(|(b, _)| *b),
        };
        let summary = SegmentChecker::new(&seg, &mut st, &mut out, &mut stats, opts).run(progress);
        if let Some(first) = summary.first_offset
            && first < base
        {
            out.push(
                &log,
                Some(0),
                None,
                Some(first),
                Kind::SegmentBaseOffsetMismatch,
                format!("the first batch starts at offset {first}, below the segment's base offset {base}"),
            );
        }
        if let Some((_, p)) = &prev
            && let Some(prev_last) = p.last_offset
        {
            if base <= prev_last {
                out.push(
                    &log,
                    None,
                    None,
                    Some(base),
                    Kind::SegmentOverlap,
                    format!("base offset {base} but the previous segment ends at offset {prev_last}"),
                );
            } else if base > prev_last.saturating_add(1) {
                let kind = if st.compacted() { Kind::SegmentGap } else { Kind::OffsetGap };
                out.push(
                    &log,
                    None,
                    None,
                    Some(base),
                    kind,
                    format!("offsets {}..{base} are in no segment", prev_last.saturating_add(1)),
                );
            }
        }
        if summary.batches == 0 && !is_last && size == 0 {
            out.push(&log, None, None, Some(base), Kind::EmptySegment, "a rolled segment with no batches".into());
        }
        prev = Some((base, summary));
    }
    // the log end offset: after the last batch, or the active segment's base
    let first_base = logs.first().map(|(b, _)| *b);
    let log_end = match (st.last_offset, logs.last()) {
        (Some(last), Some((base, _))) => last.saturating_add(1).max(*base),
        (None, Some((base, _))) => *base,
        (Some(last), None) => last.saturating_add(1),
        (None, None) => 0,
    };
    checkpoints(dir, &ctx, first_base, log_end, &mut out);
    leader_epochs(dir, &pf, &st, log_end, opts, &mut out);
    for (offset, path) in &pf.producer_snapshots {
        producer_snapshot(path, *offset, log_end, opts, &mut out);
    }
    for path in &pf.kraft_snapshots {
        kraft_snapshot(path, opts, &mut out, &mut stats, progress);
    }
    match &pf.partition_metadata {
        Some(p) => {
            if let Err(e) = crate::properties::read_partition_metadata(p, &opts.limits) {
                out.error(p, &e, Kind::PartitionMetadataInvalid);
            }
        }
        None if !logs.is_empty() => out.push(
            &dir.join(n::PARTITION_METADATA),
            None,
            None,
            None,
            Kind::PartitionMetadataMissing,
            "the broker writes the topic id here once it knows it".into(),
        ),
        None => {}
    }
    Report { findings: out.finish(), stats }
}

fn checkpoints(dir: &Path, ctx: &PartitionContext, first_base: Option<i64>, log_end: i64, out: &mut Findings) {
    let log_start = ctx.log_start_offset.unwrap_or(0).max(first_base.unwrap_or(0));
    let file = |name: &str| dir.parent().map_or_else(|| PathBuf::from(name), |p| p.join(name));
    if let Some(hw) = ctx.high_watermark {
        if hw > log_end {
            out.push(
                &file(n::REPLICATION_OFFSET_CHECKPOINT),
                None,
                None,
                Some(hw),
                Kind::HighWatermarkAboveLogEnd,
                format!("{}: high watermark {hw} but the log ends at offset {log_end}", dir.display()),
            );
        }
        if log_start > hw {
            out.push(
                &file(n::LOG_START_OFFSET_CHECKPOINT),
                None,
                None,
                Some(log_start),
                Kind::LogStartAboveHighWatermark,
                format!("{}: log start offset {log_start} is above the high watermark {hw}", dir.display()),
            );
        }
    }
    if let Some(rp) = ctx.recovery_point
        && rp > log_end
    {
        out.push(
            &file(n::RECOVERY_POINT_OFFSET_CHECKPOINT),
            None,
            None,
            Some(rp),
            Kind::RecoveryPointAboveLogEnd,
            format!("{}: recovery point {rp} but the log ends at offset {log_end}", dir.display()),
        );
    }
    if let Some(ls) = ctx.log_start_offset
        && ls > log_end
    {
        out.push(
            &file(n::LOG_START_OFFSET_CHECKPOINT),
            None,
            None,
            Some(ls),
            Kind::LogStartOutOfRange,
            format!("{}: log start offset {ls} but the log ends at offset {log_end}", dir.display()),
        );
    }
    if let Some(co) = ctx.cleaner_offset
        && co > log_end
    {
        out.push(
            &file(n::CLEANER_OFFSET_CHECKPOINT),
            None,
            None,
            Some(co),
            Kind::CleanerOffsetAboveLogEnd,
            format!("{}: cleaner offset {co} but the log ends at offset {log_end}", dir.display()),
        );
    }
}

fn leader_epochs(
    dir: &Path,
    pf: &PartitionFiles,
    st: &PartitionState,
    log_end: i64,
    opts: &Options,
    out: &mut Findings,
) {
    let Some(path) = &pf.leader_epochs else {
        if !st.lineage.is_empty() {
            out.push(
                &dir.join(n::LEADER_EPOCH_CHECKPOINT),
                None,
                None,
                None,
                Kind::LeaderEpochCheckpointMissing,
                format!(
                    "batches carry leader epochs {:?} but there is no checkpoint",
                    st.lineage.iter().map(|l| l.0).collect::<Vec<_>>()
                ),
            );
        }
        return;
    };
    let entries: Vec<(u64, EpochEntry)> = match checkpoint::read_epochs(path, &opts.limits) {
        Ok(c) => c.entries,
        Err(e) => {
            out.error(path, &e, Kind::CheckpointMalformed);
            return;
        }
    };
    let mut prev: Option<EpochEntry> = None;
    for (pos, e) in &entries {
        if e.epoch < 0
            || e.start_offset < 0
            || prev.is_some_and(|p| e.epoch <= p.epoch || e.start_offset <= p.start_offset)
        {
            out.push(
                path,
                Some(*pos),
                None,
                Some(e.start_offset),
                Kind::LeaderEpochNotIncreasing,
                format!(
                    "entry (epoch {}, start offset {}) after {:?}",
                    e.epoch,
                    e.start_offset,
                    prev.map(|p| (p.epoch, p.start_offset))
                ),
            );
        }
        if e.start_offset > log_end {
            out.push(
                path,
                Some(*pos),
                None,
                Some(e.start_offset),
                Kind::LeaderEpochBeyondLogEnd,
                format!("epoch {} starts at offset {}, past the log end {log_end}", e.epoch, e.start_offset),
            );
        }
        prev = Some(*e);
    }
    // Every epoch change in the batches must fall in that epoch's range of
    // the checkpoint: the entry with the largest start offset at or below it.
    for &(epoch, offset) in &st.lineage {
        let covering =
            entries.iter().map(|(_, e)| e).filter(|e| e.start_offset <= offset).max_by_key(|e| e.start_offset);
        if covering.is_none_or(|e| e.epoch != epoch) {
            out.push(
                path,
                None,
                None,
                Some(offset),
                Kind::LeaderEpochMismatch,
                match covering {
                    Some(e) => format!(
                        "batches from offset {offset} carry leader epoch {epoch}, but the checkpoint says epoch {} (from offset {})",
                        e.epoch, e.start_offset
                    ),
                    None => format!("batches from offset {offset} carry leader epoch {epoch}, which the checkpoint does not cover"),
                },
            );
        }
    }
}

fn producer_snapshot(path: &Path, offset: i64, log_end: i64, opts: &Options, out: &mut Findings) {
    let s = match crate::snapshot::read(path, &opts.limits) {
        Ok(s) => s,
        Err(e) => {
            out.error(path, &e, Kind::ProducerSnapshotCorrupt);
            return;
        }
    };
    if !s.crc_valid() {
        out.push(
            path,
            Some(crate::spec::snapshot::CRC_OFFSET as u64),
            None,
            Some(offset),
            Kind::ProducerSnapshotCorrupt,
            format!("stored CRC-32C {} but the file gives {}", s.crc, s.computed_crc),
        );
    }
    if offset > log_end {
        out.push(
            path,
            None,
            None,
            Some(offset),
            Kind::ProducerSnapshotBeyondLogEnd,
            format!("a snapshot at offset {offset}, past the log end {log_end}"),
        );
    }
    if let Some(e) = s.entries.iter().find(|e| e.last_offset >= offset) {
        out.push(
            path,
            None,
            None,
            Some(e.last_offset),
            Kind::ProducerSnapshotBeyondLogEnd,
            format!(
                "producer {} has last offset {} in a snapshot taken at offset {offset}",
                e.producer_id, e.last_offset
            ),
        );
    }
}

/// A KRaft snapshot: the batches must be readable and valid.
fn kraft_snapshot(path: &Path, opts: &Options, out: &mut Findings, stats: &mut Stats, progress: &dyn Fn(u64)) {
    let mut r = match LogReader::open(path, opts.limits) {
        Ok(r) => r,
        Err(e) => {
            out.error(path, &e, Kind::IoError);
            return;
        }
    };
    let size = r.end();
    let mut scratch = Vec::new();
    loop {
        match r.next_item() {
            Err(e) => {
                out.error(path, &e, Kind::IoError);
                break;
            }
            Ok(None) => break,
            Ok(Some(Item::Damage(d))) => {
                out.push(path, Some(d.start), Some(d.end), None, Kind::Corrupt, d.error.message());
            }
            Ok(Some(Item::Entry(crate::log::Entry::V2(b)))) => {
                stats.batches = stats.batches.saturating_add(1);
                let h = *b.header();
                if !b.is_valid() {
                    out.push(
                        path,
                        Some(b.position()),
                        None,
                        Some(h.base_offset),
                        Kind::CrcMismatch,
                        "KRaft snapshot batch with a bad CRC-32C".into(),
                    );
                }
                match b.records(&mut scratch, &opts.limits) {
                    Ok(recs) => {
                        for rec in recs {
                            stats.records = stats.records.saturating_add(1);
                            if let Err(e) = rec {
                                out.push(
                                    path,
                                    Some(b.position()),
                                    None,
                                    Some(h.base_offset),
                                    Kind::RecordInvalid,
                                    e.message(),
                                );
                            }
                        }
                    }
                    Err(e) => {
                        out.push(path, Some(b.position()), None, Some(h.base_offset), Kind::RecordInvalid, e.message())
                    }
                }
            }
            Ok(Some(Item::Entry(e))) => {
                out.push(
                    path,
                    Some(e.position()),
                    None,
                    None,
                    Kind::Corrupt,
                    "a legacy message in a KRaft snapshot".into(),
                );
            }
        }
    }
    stats.bytes = stats.bytes.saturating_add(size);
    progress(size);
}

/// Check a single file: a segment file is checked with its sibling segment
/// files (an index cannot be judged without its log); other files alone.
pub fn check_file(path: &Path, opts: &Options, progress: &dyn Fn(u64)) -> Report {
    let mut out = Findings::new(opts.max_per_kind);
    let mut stats = Stats::default();
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let fname = naming::classify(&name);
    let dir = path.parent().unwrap_or(Path::new("."));
    match (fname.kind, fname.offset, fname.suffix) {
        (FileKind::Log | FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex, Some(base), None) => {
            let sib = |sfx: &str| {
                let p = dir.join(naming::segment_file_name(base, sfx));
                p.exists().then_some(p)
            };
            let Some(log) = sib(n::LOG_FILE_SUFFIX) else {
                out.push(path, None, None, Some(base), Kind::OrphanIndex, "no .log for this index".into());
                return Report { findings: out.finish(), stats };
            };
            // the next segment, if the directory has one
            let next_base = logdir::partition_files(dir).ok().and_then(|files| {
                files
                    .iter()
                    .filter_map(|f| f.file_name().map(|s| naming::classify(&s.to_string_lossy())))
                    .filter(|f| f.kind == FileKind::Log && f.suffix.is_none())
                    .filter_map(|f| f.offset)
                    .find(|&o| o > base)
            });
            let seg = SegmentFiles {
                base,
                log,
                index: sib(n::INDEX_FILE_SUFFIX),
                time_index: sib(n::TIME_INDEX_FILE_SUFFIX),
                txn_index: sib(n::TXN_INDEX_FILE_SUFFIX),
                is_last: next_base.is_none(),
                next_base,
            };
            let mut st = PartitionState::default();
            SegmentChecker::new(&seg, &mut st, &mut out, &mut stats, opts).run(progress);
        }
        (FileKind::ProducerSnapshot, Some(offset), None) => producer_snapshot(path, offset, i64::MAX, opts, &mut out),
        (FileKind::KraftSnapshot, _, None) => kraft_snapshot(path, opts, &mut out, &mut stats, progress),
        (FileKind::LeaderEpochCheckpoint, _, _) => {
            let pf = PartitionFiles { leader_epochs: Some(path.to_path_buf()), ..PartitionFiles::default() };
            leader_epochs(dir, &pf, &PartitionState::default(), i64::MAX, opts, &mut out);
        }
        (FileKind::PartitionMetadata, _, _) => {
            if let Err(e) = crate::properties::read_partition_metadata(path, &opts.limits) {
                out.error(path, &e, Kind::PartitionMetadataInvalid);
            }
        }
        (k, _, _) if k.is_offset_checkpoint() => {
            if let Err(e) = checkpoint::read_offsets(path, &opts.limits) {
                out.error(path, &e, Kind::CheckpointMalformed);
            }
        }
        (FileKind::MetaProperties, _, _) => {
            // the log dir check covers meta.properties; keep its findings only
            let (_, mut r) = check_log_dir(dir, opts);
            r.findings.retain(|f| f.file == path);
            return r;
        }
        (_, _, Some(_)) => {
            sort_files(vec![path.to_path_buf()], &mut out);
        }
        _ => out.push(path, None, None, None, Kind::Note, "not a file logtool verifies".into()),
    }
    Report { findings: out.finish(), stats }
}

/// The table of finding kinds in `docs/findings.md`.
pub fn kinds_markdown() -> String {
    let mut out = String::from("| kind | severity | meaning |\n|---|---|---|\n");
    for k in Kind::ALL {
        out.push_str(&format!("| `{}` | {} | {} |\n", k.name(), k.severity().name(), k.description()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/findings.md lists exactly the kinds the code has. Run with
    /// `LOGTOOL_BLESS=1` to rewrite the table after changing them.
    #[test]
    fn findings_doc_is_current() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/findings.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let (head, rest) = doc.split_once("| kind | severity | meaning |").unwrap();
        let tail = rest.split_once("\n\n").map_or("", |(_, t)| t);
        let want = format!("{head}{}\n{tail}", kinds_markdown());
        if std::env::var_os("LOGTOOL_BLESS").is_some() {
            std::fs::write(&path, want).unwrap();
        } else {
            assert!(doc == want, "docs/findings.md is stale: run LOGTOOL_BLESS=1 cargo test -p logfmt findings_doc");
        }
    }

    #[test]
    fn kind_names_are_unique_snake_case() {
        let mut names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        assert!(names.iter().all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Kind::ALL.len());
    }
}
