//! What a partition holds, in numbers: `logtool stats`.
//!
//! One pass over every segment of a partition, in bounded memory whatever
//! its size: counts and byte totals, log2 histograms of batch sizes and
//! records per batch, compression per codec, the top producers, a
//! HyperLogLog estimate of distinct keys, the timestamp range and how far
//! timestamps go backwards in append order, control records, aborted
//! transactions, and what retention or compaction would reclaim now.
//!
//! Invariants: memory is bounded by named constants ([`HLL_REGISTERS`],
//! [`MAX_PRODUCERS`], [`MAX_TRACKED_KEYS`], [`TIMELINE_BUCKETS`]), never by
//! the data; what cannot be computed within them is reported as unknown
//! (`None`), never guessed. The rules come from the one model of Kafka's
//! behaviour: retention is [`logrules::retention`]'s plan (as
//! `UnifiedLog.deleteOldSegments`), compaction from
//! [`logrules::log::compaction`], markers from [`logfmt::control`].

use std::collections::HashMap;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

use serde::Serialize;

use logfmt::batch::RecordBatch;
use logfmt::compression::Compression;
use logfmt::error::Result;
use logfmt::legacy::LegacyMessage;
use logfmt::limits::Limits;
use logfmt::log::{Entry, Slab, SlabItem};
use rayon::prelude::*;

use logfmt::metadata::{CLEANUP_POLICY, LOCAL_RETENTION_BYTES, LOCAL_RETENTION_MS, RETENTION_BYTES, RETENTION_MS};
use logfmt::partition::{LogDir, Partition};
use logfmt::report::{Report, grouped, human_bytes};
use logrules::log::{Compaction, compaction, log_start_offset};
use logrules::producer::{Marker, ProducerState, end_txn_marker};

/// HyperLogLog precision: 2^14 registers (16 KiB, standard error 0.8%).
const HLL_PRECISION: u32 = 14;
/// Registers of the distinct-key estimate.
pub const HLL_REGISTERS: usize = 1 << HLL_PRECISION;
/// Producers counted one by one; the rest are added up as "other".
pub const MAX_PRODUCERS: usize = 100_000;
/// Distinct keys tracked for the compaction estimate (a hash and a size
/// each); a partition with more has no compaction estimate.
pub const MAX_TRACKED_KEYS: usize = 1 << 19;
/// Buckets of a timeline (their width doubles as the time range grows).
pub const TIMELINE_BUCKETS: usize = 120;
/// The widest bucket (about 24 million years: times beyond are not counted).
const MAX_WIDTH_MS: i64 = 1 << 50;

/// What a stats pass is told.
#[derive(Clone, Debug)]
pub struct Options {
    /// Producers listed one by one in the report (the largest by bytes).
    pub top_producers: usize,
    /// "Now", for retention (epoch ms).
    pub now_ms: i64,
    /// Reading limits.
    pub limits: Limits,
    /// The offset map of the compaction estimate (what `logtool compact`
    /// takes by default: the same figure as its plan).
    pub dedupe_buffer: u64,
}

/// A HyperLogLog sketch (Flajolet et al. 2007, with linear counting for
/// small cardinalities).
#[derive(Clone, Debug)]
pub struct Hll {
    registers: Vec<u8>,
}

impl Default for Hll {
    fn default() -> Hll {
        Hll { registers: vec![0; HLL_REGISTERS] }
    }
}

impl Hll {
    /// Add one item by its 64-bit hash.
    pub fn add(&mut self, hash: u64) {
        let index = (hash >> (64 - HLL_PRECISION)) as usize;
        let rest = (hash << HLL_PRECISION) | (1 << (HLL_PRECISION - 1));
        let rank = (rest.leading_zeros() as u8).saturating_add(1);
        if let Some(r) = self.registers.get_mut(index) {
            *r = (*r).max(rank);
        }
    }

    /// Fold another sketch in (the union of both sets).
    pub fn merge(&mut self, other: &Hll) {
        for (a, b) in self.registers.iter_mut().zip(&other.registers) {
            *a = (*a).max(*b);
        }
    }

    /// The estimated number of distinct items.
    pub fn estimate(&self) -> u64 {
        let m = self.registers.len() as f64;
        let sum: f64 = self.registers.iter().map(|&r| 2f64.powi(i32::from(r).saturating_neg())).sum();
        let zeros = self.registers.iter().filter(|&&r| r == 0).count();
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let raw = alpha * m * m / sum;
        let e = if raw <= 2.5 * m && zeros > 0 { m * (m / zeros as f64).ln() } else { raw };
        e.round() as u64
    }
}

/// A [`Hll`] that threads add to at once (registers raised with
/// `fetch_max`): a partition's batches are counted in parallel.
struct SharedHll {
    registers: Vec<std::sync::atomic::AtomicU8>,
}

impl SharedHll {
    fn new() -> SharedHll {
        SharedHll { registers: (0..HLL_REGISTERS).map(|_| std::sync::atomic::AtomicU8::new(0)).collect() }
    }

    /// As [`Hll::add`].
    #[inline]
    fn add(&self, hash: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        let index = (hash >> (64 - HLL_PRECISION)) as usize;
        let rest = (hash << HLL_PRECISION) | (1 << (HLL_PRECISION - 1));
        let rank = (rest.leading_zeros() as u8).saturating_add(1);
        if let Some(r) = self.registers.get(index)
            && r.load(Relaxed) < rank
        {
            r.fetch_max(rank, Relaxed);
        }
    }

    /// Fold into `into`.
    fn merge_into(self, into: &mut Hll) {
        for (a, b) in into.registers.iter_mut().zip(self.registers) {
            *a = (*a).max(b.into_inner());
        }
    }
}

/// The 64-bit hash of a key (stable within a run).
fn key_hash(key: &[u8]) -> u64 {
    // xxh3: well mixed for the estimator, and several times SipHash's speed
    // on short keys (a record's key is hashed once per record)
    xxhash_rust::xxh3::xxh3_64(key)
}

/// A hasher for keys that are hashes already ([`key_hash`]'s): the value
/// itself.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // (only u64 keys are written; other input folded in, never used)
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// Key hashes to a record size: the map of a compacted partition's keys.
type KeyMap = HashMap<u64, u32, std::hash::BuildHasherDefault<Prehashed>>;

/// A log2 histogram: bucket `i` counts values in `[2^i, 2^(i+1))` (bucket
/// 0 also holds 0).
#[derive(Clone, Debug)]
pub struct Histogram {
    buckets: [u64; 64],
    count: u64,
    sum: u64,
    min: Option<u64>,
    max: u64,
}

/// One bucket of a [`Histogram`], as reported.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Bucket {
    /// Lowest value the bucket holds.
    pub from: u64,
    /// Highest value it holds.
    pub to: u64,
    /// How many values fell in it.
    pub count: u64,
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram { buckets: [0; 64], count: 0, sum: 0, min: None, max: 0 }
    }
}

