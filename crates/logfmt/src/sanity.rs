//! Header sanity: whether a batch's header fits where it lies in its segment.
//!
//! The v2 CRC covers a batch from `attributes` to its end. `baseOffset`,
//! `batchLength`, `partitionLeaderEpoch` and `magic` lie before that, so a
//! flipped bit there passes Kafka's `DefaultRecordBatch.ensureValid`: Kafka's
//! own recovery (`LogSegment.recover`) keeps such a batch and serves a wrong
//! offset, a wrong epoch or garbage. logtool trusts a batch only when, besides
//! its checksum, its header fits its position, by invariants every log Kafka
//! writes holds:
//!
//! * **offsets** (`baseOffset`, and `lastOffsetDelta` through it): a batch
//!   starts after the previous batch of its segment ends (the leader assigns
//!   increasing offsets, `LogValidator.assignOffsetsNonCompressed` and
//!   friends; the cleaner keeps their order); the segment's base offset is at
//!   or below it and its last offset is at most `Integer.MAX_VALUE` above that
//!   base (`LogSegment.ensureOffsetInRange`: index entries hold 32-bit
//!   relative offsets); its last offset is below the next segment's base
//!   (`LogSegments`: segments partition the offsets);
//! * **`partitionLeaderEpoch`**: -1 (no epoch) or non-negative (a leader stamps
//!   its epoch, `LeaderEpochFileCache` epochs are never negative), and never
//!   below the previous batch's epoch (epochs only rise, and a replica
//!   truncates what a new leader does not have before appending);
//! * **`magic`** and **`batchLength`**: checked while framing (`log.rs`):
//!   the magic is 0, 1 or 2 and the length covers at least a header and fits
//!   the file.
//!
//! When a batch fails, something must say whether *it* is wrong or the batch
//! before it: [`blame_previous`] settles an order conflict between two
//! adjacent batches the way the rest of the log does (the batch that is out
//! of line with its neighbours is the damaged one).

use std::fmt;

/// A header field outside the CRC that a check found wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeaderField {
    /// `baseOffset` (int64 at byte 0).
    BaseOffset,
    /// `batchLength` (int32 at byte 8).
    BatchLength,
    /// `partitionLeaderEpoch` (int32 at byte 12).
    PartitionLeaderEpoch,
    /// `magic` (int8 at byte 16).
    Magic,
}

impl HeaderField {
    /// Kafka's name of the field.
    pub fn kafka_name(self) -> &'static str {
        match self {
            HeaderField::BaseOffset => "baseOffset",
            HeaderField::BatchLength => "batchLength",
            HeaderField::PartitionLeaderEpoch => "partitionLeaderEpoch",
            HeaderField::Magic => "magic",
        }
    }

    /// The field's byte offset from the start of the batch.
    pub fn offset(self) -> u64 {
        use crate::spec::batch as b;
        (match self {
            HeaderField::BaseOffset => b::BASE_OFFSET_OFFSET,
            HeaderField::BatchLength => b::LENGTH_OFFSET,
            HeaderField::PartitionLeaderEpoch => b::PARTITION_LEADER_EPOCH_OFFSET,
            HeaderField::Magic => b::MAGIC_OFFSET,
        }) as u64
    }
}

impl fmt::Display for HeaderField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kafka_name())
    }
}

/// Where a segment's batches must lie: its base offset (from its file name)
/// and the next segment's base offset, when known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// The segment's base offset.
    pub base_offset: Option<i64>,
    /// The base offset of the segment after it.
    pub next_base_offset: Option<i64>,
}

/// The header values the checks look at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// First offset (v2: `baseOffset`; v0/v1: the message's offset, which for
    /// a compressed wrapper is its *last* inner offset).
    pub first_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// `partitionLeaderEpoch` (v2 only).
    pub epoch: Option<i32>,
}

impl Facts {
    /// The largest offset the entry claims.
    fn top(&self) -> i64 {
        self.first_offset.max(self.last_offset)
    }
}

/// What the previous trusted batch of the segment left: the checks of the
/// next one compare with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prev {
    /// Its last offset.
    pub last_offset: i64,
    /// The largest non-negative epoch so far, if any.
    pub epoch: Option<i32>,
}

impl Prev {
    /// The state after a batch with `facts` was accepted.
    pub fn after(prev: Option<Prev>, facts: &Facts) -> Prev {
        let epoch = match (prev.and_then(|p| p.epoch), facts.epoch.filter(|&e| e >= 0)) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Prev { last_offset: facts.last_offset, epoch }
    }
}

/// Why a header does not fit its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insane {
    /// The field at fault.
    pub field: HeaderField,
    /// What is wrong, in words.
    pub detail: String,
    /// An order conflict with the previous batch (which may be the one at
    /// fault, see [`blame_previous`]), rather than a value that fits no
    /// position.
    pub order: bool,
}

