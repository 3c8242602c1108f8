//! The command line: clap definitions only. Values are validated here (bad
//! values fail inside clap with exit code 2); commands receive typed options.

use std::path::PathBuf;

use clap::{Args, Parser, ValueEnum};

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
#[command(name = "logtool", version = VERSION, max_term_width = 100, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalOpts,
    #[command(subcommand)]
    pub command: crate::cmd::Command,
}

/// Options every command takes.
#[derive(Args, Debug, Clone)]
pub struct GlobalOpts {
    /// Output format: a table for people, or JSON Lines for scripts (schema: docs/json.md).
    #[arg(long, value_enum, default_value_t = Format::Table, global = true)]
    pub format: Format,
    /// No progress bar.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Colour in tables (severities): auto is on when stdout is a terminal and
    /// NO_COLOR is not set.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto, global = true)]
    pub color: ColorWhen,
    /// Read segments at most this fast, all threads together (bytes per second;
    /// suffixes K, M, G): gentle on a live broker's disk.
    #[arg(long, value_name = "N", value_parser = parse_size, global = true)]
    pub max_rate: Option<u64>,
}

/// When tables are coloured.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorWhen {
    /// When stdout is a terminal, NO_COLOR is unset or empty and TERM is not "dumb".
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorWhen {
    /// Whether to colour, here and now.
    pub fn resolve(self) -> bool {
        use std::io::IsTerminal;
        match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
                    && std::io::stdout().is_terminal()
            }
        }
    }
}

/// Output format.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Tables, for people.
    Table,
    /// JSON Lines, one object per line, for scripts.
    Json,
}

#[derive(Args, Debug)]
pub struct DumpArgs {
    /// Files or directories to dump.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Also print every record of every batch.
    #[arg(long)]
    pub deep: bool,
    /// Follow one partition dir like `tail -f`: print the records a broker appends
    /// from now on (implies --deep), across segment rolls, until interrupted.
    /// With --offsets, from its start instead of the log end.
    #[arg(long, conflicts_with = "max_bytes")]
    pub follow: bool,
    /// With --follow: how often to look for new data, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 200, requires = "follow", hide_short_help = true)]
    pub poll_ms: u64,
    /// How to print keys, values and header values (utf8 is lossy: invalid bytes become U+FFFD).
    #[arg(long, value_enum, default_value_t = Payload::Utf8)]
    pub payload: Payload,
    /// Decode the records of Kafka's internal topics (auto: by topic name; KRaft .checkpoint
    /// files are cluster metadata). The decoded record is a `decoded` object in JSON.
    #[arg(long, value_enum, default_value_t = Decode::Auto)]
    pub decode: Decode,
    /// Only offsets in this range: A..B (B excluded), A.., ..B, or one offset A.
    /// Segments outside it are skipped and the offset index is used to seek.
    #[arg(long, value_name = "RANGE", value_parser = parse_offset_range)]
    pub offsets: Option<OffsetRange>,
    /// Only read batches lying entirely within the first N bytes of each .log
    /// (like kafka-dump-log's --max-bytes). Suffixes K, M, G (powers of 1024).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub max_bytes: Option<u64>,
    #[command(flatten)]
    pub filter: FilterArgs,
    #[command(flatten)]
    pub redact: crate::redact::RedactArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Which batches and records `dump` prints (all given must hold). Batch
/// filters skip a batch from its header, without decompressing it; a record
/// filter prints a batch only when one of its records matches, and then
/// only those records (it implies --deep).
#[derive(Args, Debug, Clone)]
pub struct FilterArgs {
    #[command(flatten)]
    pub records: RecordFilterArgs,
    /// Only the records of aborted transactions: data records whose producer and
    /// offset fall in a transaction the partition's .txnindex files list as aborted
    /// (what a read_committed consumer skips). Partition and log dirs.
    #[arg(long, help_heading = "Filters")]
    pub aborted: bool,
    /// Only records from the offset Kafka's ListOffsets gives for TIME (the first
    /// record with a timestamp at or after it), found with the time index: what
    /// comes before is not read. Epoch ms or a date-time. Partition and log dirs.
    #[arg(long, value_name = "TIME", value_parser = parse_time, help_heading = "Filters")]
    pub since: Option<i64>,
    /// Only records before the offset ListOffsets gives for TIME.
    #[arg(long, value_name = "TIME", value_parser = parse_time, help_heading = "Filters")]
    pub until: Option<i64>,
}

impl FilterArgs {
    /// Whether any filter is given (then only files that hold records are dumped).
    pub fn active(&self) -> bool {
        self.records.active() || self.aborted || self.since.is_some() || self.until.is_some()
    }

