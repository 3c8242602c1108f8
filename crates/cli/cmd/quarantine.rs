//! `logtool quarantine`: the repairs a log dir's quarantine keeps (for
//! `undo`), with their sizes and ages, and getting that space back.
//!
//! Repairs move what they remove into `<log dir>.logtool-quarantine` on the
//! same filesystem, so a repair alone frees no space (unless given a
//! `--quarantine` on another filesystem). Listing changes
//! nothing; `--purge ID|all` or `--older-than AGE` plans which repairs go
//! and how many bytes that frees, and `--execute` deletes them for good
//! (`logwrite::repair::journal::purge`: under the log dir's `.lock`; a
//! repair that stopped part way is never purged, its journal finishes it).

use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use clap::Args;
use logfmt::logdir::{self, Target};
use logfmt::report::{Report, Shown, human_bytes, human_duration, time_text};
use logwrite::repair::journal;
use serde::Serialize;

use crate::args::GlobalOpts;
use crate::exit::Status;
use crate::output::Output;

#[derive(Args, Debug)]
pub struct QuarantineArgs {
    /// The log dir whose repairs are listed (or a partition dir in it).
    #[arg(value_name = "LOG_DIR")]
    pub log_dir: PathBuf,
    /// Delete these repairs' kept bytes for good (repeatable; `all`: every repair that
    /// may be purged). Plan only, unless --execute. A purged repair cannot be undone.
    #[arg(long, value_name = "ID|all")]
    pub purge: Vec<String>,
    /// Delete the repairs made longer ago than AGE (a number and s, m, h, d or w: 7d).
    /// Plan only, unless --execute.
    #[arg(long, value_name = "AGE", value_parser = parse_age)]
    pub older_than: Option<u64>,
    /// Delete what the plan names (without it, only the plan is printed).
    #[arg(long)]
    pub execute: bool,
    /// The quarantine, when a repair was given --quarantine. Default: beside the log
    /// dir, <log dir>.logtool-quarantine.
    #[arg(long, visible_alias = "quarantine-dir", value_name = "DIR")]
    pub quarantine: Option<PathBuf>,
}

/// An age: a number and a unit (`s`, `m`, `h`, `d`, `w`), in milliseconds.
pub fn parse_age(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(split);
    let n: u64 = n.parse().map_err(|_| format!("{s:?}: an age is a number and a unit: 30m, 12h, 7d"))?;
    let unit_ms: u64 = match unit.trim() {
        "s" => 1_000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        "w" => 604_800_000,
        _ => return Err(format!("{s:?}: the unit is s, m, h, d or w (7d)")),
    };
    n.checked_mul(unit_ms).ok_or_else(|| format!("{s:?}: too long an age"))
}

/// One repair in the quarantine.
#[derive(Serialize)]
struct QuarantinedLine {
    id: String,
    command: String,
    state: String,
    created_ms: u64,
    steps: usize,
    bytes: u64,
    dir: String,
    /// May be purged (not stopped part way).
    purgeable: bool,
    /// Chosen by --purge/--older-than.
    purge: bool,
    #[serde(skip)]
    now_ms: u64,
}

impl Report for QuarantinedLine {
    const TYPE: &'static str = "quarantined_repair";

    fn show(&self) -> Shown {
        let age = i64::try_from(self.now_ms.saturating_sub(self.created_ms)).unwrap_or(i64::MAX);
        let created = i64::try_from(self.created_ms).unwrap_or(i64::MAX);
        let purge = match (self.purge, self.purgeable) {
            (true, _) => "yes",
            (false, false) => "no: unfinished",
            (false, true) => "",
        };
        Shown::Row(
            &["REPAIR", "COMMAND", "STATE", "CREATED", "AGE", "STEPS", "SIZE", "PURGE"],
            vec![
                self.id.clone(),
                self.command.clone(),
                self.state.clone(),
                time_text(created),
                human_duration(age),
                self.steps.to_string(),
                human_bytes(self.bytes),
                purge.to_string(),
            ],
        )
    }
}

/// The outcome.
#[derive(Serialize)]
struct QuarantineLine {
    log_dir: String,
    quarantine: String,
    repairs: usize,
    bytes: u64,
    /// Repairs chosen to purge, and their bytes.
    purge_repairs: usize,
    purge_bytes: u64,
    executed: bool,
}

impl Report for QuarantineLine {
    const TYPE: &'static str = "quarantine";