/// Check a header against the previous trusted batch and the segment's bounds.
pub fn check(facts: &Facts, prev: Option<Prev>, bounds: &Bounds) -> Result<(), Insane> {
    let bad = |field, order, detail: String| Err(Insane { field, detail, order });
    if let Some(e) = facts.epoch {
        if e < -1 {
            return bad(HeaderField::PartitionLeaderEpoch, false, format!("{e} is neither -1 (no epoch) nor an epoch"));
        }
        if let Some(p) = prev.and_then(|p| p.epoch)
            && e >= 0
            && e < p
        {
            return bad(
                HeaderField::PartitionLeaderEpoch,
                true,
                format!("{e} is below the previous batch's epoch {p}"),
            );
        }
    }
    if let Some(base) = bounds.base_offset {
        if facts.first_offset < base {
            return bad(
                HeaderField::BaseOffset,
                false,
                format!("offset {} is below the segment's base offset {base}", facts.first_offset),
            );
        }
        if facts.top().wrapping_sub(base) > i64::from(i32::MAX) || facts.top() < base {
            return bad(
                HeaderField::BaseOffset,
                false,
                format!(
                    "offset {} is more than 2^31-1 above the segment's base offset {base} (relative offsets are 32-bit)",
                    facts.top()
                ),
            );
        }
    }
    if let Some(next) = bounds.next_base_offset
        && facts.top() >= next
    {
        return bad(
            HeaderField::BaseOffset,
            false,
            format!("offset {} is at or above the next segment's base offset {next}", facts.top()),
        );
    }
    if let Some(p) = prev
        && facts.first_offset <= p.last_offset
    {
        return bad(
            HeaderField::BaseOffset,
            true,
            format!("offset {} is not above the previous batch's last offset {}", facts.first_offset, p.last_offset),
        );
    }
    Ok(())
}

/// An order conflict between a batch (`previous`, accepted after `before`)
/// and the one after it (`next`, which failed [`check`] against it with
/// `conflict`): is `previous` the one out of line? It is when `next` fits
/// after `before` (as if `previous` were not there) and `previous` itself
/// stands out: its offsets do not continue `before`'s (a gap, where Kafka
/// writes consecutive offsets outside compacted logs), or its epoch rose
/// where `next` returns to `before`'s epoch.
pub fn blame_previous(
    before: Option<Prev>,
    previous: &Facts,
    next: &Facts,
    conflict: &Insane,
    bounds: &Bounds,
) -> bool {
    if !conflict.order || check(next, before, bounds).is_err() {
        return false;
    }
    match conflict.field {
        HeaderField::BaseOffset => match before {
            Some(b) => previous.first_offset != b.last_offset.wrapping_add(1),
            None => bounds.base_offset.is_none_or(|base| previous.first_offset != base),
        },
        HeaderField::PartitionLeaderEpoch => match (before.and_then(|b| b.epoch), previous.epoch, next.epoch) {
            (Some(b), Some(p), Some(n)) => p > b && n == b,
            (None, Some(p), Some(n)) => p > n,
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(first: i64, last: i64, epoch: i32) -> Facts {
        Facts { first_offset: first, last_offset: last, epoch: Some(epoch) }
    }

    #[test]
    fn offsets_must_increase_and_fit_the_segment() {
        let b = Bounds { base_offset: Some(100), next_base_offset: Some(200) };
        let p = Some(Prev { last_offset: 109, epoch: Some(3) });
        assert!(check(&f(110, 119, 3), p, &b).is_ok());
        assert_eq!(check(&f(105, 119, 3), p, &b).unwrap_err().field, HeaderField::BaseOffset);
        assert!(check(&f(105, 119, 3), p, &b).unwrap_err().order);
        assert!(!check(&f(90, 95, 3), None, &b).unwrap_err().order);
        assert!(check(&f(190, 200, 3), p, &b).is_err());
        let far = Bounds { base_offset: Some(0), next_base_offset: None };
        assert!(check(&f(1 << 31, 1 << 31, 0), None, &far).is_err());
        assert!(check(&f((1 << 31) - 1, (1 << 31) - 1, 0), None, &far).is_ok());
    }

    #[test]
    fn epochs_are_minus_one_or_non_negative_and_never_fall() {
        let b = Bounds::default();
        let p = Some(Prev { last_offset: 9, epoch: Some(3) });
        assert!(check(&f(10, 10, 3), p, &b).is_ok());
        assert!(check(&f(10, 10, -1), p, &b).is_ok());
        assert!(!check(&f(10, 10, -2), p, &b).unwrap_err().order);
        let e = check(&f(10, 10, 2), p, &b).unwrap_err();
        assert_eq!((e.field, e.order), (HeaderField::PartitionLeaderEpoch, true));
    }

    #[test]
    fn the_batch_out_of_line_is_blamed() {
        let b = Bounds { base_offset: Some(0), next_base_offset: None };
        let before = Some(Prev { last_offset: 9, epoch: Some(0) });
        // previous jumped ahead (10 -> 265): next (20) fits after `before`
        let prev = f(265, 274, 0);
        let next = f(20, 29, 0);
        let c = check(&next, Some(Prev::after(before, &prev)), &b).unwrap_err();
        assert!(blame_previous(before, &prev, &next, &c, &b));
        // next fell back (20 -> 15) while previous continues `before`: next is wrong
        let prev = f(10, 19, 0);
        let next = f(15, 24, 0);
        let c = check(&next, Some(Prev::after(before, &prev)), &b).unwrap_err();
        assert!(!blame_previous(before, &prev, &next, &c, &b));
        // an epoch spike: 0, 255, 0
        let prev = f(10, 19, 255);
        let next = f(20, 29, 0);
        let c = check(&next, Some(Prev::after(before, &prev)), &b).unwrap_err();
        assert!(blame_previous(before, &prev, &next, &c, &b));
        // a real epoch rise followed by a lower (damaged) one: 0, 5, 4
        let prev = f(10, 19, 5);
        let next = f(20, 29, 4);
        let c = check(&next, Some(Prev::after(before, &prev)), &b).unwrap_err();
        assert!(!blame_previous(before, &prev, &next, &c, &b));
    }
}
