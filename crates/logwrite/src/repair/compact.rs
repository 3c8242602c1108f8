//! `compact`: one pass of Kafka's log cleaner, offline
//! ([`logrules::compact::Pass`] decides; this module writes).
//!
//! Each group of segments becomes one segment the way
//! `LocalLog.replaceSegments` swaps it in, so that a crash at any step
//! leaves what Kafka's `LogLoader` completes on start: the new segment's
//! files are created as `.swap` files (`.log.swap`, `.index.swap`,
//! `.timeindex.swap`, `.txnindex.swap` when it has aborted transactions),
//! with the last old segment's modification time; then the old segments'
//! files go (into the quarantine), with the producer snapshots of the old
//! segments that are not replaced by a segment of the same base
//! (`UnifiedLog.deleteProducerSnapshots`); then the `.swap` files are
//! renamed into place. At the end `cleaner-offset-checkpoint` gets the
//! offset the pass ended at (`LogCleanerManager.doneCleaning`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::checkpoints::CheckpointLimits;
use super::{Changes, Progress};
use logrules::compact::{CleanedSegment, Options, Pass};

use logfmt::error::{Error, Result};
use logfmt::partition::{LogDir, Partition};
use logfmt::spec::names as n;
/// The cleaning pass's options and Kafka's defaults for them, as a caller
/// of [`compact_partition`] gives them.
pub use logrules::compact::{DEFAULT_LOAD_FACTOR, DEFAULT_PRODUCER_ID_EXPIRATION_MS, Options as PassOptions};

/// How `compact` runs.
#[derive(Clone, Debug)]
pub struct CompactOptions {
    /// The pass's options.
    pub pass: Options,
    /// Told the bytes of each group once cleaned.
    pub progress: Progress,
}

/// What one pass did (or would do) to a partition.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Compacted {
    /// The partition dir.
    pub partition: PathBuf,
    /// Why it was not cleaned.
    pub skipped: Option<String>,
    /// The cleaner checkpoint, or the log start (`firstDirtyOffset`).
    pub first_dirty: i64,
    /// The first offset the pass could not clean.
    pub first_uncleanable: i64,
    /// Where the pass ended: the new cleaner checkpoint.
    pub end_offset: i64,
    /// Keys in the offset map.
    pub keys_mapped: u32,
    /// Segments cleaned.
    pub segments_before: usize,
    /// Segments they became.
    pub segments_after: usize,
    /// Bytes of the segments cleaned.
    pub bytes_before: u64,
    /// Bytes of the cleaned segments.
    pub bytes_after: u64,
    /// Records read.
    pub records_before: u64,
    /// Records kept.
    pub records_after: u64,
}

fn swap(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(n::SWAP_FILE_SUFFIX);
    path.with_file_name(name)
}

/// Plan one cleaning pass of `p` (of `log_dir`) on `changes`; the new
/// cleaner offset goes to `lim`.
pub fn compact_partition(
    p: &Partition,
    log_dir: &LogDir,
    opts: &CompactOptions,
    lim: &mut CheckpointLimits,
    changes: &mut dyn Changes,
) -> Result<Compacted> {
    let mut done = Compacted { partition: p.dir.clone(), ..Compacted::default() };
    let mut pass = match Pass::prepare(p, log_dir, &opts.pass)? {
        Ok(pass) => pass,
        Err(skip) => {
            done.skipped = Some(skip.message());
            opts.progress.done(p.segments.iter().map(|s| s.size).sum());
            return Ok(done);
        }
    };
    done.first_dirty = pass.range.first_dirty;
    done.first_uncleanable = pass.range.first_uncleanable;
    done.end_offset = pass.end_offset;
    done.keys_mapped = pass.keys_mapped;
    let groups = pass.groups.clone();
    for (i, group) in groups.iter().enumerate() {
        let segments = p.segments.get(group.clone()).unwrap_or_default();
        let Some(first) = segments.first() else { continue };
        let modified = segments.last().map(|s| s.modified_ms());
        let mut cleaned: Option<CleanedSegment> = None;
        let log = first.sibling(n::LOG_FILE_SUFFIX);
        changes.write_with(&swap(&log), modified, "the cleaned segment", &mut |w| {
            cleaned = Some(pass.clean_group(i, w)?);
            Ok(())
        })?;
        let c = cleaned.ok_or_else(|| Error::malformed(0, "compact", "a group was not cleaned").with_path(&log))?;
        let mut new_files = vec![log];
        for (suffix, bytes) in [(n::INDEX_FILE_SUFFIX, &c.offset_index), (n::TIME_INDEX_FILE_SUFFIX, &c.time_index)]
            .into_iter()
            .chain((!c.txn_index.is_empty()).then_some((n::TXN_INDEX_FILE_SUFFIX, &c.txn_index)))
        {
            let file = first.sibling(suffix);
            changes.write_with(&swap(&file), modified, "the cleaned segment's index", &mut |w| {
                w.write_all(bytes).map_err(|e| Error::io(e, None))
            })?;
            new_files.push(file);
        }
        for (k, seg) in segments.iter().enumerate() {
            for f in seg.files() {
                changes.remove(&f, "cleaned into the new segment")?;
            }
            if k > 0 {
                let snapshot = seg.sibling(n::PRODUCER_SNAPSHOT_FILE_SUFFIX);
                if snapshot.exists() {
                    changes.remove(&snapshot, "the snapshot of a segment merged away")?;
                }
            }
        }
        for f in new_files {
            changes.rename(&swap(&f), &f, "the cleaned segment swapped in")?;
        }
        done.segments_before = done.segments_before.saturating_add(segments.len());
        done.segments_after = done.segments_after.saturating_add(1);
        done.bytes_before = done.bytes_before.saturating_add(segments.iter().map(|s| s.size).sum());
        done.bytes_after = done.bytes_after.saturating_add(c.bytes_written);
        done.records_before = done.records_before.saturating_add(c.records_read);
        done.records_after = done.records_after.saturating_add(c.records_kept);
        opts.progress.done(segments.iter().map(|s| s.size).sum());
    }
    lim.cleaner_offset.insert((p.name.topic.clone(), p.name.partition), pass.end_offset);
    Ok(done)
}

impl logfmt::report::Report for Compacted {
    const TYPE: &'static str = "compaction";

    fn show(&self) -> logfmt::report::Shown {
        use logfmt::report::{grouped, human_bytes};
        let header = &["PARTITION", "CLEANED", "SEGMENTS", "RECORDS KEPT", "BYTES", "RECLAIMED"];
        let row = match &self.skipped {
            Some(why) => {
                vec![self.partition.display().to_string(), why.clone(), "-".into(), "-".into(), "-".into(), "-".into()]
            }
            None => vec![
                self.partition.display().to_string(),
                format!(
                    "{} of {}",
                    logfmt::report::offset_range(self.first_dirty, self.end_offset.saturating_sub(1)),
                    logfmt::report::offset_range(self.first_dirty, self.first_uncleanable.saturating_sub(1))
                ),
                format!("{} -> {}", self.segments_before, self.segments_after),
                format!("{} of {}", grouped(self.records_after), grouped(self.records_before)),
                format!("{} -> {}", human_bytes(self.bytes_before), human_bytes(self.bytes_after)),
                human_bytes(self.bytes_before.saturating_sub(self.bytes_after)),
            ],
        };
        logfmt::report::Shown::Row(header, row)
    }
}
