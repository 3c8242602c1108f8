//! Kafka's leader-epoch truncation of a follower (`AbstractFetcherThread`,
//! `LeaderEpochFileCache.endOffsetFor`), computed from files; asked by
//! `repl-check` (`diff-replicas`).
//!
//! A follower of Kafka 3.9 fetches with its log end offset and the latest
//! epoch of its leader-epoch cache (`lastFetchedEpoch`). The leader answers
//! `endOffsetFor(lastFetchedEpoch)` from its own cache
//! (`LeaderEpochFileCache.endOffsetFor`: the largest epoch at most the one
//! asked, and where it ends: the start of the next epoch, or the leader's log
//! end for its latest) and, when that epoch is lower than the follower's or
//! ends before the follower's log end, returns it as a *diverging epoch*
//! (`Partition.fetchRecords`). The follower then looks the diverging epoch up
//! in its own cache (`AbstractFetcherThread.getOffsetTruncationState`):
//!
//! * it knows that epoch: truncate to the smaller of its own end for it, the
//!   leader's end for it, and its log end; done;
//! * it does not: truncate to its own end of the largest smaller epoch it
//!   knows, and fetch again (KIP-279's iteration);
//! * its cache is empty at that point: truncate to the leader's end.
//!
//! A follower with no epochs at all (message format before v2) truncates to
//! its high watermark instead. Truncating removes the cache entries starting
//! at or after the new end (`truncateFromEnd`). This module replays those
//! rounds until the leader no longer reports divergence.

use crate::epochs::EpochCache;
use logfmt::checkpoint::EpochEntry;

/// What the truncation needs of a replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lineage {
    /// The leader-epoch cache (`leader-epoch-checkpoint`).
    pub epochs: Vec<EpochEntry>,
    /// The log end offset.
    pub log_end: i64,
    /// The high watermark, if known.
    pub high_watermark: Option<i64>,
}

/// The outcome for one follower.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    /// The offset Kafka truncates the follower to; `None` when nothing is
    /// removed (it is at or beyond the follower's log end).
    pub truncate_to: Option<i64>,
    /// Each round: (diverging epoch from the leader, its end offset there,
    /// the offset truncated to).
    pub rounds: Vec<(i32, i64, i64)>,
    /// Something that made the result less than certain.
    pub note: Option<String>,
}

/// `leader` as the controller makes it leader: a new epoch, above every
/// replica's (`max_epoch`), starting at its log end
/// (`Partition.makeLeader` assigns it before any write). For followers this
/// changes nothing if `leader` already leads in the highest epoch, and makes
/// any other replica a leader the way an election would.
pub fn as_elected(leader: &Lineage, max_epoch: i32) -> Lineage {
    let mut l = leader.clone();
    let mut cache = EpochCache::load(l.epochs.iter().copied());
    cache.assign(max_epoch.max(0).saturating_add(1), l.log_end);
    l.epochs = cache.entries().to_vec();
    l
}