impl Histogram {
    /// Count one value.
    pub fn add(&mut self, v: u64) {
        let i = 63usize.saturating_sub(v.max(1).leading_zeros() as usize);
        if let Some(b) = self.buckets.get_mut(i) {
            *b = b.saturating_add(1);
        }
        self.count = self.count.saturating_add(1);
        self.sum = self.sum.saturating_add(v);
        self.min = Some(self.min.map_or(v, |m| m.min(v)));
        self.max = self.max.max(v);
    }

    /// Add another histogram's counts.
    pub fn merge(&mut self, o: &Histogram) {
        for (a, b) in self.buckets.iter_mut().zip(o.buckets) {
            *a = a.saturating_add(b);
        }
        self.count = self.count.saturating_add(o.count);
        self.sum = self.sum.saturating_add(o.sum);
        self.min = match (self.min, o.min) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.max = self.max.max(o.max);
    }

    /// The non-empty buckets, smallest first.
    pub fn buckets(&self) -> Vec<Bucket> {
        self.buckets
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, &count)| {
                let from = if i == 0 { 0 } else { 1u64 << i };
                let to = 1u64
                    .checked_shl(u32::try_from(i).unwrap_or(63).saturating_add(1))
                    .map_or(u64::MAX, |t| t.saturating_sub(1));
                Bucket { from, to, count }
            })
            .collect()
    }

    /// The mean value, if any.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }
}

impl Serialize for Histogram {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Histogram", 6)?;
        st.serialize_field("count", &self.count)?;
        st.serialize_field("sum", &self.sum)?;
        st.serialize_field("min", &self.min)?;
        st.serialize_field("max", &self.min.map(|_| self.max))?;
        st.serialize_field("mean", &self.mean())?;
        st.serialize_field("buckets", &self.buckets())?;
        st.end()
    }
}

/// Records and bytes over time in a bounded number of buckets, whose width
/// doubles whenever a time falls outside the covered range.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timeline {
    /// Start of the first bucket (epoch ms).
    pub origin_ms: i64,
    /// Width of a bucket (ms); 0 while empty.
    pub width_ms: i64,
    /// Records per bucket.
    pub records: Vec<u64>,
    /// Bytes per bucket.
    pub bytes: Vec<u64>,
}

impl Timeline {
    /// Count `records` and `bytes` at `ts` (negative times are not counted).
    pub fn add(&mut self, ts: i64, records: u64, bytes: u64) {
        if ts < 0 {
            return;
        }
        if self.width_ms == 0 {
            self.width_ms = 1000;
            self.origin_ms = ts.saturating_sub(ts.rem_euclid(self.width_ms));
            self.records = vec![0; TIMELINE_BUCKETS];
            self.bytes = vec![0; TIMELINE_BUCKETS];
        }
        while !self.covers(ts) {
            if !self.widen(ts) {
                return;
            }
        }
        let i = ts.saturating_sub(self.origin_ms).checked_div(self.width_ms).unwrap_or(0) as usize;
        if let (Some(r), Some(b)) = (self.records.get_mut(i), self.bytes.get_mut(i)) {
            *r = r.saturating_add(records);
            *b = b.saturating_add(bytes);
        }
    }

    fn span(&self) -> i64 {
        self.width_ms.saturating_mul(TIMELINE_BUCKETS as i64)
    }

    fn covers(&self, ts: i64) -> bool {
        ts >= self.origin_ms && ts.saturating_sub(self.origin_ms) < self.span()
    }

    /// Double the bucket width towards `ts`: to the right, pairs of buckets
    /// merge in place; to the left, the old range becomes the right half.
    fn widen(&mut self, ts: i64) -> bool {
        let Some(width) = self.width_ms.checked_mul(2) else { return false };
        if width > MAX_WIDTH_MS {
            return false;
        }
        let left = ts < self.origin_ms;
        // buckets the old range moves by (left: it becomes the right half)
        let shift = if left { TIMELINE_BUCKETS } else { 0 };
        let origin = if left { self.origin_ms.saturating_sub(self.span()) } else { self.origin_ms };
        let mut records = vec![0u64; TIMELINE_BUCKETS];
        let mut bytes = vec![0u64; TIMELINE_BUCKETS];
        for (i, (&r, &b)) in self.records.iter().zip(&self.bytes).enumerate() {
            let j = i.saturating_add(shift) / 2;
            if let (Some(rr), Some(bb)) = (records.get_mut(j), bytes.get_mut(j)) {
                *rr = rr.saturating_add(r);
                *bb = bb.saturating_add(b);
            }
        }
        self.origin_ms = origin;
        self.width_ms = width;
        self.records = records;
        self.bytes = bytes;
        true
    }

    /// Add another timeline's counts (at each bucket's middle).
    pub fn merge(&mut self, o: &Timeline) {
        let half = o.width_ms / 2;
        for (i, (&r, &b)) in o.records.iter().zip(&o.bytes).enumerate() {
            if r > 0 || b > 0 {
                let at = o.origin_ms.saturating_add(o.width_ms.saturating_mul(i as i64)).saturating_add(half);
                self.add(at, r, b);
            }
        }
    }

    /// The buckets from the first non-empty one to the last: (start ms,
    /// records, bytes).
    pub fn points(&self) -> Vec<(i64, u64, u64)> {
        let used =
            |i: &usize| self.records.get(*i).is_some_and(|&r| r > 0) || self.bytes.get(*i).is_some_and(|&b| b > 0);
        let (Some(first), Some(last)) = ((0..self.records.len()).find(used), (0..self.records.len()).rev().find(used))
        else {
            return Vec::new();
        };
        (first..=last)
            .map(|i| {
                let start = self.origin_ms.saturating_add(self.width_ms.saturating_mul(i as i64));
                (start, self.records.get(i).copied().unwrap_or(0), self.bytes.get(i).copied().unwrap_or(0))
            })
            .collect()
    }
}

/// Batches of one codec.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct CodecStats {
    /// `none`, `gzip`, `snappy`, `lz4`, `zstd`.
    pub codec: &'static str,
    /// Batches.
    pub batches: u64,
    /// Their size on disk (whole batches).
    pub bytes: u64,
    /// Their records' payload as stored.
    pub payload_bytes: u64,
    /// The payload decompressed (batches whose payload did not decompress
    /// are left out of both).
    pub uncompressed_bytes: u64,
    /// `uncompressed_bytes / payload_bytes`.
    pub ratio: Option<f64>,
}

/// What one producer wrote.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct ProducerStats {
    /// The producer id (-1 for non-idempotent producers).
    pub producer_id: i64,
    /// Batches.
    pub batches: u64,
    /// Records.
    pub records: u64,
    /// Bytes on disk.
    pub bytes: u64,
}

