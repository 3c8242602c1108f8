//! A partition, as every command sees it: its directory sorted out (segments
//! with their index files, producer and KRaft snapshots, the leader-epoch
//! checkpoint, `partition.metadata`, leftovers) together with what its log
//! dir's offset checkpoints say about it.
//!
//! This is the layer between the file formats and Kafka's rules
//! ([`crate::rules`]): it only lists and reads. Pairing a partition dir with
//! its log dir's checkpoints is [`Partition::open`] (or
//! [`Partition::open_with`] when a caller reads one log dir's checkpoints
//! once for many partitions).
//!
//! Invariants: `segments` are the live `.log` files (no temporary suffix),
//! sorted by base offset, each knowing the next one's base (the bound its
//! batches must stay below); files are listed, never opened, except the
//! checkpoints.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::checkpoint::{self, EpochEntry};
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::log::{Entry, Item, LogReader};
use crate::logdir;
use crate::metadata::{self, ClusterMetadata};
use crate::naming::{self, FileKind, FileName, PartitionDir};
use crate::sanity::Bounds;
use crate::spec::names as n;

/// What a log dir's offset checkpoints say about one partition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checkpoints {
    /// From `replication-offset-checkpoint`.
    pub high_watermark: Option<i64>,
    /// From `recovery-point-offset-checkpoint`.
    pub recovery_point: Option<i64>,
    /// From `log-start-offset-checkpoint`.
    pub log_start_offset: Option<i64>,
    /// From `cleaner-offset-checkpoint` (present: the cleaner has compacted it).
    pub cleaner_offset: Option<i64>,
}

/// A log dir's four offset checkpoints, by partition.
#[derive(Debug, Default)]
pub struct LogDirCheckpoints {
    by_partition: HashMap<(String, i32), Checkpoints>,
    /// Checkpoint files that could not be read (Kafka takes the log dir
    /// offline on these).
    pub unreadable: Vec<(PathBuf, Error)>,
}

/// Sets one field of [`Checkpoints`].
type Setter = fn(&mut Checkpoints, i64);

/// The checkpoint files of a log dir, with the field each one sets.
const OFFSET_CHECKPOINTS: [(&str, Setter); 4] = [
    (n::REPLICATION_OFFSET_CHECKPOINT, |c, v| c.high_watermark = Some(v)),
    (n::RECOVERY_POINT_OFFSET_CHECKPOINT, |c, v| c.recovery_point = Some(v)),
    (n::LOG_START_OFFSET_CHECKPOINT, |c, v| c.log_start_offset = Some(v)),
    (n::CLEANER_OFFSET_CHECKPOINT, |c, v| c.cleaner_offset = Some(v)),
];

impl LogDirCheckpoints {
    /// Read the offset checkpoints of `log_dir` (missing files are empty).
    pub fn read(log_dir: &Path, limits: &Limits) -> LogDirCheckpoints {
        let mut out = LogDirCheckpoints::default();
        for (name, set) in OFFSET_CHECKPOINTS {
            let path = log_dir.join(name);
            if !path.exists() {
                continue;
            }
            match checkpoint::read_offsets(&path, limits) {
                Ok(c) => {
                    for (_, e) in c.entries {
                        set(out.by_partition.entry((e.topic, e.partition)).or_default(), e.offset);
                    }
                }
                Err(e) => out.unreadable.push((path, e)),
            }
        }
        out
    }

    /// What they say about `topic`-`partition`.
    pub fn get(&self, topic: &str, partition: i32) -> Checkpoints {
        self.by_partition.get(&(topic.to_string(), partition)).copied().unwrap_or_default()
    }

    /// Every partition named in them.
    pub fn partitions(&self) -> impl Iterator<Item = &(String, i32)> {
        self.by_partition.keys()
    }
}

