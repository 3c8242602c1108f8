//! Tiered storage (KIP-405): what a broker knows of a partition's remote
//! segments, from `__remote_log_metadata` (`TopicBasedRemoteLogMetadataManager`
//! replays it into `RemoteLogMetadataCache`).
//!
//! * Each remote segment starts as `COPY_SEGMENT_STARTED` (a
//!   `RemoteLogSegmentMetadataRecord`: its id, offsets, leader epochs, size,
//!   largest timestamp) and moves on by `RemoteLogSegmentMetadataUpdateRecord`s
//!   to `COPY_SEGMENT_FINISHED`, then `DELETE_SEGMENT_STARTED` and
//!   `DELETE_SEGMENT_FINISHED`, when it leaves the cache
//!   (`RemoteLogMetadataCache.updateRemoteLogSegmentMetadata`).
//! * Readers see only `COPY_SEGMENT_FINISHED` segments
//!   (`RemoteLogMetadataCache.listRemoteLogSegments` /
//!   `remoteLogSegmentMetadata`); the highest offset in remote storage
//!   (ListOffsets `latest-tiered`, what local retention may delete up to:
//!   `UnifiedLog.highestOffsetInRemoteStorage`) is the largest end offset of
//!   those (`RemoteLogManager.findHighestRemoteOffset`, through
//!   `highestOffsetForEpoch`).
//! * A partition's remote data is deleted with the topic: a
//!   `RemotePartitionDeleteMetadataRecord` marks it, then each segment is
//!   deleted.
//!
//! The records of a partition go to one `__remote_log_metadata` partition
//! (by its topic id and partition); a broker's log dir holds only the
//! metadata partitions it replicates, so what is read here may be
//! incomplete: [`RemoteLog::covers`] says whether a partition's metadata
//! partition is among those read.

use std::collections::BTreeMap;
use std::path::Path;

use kmsg::records::{RemoteLogSegmentMetadataRecord, RemoteLogSegmentMetadataUpdateRecord};

use logfmt::error::Result;
use logfmt::limits::Limits;
use logfmt::partition::{LogDir, Partition};
use logfmt::uuid::Uuid;

/// `RemoteLogSegmentState.COPY_SEGMENT_FINISHED`.
pub const COPY_SEGMENT_FINISHED: i8 = 1;
/// `RemoteLogSegmentState.DELETE_SEGMENT_FINISHED`.
pub const DELETE_SEGMENT_FINISHED: i8 = 3;

/// One remote segment as the metadata cache holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteSegment {
    /// Its id (a base64url UUID; the remote store's files are named by it).
    pub id: String,
    /// First offset.
    pub start_offset: i64,
    /// Last offset.
    pub end_offset: i64,
    /// Its largest record timestamp.
    pub max_timestamp_ms: i64,
    /// Leader epochs and the offsets they start at, within the segment.
    pub leader_epochs: Vec<(i32, i64)>,
    /// Its size in bytes.
    pub size: i64,
    /// `RemoteLogSegmentState` id.
    pub state: i8,
}

impl RemoteSegment {
    /// Whether readers see it (`COPY_SEGMENT_FINISHED`).
    pub fn is_readable(&self) -> bool {
        self.state == COPY_SEGMENT_FINISHED
    }
}

/// What `__remote_log_metadata` says of every tiered partition.
#[derive(Clone, Debug, Default)]
pub struct RemoteLog {
    /// By topic id and partition: the segments not yet deleted, by id (as
    /// `RemoteLogMetadataCache` keeps them: a copy that failed and was
    /// tried again is another segment id).
    segments: BTreeMap<(Uuid, i32), BTreeMap<String, RemoteSegment>>,
    /// The `__remote_log_metadata` partitions read.
    metadata_partitions: Vec<i32>,
    /// Their count, as the metadata log gives it (`None`: unknown).
    metadata_partition_count: Option<i32>,
}

impl RemoteLog {
    /// Replay every `__remote_log_metadata` partition of the log dir `dir`;
    /// `None` when it holds none.
    pub fn read(dir: &Path, partition_count: Option<i32>, limits: &Limits) -> Result<Option<RemoteLog>> {
        let mut out = RemoteLog { metadata_partition_count: partition_count, ..RemoteLog::default() };
        for (name, path) in logfmt::logdir::live_partitions(dir)? {
            if name.topic != kmsg::remote::REMOTE_LOG_METADATA_TOPIC {
                continue;
            }
            out.metadata_partitions.push(name.partition);
            let p = Partition::open(&path, limits)?;
            super::log::for_each_record(&p, limits, &mut |_| {}, &mut |_, _, r| {
                if let Some(v) = r.value {
                    out.apply(v);
                }
                Ok(())
            })?;
        }
        Ok((!out.metadata_partitions.is_empty()).then_some(out))
    }