/// What retention or compaction would remove now.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Reclaimable {
    /// The topic's `cleanup.policy` (None without a metadata log).
    pub cleanup_policy: Option<String>,
    /// `retention.ms` in force.
    pub retention_ms: Option<i64>,
    /// `retention.bytes` in force.
    pub retention_bytes: Option<i64>,
    /// Where `retention.ms` came from ([`config_origin`]); `kafka-default`
    /// is Kafka's built-in value, which a broker's `server.properties`
    /// (`log.retention.ms`, in no log dir) may override.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retention_ms_source: Option<&'static str>,
    /// Where `retention.bytes` came from, the same way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retention_bytes_source: Option<&'static str>,
    /// A tiered topic's `local.retention.ms` in force (-2: `retention.ms`'s).
    pub local_retention_ms: Option<i64>,
    /// A tiered topic's `local.retention.bytes` in force (-2: `retention.bytes`'s).
    pub local_retention_bytes: Option<i64>,
    /// Bytes of the segments retention deletes now (`delete` policy;
    /// `retention.ms` first, then `retention.bytes`, as Kafka; a tiered
    /// topic's local retention, of the segments remote storage holds).
    pub retention_bytes_reclaimable: Option<u64>,
    /// Records in them.
    pub retention_records_reclaimable: Option<u64>,
    /// For a compacted partition: records a later record of the same key
    /// supersedes (what the cleaner removes), and their uncompressed size.
    /// None when it is not compacted or has too many keys to track.
    pub superseded_records: Option<u64>,
    /// Uncompressed bytes of the superseded records.
    pub superseded_bytes: Option<u64>,
    /// For a compacted partition: the bytes one pass of Kafka's log cleaner
    /// would remove now (`logtool compact`'s plan); None when it would not
    /// clean the partition (not compacted, nothing dirty, a v0/v1 message).
    pub compaction_bytes_reclaimable: Option<u64>,
    /// The records it would remove.
    pub compaction_records_reclaimable: Option<u64>,
}

/// Numbers of one partition (or, summed, of many: [`Stats::merge`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    /// The partition dir, or the log dir / "total" of a sum.
    pub path: PathBuf,
    /// `partition`, `log_dir` (its partitions summed) or `total`.
    pub scope: &'static str,
    /// Partitions summed in.
    pub partitions: u64,
    /// `.log` files.
    pub segments: u64,
    /// Size of the `.log` files.
    pub log_bytes: u64,
    /// Log start offset (Kafka's, from the checkpoint; a tiered partition's
    /// may lie in remote storage).
    pub log_start_offset: Option<i64>,
    /// Where the local data begins: the log start offset, or for a tiered
    /// partition the local log start offset.
    pub local_log_start_offset: Option<i64>,
    /// The offset after the last batch on disk.
    pub log_end_offset: Option<i64>,
    /// Batches (legacy wrapper messages count as one).
    pub batches: u64,
    /// Records, control records included.
    pub records: u64,
    /// Bytes of whole batches.
    pub batch_bytes: u64,
    /// Batches whose CRC does not match (not looked into).
    pub bad_crc_batches: u64,
    /// Bytes that are not a batch (damage, torn tails, zeroes).
    pub damaged_bytes: u64,
    /// Batches whose records did not decode or decompress.
    pub undecodable_batches: u64,
    /// Distribution of batch sizes (bytes).
    pub batch_size: Histogram,
    /// Distribution of records per batch.
    pub records_per_batch: Histogram,
    /// Per codec.
    pub codecs: Vec<CodecStats>,
    /// Producers with ids (idempotent or transactional).
    pub producer_count: u64,
    /// The largest producers by bytes.
    pub top_producers: Vec<ProducerStats>,
    /// Everything the others wrote (producers past the top, and those
    /// without an id as producer -1).
    pub other_producers: ProducerStats,
    /// Estimated distinct non-null keys (HyperLogLog; summed partitions
    /// are a union).
    pub distinct_keys: u64,
    /// Records with a null key.
    pub null_keys: u64,
    /// Records with a null value (tombstones).
    pub tombstones: u64,
    /// Key bytes.
    pub key_bytes: u64,
    /// Value bytes.
    pub value_bytes: u64,
    /// Records with at least one header.
    pub records_with_headers: u64,
    /// Headers in all.
    pub headers: u64,
    /// Smallest record timestamp (>= 0).
    pub min_timestamp: Option<i64>,
    /// Largest record timestamp.
    pub max_timestamp: Option<i64>,
    /// Records whose timestamp is below one appended before them.
    pub out_of_order_records: u64,
    /// The most a record's timestamp was below the largest appended before
    /// it (ms).
    pub max_timestamp_lag_ms: i64,
    /// Batches in transactions.
    pub transactional_batches: u64,
    /// Control batches (transaction markers and others).
    pub control_batches: u64,
    /// Records in them.
    pub control_records: u64,
    /// Records of aborted transactions.
    pub aborted_records: u64,
    /// Bytes of their batches.
    pub aborted_bytes: u64,
    /// Retention and compaction.
    pub reclaimable: Reclaimable,
    /// Records and bytes over time (by the batches' max timestamp).
    pub timeline: Timeline,
    #[serde(skip)]
    hll: Hll,
    #[serde(skip)]
    producers: Vec<ProducerStats>,
}

impl Stats {
    /// An empty sum named `path`, of `scope`.
    pub fn empty(path: &Path, scope: &'static str) -> Stats {
        let other_producers = ProducerStats { producer_id: -1, ..Default::default() };
        Stats { path: path.to_path_buf(), scope, other_producers, ..Stats::default() }
    }

