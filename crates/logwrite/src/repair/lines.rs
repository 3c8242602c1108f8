//! The lines the repair commands print (`recover`, `truncate-to-hw`,
//! `truncate`, `reindex`, `retain`, `undo`), as types that print themselves
//! (`logfmt::report::Report`).

use logfmt::report::{Report, Shown, human_bytes};
use std::path::Path;

use serde::Serialize;

/// A partition's part of a repair (`partition`): what `recover` or
/// `reindex` planned or did there.
#[derive(Serialize)]
pub struct PartitionLine {
    /// The partition dir.
    pub partition: String,
    /// What the repair planned or did there.
    #[serde(flatten)]
    pub result: PartitionResult,
}

/// What a repair planned or did in one partition.
#[derive(Serialize)]
#[serde(untagged)]
pub enum PartitionResult {
    /// `recover`.
    Recovered(Recovered),
    /// `reindex`.
    Reindexed(Reindexed),
}

/// What `recover` planned or did in a partition (fields in name order,
/// the order of its JSON keys).
#[derive(Serialize)]
pub struct Recovered {
    /// Bytes removed at the cut.
    pub bytes_removed: Option<u64>,
    /// The header field of the batch cut at, when that was why (Kafka's name).
    pub cut_field: Option<&'static str>,
    /// The segment file cut.
    pub cut_file: Option<String>,
    /// The byte position of the cut.
    pub cut_position: Option<u64>,
    /// The index interval used.
    pub index_interval_bytes: u64,
    /// Where the index interval came from.
    pub index_interval_source: String,
    /// The log end offset after recovery.
    pub log_end_offset: i64,
    /// The base of the new segment it was rolled to (`--roll`).
    pub rolled_at: Option<i64>,
    /// Segments recovered.
    pub segments_recovered: usize,
    /// Segments removed after a cut.
    pub segments_removed: usize,
}

/// What `reindex` planned or did in a partition (fields in name order).
#[derive(Serialize)]
pub struct Reindexed {
    /// Index files whose content changes.
    pub files_changed: usize,
    /// The index interval used.
    pub index_interval_bytes: u64,
    /// Where the index interval came from.
    pub index_interval_source: String,
    /// Segments rebuilt.
    pub segments: usize,
}

impl From<&super::recover::PartitionRecovery> for PartitionLine {
    fn from(r: &super::recover::PartitionRecovery) -> PartitionLine {
        PartitionLine {
            partition: r.dir.display().to_string(),
            result: PartitionResult::Recovered(Recovered {
                bytes_removed: r.cut.as_ref().map(|c| c.2),
                cut_field: r.cut_field.map(|f| f.kafka_name()),
                cut_file: r.cut.as_ref().map(|c| c.0.display().to_string()),
                cut_position: r.cut.as_ref().map(|c| c.1),
                index_interval_bytes: r.interval.0,
                index_interval_source: r.interval.1.clone(),
                log_end_offset: r.log_end,
                rolled_at: r.rolled_at,
                segments_recovered: r.segments_recovered,
                segments_removed: r.segments_removed,
            }),
        }
    }
}

impl From<&super::reindex::PartitionReindex> for PartitionLine {
    fn from(r: &super::reindex::PartitionReindex) -> PartitionLine {
        PartitionLine {
            partition: r.dir.display().to_string(),
            result: PartitionResult::Reindexed(Reindexed {
                files_changed: r.files_changed,
                index_interval_bytes: r.interval.0,
                index_interval_source: r.interval.1.clone(),
                segments: r.segments,
            }),
        }
    }
}

/// `-` for what is not there.
fn or_dash<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

impl Report for PartitionLine {
    const TYPE: &'static str = "partition";

    fn show(&self) -> Shown {
        match &self.result {
            PartitionResult::Recovered(r) => {
                let cut = match (&r.cut_file, r.cut_position, r.bytes_removed) {
                    (Some(file), position, removed) => {
                        let field = r.cut_field.map(|f| format!(", wrong {f}")).unwrap_or_default();
                        format!("{file} at byte {} ({} byte(s){field})", or_dash(position), or_dash(removed))
                    }
                    (None, ..) => "-".to_string(),
                };
                let header =
                    &["PARTITION", "RECOVERED", "CUT", "SEGMENTS REMOVED", "LOG END", "ROLLED AT", "INDEX INTERVAL"];
                let row = vec![
                    self.partition.clone(),
                    format!("{} segment(s)", r.segments_recovered),
                    cut,
                    r.segments_removed.to_string(),
                    r.log_end_offset.to_string(),
                    or_dash(r.rolled_at),
                    format!("{} ({})", r.index_interval_bytes, r.index_interval_source),
                ];
                Shown::Row(header, row)
            }
            PartitionResult::Reindexed(r) => {
                let header = &["PARTITION", "SEGMENTS", "FILES CHANGED", "INDEX INTERVAL"];
                let row = vec![
                    self.partition.clone(),
                    r.segments.to_string(),
                    r.files_changed.to_string(),
                    format!("{} ({})", r.index_interval_bytes, r.index_interval_source),
                ];
                Shown::Row(header, row)
            }
        }
    }
}

