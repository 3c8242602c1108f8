//! The closing lines of `logtool verify`: what a start of Kafka would do
//! ([`StartPlanLine`], from the partitions' [`StartTally`]) and what was
//! checked and found ([`VerifySummaryLine`], summed over the [`Report`]s).

use serde::Serialize;

use super::{Report as Checked, Severity, StartTally};
use logfmt::report::{Report, Shown};
use logrules::config::Version;
use logrules::mode::DirMode;

impl StartPlanLine {
    /// The plan of Kafka `version` (chosen as `version_from` says) from
    /// what the partitions' starts add up to.
    /// `mode` is the dir's ([`super::mode_of`]).
    pub fn new(version: Version, version_from: String, mode: &DirMode, start: &StartTally) -> StartPlanLine {
        StartPlanLine {
            kafka_version: version.name(),
            version_from,
            mode: mode.name(),
            mode_from: mode.from.clone(),
            refusals: start.refusals,
            stray_partitions: start.strays,
            partitions_recovered: start.partitions_recovered,
            segments_recovered: start.segments_recovered,
            bytes_recovered: start.bytes_recovered,
            high_watermark_moves: start.high_watermark_moves,
        }
    }
}

impl VerifySummaryLine {
    /// Add what one unit's check read and found.
    pub fn add(&mut self, r: &Checked) {
        self.files = self.files.saturating_add(r.stats.files);
        self.partitions = self.partitions.saturating_add(r.stats.partitions);
        self.batches = self.batches.saturating_add(r.stats.batches);
        self.records = self.records.saturating_add(r.stats.records);
        self.bytes = self.bytes.saturating_add(r.stats.bytes);
        self.batches_header_only = self.batches_header_only.saturating_add(r.stats.batches_header_only);
        for f in &r.findings {
            let n = match f.severity {
                Severity::Error => &mut self.errors,
                Severity::Warning => &mut self.warnings,
                Severity::Info => &mut self.infos,
            };
            *n = n.saturating_add(1);
        }
    }
}

/// "On start, Kafka V would: ..." (JSON type `start_plan`).
#[derive(Serialize)]
pub struct StartPlanLine {
    /// The Kafka release asked about.
    pub kafka_version: &'static str,
    /// Why that release (given, or implied by `metadata.version`).
    pub version_from: String,
    /// The mode the dir's node ran in (`zookeeper`, `zookeeper-migrating`,
    /// `kraft-migrating`, `kraft`, `kraft-controller`, `unknown`).
    pub mode: &'static str,
    /// What says so.
    pub mode_from: String,
    /// Findings that stop the start.
    pub refusals: u64,
    /// Partition dirs set aside as stray.
    pub stray_partitions: u64,
    /// Partitions with segments to recover.
    pub partitions_recovered: u64,
    /// Segments recovered.
    pub segments_recovered: u64,
    /// Their bytes.
    pub bytes_recovered: u64,
    /// High watermarks that move to the log end.
    pub high_watermark_moves: u64,
}

impl Report for StartPlanLine {
    const TYPE: &'static str = "start_plan";

    fn show(&self) -> Shown {
        let s = self;
        let mut would = Vec::new();
        if s.refusals > 0 {
            would.push(format!("refuse to start ({} start_refused finding(s) above)", s.refusals));
        }
        if s.stray_partitions > 0 {
            would.push(format!(
                "set aside {} stray partition dir(s) and serve those partitions empty",
                s.stray_partitions
            ));
        }
        if s.segments_recovered > 0 {
            would.push(format!(
                "recover {} segment(s), {}, of {} partition(s)",
                s.segments_recovered,
                logfmt::report::human_bytes(s.bytes_recovered),
                s.partitions_recovered
            ));
        }
        if s.high_watermark_moves > 0 {
            would.push(format!("move {} high watermark(s) to the log end", s.high_watermark_moves));
        }
        if would.is_empty() && s.mode == "zookeeper" {
            would.push(
                "load every partition as it is, as the ZooKeeper-mode broker it was (a KRaft node would set every partition dir aside as stray: --kafka-version 4.4 says so)"
                    .into(),
            );
        } else if would.is_empty() && s.mode == "kraft-controller" {
            would.push(
                "start, as the controller it is (it replays the metadata log; topic configs a broker's load refuses do not stop it)"
                    .into(),
            );
        } else if would.is_empty() {
            would.push("load every partition as it is".into());
        }
        // the mode, said where it is not a KRaft node's own metadata log
        let mode = match s.mode {
            "kraft" | "kraft-controller" => String::new(),
            _ => format!("\nmode: {}", s.mode_from),
        };
        Shown::Text(format!(
            "{mode}\non start, Kafka {} ({}) would: {}",
            s.kafka_version,
            s.version_from,
            would.join("; ")
        ))
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What was checked and found (`summary`).
#[derive(Serialize, Default, Clone, Copy)]
pub struct VerifySummaryLine {
    /// Segment files read.
    pub files: u64,
    /// Partition dirs.
    pub partitions: u64,
    /// Batches (and legacy messages).
    pub batches: u64,
    /// Records.
    pub records: u64,
    /// Bytes of segments read.
    pub bytes: u64,
    /// Batches checked by CRC and header only, their records not read
    /// (Kafka's shallow iteration, the default without `--deep`; absent
    /// when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub batches_header_only: u64,
    /// Findings at error.
    pub errors: u64,
    /// Findings at warning.
    pub warnings: u64,
    /// Findings at info.
    pub infos: u64,
    /// How long the check took.
    pub elapsed_ms: u64,
}

impl Report for VerifySummaryLine {
    const TYPE: &'static str = "summary";

    fn show(&self) -> Shown {
        let s = self;
        let verdict = if s.errors == 0 && s.warnings == 0 && s.infos == 0 {
            "no findings".to_string()
        } else {
            format!("{} error(s), {} warning(s), {} info", s.errors, s.warnings, s.infos)
        };
        let shallow = if s.batches_header_only > 0 {
            format!(" ({} by CRC and header, as Kafka does; --deep reads their records)", s.batches_header_only)
        } else {
            String::new()
        };
        Shown::Text(format!(
            "\nchecked {} partition(s), {} segment file(s), {} batch(es){shallow}, {} record(s), {} in {:.2} s: {verdict}",
            s.partitions,
            s.files,
            s.batches,
            s.records,
            logfmt::report::human_bytes(s.bytes),
            s.elapsed_ms as f64 / 1000.0
        ))
    }
}
