//! What Kafka's retention deletes (`UnifiedLog.deleteOldSegments`,
//! `deleteRetentionMsBreachedSegments`, `deleteRetentionSizeBreachedSegments`,
//! `deleteLogStartOffsetBreachedSegments`): whole segments from the oldest
//! on, while a rule holds for them; never the active (last) segment offline
//! (Kafka rolls it first, which needs a running broker); only segments
//! entirely below the high watermark. Rules:
//!
//! * `Before(t)`: the segment's largest timestamp is below `t`
//!   (`retention.ms`); a segment without timestamps uses its file's
//!   modification time, as Kafka does;
//! * `MaxBytes(n)`: the partition stays larger than `n` without it
//!   (`retention.bytes`);
//! * `LogStart(o)`: the log start offset moves to `o` (`DeleteRecords`,
//!   refused above the high watermark), and segments entirely below it go.
//!
//! `Before` and `MaxBytes` apply only to topics whose `cleanup.policy`
//! includes `delete` ([`applies`]). (A `compact,delete` topic's retention
//! is run by the log cleaner's thread, `LogCleaner.cleanOrSleep` ->
//! `deletableLogs`: a broker with `log.cleaner.enable=false` applies none
//! to it - `LogManager.cleanupLogs` skips compacted logs then. This models
//! the default, cleaner on; tests/interop/retention.sh checks it.) The log start offset then becomes the
//! first remaining offset (or `o`).
//! `stats` asks what retention would reclaim; `repair::retain` does it.

use crate::error::Result;
use crate::limits::Limits;
use crate::partition::{BatchInfo, Partition, scan};

use super::log::Loss;

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

/// Whether Kafka applies `rule` to a topic whose `cleanup.policy` is
/// `policy` (`UnifiedLog.deleteOldSegments`: `retention.ms` and
/// `retention.bytes` only where the policy includes `delete`; a log start
/// moved by DeleteRecords deletes below it in every topic).
pub fn applies(rule: Rule, policy: &str) -> bool {
    match rule {
        Rule::LogStart(_) => true,
        Rule::Before(_) | Rule::MaxBytes(_) => deletes(policy),
    }
}

/// Whether `cleanup.policy` `policy` includes `delete` (`LogConfig.delete`):
/// time and size retention apply.
pub fn deletes(policy: &str) -> bool {
    policy.split(',').any(|p| p.trim() == "delete")
}

/// What a rule does to a partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `LogStart` above the high watermark: Kafka refuses it (DeleteRecords).
    AboveHighWatermark {
        /// The log start asked for.
        log_start: i64,
        /// The checkpointed high watermark.
        high_watermark: i64,
    },
    /// What retention deletes.
    Plan(Plan),
}

/// The segments retention deletes and where the log then starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// How many segments go, from the first.
    pub deleted: usize,
    /// The new log start offset.
    pub new_start: i64,
    /// The base offset of the first segment kept.
    pub first_kept: i64,
    /// Every segment but the active one would go: the active one stays
    /// (never deleted offline).
    pub active_segment_kept: bool,
    /// What is lost (None: nothing changes). Records of the first kept
    /// segment below a new log start count: no consumer reads them any more.
    pub loss: Option<Loss>,
}

/// What `rule` deletes of `p`.
pub fn plan(p: &Partition, rule: Rule, limits: &Limits) -> Result<Outcome> {
    let high_watermark = p.checkpoints.high_watermark;
    if let (Rule::LogStart(o), Some(hw)) = (rule, high_watermark)
        && o > hw
    {
        return Ok(Outcome::AboveHighWatermark { log_start: o, high_watermark: hw });
    }
    let mut loss = Loss::new(&p.dir);
    let total: u64 = p.segments.iter().map(|s| s.size).sum();
    let mut remaining = total;
    let mut deleted = 0usize;
    let mut active_segment_kept = false;
    let last = p.segments.len().saturating_sub(1);
    for (i, seg) in p.segments.iter().enumerate() {
        let next_base = p.segments.get(i.saturating_add(1)).map(|s| s.base);
        if i == last {
            active_segment_kept = deleted == i && !matches!(rule, Rule::LogStart(_));
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
                crate::rules::log::largest_timestamp(batches.iter().map(|b| b.max_timestamp).max(), seg) < t
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
        remaining = remaining.saturating_sub(seg.size);
        deleted = deleted.saturating_add(1);
    }
    let first_kept = p.segments.get(deleted).map_or(0, |s| s.base);
    let new_start = match rule {
        Rule::LogStart(o) => o.max(first_kept),
        _ => first_kept,
    };
    if deleted == 0 && !matches!(rule, Rule::LogStart(o) if o > first_kept) {
        return Ok(Outcome::Plan(Plan { deleted, new_start, first_kept, active_segment_kept, loss: None }));
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
    if loss.batches == 0 {
        loss.from_offset = p.segments.first().map_or(0, |s| s.base);
        loss.to_offset = new_start;
    }
    Ok(Outcome::Plan(Plan { deleted, new_start, first_kept, active_segment_kept, loss: Some(loss) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_and_size_retention_only_where_the_policy_has_delete() {
        for (policy, by_time) in
            [("delete", true), ("compact", false), ("compact,delete", true), (" delete , compact", true), ("", false)]
        {
            assert_eq!(applies(Rule::Before(0), policy), by_time, "{policy:?}");
            assert_eq!(applies(Rule::MaxBytes(0), policy), by_time, "{policy:?}");
            // DeleteRecords moves the log start of every topic
            assert!(applies(Rule::LogStart(5), policy), "{policy:?}");
        }
    }
}
