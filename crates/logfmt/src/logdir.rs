//! Walking a log dir or a partition dir in a fixed, documented order.
//!
//! A path given by a user is a file, a partition directory or a whole log dir
//! (one entry of `log.dirs`). [`resolve`] tells which; [`log_dir_entries`]
//! and [`partition_files`] list what is inside in the order logtool reports
//! it, which follows the order Kafka loads things:
//!
//! * log dir: `meta.properties`, `bootstrap.checkpoint`,
//!   `.kafka_cleanshutdown`, the four offset checkpoints, any other file, then
//!   partition directories: `__cluster_metadata-0` first (the broker opens the
//!   metadata log before anything else), then by topic name and partition
//!   number, live before `-delete`/`-future`/`-stray`; directories that are not
//!   partitions last.
//! * partition dir: segments by base offset, each as `.log`, `.index`,
//!   `.timeindex`, `.txnindex` (files with `.deleted`/`.cleaned`/`.swap`
//!   suffixes right after the live files of the same base offset), then KRaft
//!   snapshots, then producer snapshots by offset, then
//!   `leader-epoch-checkpoint`, `partition.metadata`, `quorum-state`, then
//!   anything else by name.
//!
//! Only names are listed here; nothing is read.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::naming::{self, DirState, FileKind, FileName, TempSuffix};
use crate::spec::names as n;

/// What a path given by the user is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A single file.
    File(PathBuf),
    /// A partition directory.
    PartitionDir(PathBuf),
    /// A log dir.
    LogDir(PathBuf),
}

/// An entry of a log dir, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogDirEntry {
    /// A file at the top of the log dir.
    File(PathBuf),
    /// A partition directory.
    Partition(PathBuf),
    /// A directory that is not a partition (Kafka 3.9 refuses to start with one).
    Foreign(PathBuf),
    /// A directory Kafka keeps that is not a partition: tiered storage's
    /// `remote-log-index-cache` ([`n::REMOTE_LOG_INDEX_CACHE`]).
    KafkaDir(PathBuf),
}

fn read_dir_names(dir: &Path) -> Result<Vec<(String, bool)>> {
    Ok(read_dir_entries(dir)?.into_iter().map(|(name, _, is_dir)| (name, is_dir)).collect())
}

/// A dir's entries: the name as text (lossy: for classifying), the name as
/// it is (for paths: a name that is not UTF-8 must still open), and whether
/// it is a directory.
fn read_dir_entries(dir: &Path) -> Result<Vec<(String, std::ffi::OsString, bool)>> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(e, Some(dir)))?;
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(e, Some(dir)))?;
        let is_dir = entry.file_type().map_err(|e| Error::io(e, Some(&entry.path())))?.is_dir();
        let raw = entry.file_name();
        out.push((raw.to_string_lossy().into_owned(), raw, is_dir));
    }
    Ok(out)
}

/// Decide what `path` is.
pub fn resolve(path: &Path) -> Result<Target> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(e, Some(path)))?;
    if !meta.is_dir() {
        return Ok(Target::File(path.to_path_buf()));
    }
    let names = read_dir_names(path)?;
    if is_log_dir(path, &names) {
        return Ok(Target::LogDir(path.to_path_buf()));
    }
    let own_name = path.file_name().map(|s| s.to_string_lossy().into_owned());
    let looks_partition = own_name.as_deref().and_then(naming::parse_partition_dir).is_some()
        || names.iter().any(|(name, is_dir)| !is_dir && naming::classify(name).kind == FileKind::Log);
    if looks_partition {
        return Ok(Target::PartitionDir(path.to_path_buf()));
    }
    // a dir holding log dirs (a broker's data dir with several, or a copy's
    // parent): name them rather than say there is no Kafka data
    let mut inner: Vec<String> = names
        .iter()
        .filter(|(name, is_dir)| *is_dir && matches!(resolve_shallow(&path.join(name)), Some(true)))
        .map(|(name, _)| name.clone())
        .collect();
    inner.sort();
    if inner.is_empty() {
        if names.iter().any(|(name, is_dir)| !is_dir && naming::classify_remote(name).is_some_and(|r| !r.cache)) {
            // a remote store's partition dir (LocalTieredStorage's layout)
            let detail = "holds tiered storage files, a remote store's copies of segments (<offset>-<segment id>.log, \
                          ...), and no log data of a broker: give the files themselves (DIR/*)";
            return Err(Error::new(crate::error::ErrorKind::NotKafka(detail.into()), None).with_path(path));
        }
        return Err(not_kafka(path));
    }
    let shown: Vec<String> = inner.iter().take(5).map(|n| path.join(n).display().to_string()).collect();
    let more = if inner.len() > 5 { format!(" and {} more", inner.len().saturating_sub(5)) } else { String::new() };
    let detail = format!("is no log dir but holds {} log dir(s): give one: {}{more}", inner.len(), shown.join(", "));
    Err(Error::new(crate::error::ErrorKind::NotKafka(detail), None).with_path(path))
}