    /// Add another partition's (or sum's) numbers.
    pub fn merge(&mut self, o: &Stats, top: usize) {
        let add = |a: &mut u64, b: u64| *a = a.saturating_add(b);
        add(&mut self.partitions, o.partitions);
        add(&mut self.segments, o.segments);
        add(&mut self.log_bytes, o.log_bytes);
        self.log_start_offset = None;
        self.local_log_start_offset = None;
        self.log_end_offset = None;
        add(&mut self.batches, o.batches);
        add(&mut self.records, o.records);
        add(&mut self.batch_bytes, o.batch_bytes);
        add(&mut self.bad_crc_batches, o.bad_crc_batches);
        add(&mut self.damaged_bytes, o.damaged_bytes);
        add(&mut self.undecodable_batches, o.undecodable_batches);
        self.batch_size.merge(&o.batch_size);
        self.records_per_batch.merge(&o.records_per_batch);
        for c in &o.codecs {
            let mine = codec_entry(&mut self.codecs, c.codec);
            add(&mut mine.batches, c.batches);
            add(&mut mine.bytes, c.bytes);
            add(&mut mine.payload_bytes, c.payload_bytes);
            add(&mut mine.uncompressed_bytes, c.uncompressed_bytes);
            mine.ratio = ratio(mine);
        }
        // producer ids are per cluster: the same id in two partitions is
        // one producer
        let mut by_id: HashMap<i64, ProducerStats> = self.producers.drain(..).map(|p| (p.producer_id, p)).collect();
        for p in &o.producers {
            if by_id.len() >= MAX_PRODUCERS && !by_id.contains_key(&p.producer_id) {
                fold_producer(&mut self.other_producers, p);
                continue;
            }
            let e = by_id
                .entry(p.producer_id)
                .or_insert_with(|| ProducerStats { producer_id: p.producer_id, ..Default::default() });
            fold_producer(e, p);
        }
        self.producers = by_id.into_values().collect();
        fold_producer(&mut self.other_producers, &o.other_producers);
        self.producer_count = self.producers.len() as u64;
        self.hll.merge(&o.hll);
        self.distinct_keys = self.hll.estimate();
        add(&mut self.null_keys, o.null_keys);
        add(&mut self.tombstones, o.tombstones);
        add(&mut self.key_bytes, o.key_bytes);
        add(&mut self.value_bytes, o.value_bytes);
        add(&mut self.records_with_headers, o.records_with_headers);
        add(&mut self.headers, o.headers);
        self.min_timestamp = min_opt(self.min_timestamp, o.min_timestamp);
        self.max_timestamp = self.max_timestamp.max(o.max_timestamp);
        add(&mut self.out_of_order_records, o.out_of_order_records);
        self.max_timestamp_lag_ms = self.max_timestamp_lag_ms.max(o.max_timestamp_lag_ms);
        add(&mut self.transactional_batches, o.transactional_batches);
        add(&mut self.control_batches, o.control_batches);
        add(&mut self.control_records, o.control_records);
        add(&mut self.aborted_records, o.aborted_records);
        add(&mut self.aborted_bytes, o.aborted_bytes);
        let r = &mut self.reclaimable;
        let or = &o.reclaimable;
        r.cleanup_policy = None;
        r.retention_ms = None;
        r.retention_bytes = None;
        r.retention_ms_source = None;
        r.retention_bytes_source = None;
        r.local_retention_ms = None;
        r.local_retention_bytes = None;
        r.retention_bytes_reclaimable = sum_opt(r.retention_bytes_reclaimable, or.retention_bytes_reclaimable);
        r.retention_records_reclaimable = sum_opt(r.retention_records_reclaimable, or.retention_records_reclaimable);
        r.superseded_records = sum_opt(r.superseded_records, or.superseded_records);
        r.superseded_bytes = sum_opt(r.superseded_bytes, or.superseded_bytes);
        r.compaction_bytes_reclaimable = sum_opt(r.compaction_bytes_reclaimable, or.compaction_bytes_reclaimable);
        r.compaction_records_reclaimable = sum_opt(r.compaction_records_reclaimable, or.compaction_records_reclaimable);
        self.timeline.merge(&o.timeline);
        self.finish_producers(top);
    }

    fn finish_producers(&mut self, top: usize) {
        self.producers.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.producer_id.cmp(&b.producer_id)));
        self.top_producers = self.producers.iter().take(top).cloned().collect();
    }

    /// Every producer counted one by one, largest first (at most
    /// [`MAX_PRODUCERS`]).
    pub fn producers(&self) -> &[ProducerStats] {
        &self.producers
    }
}

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A sum that is known only if one part is (unknown parts count as 0).
fn sum_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.saturating_add(b)),
        (a, b) => a.or(b),
    }
}

fn fold_producer(into: &mut ProducerStats, p: &ProducerStats) {
    into.batches = into.batches.saturating_add(p.batches);
    into.records = into.records.saturating_add(p.records);
    into.bytes = into.bytes.saturating_add(p.bytes);
}

fn ratio(c: &CodecStats) -> Option<f64> {
    (c.payload_bytes > 0 && c.codec != "none").then(|| c.uncompressed_bytes as f64 / c.payload_bytes as f64)
}

fn codec_entry<'a>(codecs: &'a mut Vec<CodecStats>, codec: &'static str) -> &'a mut CodecStats {
    let i = match codecs.iter().position(|c| c.codec == codec) {
        Some(i) => i,
        None => {
            codecs.push(CodecStats { codec, ..Default::default() });
            codecs.sort_by_key(|c| c.codec);
            codecs.iter().position(|c| c.codec == codec).unwrap_or(0)
        }
    };
    #[allow(clippy::indexing_slicing)] // `i` was just found in `codecs`
    &mut codecs[i]
}

/// What a v2 batch's records add up to, worked out on any thread: the part
/// of [`Pass::v2`] that does not depend on the batches before (the pass
/// adds it in order, [`Pass::v2_part`]).
#[derive(Default)]
struct RecordsPart {
    null_keys: u64,
    tombstones: u64,
    key_bytes: u64,
    value_bytes: u64,
    records_with_headers: u64,
    headers: u64,
    /// Smallest and largest record timestamp (those >= 0).
    min_ts: Option<i64>,
    max_ts: Option<i64>,
    /// The timestamps (>= 0) never go down within the batch.
    ordered: bool,
    /// Keyed records' (hash, size) in order, when the key map is kept.
    keyed: Vec<(u64, u32)>,
    /// Decompressed bytes of the records region.
    uncompressed: u64,
    /// Why the records (or some of them) could not be read.
    failed: Option<logfmt::Error>,
}

/// What one slab item is, worked out on any thread.
enum Part {
    /// Damage, a legacy message, or a control batch: all counted in order.
    InOrder,
    /// A batch whose CRC does not match.
    BadCrc,
    /// A data batch and its records.
    V2(RecordsPart),
}

/// Work out a slab item's [`Part`]: the CRC and a data batch's records
/// (keys hashed into `hll`).
fn part_of(entry: Option<&Entry<'_>>, scratch: &mut Vec<u8>, limits: &Limits, hll: &SharedHll, keyed: bool) -> Part {
    let Some(entry) = entry else { return Part::InOrder };
    if !entry.is_valid() {
        return Part::BadCrc;
    }
    let Entry::V2(b) = entry else { return Part::InOrder };
    let h = b.header();
    if h.is_control() {
        return Part::InOrder;
    }
    let mut part = RecordsPart { ordered: true, ..RecordsPart::default() };
    let mut records = match b.records(scratch, limits) {
        Ok(r) => r,
        Err(e) => {
            part.failed = Some(e);
            return Part::V2(part);
        }
    };
    let mut last_ts = i64::MIN;
    while let Some(r) = records.next_record() {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                part.failed = Some(e);
                break;
            }
        };
        if !r.headers.is_empty() {
            part.records_with_headers = part.records_with_headers.saturating_add(1);
            part.headers = part.headers.saturating_add(r.headers.len() as u64);
        }
        match r.key {
            None => part.null_keys = part.null_keys.saturating_add(1),
            Some(k) => {
                let hash = key_hash(k);
                hll.add(hash);
                part.key_bytes = part.key_bytes.saturating_add(k.len() as u64);
                if keyed {
                    part.keyed.push((hash, u32::try_from(r.length).unwrap_or(u32::MAX)));
                }
            }
        }
        match r.value {
            None => part.tombstones = part.tombstones.saturating_add(1),
            Some(v) => part.value_bytes = part.value_bytes.saturating_add(v.len() as u64),
        }
        let ts = r.timestamp;
        if ts >= 0 {
            part.min_ts = min_opt(part.min_ts, Some(ts));
            part.max_ts = part.max_ts.max(Some(ts));
            part.ordered &= ts >= last_ts;
            last_ts = ts;
        }
    }
    if part.failed.is_none() {
        let compressed = h.compression().is_some_and(|c| c != Compression::None);
        part.uncompressed = if compressed { records.decompressed_len() } else { b.payload_size() };
    }
    Part::V2(part)
}

