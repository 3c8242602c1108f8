//! Kafka's leader-epoch cache (`LeaderEpochFileCache.java`): what
//! `leader-epoch-checkpoint` holds after the broker assigns epochs and
//! truncates, and how it must agree with the epochs the batches carry.
//!
//! * `assign` (on append, and `LogSegment.recover`): a batch whose epoch is
//!   above the latest adds (epoch, its base offset); a leader adds its new
//!   epoch at the log end when elected (`Partition.makeLeader`), so the cache
//!   may hold epochs no batch carries;
//! * `truncateFromEnd` (`UnifiedLog.truncateTo`): entries starting at or after
//!   the new end go;
//! * `truncateFromStart` (`UnifiedLog.maybeIncrementLogStartOffset`: retention,
//!   DeleteRecords): entries starting at or before the new log start go, the
//!   last of them kept as starting at the log start. Batches below the log
//!   start stay in their segment but the cache no longer covers them;
//! * both truncations are flushed asynchronously (3.9): after an unclean
//!   shutdown the file may still hold the entries they removed, and the
//!   broker truncates again while loading.

use logfmt::checkpoint::EpochEntry;

/// Ordered (epoch, start offset) entries, both strictly increasing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EpochCache {
    entries: Vec<EpochEntry>,
}

impl EpochCache {
    /// A cache loaded the way Kafka loads the checkpoint: every entry assigned
    /// in order (which drops non-monotonic ones).
    pub fn load(entries: impl IntoIterator<Item = EpochEntry>) -> EpochCache {
        let mut c = EpochCache::default();
        for e in entries {
            c.assign(e.epoch, e.start_offset);
        }
        c
    }

    /// The entries.
    pub fn entries(&self) -> &[EpochEntry] {
        &self.entries
    }

    /// The latest epoch.
    pub fn latest_epoch(&self) -> Option<i32> {
        self.entries.last().map(|e| e.epoch)
    }

    /// `assign`: add (epoch, start) unless it is the latest epoch already
    /// starting at or before `start`; entries from the end with an epoch or a
    /// start offset at least as large are removed first.
    pub fn assign(&mut self, epoch: i32, start_offset: i64) {
        if epoch < 0 || start_offset < 0 {
            return;
        }
        if let Some(last) = self.entries.last()
            && epoch == last.epoch
            && start_offset >= last.start_offset
        {
            return;
        }
        while self.entries.last().is_some_and(|e| e.epoch >= epoch || e.start_offset >= start_offset) {
            self.entries.pop();
        }
        self.entries.push(EpochEntry { epoch, start_offset });
    }

    /// Whether a batch of leader epoch `epoch` starts a cache entry after
    /// one whose latest epoch is `latest`: Kafka's append and recovery paths
    /// (`UnifiedLog.append`, `LogSegment.recover`) assign only a batch's
    /// epoch above the latest one (`latestEpoch.forall(_ < epoch)`).
    pub fn starts_entry(latest: Option<i32>, epoch: i32) -> bool {
        epoch >= 0 && latest.is_none_or(|l| epoch > l)
    }

    /// A batch appended or recovered: assign its epoch at its base offset
    /// when it starts an entry ([`EpochCache::starts_entry`]). Returns
    /// whether it did.
    pub fn observe(&mut self, epoch: i32, base_offset: i64) -> bool {
        let starts = Self::starts_entry(self.latest_epoch(), epoch);
        if starts {
            self.assign(epoch, base_offset);
        }
        starts
    }

    /// `truncateFromEnd`: drop entries starting at or after `end_offset`.
    pub fn truncate_from_end(&mut self, end_offset: i64) {
        if end_offset >= 0 {
            self.entries.retain(|e| e.start_offset < end_offset);
        }
    }

    /// `truncateFromStart`: drop entries starting at or before `start_offset`,
    /// keeping the last of them as starting at `start_offset`.
    pub fn truncate_from_start(&mut self, start_offset: i64) {
        if self.entries.first().is_none_or(|e| e.start_offset >= start_offset) {
            return;
        }
        let removed = self.entries.iter().take_while(|e| e.start_offset <= start_offset).count();
        let last_removed = removed.checked_sub(1).and_then(|i| self.entries.get(i)).copied();
        self.entries.drain(..removed);
        if let Some(e) = last_removed {
            self.entries.insert(0, EpochEntry { epoch: e.epoch, start_offset });
        }
    }

