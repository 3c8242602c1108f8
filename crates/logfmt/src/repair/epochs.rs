//! Kafka's leader-epoch cache (`LeaderEpochFileCache.java`): what
//! `leader-epoch-checkpoint` holds after the broker assigns epochs and
//! truncates.

use crate::checkpoint::EpochEntry;

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

    /// The `leader-epoch-checkpoint` text.
    pub fn to_checkpoint(&self) -> Vec<u8> {
        crate::checkpoint::format(self.entries.iter().map(|e| format!("{} {}", e.epoch, e.start_offset)))
    }
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
