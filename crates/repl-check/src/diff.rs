//! Comparing replicas: the divergence, the leader, and what Kafka will do.
//!
//! 1. Every replica's lineage: its `leader-epoch-checkpoint` (what Kafka's
//!    truncation uses), checked against the epochs its batches carry (an
//!    epoch assigned at the log end by an election without writes is normal
//!    and not reported).
//! 2. The leader: `--leader`, or the replica with the highest latest epoch
//!    (then the longest log).
//! 3. For each follower, Kafka's truncation against the leader
//!    ([`crate::lineage`]), the leader taken as just elected.
//! 4. One streaming pass over all replicas at once: the leader's batches
//!    against each follower's, by offsets, epoch, CRC and size (no record is
//!    decoded), from the highest log start on. A follower diverges at the
//!    first batch that is not the leader's, or at the leader's end if it has
//!    more. Its batches from there on are what differs; those at or after the
//!    truncation offset are what Kafka throws away.

use std::path::PathBuf;

use logfmt::checkpoint::EpochEntry;
use logfmt::limits::Limits;
use logrules::epochs::EpochCache;

use crate::error::{Error, Result};
use crate::replica::{self, BatchStream, BatchSummary, ReplicaInfo};
use logrules::replication::{Lineage, as_elected, kafka_truncation};

/// How to compare.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The leader, by position among the inputs; default: chosen by epoch.
    pub leader: Option<usize>,
    /// Ceilings for reading Kafka files.
    pub limits: Limits,
}

/// One replica's part of the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaReport {
    /// Offsets, high watermark, checkpoint epochs, notes.
    pub info: ReplicaInfo,
    /// Is it the leader?
    pub is_leader: bool,
    /// The lineage used (the checkpoint, or the batches' when there is none).
    pub epochs: Vec<EpochEntry>,
    /// The lineage the batches carry.
    pub batch_epochs: Vec<EpochEntry>,
    /// The latest epoch of the lineage used.
    pub latest_epoch: Option<i32>,
    /// Batches and records read.
    pub batches: u64,
    /// Records read.
    pub records: u64,
    /// Followers: the first offset whose data is not the leader's.
    pub divergence_offset: Option<i64>,
    /// Followers: where Kafka truncates it (`None`: nothing removed).
    pub truncate_to: Option<i64>,
    /// Followers: the rounds of Kafka's truncation (diverging epoch, its end
    /// at the leader, offset truncated to).
    pub truncation_rounds: Vec<(i32, i64, i64)>,
    /// Followers: records that differ from the leader's and that Kafka removes.
    pub records_lost: u64,
    /// Their batches.
    pub batches_lost: u64,
    /// Their offsets, `[from, to)`.
    pub lost_range: Option<(i64, i64)>,
    /// Their leader epochs.
    pub lost_epochs: Vec<i32>,
    /// Their time range (-1 when unknown).
    pub lost_time_range: (i64, i64),
    /// How many of them were below the follower's own high watermark:
    /// committed records (what an unclean election throws away).
    pub records_lost_below_hw: u64,
    /// Followers: records that differ from the leader's but that Kafka's
    /// truncation keeps (the replicas stay inconsistent).
    pub records_kept_divergent: u64,
    /// Things to know: lineage disagreements, damage, missing files.
    pub notes: Vec<String>,
}

impl serde::Serialize for ReplicaReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let pairs = |v: &[EpochEntry]| -> Vec<(i32, i64)> { v.iter().map(|e| (e.epoch, e.start_offset)).collect() };
        let i = &self.info;
        let mut st = s.serialize_struct("ReplicaReport", 25)?;
        st.serialize_field("path", &i.path.display().to_string())?;
        st.serialize_field(
            "source",
            match i.source {
                crate::replica::SourceKind::Dir => "dir",
                crate::replica::SourceKind::Digest => "digest",
            },
        )?;
        st.serialize_field("topic", &i.topic)?;
        st.serialize_field("partition", &i.partition)?;
        st.serialize_field("role", if self.is_leader { "leader" } else { "follower" })?;
        st.serialize_field("log_start_offset", &i.log_start_offset)?;
        st.serialize_field("log_end_offset", &i.log_end_offset)?;
        st.serialize_field("high_watermark", &i.high_watermark)?;
        st.serialize_field("latest_epoch", &self.latest_epoch)?;
        st.serialize_field("epochs", &pairs(&self.epochs))?;
        st.serialize_field("batch_epochs", &pairs(&self.batch_epochs))?;
        st.serialize_field("batches", &self.batches)?;
        st.serialize_field("records", &self.records)?;
        st.serialize_field("divergence_offset", &self.divergence_offset)?;
        st.serialize_field("truncate_to", &self.truncate_to)?;
        st.serialize_field("truncation_rounds", &self.truncation_rounds)?;
        st.serialize_field("records_lost", &self.records_lost)?;
        st.serialize_field("batches_lost", &self.batches_lost)?;
        st.serialize_field("lost_offsets", &self.lost_range)?;
        st.serialize_field("lost_epochs", &self.lost_epochs)?;
        st.serialize_field("lost_first_timestamp", &self.lost_time_range.0)?;
        st.serialize_field("lost_last_timestamp", &self.lost_time_range.1)?;
        st.serialize_field("records_lost_below_hw", &self.records_lost_below_hw)?;
        st.serialize_field("records_kept_divergent", &self.records_kept_divergent)?;
        st.serialize_field("notes", &self.notes)?;
        st.end()
    }
}

