//! `logtool txns`: open transactions per partition (`logrules::producer`
//! at the log end), the last stable offset each holds back, the transaction
//! coordinator's view of each (`logrules::transactions`), and hanging
//! ones, decided as `kafka-transactions find-hanging` decides.

use std::io::{self, BufWriter};

use inspect::txns::TRANSACTION_STATE_TOPIC;
use inspect::txns::{Coordinator, INCOMPLETE, TxnsSummaryLine, partition_txns};
use logfmt::partition::{Partition, open_log_dirs};

use clap::Args;

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
    // a partition dir is answered for as its log dir answers for it
    let given = logfmt::logdir::log_dirs_of(&args.log_dirs, "the transaction coordinator's state is there")?;
    for (_, parts) in open_log_dirs(&given.log_dirs, &limits)? {
        for p in parts {
            if p.name.topic == TRANSACTION_STATE_TOPIC {
                coordinator_parts.push(p);
            } else if !p.is_metadata_log() {
                data.push(p);
            }
        }
    }
    let wanted: Vec<&String> = args.partition.iter().chain(&given.partitions).collect();
    if !wanted.is_empty() {
        data.retain(|p| wanted.iter().any(|w| format!("{}-{}", p.name.topic, p.name.partition) == **w));
        if data.is_empty() {
            let names: Vec<&str> = wanted.iter().map(|w| w.as_str()).collect();
            anyhow::bail!(
                "no data partition {} in the log dirs: txns answers for data partitions (the transaction \
                 coordinator's own partitions hold its state, read from the log dir); give the log dir, or a \
                 data partition dir in it",
                names.join(", ")
            );
        }
    }
    data.sort_by(|a, b| (&a.name.topic, a.name.partition).cmp(&(&b.name.topic, b.name.partition)));
    // the coordinator's log, then each data partition's producer state
    let total = coordinator_parts.iter().chain(&data).flat_map(|p| &p.segments).map(|s| s.size).sum();
    let progress = Progress::new(total, global.quiet);
    let coordinator = if coordinator_parts.is_empty() {
        None
    } else {
        Some(inspect::txns::load_coordinator(&coordinator_parts, &limits, &mut |n| progress.inc(n))?)
    };
    let coordinator_view = Coordinator::new(coordinator.as_ref());
    let (mut open, mut hanging) = (0usize, 0usize);
    for p in &data {
        let txns = partition_txns(p, &limits, &coordinator_view, as_of, args.max_timeout_ms)?;
        progress.inc(p.segments.iter().map(|s| s.size).sum());
        if txns.incomplete {
            out.report(&NoteLine { file: &p.dir.display().to_string(), message: INCOMPLETE.into() })?;
        }
        if let Some(line) = &txns.partition {
            out.report(line)?;
        }
        for t in &txns.open {
            open += 1;
            hanging += usize::from(t.hanging);
            out.report(t)?;
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
    /// Log dirs: those holding the data partitions, and __transaction_state's
    /// (a partition dir in a log dir: that partition, as its log dir answers).
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