    /// `endOffsetFor(requestedEpoch, logEndOffset)`: the largest epoch at
    /// most `requested` and where it ends (the start of the next epoch, or
    /// `log_end` for the latest); `None` for Kafka's `(UNDEFINED_EPOCH,
    /// UNDEFINED_EPOCH_OFFSET)`. A requested epoch below every entry answers
    /// `(requested, first start)`, as Kafka does.
    pub fn end_offset_for(&self, requested: i32, log_end: i64) -> Option<(i32, i64)> {
        if requested < 0 {
            return None;
        }
        if self.latest_epoch() == Some(requested) {
            return Some((requested, log_end));
        }
        let higher = self.entries.iter().find(|e| e.epoch > requested)?;
        match self.entries.iter().rev().find(|e| e.epoch <= requested) {
            Some(floor) => Some((floor.epoch, higher.start_offset)),
            None => Some((requested, higher.start_offset)),
        }
    }

    /// `epochForOffset`: the epoch of the entry covering `offset` (the last
    /// one starting at or before it).
    pub fn epoch_for_offset(&self, offset: i64) -> Option<i32> {
        self.entries.iter().take_while(|e| e.start_offset <= offset).last().map(|e| e.epoch)
    }

    /// The `leader-epoch-checkpoint` text.
    pub fn to_checkpoint(&self) -> Vec<u8> {
        logfmt::emit::epoch_checkpoint(&self.entries)
    }
}

/// Whether a replica's `leader-epoch-checkpoint` agrees with the lineage
/// its batches carry (`batches`, as [`EpochCache::observe`] builds it):
/// entries at or after the log end (an election without writes assigns
/// the new epoch at the log end) and a first entry moved up to the log
/// start (`truncateFromStart`) are Kafka's normal doing; anything else
/// differs.
pub fn checkpoint_agrees(checkpoint: &[EpochEntry], batches: &[EpochEntry], log_end: i64) -> bool {
    let kept: Vec<&EpochEntry> = checkpoint.iter().filter(|e| e.start_offset < log_end).collect();
    kept.len() == batches.len()
        && kept.iter().zip(batches).enumerate().all(|(i, (c, b))| {
            c.epoch == b.epoch && (c.start_offset == b.start_offset || (i == 0 && c.start_offset <= b.start_offset))
        })
}

/// Where the batches' epochs disagree with a leader-epoch cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpochMismatch {
    /// The epoch the batches carry from `offset` on.
    pub epoch: i32,
    /// Where it starts (or the log start, for the epoch in effect there).
    pub offset: i64,
    /// What the cache says at `offset` (its covering entry), if anything.
    pub cached: Option<EpochEntry>,
}

/// Compare `lineage` (each (epoch, offset) where the batches' epoch rose, in
/// order) with the cache `entries` as the file holds them: every offset at or
/// above `log_start` must be covered by the entry of its batch's epoch. Below
/// the log start the cache says nothing (`truncateFromStart`); the epoch in
/// effect at the log start is checked as starting there.
pub fn lineage_mismatches(entries: &[EpochEntry], lineage: &[(i32, i64)], log_start: i64) -> Vec<EpochMismatch> {
    let at_start = lineage.iter().take_while(|(_, o)| *o <= log_start).last().map(|&(e, _)| (e, log_start));
    let from_start = lineage.iter().copied().filter(|(_, o)| *o > log_start);
    let covering = |offset: i64| entries.iter().filter(|e| e.start_offset <= offset).max_by_key(|e| e.start_offset);
    at_start
        .into_iter()
        .chain(from_start)
        .filter_map(|(epoch, offset)| {
            let cached = covering(offset).copied();
            (cached.map(|c| c.epoch) != Some(epoch)).then_some(EpochMismatch { epoch, offset, cached })
        })
        .collect()
}