impl logfmt::report::Report for ReplicaReport {
    const TYPE: &'static str = "replica";
    fn show(&self) -> logfmt::report::Shown {
        let cells = {
            let opt = |v: Option<i64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
            let lost = match (self.is_leader, self.records_lost, self.lost_range) {
                (true, ..) => "-".to_string(),
                (_, 0, _) => "0".to_string(),
                (_, n, Some((a, b))) => format!("{n} ({})", logfmt::report::offset_range(a, b.saturating_sub(1))),
                (_, n, None) => n.to_string(),
            };
            vec![
                self.info.path.display().to_string(),
                if self.is_leader { "leader" } else { "follower" }.to_string(),
                self.info.log_start_offset.to_string(),
                self.info.log_end_offset.to_string(),
                opt(self.info.high_watermark),
                self.latest_epoch.map_or_else(|| "-".into(), |e| e.to_string()),
                opt(self.divergence_offset),
                opt(self.truncate_to),
                lost,
            ]
        };
        logfmt::report::Shown::Row(
            &["REPLICA", "ROLE", "START", "END", "HW", "EPOCH", "DIVERGES AT", "TRUNCATE TO", "LOST"],
            cells,
        )
    }
}

/// The comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Per input, in order.
    pub replicas: Vec<ReplicaReport>,
    /// Index of the leader.
    pub leader: usize,
    /// Whether any follower holds data the leader does not.
    pub diverged: bool,
    /// The lowest divergence offset.
    pub divergence_offset: Option<i64>,
}

/// A replica during the pass.
struct Pass {
    index: usize,
    input: Input,
    in_sync: bool,
    divergence: Option<i64>,
}

struct Input {
    info: ReplicaInfo,
    stream: Box<dyn BatchStream>,
    current: Option<BatchSummary>,
    ended: bool,
    batches: u64,
    records: u64,
    derived: EpochCache,
}

impl Input {
    fn peek(&mut self) -> Result<Option<BatchSummary>> {
        if self.current.is_none() && !self.ended {
            self.current = self.stream.next_batch()?;
            self.ended = self.current.is_none();
        }
        Ok(self.current)
    }

    /// Take the current batch, accounting for it.
    fn take(&mut self) -> Result<Option<BatchSummary>> {
        let b = self.peek()?;
        self.current = None;
        if let Some(b) = &b {
            self.batches = self.batches.saturating_add(1);
            self.records = self.records.saturating_add(u64::from(b.records));
            self.derived.observe(b.epoch, b.base_offset);
        }
        Ok(b)
    }
}

/// The lineage a replica's batches carry (a full pass; only for replicas
/// without a readable `leader-epoch-checkpoint`).
fn batch_lineage(path: &std::path::Path, limits: &Limits) -> Result<Vec<EpochEntry>> {
    let (_, mut s) = replica::open(path, limits)?;
    let mut c = EpochCache::default();
    while let Some(b) = s.next_batch()? {
        c.observe(b.epoch, b.base_offset);
    }
    Ok(c.entries().to_vec())
}

/// A note when a checkpoint disagrees with the batches
/// ([`logrules::epochs::checkpoint_agrees`]).
fn lineage_note(checkpoint: &[EpochEntry], batches: &[EpochEntry], info: &ReplicaInfo) -> Option<String> {
    let same = logrules::epochs::checkpoint_agrees(checkpoint, batches, info.log_end_offset);
    let show =
        |v: &[EpochEntry]| v.iter().map(|e| format!("{}@{}", e.epoch, e.start_offset)).collect::<Vec<_>>().join(" ");
    (!same).then(|| {
        format!(
            "leader-epoch-checkpoint [{}] disagrees with the epochs the batches carry [{}]",
            show(checkpoint),
            show(batches)
        )
    })
}