/// Whether `dir` is a log dir, by its own entries alone (`None`: unreadable).
fn resolve_shallow(dir: &Path) -> Option<bool> {
    Some(is_log_dir(dir, &read_dir_names(dir).ok()?))
}

/// Whether `dir`, holding `names`, is a log dir: a meta.properties or an
/// offset checkpoint, or a child named like a partition that holds a file
/// of one (`dbus-1` in /etc is named like one).
fn is_log_dir(dir: &Path, names: &[(String, bool)]) -> bool {
    names.iter().any(|(name, is_dir)| {
        (*is_dir && naming::parse_partition_dir(name).is_some() && holds_partition_files(&dir.join(name)))
            || (!is_dir && (name == n::META_PROPERTIES || naming::classify(name).kind.is_offset_checkpoint()))
    })
}

/// What paths given to a command that reads whole log dirs (`groups`,
/// `txns`: the coordinators' state is in the log dir) name: the log dirs,
/// and the partitions asked for when a path was a partition dir in one (a
/// command answers for those exactly as for its log dir).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogDirsOf {
    /// The log dirs, each once, in the order given.
    pub log_dirs: Vec<PathBuf>,
    /// The partitions named by partition-dir paths (`topic-N`); empty: all.
    pub partitions: Vec<String>,
}

/// [`LogDirsOf`] for `paths`: a log dir is itself; a partition dir names its
/// log dir and itself; a file, a partition dir outside a log dir and a
/// directory without Kafka data are errors (`wants` says what the command
/// reads there, for the message).
pub fn log_dirs_of(paths: &[PathBuf], wants: &str) -> Result<LogDirsOf> {
    let mut out = LogDirsOf::default();
    for p in paths {
        let dir = match resolve(p)? {
            Target::LogDir(d) => d,
            Target::PartitionDir(d) => {
                let abs = std::fs::canonicalize(&d).map_err(|e| Error::io(e, Some(&d)))?;
                let parent = abs.parent().map(Path::to_path_buf).unwrap_or_default();
                let name = abs.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                if !matches!(resolve(&parent), Ok(Target::LogDir(_))) {
                    return Err(Error::refused(format!(
                        "{}: a partition dir outside a log dir; give the log dir: {wants}",
                        d.display()
                    )));
                }
                out.partitions.push(name);
                parent
            }
            Target::File(f) => {
                return Err(Error::refused(format!(
                    "{}: a file; give a log dir (or a partition dir in one): {wants}",
                    f.display()
                )));
            }
        };
        let same = |a: &Path| std::fs::canonicalize(a).ok() == std::fs::canonicalize(&dir).ok();
        if !out.log_dirs.iter().any(|d| same(d)) {
            out.log_dirs.push(dir);
        }
    }
    Ok(out)
}

/// Whether `dir` can be a partition dir by what it holds: a file only a
/// partition dir holds (a segment or an index, `partition.metadata`,
/// `leader-epoch-checkpoint`, a producer snapshot, the metadata log's
/// files), or nothing at all (a partition whose files were never written
/// or were removed); not a dir of other files (`/etc/dbus-1`).
fn holds_partition_files(dir: &Path) -> bool {
    let Ok(rd) = std::fs::read_dir(dir) else { return false };
    let mut rd = rd.flatten().take(64).peekable();
    if rd.peek().is_none() {
        return true;
    }
    rd.any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        matches!(
            naming::classify(&name).kind,
            FileKind::Log
                | FileKind::OffsetIndex
                | FileKind::TimeIndex
                | FileKind::TxnIndex
                | FileKind::ProducerSnapshot
                | FileKind::LeaderEpochCheckpoint
                | FileKind::PartitionMetadata
                | FileKind::QuorumState
                | FileKind::KraftSnapshot
        )
    })
}

