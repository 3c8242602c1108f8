//! `logtool dump` as a library: what it walks and what it tells.
//!
//! - the plan ([`plan`]): the paths given expanded - log dir, partition
//!   dirs, files, in the order `logdir` documents - into [`Work`], each
//!   segment with the next segment's base offset and the offsets to print,
//!   `--since`/`--until` resolved through the time indexes as ListOffsets
//!   answers them, segments outside the range left out, a partition none of
//!   whose records the range reaches said so; a partition's aborted
//!   transactions (from its `.txnindex` files, as a `read_committed` fetch
//!   skips them);
//! - the walk ([`Walk`], `walk.rs`): each file read by its kind and told to
//!   a [`Visit`] as typed items ([`Item`], [`RecordItem`], `lines.rs`)
//!   through the caller's [`RecordFilter`]; [`Walk::follow`] (`follow.rs`)
//!   tells a partition's appends as they come.
//!
//! The caller keeps the arguments, the filters' matching, and how payloads
//! print (UTF-8, hex, base64, redacted): a record's key, value and headers
//! are told as bytes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use logfmt::error::{Error, Result};
use logfmt::limits::Limits;
use logfmt::logdir::{self, LogDirEntry, Target};
use logfmt::naming::{self, FileKind, FileName};
use logfmt::partition::{LogDirCheckpoints, Partition};

mod follow;
mod lines;
mod walk;

pub use lines::{
    BatchLine, ErrorLine, FileLine, Item, JsonFileLine, LOG_COLUMNS, PartitionMetadataLine, ProducerStateLine,
    PropertiesLine, RecordItem, SummaryLine, decoded_text, record_row,
};
pub use walk::{Decode, NoFilter, Options, Outcome, Part, RecordFilter, Visit, Walk};

/// A half-open offset range `[start, end)` (`--offsets`, and what
/// `--since`/`--until` resolve to).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetRange {
    /// The first offset in the range.
    pub start: i64,
    /// The first offset past it.
    pub end: i64,
}

impl OffsetRange {
    /// Whether `offset` is in the range.
    pub fn contains(&self, offset: i64) -> bool {
        offset >= self.start && offset < self.end
    }

    /// Does `[first, last]` meet the range?
    pub fn overlaps(&self, first: i64, last: i64) -> bool {
        first < self.end && last >= self.start
    }
}

/// What selects the files and offsets of a dump.
#[derive(Clone, Copy, Debug, Default)]
pub struct Selection {
    /// `--offsets`.
    pub offsets: Option<OffsetRange>,
    /// `--since`: the first offset at or after this time.
    pub since: Option<i64>,
    /// `--until`: below the first offset at or after this time.
    pub until: Option<i64>,
    /// `--aborted`: each partition's aborted transactions are read.
    pub aborted: bool,
}

pub use logrules::log::AbortedTransactions;

/// Every aborted transaction the `.txnindex` files (base offset, path) of
/// a partition list (`rules::log::aborted_transactions` over all offsets).
pub fn aborted_transactions(txn_indexes: &[(i64, PathBuf)], limits: &Limits) -> Result<AbortedTransactions> {
    logrules::log::aborted_transactions(txn_indexes, None, i64::MIN, i64::MAX, limits)
}

/// Why no record of partition `dir` is in `[start, end)`, when none is:
/// the range is empty or lies outside the log's offsets (`asked` says what
/// was asked: "no records in --offsets"...). `None`: some may be (or the
/// log's ends cannot be read; the dump says why then).
pub fn none_in_range(dir: &Path, (start, end): (i64, i64), asked: &str, limits: &Limits) -> Option<String> {
    let p = Partition::open_with(dir, &LogDirCheckpoints::default()).ok()?;
    let log_end = logrules::log::log_end_offset(&p, limits).ok()?;
    let log_start = p.first_base().unwrap_or(0);
    if start >= end {
        return Some(format!("{asked}: they resolve to no offset (log end {log_end})"));
    }
    if start >= log_end || end <= log_start {
        let holds = if log_end > log_start {
            format!("the log holds offsets {}", logfmt::report::offset_range(log_start, log_end.saturating_sub(1)))
        } else {
            "the log is empty".to_string()
        };
        return Some(format!("{asked}: {holds} (log end {log_end})"));
    }
    None
}

/// A partition's aborted transactions (`--aborted`), from its `.txnindex` files.
pub type Aborted = Arc<AbortedTransactions>;

/// One unit of work, in output order.
pub enum Work {
    /// A file to dump.
    File {
        /// The file.
        path: PathBuf,
        /// Its size when planned.
        size: u64,
        /// Given on the command line (not found by walking a directory).
        explicit: bool,
        /// For a segment: the next segment's base offset (its batches must
        /// stay below it).
        next_base: Option<i64>,
        /// The offsets to print (`--offsets`, `--since`, `--until`).
        range: Option<OffsetRange>,
        /// With `--aborted`: the partition's aborted transactions.
        aborted: Option<Aborted>,
    },
    /// A directory in a log dir that is not a partition.
    Foreign(PathBuf),
    /// A dir said in a note, not dumped: a partition dir none of whose
    /// records the offsets asked for reach, tiered storage's index cache.
    Note {
        /// The dir.
        dir: PathBuf,
        /// Why.
        message: String,
    },
    /// A path that could not be listed or opened.
    Failed {
        /// The path.
        path: PathBuf,
        /// Why.
        error: Error,
    },
}

