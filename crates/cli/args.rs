//! The command line's shared parts (clap): the global options, argument
//! groups several commands flatten (limits, filters, `--execute`), and the
//! value parsers (bad values fail inside clap with exit code 2). Each
//! command's own arguments live in its module (`cmd/<name>.rs`), the list of
//! commands and the top-level parser (`Cli`) in `cmd/mod.rs`: this module
//! names no command.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

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
    /// The tables' rows as tab-separated values (a header line per table;
    /// text between tables as `# ` lines).
    Tsv,
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

/// How a command that writes runs.
#[derive(Args, Debug, Clone)]
pub struct WriteArgs {
    /// Make the changes (without it, only the plan is printed and nothing changes).
    #[arg(long)]
    pub execute: bool,
    /// Where removed and replaced bytes are kept, with a manifest, for `logtool undo`.
    /// Not inside the log dir. On another filesystem, the space comes back at once: the
    /// repair is journaled beside the log dir and moved there once done (undo and
    /// quarantine then take the same --quarantine). Default: beside the log dir,
    /// <log dir>.logtool-quarantine.
    #[arg(long, visible_alias = "quarantine-dir", value_name = "DIR")]
    pub quarantine: Option<PathBuf>,
    /// List every file change in the table. Without it, a plan of more than 30 changes is
    /// shown counted by directory and kind (JSON lists every change either way).
    #[arg(long)]
    pub details: bool,
}

/// Where a ZooKeeper-mode cluster's topic configs are (commands whose answer
/// depends on them): no log dir of such a cluster holds them.
#[derive(Args, Debug, Clone, Default)]
pub struct ZookeeperArgs {
    /// ZooKeeper's data dir (its dataDir, holding version-2/) of a ZooKeeper-mode
    /// cluster: its topic configs, ids and assignments are read from its snapshots and
    /// transaction logs (a copy will do; ZooKeeper need not run). Used where the log dir
    /// holds no metadata log.
    #[arg(long, value_name = "DIR")]
    pub zookeeper_data: Option<PathBuf>,
}

impl ZookeeperArgs {
    /// What the data dir says, as a metadata image (`None` without the flag).
    pub fn read(&self) -> anyhow::Result<Option<logfmt::metadata::ClusterMetadata>> {
        let Some(dir) = &self.zookeeper_data else { return Ok(None) };
        let tree = logfmt::zookeeper::read_data_dir(dir)
            .map_err(|e| anyhow::anyhow!("--zookeeper-data {}: {e}", dir.display()))?;
        if tree.snapshot.is_none() && tree.logs.is_empty() {
            let why: Vec<String> = tree.skipped_snapshots.iter().map(|(_, why)| why.clone()).collect();
            anyhow::bail!(
                "--zookeeper-data {}: no snapshot or transaction log read: {}",
                dir.display(),
                why.join("; ")
            );
        }
        Ok(Some(tree.cluster_metadata()))
    }
}

/// Where the index interval comes from (commands that build indexes).
#[derive(Args, Debug, Clone)]
pub struct IntervalArgs {
    /// The KRaft metadata log to read topic configs from (a __cluster_metadata-0 dir
    /// or the log dir holding it), when metadata.log.dir is not this log dir.
    #[arg(long, value_name = "DIR")]
    pub metadata_dir: Option<PathBuf>,
    #[command(flatten)]
    pub zookeeper: ZookeeperArgs,
    /// Use this index interval instead of the topic's index.interval.bytes.
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub index_interval_bytes: Option<u64>,
}

/// A TIME argument: as given, and what it asks.
#[derive(Clone, Debug)]
pub struct TimeQuery {
    /// As given.
    pub text: String,
    /// As tables show it: the special's name, or the instant (RFC 3339
    /// UTC, ms).
    pub shown: String,
    pub spec: inspect::offsets::Spec,
    /// A date-time given without a zone: what was given, and the zone it
    /// was taken in.
    pub assumed_zone: Option<(String, String)>,
}

