//! What `logtool dump` asks of Kafka's rules, so that the command names no
//! rule itself: a partition's aborted transactions (from its `.txnindex`
//! files, as a `read_committed` fetch skips them) and why an offset range
//! holds no record of a partition.
//!
//! (The walk itself - files, batches, records, index entries - is still the
//! CLI's; issue 40 moves it here.)

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::limits::Limits;
use crate::partition::{LogDirCheckpoints, Partition};

pub use crate::rules::log::AbortedTransactions;

/// Every aborted transaction the `.txnindex` files (base offset, path) of
/// a partition list (`rules::log::aborted_transactions` over all offsets).
pub fn aborted_transactions(txn_indexes: &[(i64, PathBuf)], limits: &Limits) -> Result<AbortedTransactions> {
    crate::rules::log::aborted_transactions(txn_indexes, None, i64::MIN, i64::MAX, limits)
}

/// Why no record of partition `dir` is in `[start, end)`, when none is:
/// the range is empty or lies outside the log's offsets (`asked` says what
/// was asked: "no records in --offsets"...). `None`: some may be (or the
/// log's ends cannot be read; the dump says why then).
pub fn none_in_range(dir: &Path, (start, end): (i64, i64), asked: &str, limits: &Limits) -> Option<String> {
    let p = Partition::open_with(dir, &LogDirCheckpoints::default()).ok()?;
    let log_end = crate::rules::log::log_end_offset(&p, limits).ok()?;
    let log_start = p.first_base().unwrap_or(0);
    if start >= end {
        return Some(format!("{asked}: they resolve to no offset (log end {log_end})"));
    }
    if start >= log_end || end <= log_start {
        let holds = if log_end > log_start {
            format!("the log holds offsets {}", crate::report::offset_range(log_start, log_end.saturating_sub(1)))
        } else {
            "the log is empty".to_string()
        };
        return Some(format!("{asked}: {holds} (log end {log_end})"));
    }
    None
}
