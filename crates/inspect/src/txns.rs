//! What `logtool txns` reports, built here so the command only prints it:
//! each partition's open transactions (`rules::producer` at the log end),
//! the last stable offset they hold back (`rules::log::Offsets`), the
//! transaction coordinator's view of each (`rules::transactions`), and the
//! find-hanging verdict (`rules::transactions::find_hanging`).

/// The transaction coordinator's state loaded from `__transaction_state`
/// (`rules::transactions::load_with_progress`).
pub use logrules::transactions::load_with_progress as load_coordinator;

/// The transaction coordinator's topic.
pub use logrules::internal::TRANSACTION_STATE_TOPIC;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use logfmt::error::Result;
use logfmt::limits::Limits;
use logfmt::partition::Partition;
use logfmt::report::{Report, Shown};
use logrules::log::Offsets;
use logrules::producer::ProducerState;
use logrules::transactions::{self, TxnMetadata};

/// The transaction coordinator's state as loaded from `__transaction_state`
/// (none when no partition of it was given), looked up by producer id as
/// find-hanging does.
pub struct Coordinator<'a> {
    loaded: bool,
    by_producer: HashMap<i64, &'a TxnMetadata>,
}

impl<'a> Coordinator<'a> {
    /// The coordinator of `state` (by transactional id), if it was loaded.
    pub fn new(state: Option<&'a BTreeMap<String, TxnMetadata>>) -> Coordinator<'a> {
        let by_producer = state.iter().flat_map(|c| c.values()).map(|m| (m.producer_id, m)).collect();
        Coordinator { loaded: state.is_some(), by_producer }
    }
}

/// One data partition's transactions.
pub struct PartitionTxns {
    /// No producer snapshot covers the start of the log: transactions
    /// opened before its first segment are not known.
    pub incomplete: bool,
    /// The partition's line, when it has open transactions.
    pub partition: Option<TxnPartitionLine>,
    /// Its open transactions.
    pub open: Vec<OpenTxnLine>,
}

/// What [`PartitionTxns::incomplete`] means, in words.
pub const INCOMPLETE: &str =
    "no producer snapshot covers the start of this log: transactions opened before its first segment are not known";

/// The open transactions of `p` at its log end, judged as of `as_of` with
/// the broker's `transaction.max.timeout.ms`.
pub fn partition_txns(
    p: &Partition,
    limits: &Limits,
    coordinator: &Coordinator<'_>,
    as_of: i64,
    max_timeout_ms: i64,
) -> Result<PartitionTxns> {
    let offsets = Offsets::of(p, limits)?;
    let state = ProducerState::at(p, offsets.log_end, limits)?;
    let txns: Vec<_> = state.open_transactions().collect();
    let mut out = PartitionTxns { incomplete: !state.is_complete(), partition: None, open: Vec::new() };
    if txns.is_empty() {
        return Ok(out);
    }
    let lso = offsets.last_stable_offset(&state);
    out.partition = Some(TxnPartitionLine {
        topic: p.name.topic.clone(),
        partition: p.name.partition,
        log_start_offset: offsets.log_start,
        high_watermark: offsets.high_watermark,
        log_end_offset: offsets.log_end,
        last_stable_offset: lso,
        held_back: offsets.high_watermark.saturating_sub(lso),
        open_transactions: txns.len(),
    });
    for (producer_id, t) in txns {
        let age_ms = as_of.saturating_sub(t.last_timestamp);
        let meta = coordinator.by_producer.get(&producer_id).copied();
        let verdict = transactions::find_hanging(
            age_ms,
            max_timeout_ms,
            coordinator.loaded,
            meta,
            &p.name.topic,
            p.name.partition,
        );
        out.open.push(OpenTxnLine {
            topic: p.name.topic.clone(),
            partition: p.name.partition,
            producer_id,
            producer_epoch: t.producer_epoch,
            first_offset: t.first_offset,
            last_timestamp: t.last_timestamp,
            age_ms,
            transactional_id: meta.map(|m| m.transactional_id.clone()),
            coordinator_state: meta.map(|m| m.state_name().to_string()),
            coordinator_expects_marker: verdict.coordinator_expects_marker,
            hanging: verdict.hanging,
            why: verdict.why,
        });
    }
    Ok(out)
}

/// A partition with open transactions (`txn_partition`).
#[derive(Serialize)]
pub struct TxnPartitionLine {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The log start offset.
    pub log_start_offset: i64,
    /// The high watermark (the log end without a checkpoint).
    pub high_watermark: i64,
    /// The log end offset.
    pub log_end_offset: i64,
    /// The last stable offset (capped by the high watermark).
    pub last_stable_offset: i64,
    /// Offsets between the LSO and the high watermark: what read_committed consumers cannot read yet.
    pub held_back: i64,
    /// Open transactions.
    pub open_transactions: usize,
}

impl Report for TxnPartitionLine {
    const TYPE: &'static str = "txn_partition";