/// The state of one pass over a partition.
struct Pass<'o> {
    opts: &'o Options,
    s: Stats,
    producers: HashMap<i64, ProducerStats>,
    /// Open transactions (with their records and bytes so far), as
    /// Kafka's producer state keeps them.
    txns: ProducerState,
    /// For compaction: the latest record's size by key hash (None once
    /// there are too many keys).
    keys: Option<KeyMap>,
    superseded: (u64, u64),
    max_record_ts: Option<i64>,
    scratch: Vec<u8>,
    /// A batch or record the memory budget could not hold: the numbers would
    /// be incomplete, so the pass fails with it.
    refused: Option<logfmt::Error>,
}

impl Pass<'_> {
    /// Count a batch that does not decode, or keep the error when it was
    /// the budget's refusal rather than the data.
    fn undecodable(&mut self, e: logfmt::Error) {
        if e.class() == logfmt::error::ErrorClass::Memory {
            self.refused.get_or_insert(e);
        } else {
            self.s.undecodable_batches = self.s.undecodable_batches.saturating_add(1);
        }
    }

    fn producer(&mut self, id: i64) -> &mut ProducerStats {
        if id < 0 || (self.producers.len() >= MAX_PRODUCERS && !self.producers.contains_key(&id)) {
            return &mut self.s.other_producers;
        }
        self.producers.entry(id).or_insert_with(|| ProducerStats { producer_id: id, ..Default::default() })
    }

    /// A keyed record of `size` bytes (in order): the key map learns it.
    fn key_seen(&mut self, hash: u64, size: u32) {
        if let Some(keys) = &mut self.keys {
            match keys.insert(hash, size) {
                Some(old) => {
                    self.superseded.0 = self.superseded.0.saturating_add(1);
                    self.superseded.1 = self.superseded.1.saturating_add(u64::from(old));
                }
                None if keys.len() > MAX_TRACKED_KEYS => self.keys = None,
                None => {}
            }
        }
    }

    fn record(&mut self, ts: i64, key: Option<&[u8]>, value_len: Option<u64>, size: u64) {
        match key {
            None => self.s.null_keys = self.s.null_keys.saturating_add(1),
            Some(k) => {
                let h = key_hash(k);
                self.s.hll.add(h);
                self.s.key_bytes = self.s.key_bytes.saturating_add(k.len() as u64);
                self.key_seen(h, u32::try_from(size).unwrap_or(u32::MAX));
            }
        }
        let s = &mut self.s;
        match value_len {
            None => s.tombstones = s.tombstones.saturating_add(1),
            Some(n) => s.value_bytes = s.value_bytes.saturating_add(n),
        }
        if ts >= 0 {
            s.min_timestamp = min_opt(s.min_timestamp, Some(ts));
            s.max_timestamp = s.max_timestamp.max(Some(ts));
            match self.max_record_ts {
                Some(m) if ts < m => {
                    s.out_of_order_records = s.out_of_order_records.saturating_add(1);
                    s.max_timestamp_lag_ms = s.max_timestamp_lag_ms.max(m.saturating_sub(ts));
                }
                _ => self.max_record_ts = Some(ts),
            }
        }
    }

    fn batch_common(&mut self, size: u64, count: u64, codec: Option<Compression>, max_ts: i64) {
        let s = &mut self.s;
        s.batches = s.batches.saturating_add(1);
        s.records = s.records.saturating_add(count);
        s.batch_bytes = s.batch_bytes.saturating_add(size);
        s.batch_size.add(size);
        s.records_per_batch.add(count);
        s.timeline.add(max_ts, count, size);
        let c = codec_entry(&mut s.codecs, codec.map_or("unknown", Compression::name));
        c.batches = c.batches.saturating_add(1);
        c.bytes = c.bytes.saturating_add(size);
    }

    fn codec_payload(&mut self, codec: Option<Compression>, payload: u64, uncompressed: u64) {
        let c = codec_entry(&mut self.s.codecs, codec.map_or("unknown", Compression::name));
        c.payload_bytes = c.payload_bytes.saturating_add(payload);
        c.uncompressed_bytes = c.uncompressed_bytes.saturating_add(uncompressed);
    }

    /// A v2 batch's header, in order; a control batch is counted whole
    /// (true: nothing more to count).
    fn v2_header(&mut self, b: &RecordBatch<'_>) -> bool {
        let h = *b.header();
        let size = b.size();
        let count = u64::try_from(h.records_count).unwrap_or(0);
        self.batch_common(size, count, h.compression(), h.max_timestamp);
        {
            let p = self.producer(h.producer_id);
            p.batches = p.batches.saturating_add(1);
            p.records = p.records.saturating_add(count);
            p.bytes = p.bytes.saturating_add(size);
        }
        if h.is_transactional() {
            self.s.transactional_batches = self.s.transactional_batches.saturating_add(1);
        }
        if h.is_control() {
            self.s.control_batches = self.s.control_batches.saturating_add(1);
            self.s.control_records = self.s.control_records.saturating_add(count);
            let mut scratch = std::mem::take(&mut self.scratch);
            let marker = end_txn_marker(b, &mut scratch, &self.opts.limits);
            self.scratch = scratch;
            if let Some(Marker::Completed(t)) = self.txns.apply(&h, marker.as_ref())
                && t.aborted
            {
                self.s.aborted_records = self.s.aborted_records.saturating_add(t.records);
                self.s.aborted_bytes = self.s.aborted_bytes.saturating_add(t.bytes);
            }
            return true;
        }
        self.txns.apply(&h, None);
        false
    }

    /// A v2 batch, read here.
    fn v2(&mut self, b: &RecordBatch<'_>) {
        if !self.v2_header(b) {
            self.v2_records(b);
        }
    }

    /// A data batch whose records were counted on any thread
    /// ([`part_of`]): its header here, in order, and the records' sums;
    /// where their timestamps reach below those already seen, they are
    /// read again here one by one (out-of-order records are counted in
    /// order).
    fn v2_part(&mut self, b: &RecordBatch<'_>, part: RecordsPart) {
        if self.v2_header(b) {
            return;
        }
        let h = *b.header();
        let in_order = part.ordered && part.min_ts.is_none_or(|m| self.max_record_ts.is_none_or(|x| m >= x));
        if !in_order {
            return self.v2_records(b);
        }
        let s = &mut self.s;
        s.null_keys = s.null_keys.saturating_add(part.null_keys);
        s.tombstones = s.tombstones.saturating_add(part.tombstones);
        s.key_bytes = s.key_bytes.saturating_add(part.key_bytes);
        s.value_bytes = s.value_bytes.saturating_add(part.value_bytes);
        s.records_with_headers = s.records_with_headers.saturating_add(part.records_with_headers);
        s.headers = s.headers.saturating_add(part.headers);
        if part.min_ts.is_some() {
            s.min_timestamp = min_opt(s.min_timestamp, part.min_ts);
            s.max_timestamp = s.max_timestamp.max(part.max_ts);
            self.max_record_ts = self.max_record_ts.max(part.max_ts);
        }
        for (hash, size) in part.keyed {
            self.key_seen(hash, size);
        }
        match part.failed {
            Some(e) => self.undecodable(e),
            None => self.codec_payload(h.compression(), b.payload_size(), part.uncompressed),
        }
    }

    /// Count a data batch's records one by one, in order.
    fn v2_records(&mut self, b: &RecordBatch<'_>) {
        let h = *b.header();
        let mut scratch = std::mem::take(&mut self.scratch);
        match b.records(&mut scratch, &self.opts.limits) {
            Err(e) => self.undecodable(e),
            Ok(mut records) => {
                let compressed = h.compression().is_some_and(|c| c != Compression::None);
                let payload = b.payload_size();
                let mut failed = None;
                while let Some(r) = records.next_record() {
                    let r = match r {
                        Ok(r) => r,
                        Err(e) => {
                            failed = Some(e);
                            break;
                        }
                    };
                    if !r.headers.is_empty() {
                        self.s.records_with_headers = self.s.records_with_headers.saturating_add(1);
                        self.s.headers = self.s.headers.saturating_add(r.headers.len() as u64);
                    }
                    let rec_size = u64::try_from(r.length).unwrap_or(0);
                    self.record(r.timestamp, r.key, r.value.map(|v| v.len() as u64), rec_size);
                }
                if let Some(e) = failed {
                    self.undecodable(e);
                } else {
                    let uncompressed = if compressed { records.decompressed_len() } else { payload };
                    self.codec_payload(h.compression(), payload, uncompressed);
                }
            }
        }
        self.scratch = scratch;
    }

    fn legacy(&mut self, m: &LegacyMessage<'_>) {
        let size = m.size_in_bytes();
        let mut scratch = std::mem::take(&mut self.scratch);
        self.legacy_records(m, size, &mut scratch);
        self.scratch = scratch;
    }

    fn legacy_records(&mut self, m: &LegacyMessage<'_>, size: u64, scratch: &mut Vec<u8>) {
        let records = m.records(scratch, &self.opts.limits);
        let count = records.as_ref().map_or(1, |r| u64::from(r.record_count()));
        self.batch_common(size, count, m.compression(), m.timestamp);
        {
            let p = self.producer(-1);
            p.batches = p.batches.saturating_add(1);
            p.records = p.records.saturating_add(count);
            p.bytes = p.bytes.saturating_add(size);
        }
        match records {
            Err(e) => self.undecodable(e),
            Ok(mut records) => {
                while let Some(r) = records.next_record() {
                    let r = match r {
                        Ok(r) => r,
                        Err(e) => {
                            self.undecodable(e);
                            break;
                        }
                    };
                    let msg = r.message;
                    self.record(msg.timestamp, msg.key, msg.value.map(|v| v.len() as u64), msg.size_in_bytes());
                }
            }
        }
    }
}

