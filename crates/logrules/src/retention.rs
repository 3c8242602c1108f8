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
//!
//! **Tiered partitions** ([`Tiered`]; `remote.storage.enable`, uploads not
//! disabled by `remote.log.copy.disable`): time and size retention are
//! local retention (`local.retention.ms`/`bytes`, `localRetentionMs`,
//! over the local size), and a segment goes only once it is in remote
//! storage - its last offset at or below the highest offset there - or
//! below the log start (`deletableSegments`:
//! `upperBoundOffset - 1 <= highestOffsetInRemoteStorage`). Only the local
//! log start moves (`maybeIncrementLocalLogStartOffset`): the log start,
//! its checkpoint and the leader epochs stay, for remote reads; nothing is
//! lost. When what is in remote storage is not known, local retention
//! deletes nothing. A new log start (`LogStart`) moves both and deletes the
//! local segments below it; the remote segments below it are deleted by the
//! broker's remote log manager, in the remote store ([`Plan::remote_below`]).

use logfmt::error::Result;
use logfmt::limits::Limits;
use logfmt::partition::{BatchInfo, Partition, scan};

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

/// A tiered partition, as retention sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tiered {
    /// The highest offset in remote storage (`None`: not known here, or
    /// nothing uploaded).
    pub highest_remote_offset: Option<i64>,
    /// The log start offset (below the local segments once they went).
    pub log_start: i64,
    /// The remote segments readers see, as (start, end) offsets.
    pub remote_segments: Vec<(i64, i64)>,
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
    /// Tiered local retention: the deleted segments are in remote storage,
    /// only the local log start moves (to `new_start`); the log start,
    /// its checkpoint and the leader epochs stay.
    pub local_only: bool,
    /// Tiered, a new log start: the remote segments wholly below it, as
    /// (start, end) offsets, which the broker deletes from the remote store.
    pub remote_below: Vec<(i64, i64)>,
    /// The bytes and records of the deleted segments (what the disk gets
    /// back; lost or not).
    pub freed: (u64, u64),
}

/// What `rule` deletes of `p` (`tiered`: with remote storage).
pub fn plan(p: &Partition, rule: Rule, tiered: Option<&Tiered>, limits: &Limits) -> Result<Outcome> {
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
    let mut freed = (0u64, 0u64);
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
        // tiered: only what remote storage holds, or below the log start
        if let (Some(t), Some(next), false) = (tiered, next_base, matches!(rule, Rule::LogStart(_)))
            && !(t.highest_remote_offset.is_some_and(|h| next.saturating_sub(1) <= h) || t.log_start >= next)
        {
            break;
        }
        let mut batches = Vec::new();
        scan(seg, limits, |b| batches.push(*b))?;
        let delete = match rule {
            Rule::Before(t) => crate::log::largest_timestamp(batches.iter().map(|b| b.max_timestamp).max(), seg) < t,
            Rule::MaxBytes(n) => remaining.saturating_sub(seg.size) >= n,
            Rule::LogStart(o) => next_base.is_some_and(|nb| nb <= o),
        };
        if !delete {
            break;
        }
        for b in &batches {
            loss.add(b);
            freed.1 = freed.1.saturating_add(b.records);
        }
        freed.0 = freed.0.saturating_add(seg.size);
        remaining = remaining.saturating_sub(seg.size);
        deleted = deleted.saturating_add(1);
    }
    let first_kept = p.segments.get(deleted).map_or(0, |s| s.base);
    let new_start = match (rule, tiered) {
        // tiered: the offsets between the log start and the local segments
        // are in remote storage; the log start moves to o alone
        (Rule::LogStart(o), Some(t)) => o.max(t.log_start),
        (Rule::LogStart(o), None) => o.max(first_kept),
        _ => first_kept,
    };
    let remote_below = match (tiered, rule) {
        (Some(t), Rule::LogStart(o)) => {
            t.remote_segments.iter().copied().filter(|&(_, end)| end < o && end >= t.log_start).collect()
        }
        _ => Vec::new(),
    };
    let local_only = tiered.is_some() && !matches!(rule, Rule::LogStart(_));
    // whether a new log start moves it (tiered: from the log start, which
    // may lie below the local segments)
    let moves_start = match (rule, tiered) {
        (Rule::LogStart(o), Some(t)) => o > t.log_start,
        (Rule::LogStart(o), None) => o > first_kept,
        _ => false,
    };
    if local_only || (deleted == 0 && !moves_start) {
        return Ok(Outcome::Plan(Plan {
            deleted,
            new_start,
            first_kept,
            active_segment_kept,
            loss: None,
            local_only,
            remote_below,
            freed,
        }));
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
        loss.from_offset = match tiered {
            Some(t) => t.log_start,
            None => p.segments.first().map_or(0, |s| s.base),
        };
        loss.to_offset = new_start;
    }
    Ok(Outcome::Plan(Plan {
        deleted,
        new_start,
        first_kept,
        active_segment_kept,
        loss: Some(loss),
        local_only,
        remote_below,
        freed,
    }))
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