/// A log dir's own state, read once for all its partitions: its offset
/// checkpoints and, when it holds the KRaft metadata log, the topic configs.
#[derive(Debug, Default)]
pub struct LogDir {
    /// The log dir.
    pub path: PathBuf,
    /// Its four offset checkpoints.
    pub checkpoints: LogDirCheckpoints,
    /// The replayed metadata log (`__cluster_metadata-0`), if it holds one.
    pub metadata: Option<ClusterMetadata>,
    /// The node that runs on it ([`metadata::node_id_with`]).
    pub node_id: Option<String>,
    /// `meta.properties`' `version` ("0": a ZooKeeper-era broker's, "1":
    /// KRaft's), when it reads.
    pub meta_version: Option<String>,
    /// It holds a partition dir of a topic (not only the metadata log).
    pub data_partitions: bool,
    /// The transactional ids whose marker the transaction coordinator of
    /// this log dir writes to a partition after a start
    /// (`rules::start::markers_on_start`), when a caller filled it in.
    pub markers_on_start: std::collections::HashMap<(String, i32), Vec<String>>,
}

impl LogDir {
    /// Read what `path` (a log dir) says about its partitions.
    pub fn read(path: &Path, limits: &Limits) -> LogDir {
        let metadata = metadata::read_log_dir_metadata(path, limits).ok().flatten();
        let meta_version =
            crate::properties::read_meta_properties(&path.join(crate::spec::names::META_PROPERTIES), limits)
                .ok()
                .and_then(|p| p.into_iter().find(|(k, _)| k == "version").map(|(_, v)| v.trim().to_string()));
        LogDir {
            path: path.to_path_buf(),
            checkpoints: LogDirCheckpoints::read(path, limits),
            node_id: metadata::node_id_with(path, metadata.as_ref(), limits),
            metadata,
            meta_version,
            data_partitions: holds_data_partitions(path),
            markers_on_start: Default::default(),
        }
    }

    /// The same, with the topic configs, ids and assignments of ZooKeeper
    /// (`zookeeper`, its data dir read: [`crate::zookeeper`]) where the dir
    /// holds no metadata log (a ZooKeeper-mode broker's dir); the metadata
    /// log, where it holds one, stays what it reads.
    pub fn read_with(path: &Path, limits: &Limits, zookeeper: Option<&ClusterMetadata>) -> LogDir {
        let mut ld = LogDir::read(path, limits);
        if ld.metadata.is_none() {
            ld.metadata = zookeeper.cloned();
        }
        ld
    }

    /// The `cleanup.policy` of `topic`: from the metadata log, else, for
    /// Kafka's compacted internal topics, `compact` (set when Kafka creates
    /// them); None when nothing here says.
    pub fn cleanup_policy(&self, topic: &str) -> Option<String> {
        self.topic_config(topic, metadata::CLEANUP_POLICY)
            .map(|(v, _)| v)
            .or_else(|| COMPACTED_INTERNAL_TOPICS.contains(&topic).then(|| "compact".to_string()))
    }

    /// A config of `topic` from the metadata log, when it is here.
    pub fn topic_config(&self, topic: &str, key: metadata::ConfigKey) -> Option<(String, metadata::ConfigSource)> {
        self.metadata.as_ref().map(|m| m.topic_config(topic, key, self.node_id.as_deref()))
    }

    /// Open partition dir `dir` of this log dir: with its checkpoints and
    /// its topic's `remote.storage.enable` from the metadata log.
    pub fn open_partition(&self, dir: &Path) -> Result<Partition> {
        let mut p = Partition::open_with(dir, &self.checkpoints)?;
        p.remote_storage_enable = remote_storage_enable(self.metadata.as_ref(), &p.name.topic, self.node_id.as_deref());
        Ok(p)
    }
}

/// A topic's `remote.storage.enable` as the metadata log `meta` gives it
/// ([`Partition::remote_storage_enable`]; `None` without one).
pub fn remote_storage_enable(meta: Option<&ClusterMetadata>, topic: &str, node_id: Option<&str>) -> Option<bool> {
    meta.map(|m| m.topic_config(topic, metadata::REMOTE_STORAGE_ENABLE, node_id).0.trim().eq_ignore_ascii_case("true"))
}

impl LogDir {}