/// Compare the replicas at `paths` (partition dirs or digests).
pub fn diff(paths: &[PathBuf], opts: &Options) -> Result<Report> {
    if paths.len() < 2 {
        return Err(Error::Input("give at least two replicas".into()));
    }
    let (inputs, notes) = open_inputs(paths, opts)?;
    // the lineages Kafka's truncation uses
    let mut lineages = Vec::new();
    for (inp, p) in inputs.iter().zip(paths) {
        let epochs = match &inp.info.epochs {
            Some(e) => EpochCache::load(e.iter().copied()).entries().to_vec(),
            None => batch_lineage(p, &opts.limits)?,
        };
        lineages.push(Lineage { epochs, log_end: inp.info.log_end_offset, high_watermark: inp.info.high_watermark });
    }
    let leader = choose_leader(opts.leader, &lineages)?;
    let max_epoch = lineages.iter().filter_map(latest_epoch).max().unwrap_or(-1);
    let leader_lineage = lineages.get(leader).map(|l| as_elected(l, max_epoch)).unwrap_or(Lineage {
        epochs: Vec::new(),
        log_end: 0,
        high_watermark: None,
    });
    let truncations: Vec<_> =
        lineages.iter().enumerate().map(|(i, l)| (i != leader).then(|| kafka_truncation(&leader_lineage, l))).collect();
    let all = streaming_pass(inputs, leader)?;
    // the rest of every follower: what Kafka removes, what stays divergent
    let mut reports = Vec::new();
    for p in all {
        let i = p.index;
        let t = truncations.get(i).cloned().flatten();
        let notes = notes.get(i).cloned().unwrap_or_default();
        reports.push(replica_report(p, i == leader, lineages.get(i), t, notes)?);
    }
    let divergence_offset = reports.iter().filter_map(|r| r.divergence_offset).min();
    Ok(Report { replicas: reports, leader, diverged: divergence_offset.is_some(), divergence_offset })
}

/// The latest epoch of a lineage.
fn latest_epoch(l: &Lineage) -> Option<i32> {
    l.epochs.last().map(|e| e.epoch)
}

/// Open every replica, with its notes (one that is of another partition
/// is compared anyway, and said).
fn open_inputs(paths: &[PathBuf], opts: &Options) -> Result<(Vec<Input>, Vec<Vec<String>>)> {
    let mut inputs = Vec::new();
    for p in paths {
        let (info, stream) = replica::open(p, &opts.limits)?;
        inputs.push(Input {
            info,
            stream,
            current: None,
            ended: false,
            batches: 0,
            records: 0,
            derived: EpochCache::default(),
        });
    }
    let first = inputs.first().map(|i| (i.info.topic.clone(), i.info.partition)).unwrap_or_default();
    let mut notes: Vec<Vec<String>> = inputs.iter().map(|i| i.info.notes.clone()).collect();
    for (inp, n) in inputs.iter().zip(notes.iter_mut()) {
        if (inp.info.topic.clone(), inp.info.partition) != first {
            n.push(format!(
                "a replica of {}-{}, not of {}-{}: compared anyway",
                inp.info.topic, inp.info.partition, first.0, first.1
            ));
        }
    }
    Ok((inputs, notes))
}

/// The leader: `--leader`, or the replica with the highest latest epoch
/// (then the longest log).
fn choose_leader(asked: Option<usize>, lineages: &[Lineage]) -> Result<usize> {
    match asked {
        Some(i) if i < lineages.len() => Ok(i),
        Some(i) => Err(Error::Input(format!("--leader {i}: there are {} replicas", lineages.len()))),
        None => {
            let mut best = 0usize;
            for (i, l) in lineages.iter().enumerate() {
                let b = lineages.get(best).map(|b| (latest_epoch(b).unwrap_or(-1), b.log_end)).unwrap_or((-1, -1));
                if (latest_epoch(l).unwrap_or(-1), l.log_end) > b {
                    best = i;
                }
            }
            Ok(best)
        }
    }
}