/// earliest/latest/max-timestamp/earliest-local/latest-tiered (or -2/-1/-3/-4/-5),
/// or a time ([`parse_time`]).
pub fn parse_time_query(s: &str) -> Result<TimeQuery, String> {
    use inspect::offsets::Spec;
    let spec = match s.trim() {
        "earliest" | "-2" => Spec::Earliest,
        "latest" | "-1" => Spec::Latest,
        "max-timestamp" | "-3" => Spec::MaxTimestamp,
        "earliest-local" | "-4" => Spec::EarliestLocal,
        "latest-tiered" | "-5" => Spec::LatestTiered,
        t => match parse_time(t)? {
            ms if ms < 0 => {
                return Err(format!(
                    "{s:?}: a negative time is one of Kafka's special values; use -2 (earliest), -1 (latest), -3 (max-timestamp), -4 (earliest-local) or -5 (latest-tiered)"
                ));
            }
            ms => Spec::Timestamp(ms),
        },
    };
    let (shown, assumed_zone) = match spec {
        Spec::Timestamp(ms) => {
            let t = s.trim();
            let zoned = t.parse::<i64>().is_ok() || t.parse::<jiff::Timestamp>().is_ok();
            let zone = jiff::tz::TimeZone::system().iana_name().unwrap_or("the local time zone").to_string();
            (logfmt::report::time_text(ms), (!zoned).then(|| (t.to_string(), zone)))
        }
        _ => (s.trim().to_string(), None),
    };
    Ok(TimeQuery { text: s.to_string(), shown, spec, assumed_zone })
}

/// The global `--max-rate`, taken (a command line that gives it still
/// runs) but not offered in the help of commands that read no segments.
#[derive(Args, Debug, Clone)]
pub struct ReadsNothing {
    #[arg(long = "max-rate", id = "max_rate", value_name = "N", value_parser = parse_size, hide = true)]
    _max_rate: Option<u64>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
    #[command(flatten)]
    pub reads_nothing: ReadsNothing,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Where to write the pages (created if missing).
    #[arg(value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub reads_nothing: ReadsNothing,
}

#[derive(Args, Debug)]
pub struct HelpArgs {
    /// The command (and subcommand) whose help to print. With --format json, its
    /// arguments as one JSON object (docs/json.md, "logtool help").
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub reads_nothing: ReadsNothing,
    // the global -q and --color, taken but not offered: help has no progress
    // bar and no colour
    #[arg(short = 'q', long = "quiet", id = "quiet", hide = true)]
    _quiet: bool,
    #[arg(long = "color", id = "color", value_enum, value_name = "WHEN", hide = true)]
    _color: Option<ColorWhen>,
}

/// The memory budget and the ceilings on what one batch may cost.
#[derive(Args, Debug, Clone, Copy)]
pub struct LimitArgs {
    /// Memory of the whole process, all threads together: large batches, large
    /// records and decoders' windows take theirs from it (at least 16M; caps the
    /// threads at one per 4 MiB).
    #[arg(long, value_name = "N", value_parser = parse_memory, default_value = "64M")]
    pub memory: u64,
    /// Largest batch accepted before it is reported as corrupt (a v2 batch above 2 MiB is read
    /// from its file, not held).
    #[arg(long, value_name = "N", value_parser = parse_size, default_value = "128M", hide_short_help = true)]
    pub max_batch_size: u64,
    /// Ceiling on the decompressed size of one batch: bounds the work a decompression bomb
    /// costs (records are decoded as they stream out, so not the memory).
    #[arg(long, value_name = "N", value_parser = parse_size, default_value = "256M", hide_short_help = true)]
    pub max_decompressed_size: u64,
}

impl LimitArgs {
    /// The limits of a command that reads on one thread.
    pub fn limits(&self) -> logfmt::Limits {
        self.limits_for(1)
    }

    /// The limits of a command that reads on `threads` threads at once
    /// ([`LimitArgs::threads`]).
    pub fn limits_for(&self, threads: usize) -> logfmt::Limits {
        logfmt::Limits {
            max_batch_size: u32::try_from(self.max_batch_size).unwrap_or(u32::MAX),
            max_decompressed_size: usize::try_from(self.max_decompressed_size).unwrap_or(usize::MAX),
            budget: self.budget(threads),
            ..logfmt::Limits::default()
        }
    }