/// The numbers of partition `p` of `log_dir`. `done` is told each
/// segment's size once it is read (a progress bar). `read_ahead` (the
/// scheduler's [`crate::schedule::Pass::read_ahead`]): a segment larger
/// than a slab is read ahead on its own thread and its batches counted in
/// parallel, as `verify` does; the numbers are the same either way.
/// `remote`: the log dir's remote log metadata (tiered partitions' local
/// retention deletes only what it says remote storage holds).
pub fn partition_stats(
    p: &Partition,
    log_dir: &LogDir,
    remote: Option<&logrules::remote::RemoteLog>,
    opts: &Options,
    read_ahead: bool,
    done: &mut dyn FnMut(u64),
) -> Result<Stats> {
    let compacted = compaction(p, log_dir) == Compaction::Compacted;
    let mut pass = Pass {
        opts,
        s: Stats::empty(&p.dir, "partition"),
        producers: HashMap::new(),
        txns: ProducerState::default(),
        keys: compacted.then(KeyMap::default),
        superseded: (0, 0),
        max_record_ts: None,
        scratch: Vec::new(),
        refused: None,
    };
    pass.s.partitions = 1;
    let mut last_offset = None;
    let hll = SharedHll::new();
    let keyed = pass.keys.is_some();
    let limits = opts.limits;
    // each item's part on any thread (in parallel when reading ahead)
    let part = |scratch: &mut Vec<u8>, slab: &Slab, item: &SlabItem| {
        part_of(slab.entry(item).as_ref(), scratch, &limits, &hll, keyed)
    };
    let mut scratch = Vec::new();
    for seg in &p.segments {
        pass.s.segments = pass.s.segments.saturating_add(1);
        pass.s.log_bytes = pass.s.log_bytes.saturating_add(seg.size);
        // read in slabs as verify reads: large reads, the next one read
        // ahead while the batches of this one are counted in parallel
        let mut r = seg.reader(&opts.limits)?;
        let size = crate::schedule::slab_size(&opts.limits);
        let read_ahead = read_ahead && seg.size > size as u64;
        crate::schedule::slabs(&mut r, size, read_ahead, |slab| {
            let parts: Vec<Part> = if read_ahead {
                slab.items.par_iter().map_init(Vec::new, |scratch, item| part(scratch, slab, item)).collect()
            } else {
                slab.items.iter().map(|item| part(&mut scratch, slab, item)).collect()
            };
            for (item, part) in slab.items.iter().zip(parts) {
                let entry = match item {
                    SlabItem::Damage(d) => {
                        pass.s.damaged_bytes = pass.s.damaged_bytes.saturating_add(d.end.saturating_sub(d.start));
                        continue;
                    }
                    SlabItem::Entry { .. } => slab.entry(item),
                };
                match (entry, part) {
                    (Some(e), Part::BadCrc) => {
                        pass.s.bad_crc_batches = pass.s.bad_crc_batches.saturating_add(1);
                        pass.s.damaged_bytes = pass.s.damaged_bytes.saturating_add(e.size());
                    }
                    (Some(Entry::V2(b)), part) => {
                        last_offset = Some(b.header().last_offset());
                        match part {
                            Part::V2(part) => pass.v2_part(&b, part),
                            _ => pass.v2(&b),
                        }
                    }
                    (Some(Entry::Legacy(m)), _) => {
                        last_offset = Some(m.offset);
                        pass.legacy(&m);
                    }
                    // (framed when the slab was read: not reached)
                    (None, _) => {}
                }
            }
            true
        })?;
        done(seg.size);
        if let Some(e) = pass.refused.take() {
            return Err(e.with_path(&seg.log));
        }
    }
    hll.merge_into(&mut pass.s.hll);
    let mut s = pass.s;
    s.log_start_offset = (!p.segments.is_empty()).then(|| log_start_offset(p));
    s.local_log_start_offset = (!p.segments.is_empty()).then(|| logrules::log::local_log_start_offset(p));
    s.log_end_offset = p.segments.last().map(|a| logrules::log::log_end_from(last_offset, Some(a.base)));
    s.producers = pass.producers.into_values().collect();
    s.producer_count = s.producers.len() as u64;
    s.finish_producers(opts.top_producers);
    s.distinct_keys = s.hll.estimate();
    for c in &mut s.codecs {
        c.ratio = ratio(c);
    }
    s.reclaimable = reclaimable(p, log_dir, remote, opts, compacted, pass.keys.is_some(), pass.superseded)?;
    Ok(s)
}