    fn show(&self) -> Shown {
        let t = self;
        Shown::Row(
            &["PARTITION", "LOG START", "HW", "LOG END", "LSO", "HELD BACK", "OPEN TXNS"],
            vec![
                format!("{}-{}", t.topic, t.partition),
                t.log_start_offset.to_string(),
                t.high_watermark.to_string(),
                t.log_end_offset.to_string(),
                t.last_stable_offset.to_string(),
                t.held_back.to_string(),
                t.open_transactions.to_string(),
            ],
        )
    }
}

/// One open transaction and the find-hanging verdict (`open_transaction`).
#[derive(Serialize)]
pub struct OpenTxnLine {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// Producer id.
    pub producer_id: i64,
    /// Producer epoch.
    pub producer_epoch: i16,
    /// The transaction's first offset in this partition.
    pub first_offset: i64,
    /// The max timestamp of its last batch here.
    pub last_timestamp: i64,
    /// Since that timestamp, as of the report's time.
    pub age_ms: i64,
    /// Its transactional id (from `__transaction_state`).
    pub transactional_id: Option<String>,
    /// The coordinator's state of that id.
    pub coordinator_state: Option<String>,
    /// Whether the coordinator will still write its marker.
    pub coordinator_expects_marker: Option<bool>,
    /// Hanging, as `kafka-transactions find-hanging` decides.
    pub hanging: bool,
    /// Why (or why not).
    pub why: String,
}

impl Report for OpenTxnLine {
    const TYPE: &'static str = "open_transaction";

    fn show(&self) -> Shown {
        let t = self;
        Shown::Row(
            &[
                "PARTITION",
                "PRODUCER",
                "EPOCH",
                "FIRST OFFSET",
                "LAST BATCH",
                "AGE",
                "TRANSACTIONAL ID",
                "COORDINATOR",
                "HANGING",
            ],
            vec![
                format!("{}-{}", t.topic, t.partition),
                t.producer_id.to_string(),
                t.producer_epoch.to_string(),
                t.first_offset.to_string(),
                logfmt::report::time_text(t.last_timestamp),
                logfmt::report::human_duration(t.age_ms),
                t.transactional_id.clone().unwrap_or_else(|| "-".into()),
                t.coordinator_state.clone().unwrap_or_else(|| "-".into()),
                if t.hanging { format!("YES: {}", t.why) } else { format!("no: {}", t.why) },
            ],
        )
    }
}

/// What was checked (`summary`).
#[derive(Serialize)]
pub struct TxnsSummaryLine {
    /// Data partitions checked.
    pub partitions: usize,
    /// Open transactions.
    pub open_transactions: usize,
    /// Hanging transactions.
    pub hanging: usize,
    /// The time ages are judged at.
    pub as_of: i64,
    /// Whether a `__transaction_state` partition was read.
    pub coordinator_state: bool,
}

impl Report for TxnsSummaryLine {
    const TYPE: &'static str = "summary";

    fn show(&self) -> Shown {
        let s = self;
        Shown::Text(format!(
            "\n{} partition(s) checked as of {}: {} open transaction(s), {} hanging{}",
            s.partitions,
            logfmt::report::time_text(s.as_of),
            s.open_transactions,
            s.hanging,
            if s.coordinator_state {
                ""
            } else {
                " (no __transaction_state partition here: transactional ids unknown)"
            }
        ))
    }
}
