//! `truncate`: cut a partition's log at an offset, as Kafka's
//! `UnifiedLog.truncateTo` does, and report what is lost first.
//!
//! * Target at or past the log end: nothing to do.
//! * Target below the first segment: every segment goes and an empty segment
//!   starts at the target (`truncateFullyAndStartAt`).
//! * Otherwise: segments with a base offset above the target go; in the
//!   segment holding it the `.log` is cut at the start of the first batch whose
//!   last offset reaches the target (a batch straddling it goes whole), the
//!   offset and time indexes keep their entries below the target, the
//!   transaction index the aborts below it.
//!
//! Then leader epochs starting at or after the new end are dropped, producer
//! snapshots past it removed, and the log dir's checkpoints lowered.
//! Truncating to the high watermark can drop acknowledged records when the
//! records above it were written in the latest leader epoch (KIP-101): the
//! [`Loss`] says so.

/// Where truncate-to-hw cuts a partition (`rules::log::truncation_point`).
pub use logrules::log::truncation_point;

use std::path::Path;

use super::checkpoints::{CheckpointLimits, adjust_checkpoints};
use super::{Changes, Loss, Note, write_if_changed};
use logfmt::error::Result;
use logfmt::index::{IndexEntry, IndexKind, IndexReader};
use logfmt::limits::Limits;
use logfmt::naming::segment_file_name;
use logfmt::partition::{BatchInfo, Partition, scan};
use logfmt::spec::names as n;
use logrules::epochs::EpochCache;
use logrules::log as rules;

/// The kept prefix of an index file: whole entries while `keep` holds.
fn index_prefix(
    path: &Path,
    kind: IndexKind,
    base: i64,
    keep: impl Fn(&IndexEntry) -> bool,
) -> Result<Option<Vec<u8>>> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes = std::fs::read(path).map_err(|e| logfmt::Error::io(e, Some(path)))?;
    let mut kept = 0usize;
    for e in IndexReader::open(path, kind, base)? {
        match e {
            Ok(e) if keep(&e) => kept = kept.saturating_add(kind.entry_size()),
            _ => break,
        }
    }
    Ok(Some(bytes.get(..kept).unwrap_or_default().to_vec()))
}

/// Plan cutting partition `p` at `target`. `latest_epoch` is the partition's
/// latest leader epoch (to flag KIP-101 losses). Returns what is lost, or
/// `None` when the log already ends at or before `target`.
pub fn truncate_partition(
    p: &Partition,
    target: i64,
    limits: &Limits,
    lim: &mut CheckpointLimits,
    changes: &mut dyn Changes,
) -> Result<Option<Loss>> {
    let end = rules::log_end_offset(p, limits)?;
    if target >= end {
        return Ok(None);
    }
    let mut loss = Loss::new(&p.dir);
    let cache_latest = EpochCache::load(p.epochs(limits)).latest_epoch();
    let mut batch_latest = -1;
    let mut new_end = target;
    let holder = p.segments.iter().rposition(|s| s.base <= target);
    for (i, seg) in p.segments.iter().enumerate() {
        let mut batches: Vec<BatchInfo> = Vec::new();
        scan(seg, limits, |b| batches.push(*b))?;
        batch_latest = batches.iter().map(|b| b.epoch).fold(batch_latest, i32::max);
        match holder {
            Some(h) if i < h => continue,
            Some(h) if i == h => {
                let Some(cut) = batches.iter().find(|b| b.last_offset >= target).copied() else { continue };
                if cut.base_offset < target {
                    changes.note(Note::Warning {
                        path: seg.log.clone(),
                        message: format!(
                            "offset {target} is inside the batch of offsets {} at byte {}: the whole batch goes, the log ends at {}",
                            logfmt::report::offset_range(cut.base_offset, cut.last_offset), cut.position, cut.base_offset
                        ),
                    });
                    new_end = cut.base_offset;
                }
                for b in batches.iter().filter(|b| b.position >= cut.position) {
                    loss.add(b);
                }
                changes.truncate(&seg.log, cut.position, &format!("cut at offset {new_end}"))?;
                let t = new_end;
                let keep = |e: &IndexEntry| match e {
                    IndexEntry::Offset(o) => o.offset < t,
                    IndexEntry::Time(o) => o.offset < t,
                    IndexEntry::Txn(o) => o.last_offset < t,
                };
                for (suffix, kind) in [
                    (n::INDEX_FILE_SUFFIX, IndexKind::Offset),
                    (n::TIME_INDEX_FILE_SUFFIX, IndexKind::Time),
                    (n::TXN_INDEX_FILE_SUFFIX, IndexKind::Txn),
                ] {
                    let file = seg.sibling(suffix);
                    if let Some(k) = index_prefix(&file, kind, seg.base, keep)? {
                        write_if_changed(changes, &file, &k, "entries at or after the cut removed")?;
                    }
                }
            }
            _ => {
                // above the target (or every segment, when the target is below the first)
                for b in &batches {
                    loss.add(b);
                }
                for f in seg.files() {
                    changes.remove(&f, &format!("the segment lies above offset {target}"))?;
                }
            }
        }
    }
    if holder.is_none() {
        // truncateFullyAndStartAt: a new, empty segment at the target
        let log = p.dir.join(segment_file_name(target, n::LOG_FILE_SUFFIX));
        changes.write(&log, b"", "the new, empty first segment")?;
        for sfx in [n::INDEX_FILE_SUFFIX, n::TIME_INDEX_FILE_SUFFIX] {
            changes.write(&p.dir.join(segment_file_name(target, sfx)), b"", "the new, empty first segment")?;
        }
        lim.log_start.insert((p.name.topic.clone(), p.name.partition), None);
    }
    let latest = cache_latest.unwrap_or(batch_latest);
    loss.latest_epoch_lost = latest >= 0 && loss.epochs.contains(&latest);
    let effects = rules::truncate_to(p, new_end, limits);
    if p.epochs_path().exists() {
        write_if_changed(
            changes,
            &p.epochs_path(),
            &effects.epochs.to_checkpoint(),
            "leader epochs at or after the new end dropped",
        )?;
    }
    for path in &effects.snapshots_removed {
        changes.remove(path, "a producer snapshot past the new log end")?;
    }
    lim.log_end.insert((p.name.topic.clone(), p.name.partition), new_end);
    Ok(Some(loss))
}

/// Cut `p` at `target` and lower its log dir's checkpoints.
pub fn truncate(p: &Partition, target: i64, limits: &Limits, changes: &mut dyn Changes) -> Result<Option<Loss>> {
    let mut lim = CheckpointLimits::default();
    let loss = truncate_partition(p, target, limits, &mut lim, changes)?;
    match &loss {
        Some(l) => {
            changes.note(Note::Loss(l.clone()));
            adjust_checkpoints(&p.log_dir, &lim, limits, changes)?;
        }
        None => {
            // where the log ends, so "nothing to change" is no riddle
            let end = rules::log_end_offset(p, limits)?;
            changes.note(Note::Info {
                path: p.dir.clone(),
                message: format!("the log ends at offset {end} (the next offset written): --to {target} cuts nothing"),
            });
        }
    }
    Ok(loss)
}