    /// Whether a filter on records (not only on batches) is given.
    pub fn on_records(&self) -> bool {
        self.records.on_records()
    }

    /// See [`RecordFilterArgs::batch`].
    pub fn batch(&self, producer_id: i64, transactional: bool) -> bool {
        self.records.batch(producer_id, transactional)
    }

    /// See [`RecordFilterArgs::record`].
    pub fn record<'h>(
        &self,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: impl Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
    ) -> bool {
        self.records.record(key, value, headers)
    }
}

/// The filters that look at one batch and one record (`dump` and
/// `diff-replicas --records`).
#[derive(Args, Debug, Clone, Default)]
pub struct RecordFilterArgs {
    /// Only batches of this producer id.
    #[arg(long, value_name = "ID", help_heading = "Filters")]
    pub producer_id: Option<i64>,
    /// Only transactional batches (their records and their commit/abort markers).
    #[arg(long, help_heading = "Filters")]
    pub txn: bool,
    /// Only records whose key is exactly KEY (its UTF-8 bytes).
    #[arg(long, value_name = "KEY", help_heading = "Filters")]
    pub key: Option<String>,
    /// Only records whose key matches the regular expression RE (on its bytes;
    /// anchor it with ^...$ for a whole key).
    #[arg(long, value_name = "RE", value_parser = parse_regex, help_heading = "Filters")]
    pub key_regex: Option<regex::bytes::Regex>,
    /// Only records whose value contains TEXT (its UTF-8 bytes).
    #[arg(long, value_name = "TEXT", help_heading = "Filters")]
    pub value_contains: Option<String>,
    /// Only records with a header NAME, or NAME=VALUE (the value's UTF-8 bytes).
    #[arg(long, value_name = "NAME[=VALUE]", help_heading = "Filters")]
    pub header: Option<String>,
}

impl RecordFilterArgs {
    /// Whether any of these filters is given.
    pub fn active(&self) -> bool {
        self.on_records() || self.producer_id.is_some() || self.txn
    }

    /// Whether a filter on records (not only on batches) is given.
    pub fn on_records(&self) -> bool {
        self.key.is_some() || self.key_regex.is_some() || self.value_contains.is_some() || self.header.is_some()
    }

    /// Whether a batch with this producer id and transactional flag may hold
    /// what is asked (legacy messages: producer id -1, not transactional).
    pub fn batch(&self, producer_id: i64, transactional: bool) -> bool {
        self.producer_id.is_none_or(|p| p == producer_id) && (!self.txn || transactional)
    }

    /// Whether a record matches the record filters.
    pub fn record<'h>(
        &self,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        mut headers: impl Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
    ) -> bool {
        if let Some(k) = &self.key
            && key != Some(k.as_bytes())
        {
            return false;
        }
        if let Some(re) = &self.key_regex
            && !key.is_some_and(|k| re.is_match(k))
        {
            return false;
        }
        if let Some(t) = &self.value_contains {
            let t = t.as_bytes();
            if !value.is_some_and(|v| t.is_empty() || v.windows(t.len()).any(|w| w == t)) {
                return false;
            }
        }
        if let Some(h) = &self.header {
            let (name, want) = match h.split_once('=') {
                Some((n, v)) => (n, Some(v.as_bytes())),
                None => (h.as_str(), None),
            };
            if !headers.any(|(k, v)| k == name.as_bytes() && want.is_none_or(|w| v == Some(w))) {
                return false;
            }
        }
        true
    }
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Log dirs, partition dirs or files to check.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Exit with 1 when a finding is at least this severe.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// List at most N findings of one kind per file; the rest are counted.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_per_kind: usize,
    /// Check this many partitions at once (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<std::num::NonZeroUsize>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// How a command that writes runs.
#[derive(Args, Debug, Clone)]
pub struct WriteArgs {
    /// Make the changes (without it, only the plan is printed and nothing changes).
    #[arg(long)]
    pub execute: bool,
    /// Where removed and replaced bytes are kept, with a manifest, for `logtool undo`.
    /// Must be on the log dir's filesystem and not inside it. Default: beside the log
    /// dir, <log dir>.logtool-quarantine.
    #[arg(long, value_name = "DIR")]
    pub quarantine: Option<PathBuf>,
}

/// Where the index interval comes from (commands that build indexes).
#[derive(Args, Debug, Clone)]
pub struct IntervalArgs {
    /// The KRaft metadata log to read topic configs from (a __cluster_metadata-0 dir
    /// or the log dir holding it), when metadata.log.dir is not this log dir.
    #[arg(long, value_name = "DIR")]
    pub metadata_dir: Option<PathBuf>,
    /// Use this index interval instead of the topic's index.interval.bytes.
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub index_interval_bytes: Option<u64>,
}