/// Records a change would lose (`loss`): a `rules::log::Loss`, printed
/// (the rules say what is lost; how it reads is the repairs' own).
#[derive(Serialize)]
#[serde(transparent)]
pub struct LossLine<'a>(pub &'a logrules::log::Loss);

impl Report for LossLine<'_> {
    const TYPE: &'static str = "loss";

    fn show(&self) -> Shown {
        use logfmt::report::{human_bytes, iso_time, offset_range};
        let l = self.0;
        let epochs = l.epochs.iter().map(i32::to_string).collect::<Vec<_>>().join(",");
        let mut s = format!(
            "  {}: loses offsets {} ({} record(s) in {} batch(es), {}; leader epoch(s) {}; {} to {})",
            l.partition.display(),
            offset_range(l.from_offset, l.to_offset.saturating_sub(1)),
            l.records,
            l.batches,
            human_bytes(l.bytes),
            if epochs.is_empty() { "-".into() } else { epochs },
            iso_time(l.first_timestamp),
            iso_time(l.last_timestamp)
        );
        if l.latest_epoch_lost {
            s.push_str(
                "\n  WARNING: these records were written in the latest leader epoch: they may have been acknowledged (KIP-101)",
            );
        }
        Shown::Text(s)
    }
}

/// A repair's outcome (`repair`).
#[derive(Serialize)]
pub struct RepairLine {
    /// The command (`recover`, `undo`...).
    pub command: String,
    /// The log dir.
    pub log_dir: String,
    /// Whether the changes were made (else a dry run).
    pub executed: bool,
    /// Changes planned or made.
    pub changes: usize,
    /// The repair's id (its quarantine).
    pub id: Option<String>,
    /// Where removed and replaced bytes are.
    pub quarantine: Option<String>,
    /// The repair's state.
    pub state: String,
    /// Bytes that leave the log dir's files: removed files, cut tails and
    /// the old content of replaced files (0 for `undo`).
    pub removed_bytes: u64,
    /// Bytes written into the log dir: new content of replaced and created
    /// files (0 for `undo`).
    pub written_bytes: u64,
    /// The removed bytes were deleted at once (`--purge`), not quarantined.
    pub purged: bool,
    /// The quarantine is on another filesystem than the log dir: a done
    /// repair's removed bytes leave the log dir's filesystem at once.
    pub other_filesystem: bool,
}

impl RepairLine {
    /// What the plan or the repair does to the space on the filesystem.
    fn space(&self) -> String {
        let (removed, written) = (human_bytes(self.removed_bytes), human_bytes(self.written_bytes));
        if self.written_bytes > self.removed_bytes {
            // (a rebuild that writes more than it removes: nothing to free)
            let grows = human_bytes(self.written_bytes.saturating_sub(self.removed_bytes));
            return format!(
                "space: the log dir's files lose {removed} and gain {written}: {grows} more on disk{}",
                if self.executed && !self.purged { ", and the quarantine keeps the old contents" } else { "" }
            );
        }
        let net = self.removed_bytes.saturating_sub(self.written_bytes);
        let files = if self.written_bytes > 0 {
            format!("the log dir's files lose {removed} and gain {written}")
        } else {
            format!("the log dir's files lose {removed}")
        };
        if self.other_filesystem && !self.purged {
            let q = self.quarantine.as_deref().unwrap_or("the quarantine");
            return if self.executed {
                format!(
                    "space: {files}; {} freed on the log dir's filesystem: the removed bytes were moved to {q}, on another filesystem (for undo)",
                    human_bytes(net)
                )
            } else {
                format!(
                    "space: {files}; {} freed on the log dir's filesystem once done: the removed bytes move to {q}, on another filesystem (for undo)",
                    human_bytes(net)
                )
            };
        }
        match (self.executed, self.purged) {
            (false, true) => format!(
                "space: {files}; with --purge the removed bytes are deleted at once: {} freed, and no undo",
                human_bytes(net)
            ),
            (false, false) => format!(
                "space: {files}; the filesystem frees nothing yet: the removed bytes go to the quarantine beside the log dir (for undo) until `logtool quarantine {} --purge ID --execute` deletes them ({} freed then; --purge deletes them at once, with no undo)",
                self.log_dir,
                human_bytes(net)
            ),
            (true, true) => {
                format!("space: {files}; the removed bytes were deleted (--purge): {} freed; no undo", human_bytes(net))
            }
            (true, false) => format!(
                "space: {files}; the filesystem frees nothing yet: the quarantine keeps them until `logtool quarantine {} --purge {} --execute` deletes them ({} less on disk than before the repair then)",
                self.log_dir,
                self.id.as_deref().unwrap_or("ID"),
                human_bytes(net)
            ),
        }
    }
}

impl Report for RepairLine {
    const TYPE: &'static str = "repair";