/// Whether log dir `dir` holds a partition dir of a topic other than the
/// metadata log (it stops at the first).
fn holds_data_partitions(dir: &Path) -> bool {
    let Ok(rd) = std::fs::read_dir(dir) else { return false };
    rd.flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        crate::naming::parse_partition_dir(&name)
            .is_some_and(|pd| pd.topic != crate::spec::names::CLUSTER_METADATA_TOPIC)
            && e.file_type().is_ok_and(|t| t.is_dir())
    })
}

/// Kafka's compacted internal topics (their `cleanup.policy` is set when
/// they are created).
pub const COMPACTED_INTERNAL_TOPICS: [&str; 3] = ["__consumer_offsets", "__transaction_state", "__share_group_state"];

/// One live segment.
#[derive(Clone, Debug)]
pub struct Segment {
    /// Base offset (from the file name).
    pub base: i64,
    /// The `.log`.
    pub log: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// The `.index`, if it exists.
    pub index: Option<PathBuf>,
    /// The `.timeindex`, if it exists.
    pub time_index: Option<PathBuf>,
    /// The `.txnindex`, if it exists.
    pub txn_index: Option<PathBuf>,
    /// The next segment's base offset (`None` for the active segment).
    pub next_base: Option<i64>,
}

impl Segment {
    /// The `.log`'s modification time in epoch ms (-1 if unknown): what Kafka
    /// uses as a segment's largest timestamp when its batches have none.
    pub fn modified_ms(&self) -> i64 {
        std::fs::metadata(&self.log)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(-1, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }

    /// The sibling file with `suffix` (whether or not it exists).
    pub fn sibling(&self, suffix: &str) -> PathBuf {
        self.log.with_file_name(naming::segment_file_name(self.base, suffix))
    }

    /// The existing files of the segment.
    pub fn files(&self) -> Vec<PathBuf> {
        [n::LOG_FILE_SUFFIX, n::INDEX_FILE_SUFFIX, n::TIME_INDEX_FILE_SUFFIX, n::TXN_INDEX_FILE_SUFFIX]
            .iter()
            .map(|s| self.sibling(s))
            .filter(|p| p.exists())
            .collect()
    }

    /// Whether it is the active (last) segment.
    pub fn is_active(&self) -> bool {
        self.next_base.is_none()
    }

    /// The offsets its batches must lie in.
    pub fn bounds(&self) -> Bounds {
        Bounds { base_offset: Some(self.base), next_base_offset: self.next_base }
    }

    /// A reader of its `.log` that checks its batches against its bounds.
    pub fn reader(&self, limits: &Limits) -> Result<LogReader> {
        let mut r = LogReader::open(&self.log, *limits)?;
        r.set_bounds(self.bounds());
        Ok(r)
    }
}

/// A partition directory, sorted out.
#[derive(Clone, Debug)]
pub struct Partition {
    /// The directory.
    pub dir: PathBuf,
    /// Topic and partition (from the directory name; an unparsable name is
    /// taken as the topic, partition 0).
    pub name: PartitionDir,
    /// The log dir holding it (its parent).
    pub log_dir: PathBuf,
    /// Live segments by base offset.
    pub segments: Vec<Segment>,
    /// Index files without a `.log`, by base offset.
    pub orphan_indexes: Vec<(i64, PathBuf)>,
    /// Files with a temporary suffix (`.deleted`, `.cleaned`, `.swap`,
    /// `.part`) or left over by an interrupted write (`.tmp`).
    pub leftovers: Vec<(PathBuf, FileName)>,
    /// `.log` and index files whose name does not start with an offset:
    /// Kafka's log loading fails on them (`LogLoader.loadSegmentFiles`:
    /// `offsetFromFileName` is `Long.parseLong` of the name up to its first
    /// `.`).
    pub unloadable: Vec<PathBuf>,
    /// Producer snapshots by offset.
    pub snapshots: Vec<(i64, PathBuf)>,
    /// KRaft snapshots (`.checkpoint`, metadata log only).
    pub kraft_snapshots: Vec<PathBuf>,
    /// `leader-epoch-checkpoint`, if present.
    pub leader_epoch_checkpoint: Option<PathBuf>,
    /// `partition.metadata`, if present.
    pub partition_metadata: Option<PathBuf>,
    /// What the log dir's checkpoints say about it.
    pub checkpoints: Checkpoints,
    /// Its topic's `remote.storage.enable` (tiered storage) as its log
    /// dir's metadata log has it ([`LogDir::open_partition`]); `None` when
    /// not read or no metadata log is there. Whether Kafka loads it with
    /// remote storage is `rules::log::remote_log_enabled`.
    pub remote_storage_enable: Option<bool>,
}

impl Partition {
    /// Read a partition directory and its log dir's checkpoints for it.
    pub fn open(dir: &Path, limits: &Limits) -> Result<Partition> {
        let log_dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
        Partition::open_with(dir, &LogDirCheckpoints::read(&log_dir, limits))
    }

