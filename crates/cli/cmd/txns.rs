//! `logtool txns`: open transactions per partition (`logfmt::rules::producer`
//! at the log end), the last stable offset each holds back, the transaction
//! coordinator's view of each (`logfmt::rules::transactions`), and hanging
//! ones, decided as `kafka-transactions find-hanging` decides.

use std::collections::HashMap;
use std::io::{self, BufWriter};

use logfmt::internal::TRANSACTION_STATE_TOPIC;
use logfmt::partition::{Partition, open_log_dirs};
use logfmt::rules::log::Offsets;
use logfmt::rules::producer::ProducerState;
use logfmt::rules::transactions::{self, TxnMetadata};

use clap::Args;

use logfmt::report::{Report, Shown};
use serde::Serialize;

use crate::args::{GlobalOpts, LimitArgs, parse_time};
use crate::exit::Status;
use crate::output::{NoteLine, Output};
use crate::progress::Progress;
use std::path::PathBuf;

pub fn run(global: &GlobalOpts, args: &TxnsArgs) -> anyhow::Result<Status> {
    let limits = args.limits.limits();
    let mut out = Output::new(BufWriter::new(io::stdout().lock()), global.format);
    let as_of = args.at.unwrap_or_else(|| jiff::Timestamp::now().as_millisecond());
    let mut coordinator_parts: Vec<Partition> = Vec::new();
    let mut data: Vec<Partition> = Vec::new();
    for (_, parts) in open_log_dirs(&args.log_dirs, &limits)? {
        for p in parts {
            if p.name.topic == TRANSACTION_STATE_TOPIC {
                coordinator_parts.push(p);
            } else if !p.is_metadata_log() {
                data.push(p);
            }
        }
    }
    if let Some(want) = &args.partition {
        data.retain(|p| format!("{}-{}", p.name.topic, p.name.partition) == *want);
        if data.is_empty() {
            anyhow::bail!("no partition {want} in the log dirs");
        }
    }
    data.sort_by(|a, b| (&a.name.topic, a.name.partition).cmp(&(&b.name.topic, b.name.partition)));
    // the coordinator's log, then each data partition's producer state
    let total = coordinator_parts.iter().chain(&data).flat_map(|p| &p.segments).map(|s| s.size).sum();
    let progress = Progress::new(total, global.quiet);
    let coordinator = if coordinator_parts.is_empty() {
        None
    } else {
        Some(transactions::load_with_progress(&coordinator_parts, &limits, &mut |n| progress.inc(n))?)
    };
    // find-hanging looks a producer's transactional id up by producer id
    let by_producer: HashMap<i64, &TxnMetadata> =
        coordinator.iter().flat_map(|c| c.values()).map(|m| (m.producer_id, m)).collect();
    let (mut open, mut hanging) = (0usize, 0usize);
    for p in &data {
        let offsets = Offsets::of(p, &limits)?;
        let state = ProducerState::at(p, offsets.log_end, &limits)?;
        progress.inc(p.segments.iter().map(|s| s.size).sum());
        let txns: Vec<_> = state.open_transactions().collect();
        if !state.is_complete() {
            out.report(&NoteLine {
                file: &p.dir.display().to_string(),
                message: "no producer snapshot covers the start of this log: transactions opened before its first segment are not known".into(),
            })?;
        }
        if txns.is_empty() {
            continue;
        }
        let lso = offsets.last_stable_offset(&state);
        out.report(
            &(TxnPartitionLine {
                topic: p.name.topic.clone(),
                partition: p.name.partition,
                log_start_offset: offsets.log_start,
                high_watermark: offsets.high_watermark,
                log_end_offset: offsets.log_end,
                last_stable_offset: lso,
                held_back: offsets.high_watermark.saturating_sub(lso),
                open_transactions: txns.len(),
            }),
        )?;
        for (producer_id, t) in txns {
            open += 1;
            let age_ms = as_of.saturating_sub(t.last_timestamp);
            let meta = by_producer.get(&producer_id);
            let verdict = transactions::find_hanging(
                age_ms,
                args.max_timeout_ms,
                coordinator.is_some(),
                meta.copied(),
                &p.name.topic,
                p.name.partition,
            );
            let is_hanging = verdict.hanging;
            hanging += usize::from(is_hanging);
            out.report(
                &(OpenTxnLine {
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
                    hanging: is_hanging,
                    why: verdict.why,
                }),
            )?;
        }
    }
    progress.finish();
    out.report(
        &(TxnsSummaryLine {
            partitions: data.len(),
            open_transactions: open,
            hanging,
            as_of,
            coordinator_state: coordinator.is_some(),
        }),
    )?;
    out.finish()?;
    Ok(if hanging > 0 { Status::Problems } else { Status::Clean })
}

#[derive(Args, Debug)]
pub struct TxnsArgs {
    /// Log dirs: those holding the data partitions, and __transaction_state's.
    #[arg(required = true, value_name = "LOG_DIR")]
    pub log_dirs: Vec<PathBuf>,
    /// Only this partition (TOPIC-N).
    #[arg(long, value_name = "TOPIC-N")]
    pub partition: Option<String>,
    /// The broker's transaction.max.timeout.ms: an open transaction whose producer wrote
    /// nothing for longer may be hanging (kafka-transactions find-hanging's
    /// --max-transaction-timeout, 15 minutes by default).
    #[arg(long, value_name = "MS", default_value_t = 900_000)]
    pub max_timeout_ms: i64,
    /// Judge ages as of this time (default: now): epoch ms or an RFC 3339 date-time.
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub at: Option<i64>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Serialize)]
pub struct TxnPartitionLine {
    pub topic: String,
    pub partition: i32,
    pub log_start_offset: i64,
    pub high_watermark: i64,
    pub log_end_offset: i64,
    pub last_stable_offset: i64,
    pub held_back: i64,
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

#[derive(Serialize)]
pub struct OpenTxnLine {
    pub topic: String,
    pub partition: i32,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub first_offset: i64,
    pub last_timestamp: i64,
    pub age_ms: i64,
    pub transactional_id: Option<String>,
    pub coordinator_state: Option<String>,
    pub coordinator_expects_marker: Option<bool>,
    pub hanging: bool,
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
                crate::output::fmt_time(t.last_timestamp),
                logfmt::report::human_duration(t.age_ms),
                t.transactional_id.clone().unwrap_or_else(|| "-".into()),
                t.coordinator_state.clone().unwrap_or_else(|| "-".into()),
                if t.hanging { format!("YES: {}", t.why) } else { format!("no: {}", t.why) },
            ],
        )
    }
}

#[derive(Serialize)]
pub struct TxnsSummaryLine {
    pub partitions: usize,
    pub open_transactions: usize,
    pub hanging: usize,
    pub as_of: i64,
    pub coordinator_state: bool,
}

impl Report for TxnsSummaryLine {
    const TYPE: &'static str = "summary";

    fn show(&self) -> Shown {
        let s = self;
        Shown::Text(format!(
            "\n{} partition(s) checked as of {}: {} open transaction(s), {} hanging{}",
            s.partitions,
            crate::output::fmt_time(s.as_of),
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
