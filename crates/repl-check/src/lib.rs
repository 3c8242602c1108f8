//! Replicas of one Kafka partition after a failover: did they diverge, from
//! which offset, and what will Kafka throw away when they reconcile?
//!
//! * [`replica`]: a replica as this crate sees it - its offsets, high
//!   watermark, leader-epoch lineage (from `leader-epoch-checkpoint` and from
//!   the batches' `partition_leader_epoch`) and a stream of batch summaries
//!   (offsets, epoch, CRC, size, timestamps) - read from a partition dir or
//!   from a [`digest`].
//! * Kafka's leader-epoch truncation (KIP-101, KIP-279, and the fetch-time
//!   "diverging epoch" of Kafka 2.7+) is a rule: `logrules::replication`
//!   computes the offset a follower truncates to from the two epoch caches
//!   and log ends, as `AbstractFetcherThread` and `Partition` compute it.
//! * [`diff`]: the comparison - batch by batch in one streaming pass over all
//!   replicas (offsets + epoch + CRC + size; no record is decoded), the
//!   divergence offset, the leader, and per follower the truncation and the
//!   records it loses.
//! * [`digest`]: a compact, versioned fingerprint of a replica, so replicas
//!   on different hosts are compared by shipping kilobytes.
//! * [`records`]: the records of a divergent range, for people to read.
//! * [`lines`]: what `diff-replicas` and `digest` print.
//!
//! Like `logfmt`, nothing here panics on any input, and memory stays bounded
//! whatever the size of the replicas.
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

pub mod diff;
pub mod digest;
pub mod error;
pub mod lines;
pub mod records;
pub mod replica;
pub mod summary;

pub use error::{Error, Result};