/// The one streaming pass: the leader's batches against each follower's,
/// from the common log start, until each follower diverges or ends.
fn streaming_pass(inputs: Vec<Input>, leader: usize) -> Result<Vec<Pass>> {
    let start = inputs.iter().map(|i| i.info.log_start_offset).max().unwrap_or(0);
    let mut all: Vec<Pass> = inputs
        .into_iter()
        .enumerate()
        .map(|(i, input)| Pass { index: i, input, in_sync: i != leader, divergence: None })
        .collect();
    let Some(leader_pos) = all.iter().position(|p| p.index == leader) else {
        return Err(Error::Input("no leader".into()));
    };
    let mut lead = all.remove(leader_pos);
    while let Some(l) = lead.input.take()? {
        if l.last_offset < start {
            continue;
        }
        for f in all.iter_mut().filter(|f| f.in_sync) {
            // batches wholly before the common start are not compared
            while f.input.peek()?.is_some_and(|b| b.last_offset < start) {
                f.input.take()?;
            }
            match f.input.peek()? {
                None => f.in_sync = false, // behind the leader: nothing differs
                Some(fb) if fb.same_as(&l) => {
                    f.input.take()?;
                }
                Some(fb) => {
                    f.divergence = Some(fb.base_offset.min(l.base_offset).max(start));
                    f.in_sync = false;
                }
            }
        }
    }
    // followers still in sync after the leader's end: what they have more differs
    for f in all.iter_mut().filter(|f| f.in_sync) {
        while f.input.peek()?.is_some_and(|b| b.last_offset < start) {
            f.input.take()?;
        }
        if let Some(fb) = f.input.peek()? {
            f.divergence = Some(fb.base_offset.max(start));
        }
    }
    all.insert(leader_pos.min(all.len()), lead);
    Ok(all)
}

/// One replica's report: the rest of its batches read, each from the
/// divergence on counted as lost (at or past Kafka's truncation point) or
/// kept though divergent.
fn replica_report(
    mut p: Pass,
    is_leader: bool,
    lineage: Option<&Lineage>,
    t: Option<logrules::replication::Truncation>,
    notes: Vec<String>,
) -> Result<ReplicaReport> {
    let d = p.divergence;
    let inp = &mut p.input;
    let mut r = ReplicaReport {
        info: inp.info.clone(),
        is_leader,
        epochs: lineage.map(|l| l.epochs.clone()).unwrap_or_default(),
        batch_epochs: Vec::new(),
        latest_epoch: lineage.and_then(latest_epoch),
        batches: 0,
        records: 0,
        divergence_offset: d,
        truncate_to: t.as_ref().and_then(|t| t.truncate_to),
        truncation_rounds: t.as_ref().map(|t| t.rounds.clone()).unwrap_or_default(),
        records_lost: 0,
        batches_lost: 0,
        lost_range: None,
        lost_epochs: Vec::new(),
        lost_time_range: (-1, -1),
        records_lost_below_hw: 0,
        records_kept_divergent: 0,
        notes,
    };
    if let Some(note) = t.as_ref().and_then(|t| t.note.clone()) {
        r.notes.push(note);
    }
    while let Some(b) = inp.take()? {
        let Some(d) = d else { continue };
        if b.last_offset < d {
            continue;
        }
        if r.truncate_to.is_some_and(|t| b.last_offset >= t) {
            r.lose(&b);
        } else {
            r.records_kept_divergent = r.records_kept_divergent.saturating_add(u64::from(b.records));
        }
    }
    if r.records_kept_divergent > 0 {
        r.notes.push(format!(
            "Kafka's epoch truncation keeps {} record(s) that differ from the leader's: the replicas stay inconsistent",
            r.records_kept_divergent
        ));
    }
    if let Some(why) = inp.stream.stopped_early() {
        r.notes.push(why);
    }
    r.batches = inp.batches;
    r.records = inp.records;
    r.batch_epochs = inp.derived.entries().to_vec();
    if let Some(cp) = &inp.info.epochs
        && let Some(note) = lineage_note(cp, &r.batch_epochs, &inp.info)
    {
        r.notes.push(note);
    }
    Ok(r)
}

impl ReplicaReport {
    /// Count a batch Kafka's truncation removes.
    fn lose(&mut self, b: &BatchSummary) {
        self.records_lost = self.records_lost.saturating_add(u64::from(b.records));
        if let Some(hw) = self.info.high_watermark
            && b.base_offset < hw
        {
            let below = u64::try_from(hw.saturating_sub(b.base_offset)).unwrap_or(0);
            self.records_lost_below_hw = self.records_lost_below_hw.saturating_add(below.min(u64::from(b.records)));
        }
        self.batches_lost = self.batches_lost.saturating_add(1);
        let from = self.lost_range.map_or(b.base_offset, |(f, _)| f.min(b.base_offset));
        self.lost_range = Some((from, b.last_offset.saturating_add(1)));
        if b.epoch >= 0 && !self.lost_epochs.contains(&b.epoch) {
            self.lost_epochs.push(b.epoch);
        }
        let (lo, hi) = self.lost_time_range;
        let first = b.first_timestamp.min(b.max_timestamp);
        self.lost_time_range = (if lo < 0 || (first >= 0 && first < lo) { first } else { lo }, hi.max(b.max_timestamp));
    }
}