    /// Read a partition directory, with its log dir's checkpoints already read.
    pub fn open_with(dir: &Path, checkpoints: &LogDirCheckpoints) -> Result<Partition> {
        let dname = dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let name = naming::parse_partition_dir(&dname).unwrap_or(PartitionDir {
            topic: dname.clone(),
            partition: 0,
            state: naming::DirState::Live,
        });
        // the log dir's checkpoint lines for a topic-partition are its live
        // replica's or its future replica's (`LogManager.logsInDir`), never
        // a `-delete` dir's: Kafka deletes that one without recovering it
        let checkpoints = match name.state {
            naming::DirState::Delete(_) => Checkpoints::default(),
            _ => checkpoints.get(&name.topic, name.partition),
        };
        let mut p = Partition {
            dir: dir.to_path_buf(),
            checkpoints,
            name,
            log_dir: dir.parent().map(Path::to_path_buf).unwrap_or_default(),
            segments: Vec::new(),
            orphan_indexes: Vec::new(),
            leftovers: Vec::new(),
            unloadable: Vec::new(),
            snapshots: Vec::new(),
            kraft_snapshots: Vec::new(),
            leader_epoch_checkpoint: None,
            partition_metadata: None,
            remote_storage_enable: None,
        };
        // base offset -> [.log, .index, .timeindex, .txnindex]
        let mut by_base: BTreeMap<i64, [Option<PathBuf>; 4]> = BTreeMap::new();
        for f in logdir::partition_files(dir)? {
            let fname = f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let name = naming::classify(&fname);
            if name.suffix.is_some() || fname.ends_with(n::TMP_FILE_SUFFIX) {
                p.leftovers.push((f, name));
                continue;
            }
            let slot = match name.kind {
                FileKind::Log => Some(0),
                FileKind::OffsetIndex => Some(1),
                FileKind::TimeIndex => Some(2),
                FileKind::TxnIndex => Some(3),
                _ => None,
            };
            match (slot, name.offset) {
                (Some(i), Some(base)) => {
                    if let Some(s) = by_base.entry(base).or_default().get_mut(i) {
                        *s = Some(f);
                    }
                }
                _ if unloadable(&fname) => p.unloadable.push(f),
                _ => match name.kind {
                    FileKind::ProducerSnapshot => p.snapshots.push((name.offset.unwrap_or(0), f)),
                    FileKind::KraftSnapshot => p.kraft_snapshots.push(f),
                    FileKind::LeaderEpochCheckpoint => p.leader_epoch_checkpoint = Some(f),
                    FileKind::PartitionMetadata => p.partition_metadata = Some(f),
                    _ => {}
                },
            }
        }
        for (base, [log, index, time_index, txn_index]) in by_base {
            match log {
                Some(log) => {
                    let size = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
                    p.segments.push(Segment { base, log, size, index, time_index, txn_index, next_base: None });
                }
                None => {
                    p.orphan_indexes.extend([index, time_index, txn_index].into_iter().flatten().map(|f| (base, f)))
                }
            }
        }
        let next: Vec<Option<i64>> = p.segments.iter().skip(1).map(|s| Some(s.base)).chain([None]).collect();
        for (s, next) in p.segments.iter_mut().zip(next) {
            s.next_base = next;
        }
        p.snapshots.sort_by_key(|s| s.0);
        Ok(p)
    }

    /// `leader-epoch-checkpoint`'s path (whether or not it exists).
    pub fn epochs_path(&self) -> PathBuf {
        self.dir.join(n::LEADER_EPOCH_CHECKPOINT)
    }