/// The error for a directory that holds no Kafka log data.
fn not_kafka(path: &Path) -> Error {
    let detail = "holds no Kafka log data (no partition dir such as topic-0, no meta.properties or \
                  offset checkpoint, no .log segment): give a log dir, a partition dir or a segment";
    Error::new(crate::error::ErrorKind::NotKafka(detail.into()), None).with_path(path)
}

fn top_file_rank(name: &str) -> u8 {
    match name {
        n::META_PROPERTIES => 0,
        n::BOOTSTRAP_CHECKPOINT => 1,
        n::CLEAN_SHUTDOWN => 2,
        n::RECOVERY_POINT_OFFSET_CHECKPOINT => 3,
        n::REPLICATION_OFFSET_CHECKPOINT => 4,
        n::LOG_START_OFFSET_CHECKPOINT => 5,
        n::CLEANER_OFFSET_CHECKPOINT => 6,
        _ => 7,
    }
}

/// The entries of a log dir, in order (see the module docs).
pub fn log_dir_entries(dir: &Path) -> Result<Vec<LogDirEntry>> {
    let names = read_dir_names(dir)?;
    let mut files: Vec<&String> = names.iter().filter(|(_, d)| !d).map(|(n, _)| n).collect();
    files.sort_by(|a, b| top_file_rank(a).cmp(&top_file_rank(b)).then_with(|| a.cmp(b)));
    let mut parts = Vec::new();
    let mut foreign = Vec::new();
    let mut kafka = Vec::new();
    for (name, _) in names.iter().filter(|(_, d)| *d) {
        match naming::parse_partition_dir(name) {
            Some(p) => parts.push((p, name)),
            None if name == n::REMOTE_LOG_INDEX_CACHE => kafka.push(name),
            None => foreign.push(name),
        }
    }
    let state_rank = |s: &DirState| match s {
        DirState::Live => 0,
        DirState::Future(_) => 1,
        DirState::Delete(_) => 2,
        DirState::Stray(_) => 3,
    };
    parts.sort_by(|(a, an), (b, bn)| {
        let meta = |p: &naming::PartitionDir| p.topic != n::CLUSTER_METADATA_TOPIC;
        meta(a)
            .cmp(&meta(b))
            .then_with(|| a.topic.cmp(&b.topic))
            .then_with(|| a.partition.cmp(&b.partition))
            .then_with(|| state_rank(&a.state).cmp(&state_rank(&b.state)))
            .then_with(|| an.cmp(bn))
    });
    foreign.sort();
    let mut out: Vec<LogDirEntry> = files.into_iter().map(|f| LogDirEntry::File(dir.join(f))).collect();
    out.extend(parts.into_iter().map(|(_, name)| LogDirEntry::Partition(dir.join(name))));
    out.extend(kafka.into_iter().map(|name| LogDirEntry::KafkaDir(dir.join(name))));
    out.extend(foreign.into_iter().map(|name| LogDirEntry::Foreign(dir.join(name))));
    Ok(out)
}

fn kind_rank(k: FileKind) -> u8 {
    match k {
        FileKind::Log => 0,
        FileKind::OffsetIndex => 1,
        FileKind::TimeIndex => 2,
        FileKind::TxnIndex => 3,
        _ => 4,
    }
}

/// (group, offset, epoch, kind, suffix) sort key of a partition dir file.
fn partition_key(f: &FileName, name: &str) -> (u8, i64, i32, u8, u8) {
    let suffix = match f.suffix {
        None => 0,
        Some(TempSuffix::Deleted) => 1,
        Some(TempSuffix::Cleaned) => 2,
        Some(TempSuffix::Swap) => 3,
        Some(TempSuffix::Partial) => 4,
    };
    let off = f.offset.unwrap_or(0);
    match f.kind {
        FileKind::Log | FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex => {
            (0, off, 0, kind_rank(f.kind), suffix)
        }
        FileKind::KraftSnapshot => (1, off, f.epoch.unwrap_or(0), 0, suffix),
        FileKind::ProducerSnapshot => (2, off, 0, 0, suffix),
        FileKind::LeaderEpochCheckpoint => (3, 0, 0, 0, 0),
        FileKind::PartitionMetadata => (3, 0, 0, 1, 0),
        FileKind::QuorumState => (3, 0, 0, 2, 0),
        _ => (4, 0, 0, u8::from(name.starts_with('.')), 0),
    }
}