    fn show(&self) -> Shown {
        let r = self;
        let s = if !r.executed {
            if r.changes == 0 {
                format!("\n{}: nothing to change in {}", r.command, r.log_dir)
            } else {
                // (an undo's bytes come back from the quarantine: no space line)
                let space = if r.command.starts_with("undo") { String::new() } else { format!("\n{}", r.space()) };
                format!(
                    "\n{}: dry run, nothing changed; {} change(s) planned in {}; add --execute to make them{space}",
                    r.command, r.changes, r.log_dir
                )
            }
        } else if r.changes == 0 {
            format!("\n{}: nothing to change in {}", r.command, r.log_dir)
        } else if r.command.starts_with("undo") {
            format!(
                "\n{}: {} step(s) reversed in {}; the repair is now {} in {}",
                r.command,
                r.changes,
                r.log_dir,
                r.state,
                r.quarantine.as_deref().unwrap_or("?")
            )
        } else if r.purged {
            format!("\n{}: {} change(s) made in {}\n{}", r.command, r.changes, r.log_dir, r.space())
        } else {
            format!(
                "\n{}: {} change(s) made in {} (repair {}, state {}); removed and replaced bytes are in {}; `logtool undo --execute {}{}` puts them back\n{}",
                r.command,
                r.changes,
                r.log_dir,
                r.id.as_deref().unwrap_or("?"),
                r.state,
                r.quarantine.as_deref().unwrap_or("?"),
                match (r.other_filesystem, r.quarantine.as_deref().and_then(|q| Path::new(q).parent())) {
                    (true, Some(q)) => format!("--quarantine {} ", q.display()),
                    _ => String::new(),
                },
                r.log_dir,
                r.space()
            )
        };
        Shown::Text(s)
    }
}

/// A change `undo` made (or would make).
#[derive(Serialize)]
pub struct ChangeLine {
    /// What the step does.
    pub op: &'static str,
    /// The file.
    pub file: String,
    /// Its size before.
    pub size_before: Option<u64>,
    /// Its size after.
    pub size_after: Option<u64>,
    /// Why.
    pub why: String,
}

impl Report for ChangeLine {
    const TYPE: &'static str = "change";

    fn show(&self) -> Shown {
        Shown::Row(
            &["CHANGE", "FILE", "SIZE BEFORE", "SIZE AFTER", "WHY"],
            vec![
                self.op.to_string(),
                self.file.clone(),
                self.size_before.map_or("-".into(), logfmt::report::human_bytes),
                self.size_after.map_or("-".into(), logfmt::report::human_bytes),
                self.why.clone(),
            ],
        )
    }
}

/// Changes of one kind in one directory, counted (a long plan's table
/// summary; JSON and `--details` list every [`super::Change`]).
#[derive(Serialize)]
pub struct ChangeGroupLine {
    /// What the steps do.
    pub op: String,
    /// The directory of the files (a partition dir, or the log dir).
    pub dir: String,
    /// How many files.
    pub files: usize,
    /// Their sizes before, summed (`None`: none had one).
    pub bytes_before: Option<u64>,
    /// Their sizes after, summed.
    pub bytes_after: Option<u64>,
    /// The reasons given, in order, each once.
    pub why: Vec<String>,
}

impl Report for ChangeGroupLine {
    const TYPE: &'static str = "change_group";

    fn show(&self) -> Shown {
        Shown::Row(
            &["CHANGE", "DIR", "FILES", "SIZE BEFORE", "SIZE AFTER", "WHY"],
            vec![
                self.op.clone(),
                self.dir.clone(),
                self.files.to_string(),
                self.bytes_before.map_or("-".into(), logfmt::report::human_bytes),
                self.bytes_after.map_or("-".into(), logfmt::report::human_bytes),
                self.why.join("; "),
            ],
        )
    }
}

/// `changes` counted by directory and kind, in the order each group first
/// appears.
pub fn change_groups(changes: &[super::Change]) -> Vec<ChangeGroupLine> {
    let mut groups: Vec<ChangeGroupLine> = Vec::new();
    for c in changes {
        let op = c.op.name().to_string();
        let dir = c.file.parent().map(|d| d.display().to_string()).unwrap_or_default();
        let at = match groups.iter().position(|g| g.op == op && g.dir == dir) {
            Some(i) => i,
            None => {
                groups.push(ChangeGroupLine {
                    op,
                    dir,
                    files: 0,
                    bytes_before: None,
                    bytes_after: None,
                    why: Vec::new(),
                });
                groups.len().saturating_sub(1)
            }
        };
        let Some(g) = groups.get_mut(at) else { continue };
        g.files = g.files.saturating_add(1);
        let add = |sum: &mut Option<u64>, v: Option<u64>| {
            if let Some(v) = v {
                *sum = Some(sum.unwrap_or(0).saturating_add(v));
            }
        };
        add(&mut g.bytes_before, c.size_before);
        add(&mut g.bytes_after, c.size_after);
        // (a reason naming one file, "... (from X.swap)", counts once by its start)
        let why = c.why.split(" (from ").next().unwrap_or(&c.why).to_string();
        if !g.why.contains(&why) {
            g.why.push(why);
        }
    }
    groups
}
