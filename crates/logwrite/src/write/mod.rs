//! Writing the files of a Kafka log dir: the one write layer.
//!
//! * record batches come from `logfmt::builder` (as Kafka's
//!   `MemoryRecordsBuilder` writes them), the bytes of the small files from
//!   `logfmt::emit` (the format layer encodes; this layer puts files on disk).
//! * [`mod@file`]: how files reach the disk: a temporary file, fsync, rename,
//!   fsync of the directory.
//! * [`partition`]: [`partition::PartitionWriter`] appends batches to a
//!   partition dir exactly as a Kafka 3.9 broker's `UnifiedLog.append` does
//!   (offsets, leader epoch, LogAppendTime, rolls, index entries, producer
//!   state, `.txnindex`, snapshots, epoch cache).
//! * [`logdir`]: [`logdir::LogDirWriter`] makes a whole log dir a KRaft
//!   broker accepts as its own: `meta.properties`, `bootstrap.checkpoint`,
//!   the metadata log with its topics, and what a clean shutdown leaves.

pub mod file;
pub mod logdir;
pub mod partition;
