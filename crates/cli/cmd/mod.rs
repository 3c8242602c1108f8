//! One module per subcommand, and [`Command`], the list of them. Each takes
//! its typed options and the global ones, writes lines through
//! [`crate::output::Output`], and returns a [`Status`]. A new command is its
//! module plus its variant and match arm here (ARCHITECTURE.md, "Adding a
//! command"); `stats` owns its clap arguments and its report types.

mod broker;
mod dump;
mod fixture;
mod groups;
mod offsets;
mod partition_of;
mod quarantine;
mod repair;
mod replicas;
mod stats;
mod txns;
mod verify;

use clap::{Parser, Subcommand};

use crate::args::*;
use crate::exit::Status;

/// `logtool --version`: the release and the Kafka versions whose files it
/// was checked against (the fixtures and the interop suite).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (log dirs checked against Apache Kafka 3.9.1, read and written, and 4.3.1, read; message format v2, v0/v1 read)"
);

/// Inspect and repair Apache Kafka's on-disk log data.
///
/// Exit codes: 0 clean, 1 problems found in the data, 2 usage or I/O error.
#[derive(Parser, Debug)]
#[command(
    name = "logtool",
    version = VERSION,
    max_term_width = 100,
    propagate_version = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalOpts,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the contents of log files, partition dirs or whole log dirs.
    ///
    /// PATH may be any file of a Kafka log dir (segment .log, .index, .timeindex,
    /// .txnindex, producer .snapshot, KRaft .checkpoint, the offset checkpoints,
    /// leader-epoch-checkpoint, partition.metadata, meta.properties, quorum-state),
    /// a partition directory, or a log dir (walked in the order described in
    /// docs/json.md). Damaged bytes are reported with their position and the dump
    /// goes on. Exit code 1 when any damage (bad CRC, corrupt or truncated bytes)
    /// was found.
    Dump(dump::DumpArgs),
    /// Find every problem in log dirs, partitions or files, after a crash or any time.
    ///
    /// Checks batches (CRC, framing, offsets, record decoding, timestamps, producer
    /// sequences), torn tails versus corruption (every bad range reported), segment
    /// continuity and leftovers, the offset/time/transaction indexes against the log,
    /// and the checkpoints (high watermark, recovery point, log start, leader epochs,
    /// producer snapshots, partition.metadata) against the log end. Read-only, also
    /// when a live broker holds the log dir (it says so). Partitions are checked in
    /// parallel. Exit code 1 when a finding is at or above --fail-on.
    Verify(verify::VerifyArgs),
    /// What partitions hold: sizes, batches, codecs, producers, keys, time, and what
    /// retention or compaction would reclaim, with charts.
    ///
    /// Per partition and in total: records, batches and bytes; batch sizes and records
    /// per batch (log2 histograms); compression ratio per codec; the top producers by
    /// bytes; distinct keys (a HyperLogLog estimate); null keys, tombstones, headers; the
    /// timestamp range and records whose timestamp goes backwards in append order;
    /// control records and aborted transactions; and what retention (the topic's
    /// retention.ms / retention.bytes from the metadata log) or compaction would remove
    /// now. Tables show histograms and a records-over-time sparkline; --chart writes a
    /// PNG or SVG for an incident report. Read-only.
    Stats(stats::StatsArgs),
    /// The offset for a time, from the files: Kafka's ListOffsets answer, offline.
    ///
    /// For each TIME, what a broker answers a read_uncommitted client: the first offset
    /// whose record's timestamp is at or after TIME (none when no record qualifies);
    /// earliest = the log start offset; latest = the high watermark from
    /// replication-offset-checkpoint (the log end offset when none is checkpointed);
    /// max-timestamp = the first record with the largest timestamp; earliest-local and
    /// latest-tiered as a broker without remote storage answers them (tiered storage is
    /// not read yet). Answers at or above
    /// the high watermark are none, as for a live broker. Uses the time and offset
    /// indexes to read only where the answer is. Exit code 1 when a query has no answer.
    OffsetForTime(offsets::OffsetForTimeArgs),
    /// Consumer groups from __consumer_offsets: committed offsets, state, members, lag.
    ///
    /// Replays every __consumer_offsets partition in the log dirs as the group coordinator
    /// loads it (last commit wins; tombstones of deleted groups and expired offsets remove;
    /// transactional commits count once their transaction commits). The lag is measured
    /// against each partition's high watermark and log end when the partition is in one of
    /// the log dirs (kafka-consumer-groups --describe's LOG-END-OFFSET is the high watermark).
    Groups(groups::GroupsArgs),
    /// Open transactions, the last stable offsets they hold back, and hanging ones.
    ///
    /// For each partition: its open transactions (producer id and epoch, first offset, the
    /// time of the producer's last batch), its last stable offset (where read_committed
    /// consumers stop) and how far it lags the high watermark. With __transaction_state in
    /// the log dirs, the transactional id and its coordinator state. A transaction is hanging
    /// as kafka-transactions find-hanging decides: older than --max-timeout-ms and not one the
    /// coordinator will still write a marker for. Exit code 1 when one hangs.
    Txns(txns::TxnsArgs),
    /// Compare replicas of one partition: divergence, and what Kafka will truncate.
    ///
    /// Each REPLICA is a partition dir (copied from a broker, ideally with its log dir's
    /// checkpoints around it) or a digest written by `logtool digest`. Batches are
    /// compared by offsets, leader epoch, CRC and size in one pass; the leader (the
    /// highest latest leader epoch, or --leader) is compared with each follower; Kafka's
    /// leader-epoch truncation (KIP-101/279) is replayed from the epoch caches to say
    /// where each follower will be truncated and which records it loses. Exit code 1
    /// when the replicas diverged.
    DiffReplicas(replicas::DiffReplicasArgs),
    /// Write a compact fingerprint of a replica, for diff-replicas on another host.
    ///
    /// Per batch: offsets, leader epoch, CRC, size, record count, timestamps; plus the
    /// leader-epoch checkpoint, log start and end and high watermark. Format:
    /// docs/digest.md (versioned, zstd-compressed: a 1 GiB replica takes well under 1 MiB).
    Digest(replicas::DigestArgs),
    /// Recover a log dir or partition as Kafka's recovery would after an unclean shutdown.
    ///
    /// For every partition, the segments from the one holding its recovery point
    /// (recovery-point-offset-checkpoint) to the last are read batch by batch; the log
    /// is cut at the first batch Kafka rejects, later segments are removed, indexes are
    /// rebuilt (with the topic's index.interval.bytes from the log dir's metadata log),
    /// leader epochs and producer snapshots past the new end are dropped, and checkpoints
    /// above it are lowered. After a clean shutdown only the metadata log and segments
    /// without an index are recovered, as by Kafka; --all recovers every segment.
    ///
    /// Prints the plan and changes nothing unless --execute is given.
    Recover(repair::RecoverArgs),
    /// Cut each partition to its high watermark (replication-offset-checkpoint).
    ///
    /// Shows first what would be lost: records, offsets, leader epochs, time range;
    /// warns when the records above the high watermark were written in the latest
    /// leader epoch (they may have been acknowledged: KIP-101).
    /// Prints the plan and changes nothing unless --execute is given.
    TruncateToHw(repair::TruncateToHwArgs),
    /// Cut a partition at an offset, as Kafka's UnifiedLog.truncateTo does.
    ///
    /// Records at and after --to are removed: segments starting above it go; the
    /// segment holding it is cut before the first batch reaching it (a batch
    /// straddling the offset goes whole: Kafka never splits a batch); its indexes keep
    /// their entries below it. Leader epochs starting at or after the new end, producer
    /// snapshots past it and checkpoint values above it (high watermark, recovery
    /// point, cleaner offset) come down with it. Below the first segment, every segment
    /// goes and an empty one starts at --to. The plan first shows what is lost
    /// (records, offsets, leader epochs, time range) and warns when those records
    /// carry the latest leader epoch (they may have been acknowledged). Removed bytes
    /// go to the quarantine: `logtool undo` puts them back.
    ///
    /// Prints the plan and changes nothing unless --execute is given.
    Truncate(repair::TruncateArgs),
    /// Rebuild .index, .timeindex and .txnindex files exactly as Kafka rebuilds them.
    ///
    /// The index interval is the topic's index.interval.bytes, read from the log dir's
    /// KRaft metadata log (__cluster_metadata-0); the output says which value was used
    /// and where it came from. Plan only, unless --execute.
    Reindex(repair::ReindexArgs),
    /// Delete old segments as Kafka's retention does, or move the log start offset.
    ///
    /// Whole segments go, oldest first; the active segment stays. Plan only, unless
    /// --execute.
    Retain(repair::RetainArgs),
    /// Clean compacted partitions offline, as one pass of Kafka's log cleaner would.
    ///
    /// For each partition whose topic's cleanup.policy has compact (read from the log
    /// dir's metadata log; __consumer_offsets and __transaction_state always): from the
    /// cleaner checkpoint to the first uncleanable offset (active segment, last stable
    /// offset, min.compaction.lag.ms), the latest record of each key stays, tombstones
    /// until their delete horizon, aborted transactions' records go, and the segments
    /// are regrouped as Kafka's cleaner groups them. Memory: the key map takes
    /// --dedupe-buffer (as log.cleaner.dedupe.buffer.size); keys that do not fit are
    /// left to the next pass, as Kafka does. Plan only, unless --execute; removed files
    /// go to the quarantine (`logtool undo`).
    Compact(repair::CompactArgs),
    /// Put back what a repair changed, from its quarantine.
    ///
    /// Without --id, the latest repair of the log dir. Plan only, unless --execute.
    Undo(repair::UndoArgs),
    /// List what repairs keep in a log dir's quarantine (for undo), and free that space.
    ///
    /// Repairs move what they remove into <log dir>.logtool-quarantine on the same
    /// filesystem (unless given --quarantine on another), so a repair alone frees no
    /// space: this lists each repair with its size
    /// and age; --purge ID|all or --older-than AGE plans deleting them and says how much
    /// that frees, and --execute deletes them for good (they cannot be undone after). A
    /// repair that stopped part way is never purged.
    Quarantine(quarantine::QuarantineArgs),
    /// Write a Kafka log dir from a spec: topics, records, transactions, crashes, replicas.
    ///
    /// SPEC is a TOML file (schema: docs/fixture-spec.md) or the name of a shipped spec
    /// (--list). The log dir is written as a Kafka 3.9.1 broker writes it, KRaft metadata log
    /// included, so a real Kafka starts on it (node id and cluster id in its meta.properties).
    /// With replicas, OUT holds one log dir per broker: node-1, node-2, ... The same spec and
    /// seed give the same bytes.
    Fixture(fixture::FixtureArgs),
    /// A minimal Kafka broker on loopback that Kafka clients produce to and fetch from.
    ///
    /// Writes a new log dir as a Kafka 3.9 broker does (through logtool's writer): stop it
    /// with SIGTERM or Ctrl-C and a real Kafka 3.9.1 starts on the dir and serves what was
    /// produced. Started on a dir it or a single-node Kafka left, it serves it again (after
    /// recovering it, quarantined, if it was not shut down cleanly). Prints "listening on
    /// HOST:PORT" once it accepts connections. Implemented: topics (create, delete, more
    /// partitions, configs), Produce (idempotent producers), Fetch (sessions, isolation
    /// levels), ListOffsets, DeleteRecords, consumer groups (classic protocol, offsets in
    /// __consumer_offsets), transactions (a transaction coordinator; GUIDE.md).
    Broker(broker::BrokerArgs),
    /// Which partition Kafka's default partitioner puts a key in.
    ///
    /// The Java producer's partitioner for a record with a key and no partition of its
    /// own: murmur2 of the key's bytes, made positive, modulo the partition count
    /// (BuiltInPartitioner.partitionForKey). So "where is key K?" is `logtool dump
    /// --deep --key K <topic>-<this partition>`. Keys are taken as UTF-8 text, or as hex
    /// with --hex (what a key serializer wrote).
    PartitionOf(partition_of::PartitionOfArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// For example: `logtool completions bash > /etc/bash_completion.d/logtool`.
    Completions(CompletionsArgs),
    /// Write logtool's man pages (logtool.1 and one per command) into a directory.
    Man(ManArgs),
    /// Print the help of logtool, or of a command: `logtool help dump`.
    Help(HelpArgs),
}