/// The files of a partition directory, in order (see the module docs).
/// Subdirectories are ignored.
pub fn partition_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let names = read_dir_entries(dir)?;
    let mut files: Vec<(FileName, String, std::ffi::OsString)> =
        names.into_iter().filter(|(.., d)| !d).map(|(name, raw, _)| (naming::classify(&name), name, raw)).collect();
    files.sort_by(|(fa, na, ra), (fb, nb, rb)| {
        let o = partition_key(fa, na).cmp(&partition_key(fb, nb));
        if o == Ordering::Equal { na.cmp(nb).then_with(|| ra.cmp(rb)) } else { o }
    });
    Ok(files.into_iter().map(|(_, _, raw)| dir.join(raw)).collect())
}

/// The bytes of a partition dir's segments (live `.log` files): what a
/// command that reads them all has to read, for its progress bar. An
/// unreadable dir or file counts as 0.
pub fn segment_bytes(dir: &Path) -> u64 {
    partition_files(dir)
        .unwrap_or_default()
        .iter()
        .filter(|f| {
            let n = naming::classify(&f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
            n.kind == FileKind::Log && n.suffix.is_none()
        })
        .filter_map(|f| std::fs::metadata(f).ok().map(|m| m.len()))
        .fold(0u64, u64::saturating_add)
}

/// Whether `dir` looks like a broker's log dir: its offset checkpoints, its
/// clean-shutdown marker or its metadata log are there (a bare set of
/// partition dirs has none of them).
pub fn is_brokers(dir: &Path) -> bool {
    [n::RECOVERY_POINT_OFFSET_CHECKPOINT, n::REPLICATION_OFFSET_CHECKPOINT, n::CLEAN_SHUTDOWN]
        .iter()
        .any(|f| dir.join(f).exists())
        || dir.join(format!("{}-0", n::CLUSTER_METADATA_TOPIC)).is_dir()
}

/// The live partition dirs of the log dir `dir` (no `-delete`, `-future`
/// or `-stray` dir), each with its topic and partition, in walking order.
pub fn live_partitions(dir: &Path) -> Result<Vec<(crate::naming::PartitionDir, PathBuf)>> {
    Ok(log_dir_entries(dir)?
        .into_iter()
        .filter_map(|e| if let LogDirEntry::Partition(p) = e { Some(p) } else { None })
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let pd = crate::naming::parse_partition_dir(name)?;
            (pd.state == crate::naming::DirState::Live).then_some((pd, p))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_order() {
        let dir = std::env::temp_dir().join(format!("logfmt-walk-{}", std::process::id()));
        let p = dir.join("t-0");
        std::fs::create_dir_all(&p).unwrap();
        for f in [
            "partition.metadata",
            "00000000000000000060.snapshot",
            "00000000000000000060.log",
            "00000000000000000000.timeindex",
            "00000000000000000000.log.deleted",
            "00000000000000000000.index",
            "00000000000000000000.log",
            "leader-epoch-checkpoint",
        ] {
            std::fs::write(p.join(f), b"").unwrap();
        }
        std::fs::write(dir.join("meta.properties"), b"").unwrap();
        std::fs::create_dir_all(dir.join("__cluster_metadata-0")).unwrap();
        std::fs::create_dir_all(dir.join("a-1")).unwrap();
        let names: Vec<String> = partition_files(&p)
            .unwrap()
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "00000000000000000000.log",
                "00000000000000000000.log.deleted",
                "00000000000000000000.index",
                "00000000000000000000.timeindex",
                "00000000000000000060.log",
                "00000000000000000060.snapshot",
                "leader-epoch-checkpoint",
                "partition.metadata"
            ]
        );
        assert_eq!(resolve(&dir).unwrap(), Target::LogDir(dir.clone()));
        assert_eq!(resolve(&p).unwrap(), Target::PartitionDir(p.clone()));
        // a directory with no Kafka data is an error, not an empty log dir
        let other = dir.join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("notes.txt"), b"x").unwrap();
        let e = resolve(&other).unwrap_err();
        assert_eq!(e.class(), crate::ErrorClass::Io);
        assert!(e.to_string().contains("holds no Kafka log data"), "{e}");
        std::fs::remove_dir_all(&other).unwrap();
        let top = log_dir_entries(&dir).unwrap();
        assert_eq!(top[0], LogDirEntry::File(dir.join("meta.properties")));
        assert_eq!(top[1], LogDirEntry::Partition(dir.join("__cluster_metadata-0")));
        assert_eq!(top[2], LogDirEntry::Partition(dir.join("a-1")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
