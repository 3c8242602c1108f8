//! The bytes of Kafka's small files, exactly as a Kafka 3.9 broker writes
//! them. Each function names the Kafka class whose output it reproduces.

use crate::checkpoint::{EpochEntry, OffsetCheckpointEntry};
use crate::index::TxnIndexEntry;
use crate::snapshot::ProducerStateEntry;
use crate::spec::{index as index_layout, snapshot as snap_layout};
use crate::uuid::Uuid;

/// An offset checkpoint (`OffsetCheckpointFile`): version 0, the count, one
/// `topic partition offset` line each.
pub fn offset_checkpoint(entries: &[OffsetCheckpointEntry]) -> Vec<u8> {
    checkpoint(entries.iter().map(|e| format!("{} {} {}", e.topic, e.partition, e.offset)))
}

/// `leader-epoch-checkpoint` (`LeaderEpochCheckpointFile`).
pub fn epoch_checkpoint(entries: &[EpochEntry]) -> Vec<u8> {
    checkpoint(entries.iter().map(|e| format!("{} {}", e.epoch, e.start_offset)))
}

/// Checkpoint text as Kafka's `CheckpointFile` writes it: the version, the
/// count, one line each.
fn checkpoint(lines: impl ExactSizeIterator<Item = String>) -> Vec<u8> {
    let mut out = format!("{}\n{}\n", crate::checkpoint::CHECKPOINT_VERSION, lines.len());
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out.into_bytes()
}

/// An `.index` entry (`OffsetIndex.append`): relative offset, position.
pub fn offset_index_entry(out: &mut Vec<u8>, relative_offset: i32, position: i32) {
    out.extend(relative_offset.to_be_bytes());
    out.extend(position.to_be_bytes());
}

/// A `.timeindex` entry (`TimeIndex.maybeAppend`): timestamp, relative offset.
pub fn time_index_entry(out: &mut Vec<u8>, timestamp: i64, relative_offset: i32) {
    out.extend(timestamp.to_be_bytes());
    out.extend(relative_offset.to_be_bytes());
}

/// `.txnindex` entries (`AbortedTxn`, 34 bytes each).
pub fn txn_index(entries: &[TxnIndexEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.len().saturating_mul(index_layout::TXN_INDEX_ENTRY_SIZE));
    for e in entries {
        out.extend(e.version.to_be_bytes());
        out.extend(e.producer_id.to_be_bytes());
        out.extend(e.first_offset.to_be_bytes());
        out.extend(e.last_offset.to_be_bytes());
        out.extend(e.last_stable_offset.to_be_bytes());
    }
    out
}

/// A producer-state snapshot (`ProducerStateManager.writeSnapshot`):
/// version 1, CRC-32C of the rest, the count, 46 bytes per producer.
pub fn producer_snapshot(entries: &[ProducerStateEntry]) -> Vec<u8> {
    let mut body = Vec::with_capacity(4usize.saturating_add(entries.len().saturating_mul(snap_layout::ENTRY_SIZE)));
    body.extend(i32::try_from(entries.len()).unwrap_or(i32::MAX).to_be_bytes());
    for e in entries {
        body.extend(e.producer_id.to_be_bytes());
        body.extend(e.producer_epoch.to_be_bytes());
        body.extend(e.last_sequence.to_be_bytes());
        body.extend(e.last_offset.to_be_bytes());
        body.extend(e.offset_delta.to_be_bytes());
        body.extend(e.timestamp.to_be_bytes());
        body.extend(e.coordinator_epoch.to_be_bytes());
        body.extend(e.current_txn_first_offset.to_be_bytes());
    }
    let mut out = Vec::with_capacity(body.len().saturating_add(6));
    out.extend(snap_layout::VERSION.to_be_bytes());
    out.extend(crate::crc::crc32c(&body).to_be_bytes());
    out.extend(body);
    out
}

/// `partition.metadata` (`PartitionMetadataFile`).
pub fn partition_metadata(topic_id: &Uuid) -> Vec<u8> {
    format!("version: 0\ntopic_id: {topic_id}").into_bytes()
}

/// `meta.properties` of a KRaft node (`MetaProperties`, version 1), in the
/// order Kafka's `Properties.store` happened to write in 3.9.
pub fn meta_properties(node_id: i32, cluster_id: &str, directory_id: &Uuid) -> Vec<u8> {
    format!(
        "#\n#Written by logtool\nnode.id={node_id}\ndirectory.id={directory_id}\nversion=1\ncluster.id={cluster_id}\n"
    )
    .into_bytes()
}

/// `.kafka_cleanshutdown` (`CleanShutdownFileHandler`).
pub fn clean_shutdown(broker_epoch: i64) -> Vec<u8> {
    format!("{{\"version\":0,\"brokerEpoch\":{broker_epoch}}}").into_bytes()
}

/// `quorum-state` of a static quorum (`QuorumStateData` version 0, as
/// `FileQuorumStateStore` writes it).
pub fn quorum_state_static(leader_id: i32, leader_epoch: i32, voters: &[i32]) -> Vec<u8> {
    let voters: Vec<String> = voters.iter().map(|v| format!("{{\"voterId\":{v}}}")).collect();
    format!(
        "{{\"clusterId\":\"\",\"leaderId\":{leader_id},\"leaderEpoch\":{leader_epoch},\"votedId\":-1,\"appliedOffset\":0,\"currentVoters\":[{}],\"data_version\":0}}",
        voters.join(",")
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_reads_back() {
        let e = ProducerStateEntry {
            producer_id: 7,
            producer_epoch: 2,
            last_sequence: 9,
            last_offset: 19,
            offset_delta: 4,
            timestamp: 1000,
            coordinator_epoch: -1,
            current_txn_first_offset: -1,
        };
        let s = crate::snapshot::parse(&producer_snapshot(&[e])).unwrap();
        assert!(s.crc_valid());
        assert_eq!(s.entries, vec![e]);
        assert_eq!(producer_snapshot(&[]).len(), 10);
    }

    #[test]
    fn small_files_as_kafka_writes_them() {
        assert_eq!(epoch_checkpoint(&[EpochEntry { epoch: 1, start_offset: 0 }]), b"0\n1\n1 0\n");
        assert_eq!(
            partition_metadata(&Uuid::parse("AAAAAAAAAAAAAAAAAAAAAQ").unwrap()),
            b"version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"
        );
        assert_eq!(clean_shutdown(7), br#"{"version":0,"brokerEpoch":7}"#);
    }
}