fn config_i64(log_dir: &LogDir, topic: &str, key: logfmt::metadata::ConfigKey) -> Option<i64> {
    log_dir.topic_config(topic, key).and_then(|(v, _)| v.trim().parse().ok())
}

/// Where a config's value came from, in a word: `topic`, `broker`,
/// `cluster-default` (set in the cluster's metadata) or `kafka-default`
/// (Kafka's built-in value: what a broker's `server.properties` says, which
/// no log dir holds, may differ).
pub fn config_origin(source: &logfmt::metadata::ConfigSource) -> &'static str {
    use logfmt::metadata::ConfigSource;
    match source {
        ConfigSource::Topic(_) => "topic",
        ConfigSource::Broker(..) => "broker",
        ConfigSource::ClusterDefault(_) => "cluster-default",
        ConfigSource::KafkaDefault(_) => "kafka-default",
    }
}

#[allow(clippy::too_many_arguments)]
fn reclaimable(
    p: &Partition,
    log_dir: &LogDir,
    remote: Option<&logrules::remote::RemoteLog>,
    opts: &Options,
    compacted: bool,
    keys_tracked: bool,
    superseded: (u64, u64),
) -> Result<Reclaimable> {
    use logrules::retention::{Outcome, Rule, plan};
    let mut r = Reclaimable::default();
    if compacted && keys_tracked {
        r.superseded_records = Some(superseded.0);
        r.superseded_bytes = Some(superseded.1);
    }
    let pass = logrules::compact::Options {
        limits: opts.limits,
        map_memory: opts.dedupe_buffer,
        load_factor: logrules::cleaner::DEFAULT_LOAD_FACTOR,
        now_ms: opts.now_ms,
        producer_id_expiration_ms: logrules::compact::DEFAULT_PRODUCER_ID_EXPIRATION_MS,
    };
    match logrules::compact::reclaim(p, log_dir, &pass) {
        Ok(Some(c)) => {
            r.compaction_bytes_reclaimable = Some(c.bytes_before.saturating_sub(c.bytes_after));
            r.compaction_records_reclaimable = Some(c.records_before.saturating_sub(c.records_after));
        }
        // a compacted topic with nothing cleanable now: a pass removes nothing
        Ok(None) if compacted => {
            r.compaction_bytes_reclaimable = Some(0);
            r.compaction_records_reclaimable = Some(0);
        }
        Ok(None) => {}
        // (a map the budget refused while other threads held memory: the
        // caller reads the partition again alone)
        Err(e) => return Err(e),
    }
    if p.is_metadata_log() {
        return Ok(r);
    }
    let topic = p.name.topic.as_str();
    r.cleanup_policy = log_dir.topic_config(topic, CLEANUP_POLICY).map(|(v, _)| v);
    let Some(policy) = &r.cleanup_policy else { return Ok(r) };
    r.retention_ms = config_i64(log_dir, topic, RETENTION_MS);
    r.retention_bytes = config_i64(log_dir, topic, RETENTION_BYTES);
    r.retention_ms_source = log_dir.topic_config(topic, RETENTION_MS).map(|(_, s)| config_origin(&s));
    r.retention_bytes_source = log_dir.topic_config(topic, RETENTION_BYTES).map(|(_, s)| config_origin(&s));
    if !logrules::retention::deletes(policy) {
        return Ok(r);
    }
    // tiered: local retention (local.retention.*, -2: retention.*'s value)
    // over the segments remote storage holds (UnifiedLog.localRetentionMs)
    let tiered = logrules::remote::retention_view(p, log_dir, remote, &opts.limits);
    let (ms, bytes) = match &tiered {
        Some(_) => {
            r.local_retention_ms = config_i64(log_dir, topic, LOCAL_RETENTION_MS);
            r.local_retention_bytes = config_i64(log_dir, topic, LOCAL_RETENTION_BYTES);
            let local = |v: Option<i64>, total: Option<i64>| if v == Some(-2) { total } else { v };
            (local(r.local_retention_ms, r.retention_ms), local(r.local_retention_bytes, r.retention_bytes))
        }
        None => (r.retention_ms, r.retention_bytes),
    };
    // Kafka deletes by time, then by size (UnifiedLog.deleteOldSegments):
    // both plans, the larger of the two (each deletes a prefix of segments)
    let mut best = (0u64, 0u64);
    let rules = [
        ms.filter(|&ms| ms >= 0).map(|ms| Rule::Before(opts.now_ms.saturating_sub(ms))),
        bytes.and_then(|b| u64::try_from(b).ok()).map(Rule::MaxBytes),
    ];
    for rule in rules.into_iter().flatten() {
        if let Outcome::Plan(plan) = plan(p, rule, tiered.as_ref(), &opts.limits)?
            && plan.freed.0 > best.0
        {
            best = plan.freed;
        }
    }
    r.retention_bytes_reclaimable = Some(best.0);
    r.retention_records_reclaimable = Some(best.1);
    Ok(r)
}