    /// Apply one record value (what does not decode is skipped, as the
    /// consumer manager logs and skips it).
    fn apply(&mut self, value: &[u8]) {
        let Ok(r) = kmsg::remote::decode(value) else { return };
        if let Some(Ok(m)) = r.parse::<RemoteLogSegmentMetadataRecord>() {
            let id = &m.remote_log_segment_id;
            let Some(topic) = Uuid::parse(&id.topic_id_partition.id) else { return };
            let seg = RemoteSegment {
                id: id.id.clone(),
                start_offset: m.start_offset,
                end_offset: m.end_offset,
                max_timestamp_ms: m.max_timestamp_ms,
                leader_epochs: m.segment_leader_epochs.iter().map(|e| (e.leader_epoch, e.offset)).collect(),
                size: i64::from(m.segment_size_in_bytes),
                state: m.remote_log_segment_state,
            };
            self.segments.entry((topic, id.topic_id_partition.partition)).or_default().insert(seg.id.clone(), seg);
        } else if let Some(Ok(u)) = r.parse::<RemoteLogSegmentMetadataUpdateRecord>() {
            let id = &u.remote_log_segment_id;
            let Some(topic) = Uuid::parse(&id.topic_id_partition.id) else { return };
            let Some(segments) = self.segments.get_mut(&(topic, id.topic_id_partition.partition)) else { return };
            if u.remote_log_segment_state == DELETE_SEGMENT_FINISHED {
                segments.remove(&id.id);
            } else if let Some(s) = segments.get_mut(&id.id) {
                s.state = u.remote_log_segment_state;
            }
        }
    }

    /// Whether the metadata partition holding `topic_id`'s partition was
    /// read (`RemoteLogMetadataTopicPartitioner.metadataPartition`: murmur2
    /// of the topic id's bytes and partition, modulo the partition count);
    /// with one metadata partition, or an unknown count, whether any was.
    pub fn covers(&self, topic_id: Uuid, partition: i32) -> bool {
        match self.metadata_partition_count {
            Some(n) if n > 1 => self.metadata_partitions.contains(&metadata_partition(topic_id, partition, n)),
            _ => !self.metadata_partitions.is_empty(),
        }
    }

    /// The segments of a partition readers see, by start offset.
    pub fn readable(&self, topic_id: Uuid, partition: i32) -> Vec<&RemoteSegment> {
        let mut out: Vec<&RemoteSegment> = self
            .segments
            .get(&(topic_id, partition))
            .map(|m| m.values().filter(|s| s.is_readable()).collect())
            .unwrap_or_default();
        out.sort_by_key(|s| (s.start_offset, s.end_offset));
        out
    }

    /// The highest offset in remote storage (`latest-tiered`): the largest
    /// end offset of a readable segment; `None` when none is.
    pub fn highest_offset(&self, topic_id: Uuid, partition: i32) -> Option<i64> {
        self.readable(topic_id, partition).iter().map(|s| s.end_offset).max()
    }
}

/// `RemoteLogMetadataTopicPartitioner.metadataPartition`: Java's
/// `Objects.hash(leastSignificantBits, mostSignificantBits, partition)` of
/// the topic id and partition, as 4 big-endian bytes, `Utils.murmur2`, made
/// positive, modulo `count`.
pub fn metadata_partition(topic_id: Uuid, partition: i32, count: i32) -> i32 {
    let [m0, m1, m2, m3, m4, m5, m6, m7, l0, l1, l2, l3, l4, l5, l6, l7] = topic_id.0;
    let long_hash = |v: i64| (v ^ ((v as u64) >> 32) as i64) as i32;
    let msb = i64::from_be_bytes([m0, m1, m2, m3, m4, m5, m6, m7]);
    let lsb = i64::from_be_bytes([l0, l1, l2, l3, l4, l5, l6, l7]);
    let hash =
        [long_hash(lsb), long_hash(msb), partition].iter().fold(1i32, |h, &v| h.wrapping_mul(31).wrapping_add(v));
    (logfmt::hash::murmur2(&hash.to_be_bytes()) & 0x7fff_ffff).checked_rem(count).unwrap_or(0)
}