#[derive(Args, Debug)]
pub struct RecoverArgs {
    /// A log dir or a partition dir.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Recover every segment, not only those from the recovery point on.
    #[arg(long)]
    pub all: bool,
    /// Cut a damaged rolled segment too. That removes every segment after it,
    /// intact or not (the plan shows what is lost); without it, --execute
    /// refuses such a cut and changes nothing.
    #[arg(long)]
    pub allow_data_loss: bool,
    /// Then roll each recovered partition at its log end and raise its recovery
    /// point there, as Kafka does when it rolls and flushes a segment: the
    /// recovered files are fsynced, an empty segment and a producer snapshot are
    /// made at the log end, and the broker's next start has nothing left to
    /// recover (without it, Kafka recovers the same segments again).
    #[arg(long)]
    pub roll: bool,
    #[command(flatten)]
    pub interval: IntervalArgs,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct TruncateToHwArgs {
    /// A log dir or a partition dir.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Use this high watermark instead of the checkpointed one (a partition dir only).
    #[arg(long, value_name = "OFFSET", value_parser = parse_offset)]
    pub hw: Option<i64>,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct TruncateArgs {
    /// A partition dir.
    #[arg(value_name = "PARTITION")]
    pub path: PathBuf,
    /// The new log end offset: records at and after it are removed.
    #[arg(long, value_name = "OFFSET", value_parser = parse_offset)]
    pub to: i64,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct ReindexArgs {
    /// A segment file, a partition dir or a log dir.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    #[command(flatten)]
    pub interval: IntervalArgs,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("rule").required(true).args(["before", "max_bytes", "log_start"])))]
pub struct RetainArgs {
    /// A log dir or a partition dir.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Delete segments whose newest record is older than TIME: epoch milliseconds, or
    /// an RFC 3339 date-time (without a zone: the local time zone).
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub before: Option<i64>,
    /// Delete the oldest segments while each partition stays above N bytes.
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub max_bytes: Option<u64>,
    /// Move the log start offset to OFFSET and delete the segments below it.
    #[arg(long, value_name = "OFFSET", value_parser = parse_offset)]
    pub log_start: Option<i64>,
    #[command(flatten)]
    pub write: WriteArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct OffsetForTimeArgs {
    /// A partition dir, or a log dir (then every partition, or those of --topic).
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Epoch milliseconds; an RFC 3339 / ISO 8601 date-time such as 2026-11-21T09:14:00Z
    /// or 2026-11-21T09:14 (without a zone offset: the local time zone); earliest (-2),
    /// latest (-1) or max-timestamp (-3).
    #[arg(required = true, value_name = "TIME", value_parser = parse_time_query, allow_negative_numbers = true)]
    pub times: Vec<TimeQuery>,
    /// With a log dir: only the partitions of this topic.
    #[arg(long, value_name = "TOPIC")]
    pub topic: Option<String>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// A TIME argument: as given, and what it asks.
#[derive(Clone, Debug)]
pub struct TimeQuery {
    pub text: String,
    pub spec: logfmt::offsets::Spec,
}

/// earliest/latest/max-timestamp (or -2/-1/-3), or a time ([`parse_time`]).
pub fn parse_time_query(s: &str) -> Result<TimeQuery, String> {
    use logfmt::offsets::Spec;
    let spec = match s.trim() {
        "earliest" | "-2" => Spec::Earliest,
        "latest" | "-1" => Spec::Latest,
        "max-timestamp" | "-3" => Spec::MaxTimestamp,
        t => match parse_time(t)? {
            ms if ms < 0 => {
                return Err(format!(
                    "{s:?}: a negative time is one of Kafka's special values; use -2 (earliest), -1 (latest) or -3 (max-timestamp)"
                ));
            }
            ms => Spec::Timestamp(ms),
        },
    };
    Ok(TimeQuery { text: s.to_string(), spec })
}

#[derive(Args, Debug)]
pub struct DiffReplicasArgs {
    /// Partition dirs or digest files of the same partition (two or more).
    #[arg(required = true, num_args = 2.., value_name = "REPLICA")]
    pub replicas: Vec<PathBuf>,
    /// Which replica leads: its position (1 = the first REPLICA) or its path.
    /// Default: the highest latest leader epoch, then the longest log.
    #[arg(long, value_name = "REPLICA")]
    pub leader: Option<String>,
    /// Also list the records of the divergent range (partition dirs only).
    #[arg(long)]
    pub records: bool,
    /// With --records, at most N records per replica.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_records: usize,
    #[command(flatten)]
    pub filter: RecordFilterArgs,
    #[command(flatten)]
    pub redact: crate::redact::RedactArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct DigestArgs {
    /// A partition dir.
    #[arg(value_name = "PARTITION")]
    pub path: PathBuf,
    /// Where to write the digest.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct PartitionOfArgs {
    /// The topic's partition count.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..))]
    pub partitions: i32,
    /// The keys are hex (the bytes a key serializer wrote), not UTF-8 text.
    #[arg(long)]
    pub hex: bool,
    /// The keys.
    #[arg(required = true, value_name = "KEY")]
    pub keys: Vec<String>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Where to write the pages (created if missing).
    #[arg(value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub struct UndoArgs {
    /// The log dir a repair changed, or the partition dir the repair was given.
    #[arg(value_name = "PATH")]
    pub log_dir: PathBuf,
    /// The repair to undo (default: the latest).
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(Args, Debug)]
pub struct FixtureArgs {
    /// A spec file, or the name of a shipped spec.
    #[arg(value_name = "SPEC", required_unless_present = "list")]
    pub spec: Option<String>,
    /// Where to write (must be empty or absent).
    #[arg(long, value_name = "DIR", required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// The seed of every generator (default: the spec's).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Write N replicas that diverged (default: the spec's [replicas], else 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=9))]
    pub replicas: Option<u32>,
    /// List the shipped specs.
    #[arg(long, conflicts_with_all = ["spec", "out"])]
    pub list: bool,
}

#[derive(Args, Debug)]
pub struct GroupsArgs {
    /// Log dirs: those holding __consumer_offsets partitions, and those holding the
    /// partitions whose lag to measure.
    #[arg(value_name = "LOG_DIR", required_unless_present = "which")]
    pub log_dirs: Vec<PathBuf>,
    /// Only this group.
    #[arg(long, value_name = "GROUP")]
    pub group: Option<String>,
    /// Which __consumer_offsets partition holds GROUP (Kafka's hash of the group id), then stop.
    #[arg(long, value_name = "GROUP")]
    pub which: Option<String>,
    /// __consumer_offsets' partition count for --which (default: from the metadata log of
    /// the log dirs, else 50, Kafka's default offsets.topic.num.partitions).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..))]
    pub partitions: Option<i32>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Args, Debug)]
pub struct BrokerArgs {
    /// The log dir: new or empty, or one this broker or a single-node Kafka 3.9 (node 1) left.
    #[arg(long, value_name = "DIR")]
    pub log_dir: PathBuf,
    /// Where to listen: loopback only; port 0 picks a free one.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:9092")]
    pub listen: std::net::SocketAddr,
    /// node.id (1: the broker is the controller of its static quorum).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub node_id: i32,
    /// num.partitions: partitions of auto-created topics and of CreateTopics without a count.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(i32).range(1..))]
    pub partitions: i32,
    /// auto.create.topics.enable: Metadata requests create the topics they name.
    #[arg(long)]
    pub auto_create_topics: bool,
    /// offsets.topic.num.partitions: __consumer_offsets' partitions, made when a group first
    /// needs them.
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = clap::value_parser!(i32).range(1..))]
    pub offsets_partitions: i32,
    /// group.initial.rebalance.delay.ms: how long a new group's first rebalance waits for
    /// more members.
    #[arg(long, value_name = "MS", default_value_t = 3000)]
    pub group_initial_rebalance_delay_ms: u64,
    /// A fault rule, API:ACTION[:WHEN] (repeatable): e.g. produce:NOT_LEADER_OR_FOLLOWER:every=5,
    /// fetch:drop:nth=3, *:delay=200:fraction=0.1 (README, "Broker mode").
    #[arg(long, value_name = "RULE")]
    pub fault: Vec<String>,
    /// A file of fault rules, one per line, re-read whenever it changes.
    #[arg(long, value_name = "FILE")]
    pub fault_file: Option<PathBuf>,
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

/// Severity threshold for the exit code.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    Error,
    Warning,
    Info,
}

/// Ceilings on what one batch may cost in memory.
#[derive(Args, Debug, Clone, Copy)]
pub struct LimitArgs {
    /// Largest batch accepted before it is reported as corrupt (held in memory while decoded).
    #[arg(long, value_name = "N", value_parser = parse_size, default_value = "128M", hide_short_help = true)]
    pub max_batch_size: u64,
    /// Ceiling on the decompressed size of one batch (guards against decompression bombs).
    #[arg(long, value_name = "N", value_parser = parse_size, default_value = "256M", hide_short_help = true)]
    pub max_decompressed_size: u64,
}

impl LimitArgs {
    pub fn limits(&self) -> logfmt::Limits {
        logfmt::Limits {
            max_batch_size: u32::try_from(self.max_batch_size).unwrap_or(u32::MAX),
            max_decompressed_size: usize::try_from(self.max_decompressed_size).unwrap_or(usize::MAX),
            ..logfmt::Limits::default()
        }
    }
}

/// How payload bytes are printed.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// UTF-8, invalid sequences replaced by U+FFFD.
    Utf8,
    /// Lowercase hexadecimal.
    Hex,
    /// Standard base64 with padding.
    Base64,
    /// Not printed (sizes only).
    None,
}