    /// The process's one budget: what `--memory` leaves after the process's
    /// and the threads' fixed needs (made at the first call).
    fn budget(&self, threads: usize) -> &'static logfmt::budget::Budget {
        static BUDGET: std::sync::OnceLock<&'static logfmt::budget::Budget> = std::sync::OnceLock::new();
        BUDGET.get_or_init(|| logfmt::budget::Budget::leak(logfmt::budget::pool_for(self.memory, threads).0))
    }

    /// Threads to run for `asked` (default: one per core), as `--memory`
    /// allows.
    pub fn threads(&self, asked: Option<std::num::NonZeroUsize>) -> usize {
        let asked = asked.map_or_else(rayon::current_num_threads, std::num::NonZeroUsize::get);
        logfmt::budget::pool_for(self.memory, asked).1
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
    /// __share_group_state, __cluster_metadata (and KRaft .checkpoint files),
    /// __remote_log_metadata.
    Auto,
    /// Never.
    None,
    /// Every record as a __consumer_offsets record.
    ConsumerOffsets,
    /// Every record as a __transaction_state record.
    TransactionState,
    /// Every record as a __share_group_state record (Kafka 4.x).
    ShareGroupState,
    /// Every record as a KRaft metadata record.
    ClusterMetadata,
    /// Every record as a __remote_log_metadata record (tiered storage).
    RemoteLogMetadata,
}

/// A half-open offset range `[start, end)`.
pub use inspect::dump::OffsetRange;

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
    // (in our words: the date library's, "failed to parse two digit integer
    // as month", say how it failed, not what to type)
    let not_a_time = || {
        format!(
            "{s:?} is not a time: give epoch milliseconds (1795428840000) or an RFC 3339 date-time: 2026-11-22T09:14:00Z, 2026-11-22T09:14:00+01:00, or 2026-11-22T09:14:00 (the local time zone), with a real month, day and hour"
        )
    };
    let civil: jiff::civil::DateTime = t.parse().map_err(|_| not_a_time())?;
    let zoned = civil.to_zoned(jiff::tz::TimeZone::system()).map_err(|_| not_a_time())?;
    Ok(zoned.timestamp().as_millisecond())
}

/// A count of 1 or more (threads, partitions): clap's own words for a 0
/// ("number would be zero for non-zero type") are not ours.
pub fn parse_threads(s: &str) -> Result<std::num::NonZeroUsize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .and_then(std::num::NonZeroUsize::new)
        .ok_or_else(|| format!("{s:?}: give a count of 1 or more"))
}

/// A partition count: 1 to 2^31-1, as Kafka allows.
pub fn parse_partitions(s: &str) -> Result<i32, String> {
    match s.trim().parse::<i32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{s:?}: a partition count is a whole number from 1 to {}", i32::MAX)),
    }
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
        // `first-last`, both included: the notation logtool prints ranges in
        None if s.trim().contains('-') && !s.trim().starts_with('-') => {
            let (a, b) = s.trim().split_once('-').unwrap_or_default();
            let (first, last) = (parse_offset(a)?, parse_offset(b).map_err(|_| format!("{s:?} is not a range: give FIRST-LAST (both included, as logtool prints ranges) or A..B (B excluded)"))?);
            OffsetRange { start: first, end: last.saturating_add(1) }
        }
        None => {
            let a = parse_offset(s).map_err(|_| {
                format!("{s:?} is not an offset or a range: give N, FIRST-LAST (both included, as logtool prints ranges) or A..B (B excluded)")
            })?;
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

/// `--memory`: a size of at least [`logfmt::budget::MIN_MEMORY`].
pub fn parse_memory(s: &str) -> Result<u64, String> {
    let n = parse_size(s)?;
    if n < logfmt::budget::MIN_MEMORY {
        return Err(format!("at least {} MiB", logfmt::budget::MIN_MEMORY >> 20));
    }
    Ok(n)
}

pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    // the units logtool prints (`1.5 MiB`) are taken too: K, KB, KiB ...
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(format!("{s:?} is not a size (examples: 4096, 64K, 16MiB, 2G; powers of 1024)")),
    };
    let n: u64 =
        num.parse().map_err(|_| format!("{s:?} is not a size (examples: 4096, 64K, 16MiB, 2G; powers of 1024)"))?;
    n.checked_mul(mult).ok_or_else(|| format!("{s:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_the_units_logtool_prints() {
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("2 GiB"), Ok(2 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("1.5MiB").is_err() && parse_size("3 parsecs").is_err());
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