/// How retention sees `p` ([`super::retention::Tiered`]): `None` when it is
/// not tiered, or its uploads are disabled (`remote.log.copy.disable`:
/// retention then deletes as without remote storage,
/// `remoteLogEnabledAndRemoteCopyEnabled`). What is in remote storage
/// comes from `remote`, when it holds `p`'s metadata partition; otherwise
/// nothing is known to be uploaded.
pub fn retention_view(
    p: &Partition,
    log_dir: &LogDir,
    remote: Option<&RemoteLog>,
    limits: &Limits,
) -> Option<super::retention::Tiered> {
    if !super::log::remote_log_enabled(p) {
        return None;
    }
    let copy_disabled = log_dir
        .topic_config(&p.name.topic, logfmt::metadata::REMOTE_LOG_COPY_DISABLE)
        .is_some_and(|(v, _)| v.trim().eq_ignore_ascii_case("true"));
    if copy_disabled {
        return None;
    }
    let topic_id = p.topic_id(limits);
    let segments: Vec<&RemoteSegment> = match (remote, topic_id) {
        (Some(r), Some(id)) if r.covers(id, p.name.partition) => r.readable(id, p.name.partition),
        _ => Vec::new(),
    };
    Some(super::retention::Tiered {
        highest_remote_offset: segments.iter().map(|s| s.end_offset).max(),
        log_start: super::log::log_start_offset(p),
        remote_segments: segments.iter().map(|s| (s.start_offset, s.end_offset)).collect(),
    })
}

/// Where a time's answer lies for a tiered partition
/// (`RemoteLogManager.findOffsetByTimestamp`, then
/// `UnifiedLog.searchOffsetInLocalLog` from the local log start): the
/// first readable remote segment from the log start on whose largest
/// timestamp reaches `t`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeIn<'a> {
    /// In a remote segment that is also local (from the local log start
    /// on): the local search finds the same record.
    Local,
    /// In a remote segment below the local log start: only remote data
    /// answers.
    Remote(&'a RemoteSegment),
}

/// [`TimeIn`] of `t` among `segments` (by start offset).
pub fn time_in<'a>(segments: &[&'a RemoteSegment], t: i64, log_start: i64, local_log_start: i64) -> TimeIn<'a> {
    match segments.iter().find(|s| s.end_offset >= log_start && s.max_timestamp_ms >= t) {
        Some(s) if s.start_offset < local_log_start => TimeIn::Remote(s),
        _ => TimeIn::Local,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_support::fixtures;

    #[test]
    fn the_tiered_fixture_replays_as_kafka_answered() {
        let logs = fixtures().join("tiered/logs");
        let log = RemoteLog::read(&logs, Some(1), &Limits::default()).unwrap().unwrap();
        let limits = Limits::default();
        let id = |t: &str| {
            logfmt::properties::read_partition_metadata(&logs.join(format!("{t}-0/partition.metadata")), &limits)
                .unwrap()
                .topic_id
        };
        // list-offsets.txt: latest-tiered 578 and 192
        assert_eq!(log.highest_offset(id("tiered"), 0), Some(578));
        assert_eq!(log.highest_offset(id("tiered-txn"), 0), Some(192));
        // the segment below the log start (100) was deleted
        assert!(log.readable(id("tiered"), 0).iter().all(|s| s.end_offset >= 100));
        assert!(log.covers(id("tiered"), 0));
        assert_eq!(metadata_partition(id("tiered"), 0, 1), 0);
    }

    #[test]
    fn metadata_partitions_as_kafkas_partitioner_gives_them() {
        // RemoteLogMetadataTopicPartitioner(50) of Kafka 3.9.1, run on these
        for (id, partition, want) in [
            ("JlroLeYnSdSuDhajwVZLbA", 0, 48),
            ("JlroLeYnSdSuDhajwVZLbA", 1, 34),
            ("JlroLeYnSdSuDhajwVZLbA", 7, 26),
            ("AAAAAAAAAAAAAAAAAAAAAQ", 0, 35),
            ("AAAAAAAAAAAAAAAAAAAAAQ", 1, 6),
            ("AAAAAAAAAAAAAAAAAAAAAQ", 7, 46),
            ("_iN_5CkATpWymOxyNMOLxA", 0, 14),
            ("_iN_5CkATpWymOxyNMOLxA", 1, 30),
            ("_iN_5CkATpWymOxyNMOLxA", 7, 8),
        ] {
            assert_eq!(metadata_partition(Uuid::parse(id).unwrap(), partition, 50), want, "{id} {partition}");
        }
    }
}