/// Which internal-topic decoder `dump` uses.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decode {
    /// By the partition's topic name: __consumer_offsets, __transaction_state,
    /// __cluster_metadata (and KRaft .checkpoint files).
    Auto,
    /// Never.
    None,
    /// Every record as a __consumer_offsets record.
    ConsumerOffsets,
    /// Every record as a __transaction_state record.
    TransactionState,
    /// Every record as a KRaft metadata record.
    ClusterMetadata,
}

/// A half-open offset range `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetRange {
    pub start: i64,
    pub end: i64,
}

impl OffsetRange {
    pub fn contains(&self, offset: i64) -> bool {
        offset >= self.start && offset < self.end
    }

    /// Does `[first, last]` meet the range?
    pub fn overlaps(&self, first: i64, last: i64) -> bool {
        first < self.end && last >= self.start
    }
}

fn parse_regex(s: &str) -> Result<regex::bytes::Regex, String> {
    regex::bytes::Regex::new(s).map_err(|e| e.to_string())
}

/// Epoch milliseconds, or an RFC 3339 / ISO 8601 date-time; without a zone
/// offset it is local time.
pub fn parse_time(s: &str) -> Result<i64, String> {
    let t = s.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return Ok(ms);
    }
    if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    let civil: jiff::civil::DateTime = t.parse().map_err(|e| {
        format!("{s:?} is not epoch milliseconds or a date-time like 2026-11-22T09:14:00[Z|+01:00] ({e})")
    })?;
    let zoned = civil.to_zoned(jiff::tz::TimeZone::system()).map_err(|e| format!("{s:?}: {e}"))?;
    Ok(zoned.timestamp().as_millisecond())
}

