//! `reindex`: rebuild `.index`, `.timeindex` and `.txnindex` files exactly as
//! Kafka's recovery writes them (see [`logrules::recovery`]), without touching
//! the `.log`. A segment with bytes Kafka would reject gets indexes for its
//! valid part and a warning: cutting the log is `recover`'s job.

use std::path::{Path, PathBuf};

use super::recover::{Interval, index_interval};
use super::{Changes, Note, write_if_changed};
use logfmt::error::Result;
use logfmt::limits::Limits;
use logfmt::logdir::{self, LogDirEntry, Target};
use logfmt::metadata::{self, ClusterMetadata};
use logfmt::naming::{self, FileKind};
use logfmt::partition::{LogDirCheckpoints, Partition};
use logfmt::spec::names as n;
use logrules::producer::ProducerState;
use logrules::recovery::{Stop, recover_segment};

/// What reindexing one partition did.
#[derive(Clone, Debug, Default)]
pub struct PartitionReindex {
    /// The partition directory.
    pub dir: PathBuf,
    /// Segments rebuilt.
    pub segments: usize,
    /// Index files whose content changes.
    pub files_changed: usize,
    /// The index interval used and where it came from.
    pub interval: (u64, String),
}

/// Where a log dir's topic configs are read from, besides the log dir.
#[derive(Clone, Copy, Debug, Default)]
pub struct MetadataFrom<'a> {
    /// Where the KRaft metadata log is, when not in the log dir.
    pub metadata_dir: Option<&'a Path>,
    /// A ZooKeeper-mode cluster's metadata (its data dir read), used where
    /// no metadata log is found.
    pub zookeeper: Option<&'a ClusterMetadata>,
}

impl MetadataFrom<'_> {
    /// The metadata of `log_dir`: its metadata log (or `metadata_dir`'s),
    /// else ZooKeeper's.
    pub fn read(&self, log_dir: &Path, limits: &Limits) -> Option<ClusterMetadata> {
        metadata::read_metadata_at(self.metadata_dir.unwrap_or(log_dir), limits)
            .ok()
            .flatten()
            .or_else(|| self.zookeeper.cloned())
    }
}

/// Plan rebuilding the indexes of `path`: a segment file, a partition dir or a
/// log dir, with topic configs from `from`.
pub fn reindex(
    path: &Path,
    interval: &Interval,
    from: MetadataFrom<'_>,
    limits: &Limits,
    progress: &super::Progress,
    changes: &mut dyn Changes,
) -> Result<Vec<PartitionReindex>> {
    let (log_dir, partitions, only): (PathBuf, Vec<PathBuf>, Option<i64>) = match logdir::resolve(path)? {
        Target::LogDir(d) => {
            let parts = logdir::log_dir_entries(&d)?
                .into_iter()
                .filter_map(|e| if let LogDirEntry::Partition(p) = e { Some(p) } else { None })
                .collect();
            (d, parts, None)
        }
        Target::PartitionDir(p) => (p.parent().map(Path::to_path_buf).unwrap_or_default(), vec![p], None),
        Target::File(f) => {
            let name = naming::classify(&f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
            let dir = f.parent().map(Path::to_path_buf).unwrap_or_default();
            match (name.kind, name.offset) {
                (FileKind::Log | FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex, Some(base)) => {
                    (dir.parent().map(Path::to_path_buf).unwrap_or_default(), vec![dir], Some(base))
                }
                _ => {
                    return Err(logfmt::Error::refused(format!(
                        "{} is not a segment: give a log dir, a partition dir or a .log segment (reindex rebuilds its indexes)",
                        f.display()
                    )));
                }
            }
        }
    };
    let meta = from.read(&log_dir, limits);
    let node = metadata::node_id(&log_dir, limits);
    let checkpoints = LogDirCheckpoints::read(&log_dir, limits);
    let mut out = Vec::new();
    for dir in partitions {
        let p = Partition::open_with(&dir, &checkpoints)?;
        let iv = index_interval(interval, meta.as_ref(), node.as_deref(), &p.name.topic);
        let mut r = PartitionReindex { dir: dir.clone(), interval: iv.clone(), ..PartitionReindex::default() };
        let mut txn = None;
        let mut latest_epoch = None;
        for seg in &p.segments {
            progress.done(seg.size);
            if only.is_some_and(|b| b != seg.base) {
                continue;
            }
            let mut state = match txn.take() {
                Some(t) => t,
                None => ProducerState::at(&p, seg.base, limits)?,
            };
            let rebuilt = recover_segment(seg, iv.0, &mut state, latest_epoch, limits)?;
            txn = Some(state);
            latest_epoch = rebuilt.epochs.last().map(|e| e.0).or(latest_epoch);
            r.segments = r.segments.saturating_add(1);
            match &rebuilt.stop {
                Some(Stop::OverLimit { position, size, .. }) => {
                    let need = (*size).max(logfmt::log::largest_entry(&seg.log, *position)?);
                    return Err(logfmt::Error::refused(format!(
                        "{}: the batch at byte {position} is {size} bytes, more than --max-batch-size allows; rerun with --max-batch-size {need} (the largest batch from there on in this segment; nothing was changed)",
                        seg.log.display()
                    )));
                }
                Some(Stop::Invalid { position, .. }) => {
                    changes.note(Note::Warning {
                        path: seg.log.clone(),
                        message: format!(
                            "Kafka would reject the log from byte {position}: the indexes cover the part before it; run `logtool recover` to cut it"
                        ),
                    });
                }
                None => {}
            }
            let why = format!("rebuilt as Kafka does (index.interval.bytes {})", iv.0);
            for (sfx, content) in
                [(n::INDEX_FILE_SUFFIX, &rebuilt.offset_index), (n::TIME_INDEX_FILE_SUFFIX, &rebuilt.time_index)]
            {
                if write_if_changed(changes, &seg.sibling(sfx), content, &why)? {
                    r.files_changed = r.files_changed.saturating_add(1);
                }
            }
            let txn_path = seg.sibling(n::TXN_INDEX_FILE_SUFFIX);
            if (!rebuilt.txn_index.is_empty() || txn_path.exists())
                && write_if_changed(changes, &txn_path, &rebuilt.txn_index_bytes(), &why)?
            {
                r.files_changed = r.files_changed.saturating_add(1);
            }
        }
        out.push(r);
    }
    Ok(out)
}
