//! The lines the repair commands print (`recover`, `truncate-to-hw`,
//! `truncate`, `reindex`, `retain`, `undo`), as types that print themselves
//! (`logfmt::report::Report`).

use logfmt::report::{Report, Shown};
use serde::Serialize;

/// A partition's part of a repair (`partition`).
#[derive(Serialize)]
pub struct PartitionLine {
    /// The partition dir.
    pub partition: String,
    #[serde(flatten)]
    /// What the repair planned or did there (the plan's own fields).
    pub fields: serde_json::Map<String, serde_json::Value>,
}

impl Report for PartitionLine {
    const TYPE: &'static str = "partition";

    fn show(&self) -> Shown {
        let p = self;
        let get = |k: &str| p.fields.get(k).filter(|v| !v.is_null());
        let text = |k: &str| {
            get(k).map_or_else(|| "-".to_string(), |v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
        };
        let interval = format!("{} ({})", text("index_interval_bytes"), text("index_interval_source"));
        if p.fields.contains_key("segments_recovered") {
            let cut = match get("cut_file") {
                None => "-".to_string(),
                Some(_) => {
                    let field = get("cut_field").map(|_| format!(", wrong {}", text("cut_field"))).unwrap_or_default();
                    format!(
                        "{} at byte {} ({} byte(s){field})",
                        text("cut_file"),
                        text("cut_position"),
                        text("bytes_removed")
                    )
                }
            };
            let header =
                &["PARTITION", "RECOVERED", "CUT", "SEGMENTS REMOVED", "LOG END", "ROLLED AT", "INDEX INTERVAL"];
            let row = vec![
                p.partition.clone(),
                format!("{} segment(s)", text("segments_recovered")),
                cut,
                text("segments_removed"),
                text("log_end_offset"),
                text("rolled_at"),
                interval,
            ];
            Shown::Row(header, row)
        } else {
            let header = &["PARTITION", "SEGMENTS", "FILES CHANGED", "INDEX INTERVAL"];
            let row = vec![p.partition.clone(), text("segments"), text("files_changed"), interval];
            Shown::Row(header, row)
        }
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
}

impl Report for RepairLine {
    const TYPE: &'static str = "repair";

    fn show(&self) -> Shown {
        let r = self;
        let s = if !r.executed {
            if r.changes == 0 {
                format!("\n{}: nothing to change in {}", r.command, r.log_dir)
            } else {
                format!(
                    "\n{}: dry run, nothing changed; {} change(s) planned in {}; add --execute to make them",
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
        } else {
            format!(
                "\n{}: {} change(s) made in {} (repair {}, state {}); removed and replaced bytes are in {}; `logtool undo --execute {}` puts them back",
                r.command,
                r.changes,
                r.log_dir,
                r.id.as_deref().unwrap_or("?"),
                r.state,
                r.quarantine.as_deref().unwrap_or("?"),
                r.log_dir
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
            &["CHANGE", "FILE", "BYTES BEFORE", "BYTES AFTER", "WHY"],
            vec![
                self.op.to_string(),
                self.file.clone(),
                self.size_before.map_or("-".into(), |n| n.to_string()),
                self.size_after.map_or("-".into(), |n| n.to_string()),
                self.why.clone(),
            ],
        )
    }
}