/// `logtool help [COMMAND...]`: the long help of logtool or of a command;
/// with `--format json`, the command and its arguments as one object.
fn help(global: &GlobalOpts, path: &[String]) -> anyhow::Result<Status> {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    cmd.build();
    let mut at = &mut cmd;
    let mut name = vec!["logtool".to_string()];
    for sub in path {
        at = match at.find_subcommand_mut(sub) {
            Some(c) => c,
            None => anyhow::bail!("no command {sub:?}: `logtool --help` lists them"),
        };
        name.push(sub.clone());
    }
    if global.format == crate::args::Format::Table {
        at.print_long_help()?;
        return Ok(Status::Clean);
    }
    let text = |s: Option<&clap::builder::StyledStr>| s.map(|s| s.to_string());
    let args: Vec<serde_json::Value> = at
        .get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help" && a.get_id() != "version")
        .map(|a| {
            serde_json::json!({
                "id": a.get_id().as_str(),
                "long": a.get_long().map(|l| format!("--{l}")),
                "short": a.get_short().map(|c| format!("-{c}")),
                "value_names": a.get_value_names().map(|v| v.iter().map(|n| n.as_str()).collect::<Vec<_>>()),
                "positional": a.is_positional(),
                "required": a.is_required_set(),
                "global": a.is_global_set(),
                "help": text(a.get_long_help().or(a.get_help())),
                "default": a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect::<Vec<_>>(),
                "possible_values": a.get_possible_values().iter().filter(|v| !v.is_hide_set()).map(|v| v.get_name()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let line = serde_json::json!({
        "type": "help",
        "command": name.join(" "),
        "about": text(at.get_about()),
        "long_about": text(at.get_long_about()),
        "usage": at.render_usage().to_string(),
        "arguments": args,
        "subcommands": at.get_subcommands().map(|c| c.get_name()).collect::<Vec<_>>(),
    });
    println!("{line}");
    Ok(Status::Clean)
}

pub fn run(cli: Cli) -> anyhow::Result<Status> {
    crate::output::set_color(cli.global.color.resolve());
    logfmt::live::set_max_rate(cli.global.max_rate);
    match cli.command {
        Command::PartitionOf(args) => partition_of::run(&cli.global, &args),
        Command::Completions(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "logtool", &mut std::io::stdout());
            Ok(Status::Clean)
        }
        Command::Man(args) => {
            std::fs::create_dir_all(&args.out)?;
            clap_mangen::generate_to(<Cli as clap::CommandFactory>::command(), &args.out)?;
            let pages = std::fs::read_dir(&args.out)?
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".1"))
                .count();
            if !cli.global.quiet {
                println!(
                    "wrote {pages} man page(s) to {} (read one with: man {}/logtool.1)",
                    args.out.display(),
                    args.out.display()
                );
            }
            Ok(Status::Clean)
        }
        Command::Help(args) => help(&cli.global, &args.command),
        Command::Dump(args) => dump::run(&cli.global, &args),
        Command::Verify(args) => verify::run(&cli.global, &args),
        Command::Recover(args) => repair::recover(&cli.global, &args),
        Command::TruncateToHw(args) => repair::truncate_to_hw(&cli.global, &args),
        Command::Truncate(args) => repair::truncate(&cli.global, &args),
        Command::Reindex(args) => repair::reindex(&cli.global, &args),
        Command::Retain(args) => repair::retain(&cli.global, &args),
        Command::Compact(args) => repair::compact(&cli.global, &args),
        Command::OffsetForTime(args) => offsets::run(&cli.global, &args),
        Command::DiffReplicas(args) => replicas::diff(&cli.global, &args),
        Command::Digest(args) => replicas::digest(&cli.global, &args),
        Command::Undo(args) => repair::undo(&cli.global, &args),
        Command::Quarantine(args) => quarantine::run(&cli.global, &args),
        Command::Fixture(args) => fixture::run(&cli.global, &args),
        Command::Groups(args) => groups::run(&cli.global, &args),
        Command::Broker(args) => broker::run(&cli.global, &args),
        Command::Txns(args) => txns::run(&cli.global, &args),
        Command::Stats(args) => stats::run(&cli.global, &args),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn verify_cli() {
        <super::Cli as clap::CommandFactory>::command().debug_assert();
    }
}