    /// The checkpointed leader epochs (empty when missing or unreadable).
    pub fn epochs(&self, limits: &Limits) -> Vec<EpochEntry> {
        checkpoint::read_epochs(&self.epochs_path(), limits)
            .map(|c| c.entries.into_iter().map(|(_, e)| e).collect())
            .unwrap_or_default()
    }

    /// Its topic id, from `partition.metadata` (`None`: none, or unreadable).
    pub fn topic_id(&self, limits: &Limits) -> Option<crate::uuid::Uuid> {
        let f = self.partition_metadata.as_ref()?;
        crate::properties::read_partition_metadata(f, limits).ok().map(|m| m.topic_id)
    }

    /// Is this the KRaft metadata log?
    pub fn is_metadata_log(&self) -> bool {
        self.name.topic == n::CLUSTER_METADATA_TOPIC
    }

    /// The active (last) segment.
    pub fn active(&self) -> Option<&Segment> {
        self.segments.last()
    }

    /// The first segment's base offset.
    pub fn first_base(&self) -> Option<i64> {
        self.segments.first().map(|s| s.base)
    }
}

/// A batch's summary, for what a cut loses.
#[derive(Clone, Copy, Debug)]
pub struct BatchInfo {
    /// Position in the file.
    pub position: u64,
    /// Size.
    pub size: u64,
    /// First offset.
    pub base_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// Records.
    pub records: u64,
    /// Leader epoch (-1 for legacy).
    pub epoch: i32,
    /// Earliest timestamp (-1 if none).
    pub first_timestamp: i64,
    /// Latest timestamp (-1 if none).
    pub max_timestamp: i64,
}

/// Call `f` for every trusted batch of `seg` up to the first damage.
pub fn scan(seg: &Segment, limits: &Limits, mut f: impl FnMut(&BatchInfo)) -> Result<()> {
    let mut r = seg.reader(limits)?;
    let mut scratch = Vec::new();
    while let Some(item) = r.next_item()? {
        let Item::Entry(e) = item else { break };
        f(&batch_info(&e, &mut scratch, limits));
    }
    Ok(())
}

/// Whether Kafka's log loading would fail on a file of this name: a `.log`,
/// `.index`, `.timeindex` or `.txnindex` (`UnifiedLog.isLogFile` /
/// `isIndexFile`: the name ends so) whose name up to its first `.` is not a
/// `long` (`LogFileUtils.offsetFromFileName`). A name that was not UTF-8
/// arrives here with U+FFFD in it, as Java decodes it, and fails too.
pub fn unloadable(name: &str) -> bool {
    let loaded = [n::LOG_FILE_SUFFIX, n::INDEX_FILE_SUFFIX, n::TIME_INDEX_FILE_SUFFIX, n::TXN_INDEX_FILE_SUFFIX];
    if !loaded.iter().any(|sfx| name.ends_with(sfx)) {
        return false;
    }
    let head = name.split('.').next().unwrap_or_default();
    // Long.parseLong: an optional sign, then decimal digits
    let digits = head.strip_prefix(['-', '+']).unwrap_or(head);
    digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || head.parse::<i64>().is_err()
}

/// The summary of an entry.
pub fn batch_info(e: &Entry<'_>, scratch: &mut Vec<u8>, limits: &Limits) -> BatchInfo {
    match e {
        Entry::V2(b) => {
            let h = b.header();
            let first_ts = if h.has_delete_horizon() { h.max_timestamp } else { h.base_timestamp.min(h.max_timestamp) };
            BatchInfo {
                position: b.position(),
                size: b.size(),
                base_offset: h.base_offset,
                last_offset: h.last_offset(),
                records: u64::try_from(h.records_count).unwrap_or(0),
                epoch: h.partition_leader_epoch,
                first_timestamp: first_ts,
                max_timestamp: h.max_timestamp,
            }
        }
        Entry::Legacy(m) => {
            let (base, count) =
                m.records(scratch, limits).map_or((m.offset, 1), |r| (r.base_offset(), u64::from(r.record_count())));
            BatchInfo {
                position: m.position(),
                size: m.size_in_bytes(),
                base_offset: base,
                last_offset: m.offset,
                records: count,
                epoch: -1,
                first_timestamp: m.timestamp,
                max_timestamp: m.timestamp,
            }
        }
    }
}

/// The partitions a path names, each with what its log dir says: the one
/// place a partition dir is paired with its log dir's checkpoints and
/// metadata. A log dir names its partition dirs (in walking order); a
/// partition dir names itself, its parent being its log dir.
#[derive(Debug)]
pub struct Targets {
    /// The log dir (a partition dir's parent).
    pub log_dir: std::sync::Arc<LogDir>,
    /// The path was a log dir (not one partition dir).
    pub is_log_dir: bool,
    /// The partition dirs (for a log dir, every directory named like a
    /// partition: live, `-delete` and `-future` ones).
    pub partitions: Vec<PathBuf>,
}

impl Targets {
    /// What `path` (a log dir or partition dir) names.
    pub fn of(path: &Path, limits: &Limits) -> Result<Targets> {
        Targets::of_with(path, limits, None)
    }

