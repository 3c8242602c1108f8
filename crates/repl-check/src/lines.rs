//! The lines `diff-replicas` and `digest` print, as types that print
//! themselves (`logfmt::report::Report`).

use logfmt::report::{Report, Shown};
use serde::Serialize;

impl DiffSummaryLine {
    /// The summary of `report`, its leader named `leader`.
    pub fn of(report: &crate::diff::Report, leader: String) -> DiffSummaryLine {
        DiffSummaryLine {
            diverged: report.diverged,
            divergence_offset: report.divergence_offset,
            leader,
            replicas: report.replicas.len(),
        }
    }
}

/// The verdict of a comparison (`summary`).
#[derive(Serialize)]
pub struct DiffSummaryLine {
    /// Whether any follower holds data the leader does not.
    pub diverged: bool,
    /// The lowest divergence offset.
    pub divergence_offset: Option<i64>,
    /// The leader replica.
    pub leader: String,
    /// Replicas compared.
    pub replicas: usize,
}

impl Report for DiffSummaryLine {
    const TYPE: &'static str = "summary";

    fn show(&self) -> Shown {
        let s = self;
        let text = match s.divergence_offset {
            Some(d) => format!("\nDIVERGED from offset {d}; leader {}", s.leader),
            None => format!("\nconsistent: no replica holds data the leader ({}) does not", s.leader),
        };
        Shown::Text(text)
    }
}

/// A record of a divergent range (`divergent_record`).
#[derive(Serialize)]
pub struct DivergentRecordLine {
    /// The replica holding it.
    pub replica: String,
    /// Offset.
    pub offset: i64,
    /// The batch's partition leader epoch.
    pub epoch: i32,
    /// Timestamp.
    pub timestamp: i64,
    /// The key (hex, or a keyed hash when redacted).
    pub key: Option<String>,
    /// Value size (-1: null).
    pub value_size: i64,
    /// CRC-32C of the value (keyed when redacted).
    pub value_crc32c: Option<u32>,
    /// A control record.
    pub control: bool,
    #[serde(skip)]
    /// The key for a table cell (not in JSON).
    pub key_text: Option<String>,
}

impl Report for DivergentRecordLine {
    const TYPE: &'static str = "divergent_record";

    fn show(&self) -> Shown {
        let d = self;
        const REC: &[&str] = &["REPLICA", "OFFSET", "EPOCH", "TIMESTAMP", "KEY", "VALUE SIZE", "VALUE CRC32C"];
        Shown::Row(
            REC,
            vec![
                d.replica.clone(),
                d.offset.to_string(),
                d.epoch.to_string(),
                logfmt::report::time_text(d.timestamp),
                if d.control { "(control)".into() } else { d.key_text.clone().unwrap_or_else(|| "null".into()) },
                d.value_size.to_string(),
                d.value_crc32c.map_or_else(|| "-".into(), |c| format!("{c:08x}")),
            ],
        )
    }
}

/// A digest written (`digest`).
#[derive(Serialize)]
pub struct DigestLine {
    /// The digest written (`-`: stdout).
    pub file: String,
    /// The partition dir digested.
    pub source: String,
    /// Batches.
    pub batches: u64,
    /// The digest's size.
    pub bytes: u64,
}

impl Report for DigestLine {
    const TYPE: &'static str = "digest";

    fn show(&self) -> Shown {
        let d = self;
        Shown::Text(format!(
            "{}: digest of {} ({} batches) in {}",
            d.file,
            d.source,
            d.batches,
            logfmt::report::human_bytes(d.bytes)
        ))
    }
}