impl Report for Stats {
    const TYPE: &'static str = "stats";
    fn show(&self) -> logfmt::report::Shown {
        let cells = {
            let codecs = self
                .codecs
                .iter()
                .map(|c| match c.ratio {
                    Some(r) => format!("{} {:.1}x", c.codec, r),
                    None => c.codec.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ");
            let range = match (self.min_timestamp, self.max_timestamp) {
                // the one notation of times: RFC 3339 UTC with ms, `A to B`
                (Some(a), Some(b)) => format!("{} to {}", logfmt::report::time_text(a), logfmt::report::time_text(b)),
                _ => "-".into(),
            };
            // a partition by its directory's name (its log dir has a row of its own)
            let path = match (self.scope, self.path.file_name()) {
                ("partition", Some(name)) => name.to_string_lossy().into_owned(),
                _ => self.path.display().to_string(),
            };
            vec![
                path,
                grouped(self.segments),
                grouped(self.batches),
                grouped(self.records),
                human_bytes(self.log_bytes),
                self.batch_size.mean().map_or("-".into(), |m| human_bytes(m.round() as u64)),
                codecs,
                grouped(self.distinct_keys),
                grouped(self.producer_count),
                range,
            ]
        };
        logfmt::report::Shown::Row(
            &[
                "PATH",
                "SEGMENTS",
                "BATCHES",
                "RECORDS",
                "SIZE",
                "AVG BATCH",
                "CODECS",
                "KEYS≈",
                "PRODUCERS",
                "TIME RANGE",
            ],
            cells,
        )
    }
}

/// An epoch-ms time as `2026-11-21 09:14:03Z` (UTC, to the second).
pub fn utc(ms: i64) -> String {
    logfmt::report::utc(ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use logfmt::builder::{BatchBuilder, NewRecord};

    /// A partition of `batches` batches of 10 records (some compressed,
    /// some with headers, null keys and tombstones) whose timestamps go
    /// down now and then, within a batch and across batches; returns its
    /// dir and the expected (out-of-order records, largest lag, min, max).
    fn shuffled_partition(root: &Path, name: &str, batches: i64) -> (PathBuf, (u64, i64, i64, i64)) {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let value = vec![7u8; 900];
        let (mut out, mut expect, mut max) = (Vec::new(), (0u64, 0i64, i64::MAX, i64::MIN), None::<i64>);
        for n in 0..batches {
            let mut b = BatchBuilder::new(n * 10);
            if n % 7 == 0 {
                b.compression = Compression::Gzip;
            }
            for i in 0..10i64 {
                // every 13th batch starts below what came before; every
                // 5th has one record going back within it
                let mut ts = 1_700_000_000_000 + n * 100 + i;
                if n % 13 == 5 {
                    ts -= 350;
                }
                if n % 5 == 1 && i == 4 {
                    ts -= 3;
                }
                let key = format!("k{}", (n * 10 + i) % 97);
                let key = (i != 2).then_some(key.as_bytes());
                let value = (i != 3).then_some(&value[..]);
                let headers: &[(&[u8], Option<&[u8]>)] = if i == 5 { &[(b"h", Some(b"v"))] } else { &[] };
                b.push(&NewRecord { timestamp: ts, key, value, headers });
                match max {
                    Some(m) if ts < m => {
                        expect.0 += 1;
                        expect.1 = expect.1.max(m - ts);
                    }
                    _ => max = Some(ts),
                }
                expect.2 = expect.2.min(ts);
                expect.3 = expect.3.max(ts);
            }
            out.extend(b.build());
        }
        std::fs::write(dir.join("00000000000000000000.log"), out).unwrap();
        (dir, expect)
    }

    /// Counted in parallel (read ahead) or one by one, a partition's
    /// numbers are the same, and its out-of-order records are those of the
    /// partition's order.
    #[test]
    fn parallel_counting_is_exact() {
        let tmp = tempfile::tempdir().unwrap();
        let limits = Limits::default();
        let opts = Options { top_producers: 5, now_ms: 1_800_000_000_000, limits, dedupe_buffer: 1 << 20 };
        // (big enough to be read ahead: more than a slab)
        let batches = (crate::schedule::slab_size(&limits) / 6000 + 50) as i64;
        for name in ["t-0", "__consumer_offsets-0"] {
            let (dir, expect) = shuffled_partition(tmp.path(), name, batches);
            let log_dir = LogDir::read(tmp.path(), &limits);
            let p = log_dir.open_partition(&dir).unwrap();
            // (else both runs would count one by one, and agree trivially)
            assert!(
                p.segments[0].size > crate::schedule::slab_size(&limits) as u64,
                "{name}: not read ahead: {} bytes, slab {}",
                p.segments[0].size,
                crate::schedule::slab_size(&limits)
            );
            let json = |read_ahead| {
                let s = partition_stats(&p, &log_dir, None, &opts, read_ahead, &mut |_| {}).unwrap();
                serde_json::to_value(&s).unwrap()
            };
            let (parallel, one_by_one) = (json(true), json(false));
            assert_eq!(parallel, one_by_one, "{name}");
            assert_eq!(parallel["out_of_order_records"], expect.0, "{name}");
            assert_eq!(parallel["max_timestamp_lag_ms"], expect.1, "{name}");
            assert_eq!(parallel["records"], batches * 10, "{name}");
            assert_eq!(parallel["null_keys"], batches, "{name}");
            assert_eq!(parallel["tombstones"], batches, "{name}");
            assert_eq!(parallel["headers"], batches, "{name}");
            assert!(expect.0 > 0 && expect.2 < expect.3);
            if name.starts_with("__") {
                let superseded = parallel["reclaimable"]["superseded_records"].as_u64();
                assert!(superseded.is_some_and(|n| n > 0), "{parallel}");
            }
        }
    }

    #[test]
    fn hll_is_close() {
        for n in [0u64, 1, 100, 10_000, 200_000] {
            let mut h = Hll::default();
            for i in 0..n {
                h.add(key_hash(format!("key-{i}").as_bytes()));
                h.add(key_hash(format!("key-{i}").as_bytes()));
            }
            let e = h.estimate() as f64;
            let err = if n == 0 { e } else { (e - n as f64).abs() / n as f64 };
            assert!(err < 0.03, "{n}: {e}");
        }
    }

    #[test]
    fn histogram_buckets() {
        let mut h = Histogram::default();
        for v in [0, 1, 2, 3, 4, 1000, u64::MAX] {
            h.add(v);
        }
        let b = h.buckets();
        assert_eq!(b.first(), Some(&Bucket { from: 0, to: 1, count: 2 }));
        assert_eq!(b.get(1), Some(&Bucket { from: 2, to: 3, count: 2 }));
        assert_eq!(b.last(), Some(&Bucket { from: 1 << 63, to: u64::MAX, count: 1 }));
        assert_eq!(h.count, 7);
    }

    #[test]
    fn timeline_widens_and_keeps_counts() {
        let mut t = Timeline::default();
        let base = 1_700_000_000_000i64;
        for i in 0..10_000i64 {
            t.add(base + i * 997, 1, 10);
        }
        t.add(base - 86_400_000, 5, 50);
        assert_eq!(t.records.iter().sum::<u64>(), 10_005);
        assert_eq!(t.bytes.iter().sum::<u64>(), 100_050);
        assert_eq!(t.records.len(), TIMELINE_BUCKETS);
        // three days back: buckets of about an hour, not days
        assert!(t.width_ms <= 4_096_000, "{}", t.width_ms);
        let pts = t.points();
        assert!(pts.len() > 60, "{}", pts.len());
        t.add(-1, 1, 1);
        t.add(i64::MAX, 1, 1);
        let mut u = Timeline::default();
        u.merge(&t);
        assert!(u.records.iter().sum::<u64>() >= 10_005);
    }

    #[test]
    fn utc_times() {
        assert_eq!(utc(0), "1970-01-01 00:00:00Z");
        assert_eq!(utc(1_763_716_443_000), "2025-11-21 09:14:03Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00Z");
    }
}