/// Replay Kafka's truncation of `follower` against `leader` (whose cache
/// holds its current epoch: see [`as_elected`]).
pub fn kafka_truncation(leader: &Lineage, follower: &Lineage) -> Truncation {
    let leader_cache = EpochCache::load(leader.epochs.iter().copied());
    let mut cache = EpochCache::load(follower.epochs.iter().copied());
    let mut end = follower.log_end;
    let mut rounds = Vec::new();
    let mut note = None;
    // every round removes at least one cache entry or ends the loop
    for _ in 0..follower.epochs.len().saturating_add(2) {
        let Some(last_fetched) = cache.latest_epoch() else {
            if rounds.is_empty() {
                // no epochs at all: the follower truncates to its high watermark
                match follower.high_watermark {
                    Some(hw) => end = end.min(hw),
                    None => note = Some("the follower has no leader epochs and no known high watermark".into()),
                }
            }
            break;
        };
        let Some((epoch, leader_end)) = leader_cache.end_offset_for(last_fetched, leader.log_end) else {
            note = Some(format!(
                "the leader knows no epoch at or below {last_fetched}: Kafka answers with an undefined offset and \
                 the follower truncates to its high watermark"
            ));
            if let Some(hw) = follower.high_watermark {
                end = end.min(hw);
            }
            break;
        };
        if epoch >= last_fetched && leader_end >= end {
            break; // no divergence: the follower fetches on
        }
        let to = match cache.end_offset_for(epoch, end) {
            Some((fe, f_end)) if fe == epoch => f_end.min(leader_end).min(end),
            Some((_, f_end)) => f_end.min(end),
            None => leader_end.min(end),
        };
        rounds.push((epoch, leader_end, to));
        end = to;
        cache.truncate_from_end(to);
    }
    Truncation { truncate_to: (end < follower.log_end).then_some(end), rounds, note }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(epochs: &[(i32, i64)], log_end: i64) -> Lineage {
        Lineage {
            epochs: epochs.iter().map(|&(epoch, start_offset)| EpochEntry { epoch, start_offset }).collect(),
            log_end,
            high_watermark: None,
        }
    }

    #[test]
    fn unclean_election_truncates_the_old_leader_to_the_new_leaders_start() {
        // old leader wrote 100..150 in epoch 1 after the follower stopped at 100;
        // the follower was elected (epoch 2 from 100) and wrote 100..130
        let old = l(&[(0, 0), (1, 50)], 150);
        let new = l(&[(0, 0), (1, 50), (2, 100)], 130);
        let t = kafka_truncation(&new, &old);
        assert_eq!(t.truncate_to, Some(100));
        assert_eq!(t.rounds, vec![(1, 100, 100)]);
        // the new leader, as a follower of the old one, would not be truncated by epochs
        assert_eq!(kafka_truncation(&new, &new).truncate_to, None);
    }

    #[test]
    fn a_follower_behind_is_not_truncated() {
        let leader = l(&[(0, 0), (3, 40)], 90);
        assert_eq!(kafka_truncation(&leader, &l(&[(0, 0), (3, 40)], 60)).truncate_to, None);
        assert_eq!(kafka_truncation(&leader, &l(&[(0, 0)], 40)).truncate_to, None);
    }

    #[test]
    fn kip_279_iterates_over_epochs_the_leader_never_had() {
        // follower: epochs 1 (0), 2 (10), 4 (20), end 30; leader: 1 (0), 3 (15), end 40
        let leader = as_elected(&l(&[(1, 0), (3, 15)], 40), 4);
        assert_eq!(leader.epochs.last(), Some(&EpochEntry { epoch: 5, start_offset: 40 }));
        let follower = l(&[(1, 0), (2, 10), (4, 20)], 30);
        let t = kafka_truncation(&leader, &follower);
        // round 1: last fetched 4 -> leader answers (3, 40); follower knows no 3: its
        // end for 2 is 20. round 2: last fetched 2 -> leader answers (1, 15):
        // follower knows 1, ends it at 10 -> min(10, 15, 20) = 10
        assert_eq!(t.rounds, vec![(3, 40, 20), (1, 15, 10)]);
        assert_eq!(t.truncate_to, Some(10));
    }

    #[test]
    fn a_follower_ahead_in_the_same_epoch_is_cut_to_the_leaders_end() {
        let leader = l(&[(0, 0), (2, 10)], 25);
        let t = kafka_truncation(&leader, &l(&[(0, 0), (2, 10)], 31));
        assert_eq!(t.truncate_to, Some(25));
    }

    #[test]
    fn without_epochs_the_high_watermark_decides() {
        let leader = l(&[], 25);
        let mut f = l(&[], 31);
        assert_eq!(kafka_truncation(&leader, &f).truncate_to, None);
        assert!(kafka_truncation(&leader, &f).note.is_some());
        f.high_watermark = Some(20);
        assert_eq!(kafka_truncation(&leader, &f).truncate_to, Some(20));
    }
}
