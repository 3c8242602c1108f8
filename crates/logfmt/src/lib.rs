//! `logfmt` reads every file of an Apache Kafka log directory, exactly as the
//! broker writes it, and never panics on what it finds.
//!
//! Files come from crashed disks, so every reader here:
//!
//! * checks every length against the bytes left and against a named ceiling
//!   ([`Limits`]) before using or allocating it;
//! * reports problems as an [`Error`] carrying the file, the absolute byte
//!   position, and whether the data is *truncated* (ends early, "needed N more
//!   bytes") or *corrupt*;
//! * streams: a 1 GiB segment is read one batch at a time ([`log::LogReader`]),
//!   and a batch's records are decoded from the decompressor as they come
//!   ([`batch::Records`]); every buffer whose size follows the data takes its
//!   bytes from one process-wide [`budget::Budget`] (`--memory`).
//!
//! Field and type names follow Kafka's Java classes (`base_offset`,
//! `last_offset_delta`, `partition_leader_epoch`, ...). The byte layouts live
//! in [`spec`]; `docs/formats.md` in the repository describes them with their
//! sources.
//!
//! | File | Module |
//! |---|---|
//! | `.log`, KRaft `.checkpoint` | [`log`] ([`batch`] v2, [`legacy`] v0/v1, [`control`], [`compression`]) |
//! | `.index`, `.timeindex`, `.txnindex` | [`index`] |
//! | `.snapshot` (producer state) | [`snapshot`] |
//! | offset checkpoints, `leader-epoch-checkpoint` | [`checkpoint`] |
//! | `meta.properties`, `partition.metadata` | [`properties`] |
//! | file and directory names | [`naming`], [`logdir`] |
//! | topic configs (KRaft metadata log) | [`metadata`] |
//! | ZooKeeper's data dir (`version-2/` snapshots and transaction logs: a ZooKeeper-mode cluster's topic configs) | [`zookeeper`] |
//! | a partition dir with its log dir's checkpoints | [`partition`] |
//! | the header-sanity invariants a reader needs | [`sanity`] |
//! | the log dir's `.lock` (who holds it) | [`lock`] |
//! | logtool's repair journals (how far a repair got) | [`journal`] |
//! | encoding: record batches, the bytes of the small files | [`builder`], [`emit`] |
//!
//! Kafka's rules (what a broker has on disk, or does, given these files)
//! are the `logrules` crate, over this one.
//!
//! Writing files (partitions, log dirs) and repairs live in the `logwrite`
//! crate, which depends on this one: nothing here can name them, so reading
//! never writes.
//!
//! ```no_run
//! use logfmt::log::{Entry, Item, LogReader};
//! let mut reader = LogReader::open("00000000000000000000.log".as_ref(), logfmt::Limits::default())?;
//! while let Some(item) = reader.next_item()? {
//!     match item {
//!         Item::Entry(Entry::V2(batch)) => println!("{} crc ok: {}", batch.header().base_offset, batch.is_valid()),
//!         Item::Entry(Entry::Legacy(message)) => println!("legacy message at {}", message.offset),
//!         Item::Damage(d) => println!("bad bytes [{}, {}): {}", d.start, d.end, d.error),
//!     }
//! }
//! # Ok::<(), logfmt::Error>(())
//! ```
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

// The modules, as the table above groups them. What they all use: the
// memory budget, the ceilings on every length read, Kafka's murmur2, the
// CRC-32C, page-cache and live-broker helpers, and the lines commands print
// (budget, limits, hash, crc, live, report). Kafka's rules over them are the `logrules`
// crate, the commands the `inspect` crate.
pub mod batch;
pub mod budget;
pub mod builder;
pub mod checkpoint;
pub mod compression;
pub mod control;
pub mod crc;
pub mod cursor;
pub mod emit;
pub mod error;
pub mod hash;
pub mod index;
pub mod journal;
pub mod legacy;
pub mod limits;
pub mod live;
pub mod lock;
pub mod log;
pub mod logdir;
pub mod metadata;
pub mod naming;
pub mod partition;
pub mod properties;
pub mod report;
pub mod sanity;
pub mod snapshot;
pub mod spec;
pub mod uuid;
pub mod zookeeper;

pub use error::{Error, ErrorClass, ErrorKind, Result};
pub use limits::Limits;

use std::io::Read;
use std::path::Path;

/// Read a whole (small) file, refusing files larger than `limit` before
/// allocating.
pub fn read_bounded(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(e, Some(path)))?;
    let len = f.metadata().map_err(|e| Error::io(e, Some(path)))?.len();
    if len > limit {
        return Err(Error::at(
            0,
            ErrorKind::BadLength {
                what,
                value: i64::try_from(len).unwrap_or(i64::MAX),
                min: 0,
                max: i64::try_from(limit).unwrap_or(i64::MAX),
            },
        )
        .with_path(path));
    }
    let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    f.take(limit).read_to_end(&mut out).map_err(|e| Error::io(e, Some(path)))?;
    Ok(out)
}