    /// The same, with a ZooKeeper-mode cluster's metadata where the log dir
    /// holds none ([`LogDir::read_with`]).
    pub fn of_with(path: &Path, limits: &Limits, zookeeper: Option<&ClusterMetadata>) -> Result<Targets> {
        use crate::logdir::{LogDirEntry, Target};
        match crate::logdir::resolve(path)? {
            Target::LogDir(d) => {
                let partitions = crate::logdir::log_dir_entries(&d)?
                    .into_iter()
                    .filter_map(|e| if let LogDirEntry::Partition(p) = e { Some(p) } else { None })
                    .collect();
                let ld = LogDir::read_with(&d, limits, zookeeper);
                Ok(Targets { log_dir: std::sync::Arc::new(ld), is_log_dir: true, partitions })
            }
            Target::PartitionDir(p) => {
                let ld = p.parent().map(|d| LogDir::read_with(d, limits, zookeeper)).unwrap_or_default();
                Ok(Targets { log_dir: std::sync::Arc::new(ld), is_log_dir: false, partitions: vec![p] })
            }
            Target::File(f) => Err(crate::Error::new(
                crate::error::ErrorKind::NotKafka("is a file: give a partition dir or a log dir".into()),
                None,
            )
            .with_path(&f)),
        }
    }

    /// Only the live partition dirs (not `-delete` or `-future` ones).
    pub fn live(mut self) -> Targets {
        self.partitions.retain(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(crate::naming::parse_partition_dir)
                .is_some_and(|pd| pd.state == crate::naming::DirState::Live)
        });
        self
    }

    /// The partition dirs a broker loads and serves (DescribeLogDirs lists):
    /// live ones and `-future` ones (a move between log dirs under way),
    /// not `-delete` or `-stray` ones.
    pub fn served(mut self) -> Targets {
        self.partitions.retain(|p| {
            p.file_name().and_then(|n| n.to_str()).and_then(crate::naming::parse_partition_dir).is_some_and(|pd| {
                matches!(pd.state, crate::naming::DirState::Live | crate::naming::DirState::Future(_))
            })
        });
        self
    }

    /// Open partition dir `dir` as its log dir has it
    /// ([`LogDir::open_partition`]).
    pub fn open(&self, dir: &Path) -> Result<Partition> {
        self.log_dir.open_partition(dir)
    }

    /// The log dir's path.
    pub fn log_dir_path(&self) -> &Path {
        &self.log_dir.path
    }
}

/// Every live partition of each log dir in `dirs`, with the log dir's own
/// state (one [`LogDir`] read per dir).
pub fn open_log_dirs(dirs: &[PathBuf], limits: &Limits) -> Result<Vec<(LogDir, Vec<Partition>)>> {
    let mut out = Vec::new();
    for d in dirs {
        let ld = LogDir::read(d, limits);
        let mut parts = Vec::new();
        for (_, path) in crate::logdir::live_partitions(d)? {
            parts.push(ld.open_partition(&path)?);
        }
        out.push((ld, parts));
    }
    Ok(out)
}