/// Compare the last batch of each run of one epoch (`runs`: (epoch, base
/// offset of the run's last batch), in order) with the cache `entries`:
/// Kafka's cache starts an epoch where its leader began writing, so every
/// later batch carries that epoch or a higher one, and a batch at or above
/// `log_start` that the cache puts in a later epoch than its own cannot be
/// (it is what [`lineage_mismatches`], which looks where each run starts,
/// misses when the batch carrying the new epoch first was compacted away
/// or damaged).
pub fn run_end_mismatches(entries: &[EpochEntry], runs: &[(i32, i64)], log_start: i64) -> Vec<EpochMismatch> {
    let covering = |offset: i64| entries.iter().filter(|e| e.start_offset <= offset).max_by_key(|e| e.start_offset);
    runs.iter()
        .filter(|(_, offset)| *offset >= log_start)
        .filter_map(|&(epoch, offset)| {
            let cached = covering(offset).copied();
            cached.filter(|c| c.epoch > epoch).map(|_| EpochMismatch { epoch, offset, cached })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(epoch: i32, start_offset: i64) -> EpochEntry {
        EpochEntry { epoch, start_offset }
    }

    #[test]
    fn kafka_cache_rules() {
        let mut c = EpochCache::load([e(0, 0), e(2, 5)]);
        c.assign(2, 9); // same epoch, later start: no change
        assert_eq!(c.entries(), &[e(0, 0), e(2, 5)]);
        c.assign(3, 5); // same start as epoch 2: replaces it
        assert_eq!(c.entries(), &[e(0, 0), e(3, 5)]);
        c.assign(4, 20);
        c.truncate_from_end(20);
        assert_eq!(c.entries(), &[e(0, 0), e(3, 5)]);
        c.truncate_from_start(7);
        assert_eq!(c.entries(), &[e(3, 7)]);
        assert_eq!(c.to_checkpoint(), b"0\n1\n3 7\n");
        // a non-monotonic file loads as Kafka loads it
        assert_eq!(EpochCache::load([e(0, 0), e(5, 10), e(3, 20)]).entries(), &[e(0, 0), e(3, 20)]);
    }

    #[test]
    fn the_cache_says_nothing_below_the_log_start() {
        // DeleteRecords moved the log start to 123 inside a segment whose
        // batches from 120 carry epoch 0: the cache starts at 123
        assert_eq!(lineage_mismatches(&[e(0, 123)], &[(0, 120)], 123), vec![]);
        assert_eq!(lineage_mismatches(&[e(0, 123), e(2, 200)], &[(0, 120), (2, 200)], 123), vec![]);
        // a batch epoch the cache does not have above the log start is a mismatch
        let m = lineage_mismatches(&[e(0, 0)], &[(0, 0), (1, 50)], 0);
        assert_eq!(m, vec![EpochMismatch { epoch: 1, offset: 50, cached: Some(e(0, 0)) }]);
        // nothing covers the log start
        assert_eq!(lineage_mismatches(&[e(0, 130)], &[(0, 120)], 123).len(), 1);
        assert_eq!(EpochCache::load([e(0, 0), e(3, 10)]).epoch_for_offset(9), Some(0));
        assert_eq!(EpochCache::load([e(0, 5)]).epoch_for_offset(4), None);
    }

    #[test]
    fn a_run_past_a_later_epochs_start_is_a_mismatch() {
        let cache = [e(0, 0), e(2, 188)];
        // epoch 0 up to a batch at 302, past where epoch 2 started
        assert_eq!(
            run_end_mismatches(&cache, &[(0, 302), (2, 316)], 0),
            vec![EpochMismatch { epoch: 0, offset: 302, cached: Some(e(2, 188)) }]
        );
        // the runs as Kafka writes them; a run below the log start says nothing
        assert_eq!(run_end_mismatches(&cache, &[(0, 150), (2, 316)], 0), vec![]);
        assert_eq!(run_end_mismatches(&cache, &[(0, 302)], 400), vec![]);
    }

    #[test]
    fn end_offsets_as_kafka_answers_them() {
        let c = EpochCache::load([e(1, 0), e(3, 10), e(6, 30)]);
        assert_eq!(c.end_offset_for(6, 42), Some((6, 42))); // latest: the log end
        assert_eq!(c.end_offset_for(3, 42), Some((3, 30)));
        assert_eq!(c.end_offset_for(4, 42), Some((3, 30))); // unknown: the floor epoch
        assert_eq!(c.end_offset_for(0, 42), Some((0, 0))); // below all: the first start
        assert_eq!(c.end_offset_for(7, 42), None);
        assert_eq!(c.end_offset_for(-1, 42), None);
        assert_eq!(EpochCache::default().end_offset_for(2, 5), None);
    }
}
