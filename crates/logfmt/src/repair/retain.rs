//! `retain`: the retention clean-ups Kafka's log manager does, offline.
//!
//! Whole segments are deleted from the oldest on, as Kafka's retention does
//! (`UnifiedLog.deleteOldSegments`), while a rule holds for them; the active
//! (last) segment is never deleted here (Kafka rolls it first, which needs a
//! running broker). Rules:
//!
//! * `Before(t)`: the segment's largest timestamp is below `t`
//!   (`retention.ms`); a segment without timestamps uses its file's
//!   modification time, as Kafka does;
//! * `MaxBytes(n)`: the partition stays larger than `n` without it
//!   (`retention.bytes`);
//! * `LogStart(o)`: the log start offset moves to `o` (`DeleteRecords`), and
//!   segments entirely below it go.
//!
//! Only segments entirely below the high watermark are deleted, as in Kafka.
//! The log start offset then becomes the first remaining offset (or `o`),
//! `log-start-offset-checkpoint` records it, and the leader-epoch cache is
//! truncated from the start.

use super::checkpoints::CheckpointLimits;
use super::{Changes, Loss, Note, write_if_changed};
use crate::error::Result;
use crate::limits::Limits;
use crate::partition::{BatchInfo, Partition, scan};
use crate::rules::log as rules;

/// A retention rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Delete segments whose newest record is older than this (epoch ms).
    Before(i64),
    /// Delete the oldest segments while the partition stays above this size.
    MaxBytes(u64),
    /// Move the log start offset here.
    LogStart(i64),
}

/// Plan a retention clean-up of partition `p`. Returns what is deleted.
pub fn retain_partition(
    p: &Partition,
    rule: Rule,
    limits: &Limits,
    lim: &mut CheckpointLimits,
    changes: &mut dyn Changes,
) -> Result<Option<Loss>> {
    let high_watermark = p.checkpoints.high_watermark;
    if let (Rule::LogStart(o), Some(hw)) = (rule, high_watermark)
        && o > hw
    {
        changes.note(Note::Warning {
            path: p.dir.clone(),
            message: format!(
                "log start {o} is above the high watermark {hw}: Kafka refuses that (DeleteRecords); nothing done"
            ),
        });
        return Ok(None);
    }
    // producer snapshots stay: Kafka prunes those below the log start itself
    let mut loss = Loss::new(&p.dir);
    let total: u64 = p.segments.iter().map(|s| s.size).sum();
    let mut remaining = total;
    let mut deleted = 0usize;
    let last = p.segments.len().saturating_sub(1);
    for (i, seg) in p.segments.iter().enumerate() {
        let next_base = p.segments.get(i.saturating_add(1)).map(|s| s.base);
        if i == last {
            if deleted == i && !matches!(rule, Rule::LogStart(_)) {
                changes.note(Note::Info {
                    path: seg.log.clone(),
                    message: "the active segment is never deleted offline".into(),
                });
            }
            break;
        }
        // Kafka deletes only segments entirely below the high watermark
        if let (Some(hw), Some(next)) = (high_watermark, next_base)
            && next > hw
        {
            break;
        }
        let mut batches = Vec::new();
        scan(seg, limits, |b| batches.push(*b))?;
        let delete = match rule {
            Rule::Before(t) => {
                let largest = batches.iter().map(|b| b.max_timestamp).max().unwrap_or(-1);
                let largest = if largest >= 0 { largest } else { seg.modified_ms() };
                largest < t
            }
            Rule::MaxBytes(n) => remaining.saturating_sub(seg.size) >= n,
            Rule::LogStart(o) => next_base.is_some_and(|nb| nb <= o),
        };
        if !delete {
            break;
        }
        for b in &batches {
            loss.add(b);
        }
        for f in seg.files() {
            changes.remove(&f, "deleted by retention")?;
        }
        remaining = remaining.saturating_sub(seg.size);
        deleted = deleted.saturating_add(1);
    }
    let first_kept = p.segments.get(deleted).map_or(0, |s| s.base);
    let new_start = match rule {
        Rule::LogStart(o) => o.max(first_kept),
        _ => first_kept,
    };
    if deleted == 0 && !matches!(rule, Rule::LogStart(o) if o > first_kept) {
        return Ok(None);
    }
    // records of the first kept segment below the new log start stay on disk
    // but no consumer can read them any more: they are lost too
    if let (Rule::LogStart(o), Some(seg)) = (rule, p.segments.get(deleted))
        && o > seg.base
    {
        scan(seg, limits, |b| {
            if b.last_offset < o {
                loss.add(b);
            } else if b.base_offset < o {
                // a batch straddling the new start: its records below it (offsets
                // in a batch are consecutive unless the cleaner compacted it)
                let below = u64::try_from(o.saturating_sub(b.base_offset)).unwrap_or(0).min(b.records);
                loss.add(&BatchInfo { records: below, last_offset: o.saturating_sub(1), size: 0, ..*b });
            }
        })?;
    }
    // Kafka lists a log start only when it is above the first segment's base
    lim.log_start.insert((p.name.topic.clone(), p.name.partition), (new_start > first_kept).then_some(new_start));
    let cache = rules::move_log_start(p, new_start, limits);
    if p.epochs_path().exists() {
        write_if_changed(
            changes,
            &p.epochs_path(),
            &cache.to_checkpoint(),
            "leader epochs below the new log start dropped",
        )?;
    }
    if loss.batches == 0 {
        loss.from_offset = p.segments.first().map_or(0, |s| s.base);
        loss.to_offset = new_start;
    }
    Ok(Some(loss))
}
