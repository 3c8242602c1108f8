//! `logtool broker`: the `broker` crate run until SIGTERM/SIGINT.

use std::io::Write;

use crate::args::BrokerArgs;
use crate::exit::Status;

pub fn run(args: &BrokerArgs) -> anyhow::Result<Status> {
    let config = broker::Config {
        log_dir: args.log_dir.clone(),
        listen: args.listen,
        node_id: args.node_id,
        partitions: args.partitions,
        auto_create_topics: args.auto_create_topics,
        offsets_partitions: args.offsets_partitions,
        initial_rebalance_delay_ms: args.group_initial_rebalance_delay_ms,
        faults: args.fault.clone(),
        fault_file: args.fault_file.clone(),
    };
    broker::run(&config, |addr| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on {addr}");
        let _ = out.flush();
    })?;
    Ok(Status::Clean)
}
