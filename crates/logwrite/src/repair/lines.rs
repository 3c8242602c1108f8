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
            &["CHANGE", "DIR", "FILES", "BYTES BEFORE", "BYTES AFTER", "WHY"],
            vec![
                self.op.clone(),
                self.dir.clone(),
                self.files.to_string(),
                self.bytes_before.map_or("-".into(), |n| n.to_string()),
                self.bytes_after.map_or("-".into(), |n| n.to_string()),
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