fn file_size(path: &Path) -> Result<u64> {
    std::fs::metadata(path).map(|m| m.len()).map_err(|e| Error::io(e, Some(path)))
}

fn push_file(path: PathBuf, explicit: bool, next_base: Option<i64>, range: Option<OffsetRange>, work: &mut Vec<Work>) {
    push_file_with(path, explicit, next_base, range, None, work)
}

fn push_file_with(
    path: PathBuf,
    explicit: bool,
    next_base: Option<i64>,
    range: Option<OffsetRange>,
    aborted: Option<Aborted>,
    work: &mut Vec<Work>,
) {
    match file_size(&path) {
        Ok(size) => work.push(Work::File { path, size, explicit, next_base, range, aborted }),
        Err(error) => work.push(Work::Failed { path, error }),
    }
}

/// The live segment base offsets of a partition dir's files, ascending.
fn segment_bases(files: &[PathBuf]) -> Vec<i64> {
    let mut bases: Vec<i64> = files
        .iter()
        .map(|p| name_of(p))
        .filter(|n| n.kind == FileKind::Log && n.suffix.is_none())
        .filter_map(|n| n.offset)
        .collect();
    bases.sort_unstable();
    bases
}

fn name_of(p: &Path) -> FileName {
    naming::classify(&p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default())
}

/// For a live `.log` named `n`: the base offset of the segment after it.
fn next_base(n: &FileName, bases: &[i64]) -> Option<i64> {
    let base = n.offset.filter(|_| n.kind == FileKind::Log && n.suffix.is_none())?;
    bases.iter().copied().find(|&b| b > base)
}

/// Expand a path given into work items, in output order.
pub fn plan(path: &Path, sel: &Selection, limits: &Limits, work: &mut Vec<Work>) {
    let offsets = sel.offsets;
    match logdir::resolve(path) {
        Err(error) => work.push(Work::Failed { path: path.to_path_buf(), error }),
        Ok(Target::File(p)) => {
            // a segment's bound: the next segment in its directory
            let bases = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(|| logdir::partition_files(Path::new(".")), logdir::partition_files)
                .map(|f| segment_bases(&f))
                .unwrap_or_default();
            let next = next_base(&name_of(&p), &bases);
            push_file(p, true, next, offsets, work)
        }
        Ok(Target::PartitionDir(p)) => {
            let tiering = Tiering::of(p.parent(), sel, limits);
            plan_partition(&p, sel, limits, tiering.as_ref(), work)
        }
        Ok(Target::LogDir(p)) => match logdir::log_dir_entries(&p) {
            Err(error) => work.push(Work::Failed { path: p, error }),
            Ok(entries) => {
                let tiering = Tiering::of(Some(&p), sel, limits);
                for e in entries {
                    match e {
                        LogDirEntry::File(f) => push_file(f, false, None, offsets, work),
                        LogDirEntry::Partition(d) => plan_partition(&d, sel, limits, tiering.as_ref(), work),
                        LogDirEntry::Foreign(d) => work.push(Work::Foreign(d)),
                        LogDirEntry::KafkaDir(dir) => work.push(Work::Note {
                            dir,
                            message: "tiered storage's cache of remote segments' indexes (RemoteIndexCache): Kafka's, not a partition; not dumped".into(),
                        }),
                    }
                }
            }
        },
    }
}

/// What `--since`/`--until` need of a log dir to answer for its tiered
/// partitions: its metadata (which topics are tiered) and remote log
/// metadata. Read only when a time is asked.
struct Tiering {
    log_dir: logfmt::partition::LogDir,
    remote: Option<logrules::offsets::RemoteLog>,
}

impl Tiering {
    fn of(log_dir: Option<&Path>, sel: &Selection, limits: &Limits) -> Option<Tiering> {
        let dir = log_dir.filter(|d| !d.as_os_str().is_empty())?;
        if sel.since.is_none() && sel.until.is_none() {
            return None;
        }
        let log_dir = logfmt::partition::LogDir::read(dir, limits);
        log_dir.metadata.as_ref()?;
        let remote = logrules::offsets::read_remote_log(&log_dir, limits).ok().flatten();
        Some(Tiering { log_dir, remote })
    }
}