pub fn parse_offset(s: &str) -> Result<i64, String> {
    let v: i64 = s.trim().parse().map_err(|_| format!("{s:?} is not an offset"))?;
    if v < 0 {
        return Err(format!("offset {v} is negative"));
    }
    Ok(v)
}

pub fn parse_offset_range(s: &str) -> Result<OffsetRange, String> {
    let r = match s.split_once("..") {
        None => {
            let a = parse_offset(s)?;
            OffsetRange { start: a, end: a.saturating_add(1) }
        }
        Some((a, b)) => OffsetRange {
            start: if a.is_empty() { 0 } else { parse_offset(a)? },
            end: if b.is_empty() { i64::MAX } else { parse_offset(b)? },
        },
    };
    if r.start >= r.end {
        return Err(format!("the range {s:?} is empty"));
    }
    Ok(r)
}

pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&t[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = num.parse().map_err(|_| format!("{s:?} is not a size (examples: 4096, 64K, 16M, 2G)"))?;
    n.checked_mul(mult).ok_or_else(|| format!("{s:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }

    #[test]
    fn offset_ranges() {
        assert_eq!(parse_offset_range("5..10").unwrap(), OffsetRange { start: 5, end: 10 });
        assert_eq!(parse_offset_range("5..").unwrap(), OffsetRange { start: 5, end: i64::MAX });
        assert_eq!(parse_offset_range("..10").unwrap(), OffsetRange { start: 0, end: 10 });
        assert_eq!(parse_offset_range("7").unwrap(), OffsetRange { start: 7, end: 8 });
        assert!(parse_offset_range("10..5").is_err());
        assert!(parse_offset_range("x..5").is_err());
        assert!(parse_offset_range("-1..5").is_err());
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("1795319478692").unwrap(), 1_795_319_478_692);
        assert_eq!(parse_time("2026-11-22T03:51:18.692Z").unwrap(), 1_795_319_478_692);
        assert_eq!(parse_time("2026-11-22T04:51:18.692+01:00").unwrap(), 1_795_319_478_692);
        assert!(parse_time("2026-11-22T03:51:18").is_ok());
        assert!(parse_time("yesterday").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("64K").unwrap(), 65536);
        assert_eq!(parse_size("2g").unwrap(), 2 << 30);
        assert!(parse_size("12Q").is_err());
    }
}