    fn show(&self) -> Shown {
        let q = &self.quarantine;
        let kept = format!("\n{} repair(s) of {} keep {} in {q}", self.repairs, self.log_dir, human_bytes(self.bytes));
        let s = if self.purge_repairs == 0 {
            if self.repairs == 0 {
                format!("\nno repair of {} in {q}: nothing to free", self.log_dir)
            } else {
                format!("{kept}; `--purge ID|all` or `--older-than AGE` plans deleting them (no undo after)")
            }
        } else if self.executed {
            format!(
                "{kept} before; purged {} repair(s): {} freed, and they cannot be undone now",
                self.purge_repairs,
                human_bytes(self.purge_bytes)
            )
        } else {
            format!(
                "{kept}; purge: dry run, nothing deleted; {} repair(s) would go, freeing {}; add --execute to delete them (no undo after)",
                self.purge_repairs,
                human_bytes(self.purge_bytes)
            )
        };
        Shown::Text(s)
    }
}

pub fn run(global: &GlobalOpts, args: &QuarantineArgs) -> anyhow::Result<Status> {
    let given = std::fs::canonicalize(&args.log_dir).unwrap_or_else(|_| args.log_dir.clone());
    let log_dir = match logdir::resolve(&given)? {
        Target::LogDir(d) => d,
        Target::PartitionDir(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
        Target::File(f) => {
            anyhow::bail!("{}: a file; give the log dir whose repairs to list (or a partition dir in it)", f.display())
        }
    };
    let quarantine = args.quarantine.clone().unwrap_or_else(|| journal::default_quarantine(&log_dir));
    let repairs = journal::repairs(&quarantine, &log_dir)?;
    let now_ms = u64::try_from(jiff::Timestamp::now().as_millisecond()).unwrap_or(0);
    let all = args.purge.iter().any(|p| p == "all");
    for id in args.purge.iter().filter(|p| *p != "all") {
        if !repairs.iter().any(|(_, m)| m.id == *id) {
            anyhow::bail!("no repair {id} of {} in {}", log_dir.display(), quarantine.display());
        }
    }
    // every choice checked before anything is printed
    for (_, m) in &repairs {
        if args.purge.contains(&m.id) && !journal::purgeable(m.state) {
            anyhow::bail!("{}", logfmt::journal::unfinished_advice(&log_dir, m));
        }
    }
    let mut out = Output::new(BufWriter::with_capacity(1 << 16, io::stdout().lock()), global.format);
    let (mut bytes, mut chosen, mut chosen_bytes) = (0u64, Vec::new(), 0u64);
    for (dir, m) in &repairs {
        let size = journal::kept_bytes(dir);
        bytes = bytes.saturating_add(size);
        let purgeable = journal::purgeable(m.state);
        let named = all || args.purge.contains(&m.id);
        let old = args.older_than.is_some_and(|age| now_ms.saturating_sub(m.created_ms) > age);
        // (`all` and `--older-than` pass over a repair that stopped part way)
        let purge = purgeable && (named || old);
        if purge {
            chosen.push(m.id.clone());
            chosen_bytes = chosen_bytes.saturating_add(size);
        }
        out.report(&QuarantinedLine {
            id: m.id.clone(),
            command: m.command.clone(),
            state: m.state.name().to_string(),
            created_ms: m.created_ms,
            steps: m.steps.len(),
            bytes: size,
            dir: dir.display().to_string(),
            purgeable,
            purge,
            now_ms,
        })?;
    }
    let executed = args.execute && !chosen.is_empty();
    if executed {
        chosen_bytes = journal::purge(&quarantine, &log_dir, &chosen)?;
    }
    out.report(&QuarantineLine {
        log_dir: log_dir.display().to_string(),
        quarantine: quarantine.display().to_string(),
        repairs: repairs.len(),
        bytes,
        purge_repairs: chosen.len(),
        purge_bytes: chosen_bytes,
        executed,
    })?;
    out.finish()?;
    Ok(if !chosen.is_empty() && !executed { Status::Problems } else { Status::Clean })
}

#[cfg(test)]
mod tests {
    use super::parse_age;

    #[test]
    fn ages() {
        assert_eq!(parse_age("7d"), Ok(7 * 86_400_000));
        assert_eq!(parse_age("30m"), Ok(1_800_000));
        assert_eq!(parse_age("2w"), Ok(2 * 604_800_000));
        assert!(parse_age("7").is_err());
        assert!(parse_age("d").is_err());
        assert!(parse_age("99999999999999999999d").is_err());
    }
}