/// `--offsets` narrowed by `--since`/`--until`: the offsets ListOffsets
/// answers for those times in `dir` (`logrules::offsets`, through the time
/// indexes). A time no record reaches: nothing from `--since`, no bound
/// from `--until`. A tiered partition's time whose records lie in remote
/// storage only is answered from the local data on (the local log start),
/// and said in the note returned.
fn time_range(
    dir: &Path,
    sel: &Selection,
    limits: &Limits,
    tiering: Option<&Tiering>,
) -> Result<(Option<OffsetRange>, Option<String>)> {
    let range = sel.offsets;
    let (since, until) = (sel.since, sel.until);
    if since.is_none() && until.is_none() {
        return Ok((range, None));
    }
    let p = match tiering {
        Some(t) => t.log_dir.open_partition(dir)?,
        None => Partition::open_with(dir, &LogDirCheckpoints::default())?,
    };
    let mut offsets = logrules::offsets::PartitionOffsets::open(&p, limits)?;
    offsets.set_remote(&p, tiering.and_then(|t| t.remote.as_ref()), limits);
    let local = offsets.local_log_start_offset;
    let mut note = None;
    let mut r = range.unwrap_or(OffsetRange { start: 0, end: i64::MAX });
    if let Some(t) = since {
        let start = match offsets.in_remote_storage(t) {
            Some(why) => {
                note = Some(format!(
                    "--since: {why}; only the local records are dumped, from the local log start {local}"
                ));
                local
            }
            None => offsets.answer(logrules::offsets::Spec::Timestamp(t))?.offset.unwrap_or(i64::MAX),
        };
        r.start = r.start.max(start);
    }
    if let Some(t) = until {
        match offsets.in_remote_storage(t) {
            Some(why) => {
                let until_note = format!("--until: {why}; the records before it are in remote storage, not here");
                note = Some(match note {
                    Some(n) => format!("{n}. {until_note}"),
                    None => until_note,
                });
                r.end = r.end.min(local);
            }
            None => {
                if let Some(end) = offsets.answer(logrules::offsets::Spec::Timestamp(t))?.offset {
                    r.end = r.end.min(end);
                }
            }
        }
    }
    r.end = r.end.max(r.start);
    Ok((Some(r), note))
}

/// A segment's file: its `.log` or one of its indexes.
pub fn is_segment_file(n: &FileName) -> bool {
    matches!(n.kind, FileKind::Log | FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex)
}

fn plan_partition(dir: &Path, sel: &Selection, limits: &Limits, tiering: Option<&Tiering>, work: &mut Vec<Work>) {
    let offsets = match time_range(dir, sel, limits, tiering) {
        Ok((r, note)) => {
            if let Some(message) = note {
                work.push(Work::Note { dir: dir.to_path_buf(), message });
            }
            r
        }
        Err(error) => {
            work.push(Work::Failed { path: dir.to_path_buf(), error });
            return;
        }
    };
    let files = match logdir::partition_files(dir) {
        Ok(f) => f,
        Err(error) => {
            work.push(Work::Failed { path: dir.to_path_buf(), error });
            return;
        }
    };
    let bases = segment_bases(&files);
    if let Some(range) = offsets
        && let Some(message) = none_in_range_of(dir, range, sel, limits)
    {
        work.push(Work::Note { dir: dir.to_path_buf(), message });
        return;
    }
    // --aborted: every aborted transaction the partition's .txnindex files list
    let aborted = if sel.aborted {
        let txn_indexes: Vec<(i64, PathBuf)> = files
            .iter()
            .filter_map(|f| {
                let n = name_of(f);
                match (n.kind, n.suffix, n.offset) {
                    (FileKind::TxnIndex, None, Some(base)) => Some((base, f.clone())),
                    _ => None,
                }
            })
            .collect();
        match aborted_transactions(&txn_indexes, limits) {
            Ok(a) => Some(Arc::new(a)),
            Err(error) => {
                work.push(Work::Failed { path: dir.to_path_buf(), error });
                return;
            }
        }
    } else {
        None
    };
    for f in files {
        let n = name_of(&f);
        if let (Some(range), true) = (offsets, is_segment_file(&n)) {
            // keep a segment's files only if the segment can hold offsets in range
            let Some(base) = n.offset.filter(|_| n.suffix.is_none()) else { continue };
            let next = bases.iter().copied().find(|&b| b > base).unwrap_or(i64::MAX);
            if !range.overlaps(base, next.saturating_sub(1)) {
                continue;
            }
        }
        let next = next_base(&n, &bases);
        push_file_with(f, false, next, offsets, aborted.clone(), work);
    }
}

/// Why no record of partition `dir` is in `range`, when none is: the range
/// is empty (`--since`/`--until` resolved to one offset) or lies outside the
/// log's offsets. `None`: some may be (or the log's ends cannot be read;
/// the dump says why then).
fn none_in_range_of(dir: &Path, range: OffsetRange, sel: &Selection, limits: &Limits) -> Option<String> {
    let asked = if sel.since.is_some() || sel.until.is_some() {
        "no records between --since and --until"
    } else {
        "no records in --offsets"
    };
    none_in_range(dir, (range.start, range.end), asked, limits)
}
