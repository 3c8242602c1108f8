//! `logtool broker`: the `broker` crate run until SIGTERM/SIGINT.

use std::io::Write;

use clap::Args;

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

use crate::args::{ColorWhen, Format, GlobalOpts, parse_size};
use crate::exit::Status;

pub fn run(global: &GlobalOpts, args: &BrokerArgs) -> anyhow::Result<Status> {
    let config = broker::Config {
        log_dir: args.log_dir.clone(),
        listen: args.listen,
        node_id: args.node_id,
        partitions: args.partitions,
        auto_create_topics: args.auto_create_topics,
        offsets_partitions: args.offsets_partitions,
        transaction_partitions: args.transaction_partitions,
        initial_rebalance_delay_ms: args.group_initial_rebalance_delay_ms,
        kafka_version: args.kafka_version,
        faults: args.fault.clone(),
        fault_file: args.fault_file.clone(),
        keep_recoveries: args.keep_recoveries,
    };
    let json = global.format == Format::Json;
    let dir = args.log_dir.display().to_string();
    broker::run(&config, |addr| {
        let mut out = std::io::stdout().lock();
        let _ = if json {
            let event = serde_json::json!({"type": "listening", "address": addr.to_string(), "log_dir": dir});
            writeln!(out, "{event}")
        } else {
            writeln!(out, "listening on {addr}")
        };
        let _ = out.flush();
    })?;
    let mut out = std::io::stdout().lock();
    let _ = if json {
        writeln!(out, "{}", serde_json::json!({"type": "stopped", "log_dir": dir, "clean_shutdown": true}))
    } else {
        writeln!(out, "stopped: {dir} shut down cleanly")
    };
    Ok(Status::Clean)
}

/// `--listen`: HOST:PORT where HOST is an address or a name (`localhost`)
/// that resolves to a loopback address (the first one it resolves to).
fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    if !s.contains(':') {
        return Err(format!("{s:?}: give HOST:PORT, e.g. 127.0.0.1:9092 or localhost:0"));
    }
    let all: Vec<SocketAddr> = s.to_socket_addrs().map_err(|e| format!("{s:?}: {e}"))?.collect();
    all.iter()
        .find(|a| a.is_ipv4() && a.ip().is_loopback())
        .or_else(|| all.iter().find(|a| a.ip().is_loopback()))
        .copied()
        .ok_or_else(|| format!("{s:?} resolves to no loopback address (logtool broker listens on loopback only)"))
}

#[derive(Args, Debug)]
pub struct BrokerArgs {
    /// The log dir: new or empty, or one this broker or a single-node Kafka 3.9 (node 1) left.
    #[arg(long, value_name = "DIR")]
    pub log_dir: PathBuf,
    /// Where to listen: loopback only; port 0 picks a free one.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:9092", value_parser = parse_listen)]
    pub listen: SocketAddr,
    /// node.id (1: the broker is the controller of its static quorum).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub node_id: i32,
    /// num.partitions: partitions of auto-created topics and of CreateTopics without a count.
    #[arg(long, value_name = "N", default_value_t = broker::defaults::NUM_PARTITIONS, value_parser = crate::args::parse_partitions)]
    pub partitions: i32,
    /// auto.create.topics.enable: Metadata requests create the topics they name.
    #[arg(long)]
    pub auto_create_topics: bool,
    /// offsets.topic.num.partitions: __consumer_offsets' partitions, made when a group first
    /// needs them.
    #[arg(long, value_name = "N", default_value_t = broker::defaults::OFFSETS_TOPIC_PARTITIONS, value_parser = crate::args::parse_partitions)]
    pub offsets_partitions: i32,
    /// transaction.state.log.num.partitions: __transaction_state's partitions, made when a
    /// transactional id first needs them.
    #[arg(long, value_name = "N", default_value_t = broker::TRANSACTION_PARTITIONS, value_parser = crate::args::parse_partitions)]
    pub transaction_partitions: i32,
    /// group.initial.rebalance.delay.ms: how long a new group's first rebalance waits for
    /// more members.
    #[arg(long, value_name = "MS", default_value_t = broker::defaults::GROUP_INITIAL_REBALANCE_DELAY_MS)]
    pub group_initial_rebalance_delay_ms: u64,
    /// A fault rule, API:ACTION[:WHEN] (repeatable): e.g. produce:NOT_LEADER_OR_FOLLOWER:every=5,
    /// fetch:drop:nth=3, *:delay=200:fraction=0.1 (GUIDE.md, "Broker mode").
    #[arg(long, value_name = "RULE")]
    pub fault: Vec<String>,
    /// A new log dir's cluster is this Kafka release: 3.9 (3.9.1, the default), 4.3
    /// (4.3.1) or 4.4 (4.4.0): its metadata.version and the features it finalizes, so
    /// 4.x clients use transaction version 2 (an epoch bump per transaction, partitions
    /// added by Produce). A log dir opened again stays what it is.
    #[arg(long, value_name = "VERSION", value_parser = crate::cmd::verify::parse_writable_version, default_value = "3.9")]
    pub kafka_version: inspect::KafkaVersion,
    /// A file of fault rules, one per line, re-read whenever it changes.
    #[arg(long, value_name = "FILE")]
    pub fault_file: Option<PathBuf>,
    /// Keep the quarantines of this many start recoveries (after an unclean shutdown),
    /// for `logtool undo`; older ones are purged when another is made.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub keep_recoveries: usize,
    // The global options the broker has no use for, taken (so a command
    // line that gives them still runs) but not offered in its help.
    #[arg(long = "color", id = "color", value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto, hide = true)]
    _color: ColorWhen,
    #[arg(short, long = "quiet", id = "quiet", hide = true)]
    _quiet: bool,
    #[arg(long = "max-rate", id = "max_rate", value_name = "N", value_parser = parse_size, hide = true)]
    _max_rate: Option<u64>,
}
