//! Changing a log dir safely: plans, a journal, undo.
//!
//! Every command that writes describes its work as [`Changes`] on files:
//! remove a file, cut a file to a length, write a file's new content. A
//! planner calls them on a sink:
//!
//! * [`DryRun`] only records them: the plan a command prints without
//!   `--execute`;
//! * [`journal::Repair`] stages them in a quarantine *outside* the log dir
//!   (nothing in the log dir changes while staging), then commits them one
//!   atomic, idempotent step at a time, keeping every removed or replaced
//!   byte; [`journal::undo`] puts them back.
//!
//! Planners: [`recover`], [`truncate`], [`reindex`], [`retain`], [`compact`].

pub mod checkpoints;
pub mod compact;
pub mod journal;
pub mod lines;
pub mod recover;
pub mod reindex;
pub mod retain;
pub mod truncate;

use std::path::{Path, PathBuf};

use logfmt::error::Result;

/// What a change does to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// The file leaves the log dir (into the quarantine).
    Remove,
    /// The file is cut; the cut bytes go to the quarantine.
    Truncate,
    /// The file gets new content (the old content goes to the quarantine).
    Replace,
    /// A new file is created.
    Create,
    /// A file is renamed (a compacted segment's `.swap` files into place).
    Rename,
}

impl Op {
    /// Name used in output.
    pub fn name(self) -> &'static str {
        match self {
            Op::Remove => "remove",
            Op::Truncate => "truncate",
            Op::Replace => "replace",
            Op::Create => "create",
            Op::Rename => "rename",
        }
    }
}

/// One planned change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// What.
    pub op: Op,
    /// The file.
    pub file: PathBuf,
    /// Its size before (none for a created file).
    pub size_before: Option<u64>,
    /// Its size after (none for a removed file).
    pub size_after: Option<u64>,
    /// Why, in words.
    pub why: String,
}

pub use logrules::log::Loss;

impl serde::Serialize for Change {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Change", 5)?;
        st.serialize_field("op", self.op.name())?;
        st.serialize_field("file", &self.file.display().to_string())?;
        st.serialize_field("size_before", &self.size_before)?;
        st.serialize_field("size_after", &self.size_after)?;
        st.serialize_field("why", &self.why)?;
        st.end()
    }
}

impl logfmt::report::Report for Change {
    const TYPE: &'static str = "change";
    fn show(&self) -> logfmt::report::Shown {
        let cells = {
            vec![
                self.op.name().to_string(),
                self.file.display().to_string(),
                self.size_before.map_or("-".into(), logfmt::report::human_bytes),
                self.size_after.map_or("-".into(), logfmt::report::human_bytes),
                self.why.clone(),
            ]
        };
        logfmt::report::Shown::Row(&["CHANGE", "FILE", "SIZE BEFORE", "SIZE AFTER", "WHY"], cells)
    }
}

/// Something a planner wants the operator to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// Data that will be lost.
    Loss(Loss),
    /// Information.
    Info {
        /// Where.
        path: PathBuf,
        /// What.
        message: String,
    },
    /// Something to look at before executing.
    Warning {
        /// Where.
        path: PathBuf,
        /// What.
        message: String,
    },
}

/// Where planners put their changes.
pub trait Changes {
    /// Remove `file` from the log dir.
    fn remove(&mut self, file: &Path, why: &str) -> Result<()>;
    /// Cut `file` to `len` bytes.
    fn truncate(&mut self, file: &Path, len: u64, why: &str) -> Result<()>;
    /// Give `file` the content `content` (creating it if needed).
    fn write(&mut self, file: &Path, content: &[u8], why: &str) -> Result<()>;
    /// Give `file` the content `fill` writes (streamed: a file as large as
    /// a segment is never held in memory by a sink that stages to disk),
    /// with modification time `modified_ms` when given. Returns its size.
    /// The default holds the content in memory and calls [`Changes::write`].
    fn write_with(
        &mut self,
        file: &Path,
        modified_ms: Option<i64>,
        why: &str,
        fill: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>,
    ) -> Result<u64> {
        let _ = modified_ms;
        let mut content = Vec::new();
        fill(&mut content)?;
        self.write(file, &content, why)?;
        Ok(content.len() as u64)
    }
    /// Rename `from` to `to` (which must not exist), within the log dir.
    fn rename(&mut self, from: &Path, to: &Path, why: &str) -> Result<()>;
    /// Tell the operator something.
    fn note(&mut self, note: Note);
    /// Whether the changes will be made (not only planned).
    fn executing(&self) -> bool;
}

fn size_of(file: &Path) -> Option<u64> {
    std::fs::metadata(file).ok().map(|m| m.len())
}

/// Describe a change without making it.
pub(crate) fn describe(op_file: (Op, &Path), after: Option<u64>, why: &str) -> Change {
    let (op, file) = op_file;
    Change { op, file: file.to_path_buf(), size_before: size_of(file), size_after: after, why: why.to_string() }
}

/// Records a plan; changes nothing.
#[derive(Clone, Debug, Default)]
pub struct DryRun {
    /// The changes, in order.
    pub changes: Vec<Change>,
    /// What the operator should know.
    pub notes: Vec<Note>,
}

impl Changes for DryRun {
    fn remove(&mut self, file: &Path, why: &str) -> Result<()> {
        self.changes.push(describe((Op::Remove, file), None, why));
        Ok(())
    }

    fn truncate(&mut self, file: &Path, len: u64, why: &str) -> Result<()> {
        self.changes.push(describe((Op::Truncate, file), Some(len), why));
        Ok(())
    }

    fn write(&mut self, file: &Path, content: &[u8], why: &str) -> Result<()> {
        let op = if file.exists() { Op::Replace } else { Op::Create };
        self.changes.push(describe((op, file), Some(content.len() as u64), why));
        Ok(())
    }

    fn write_with(
        &mut self,
        file: &Path,
        _modified_ms: Option<i64>,
        why: &str,
        fill: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<()>,
    ) -> Result<u64> {
        // only counted
        let mut counter = Counter(0);
        fill(&mut counter)?;
        let op = if file.exists() { Op::Replace } else { Op::Create };
        self.changes.push(describe((op, file), Some(counter.0), why));
        Ok(counter.0)
    }

    fn rename(&mut self, from: &Path, to: &Path, why: &str) -> Result<()> {
        let mut c = describe((Op::Rename, to), None, why);
        c.size_before = None;
        c.size_after = None;
        c.why = format!("{why} (from {})", from.file_name().unwrap_or_default().to_string_lossy());
        self.changes.push(c);
        Ok(())
    }

    fn note(&mut self, note: Note) {
        self.notes.push(note);
    }

    fn executing(&self) -> bool {
        false
    }
}

/// A writer that only counts.
struct Counter(u64);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len() as u64);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Keeps a planner's changes in order, to be given to another [`Changes`]
/// later: lets partitions be planned on several threads while the real sink
/// (a journal, a plan) still gets each partition's changes in one piece and
/// in partition order.
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    executing: bool,
    ops: Vec<RecordedOp>,
}

#[derive(Debug)]
enum RecordedOp {
    Remove(PathBuf, String),
    Truncate(PathBuf, u64, String),
    Write(PathBuf, Vec<u8>, String),
    Rename(PathBuf, PathBuf, String),
    Note(Note),
}

impl Recorded {
    /// A recorder standing in for a sink that is (or is not) executing.
    pub(crate) fn new(executing: bool) -> Recorded {
        Recorded { executing, ops: Vec::new() }
    }

    /// Give every recorded change, in order, to `changes`.
    pub(crate) fn replay(self, changes: &mut dyn Changes) -> Result<()> {
        for op in self.ops {
            match op {
                RecordedOp::Remove(f, why) => changes.remove(&f, &why)?,
                RecordedOp::Truncate(f, len, why) => changes.truncate(&f, len, &why)?,
                RecordedOp::Write(f, content, why) => changes.write(&f, &content, &why)?,
                RecordedOp::Rename(from, to, why) => changes.rename(&from, &to, &why)?,
                RecordedOp::Note(n) => changes.note(n),
            }
        }
        Ok(())
    }
}

impl Changes for Recorded {
    fn remove(&mut self, file: &Path, why: &str) -> Result<()> {
        self.ops.push(RecordedOp::Remove(file.to_path_buf(), why.to_string()));
        Ok(())
    }

    fn truncate(&mut self, file: &Path, len: u64, why: &str) -> Result<()> {
        self.ops.push(RecordedOp::Truncate(file.to_path_buf(), len, why.to_string()));
        Ok(())
    }

    fn write(&mut self, file: &Path, content: &[u8], why: &str) -> Result<()> {
        self.ops.push(RecordedOp::Write(file.to_path_buf(), content.to_vec(), why.to_string()));
        Ok(())
    }

    fn rename(&mut self, from: &Path, to: &Path, why: &str) -> Result<()> {
        self.ops.push(RecordedOp::Rename(from.to_path_buf(), to.to_path_buf(), why.to_string()));
        Ok(())
    }

    fn note(&mut self, note: Note) {
        self.ops.push(RecordedOp::Note(note));
    }

    fn executing(&self) -> bool {
        self.executing
    }
}

/// Write `content` to `file` unless it already holds exactly that.
pub(crate) fn write_if_changed(changes: &mut dyn Changes, file: &Path, content: &[u8], why: &str) -> Result<bool> {
    if holds(file, content) {
        return Ok(false);
    }
    changes.write(file, content, why)?;
    Ok(true)
}

/// Whether `file` holds exactly `content`: a file of another length is not
/// read (a crashed broker's active index is preallocated to
/// `segment.index.bytes`, 10 MiB, while its rebuilt entries are a few
/// bytes: issue 66 measured 195 GiB of such zeros read at 10,000
/// partitions); one of the same length is compared 64 KiB at a time.
fn holds(file: &Path, content: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(file) else { return false };
    if f.metadata().map(|m| m.len()).ok() != Some(content.len() as u64) {
        return false;
    }
    let mut buf = vec![0u8; (64 << 10).min(content.len().max(1))];
    let mut rest = content;
    while !rest.is_empty() {
        let n = buf.len().min(rest.len());
        let (want, tail) = rest.split_at(n);
        let Some(got) = buf.get_mut(..n) else { return false };
        if f.read_exact(got).is_err() || got != want {
            return false;
        }
        rest = tail;
    }
    // nothing after (a file that grew since its length was read)
    f.read(&mut [0u8; 1]).is_ok_and(|n| n == 0)
}

/// Told the bytes of each segment once a planner has read it or passed it
/// over, from any thread (a progress bar); [`Progress::default`] ignores
/// them.
#[derive(Clone, Default)]
pub struct Progress(Option<std::sync::Arc<dyn Fn(u64) + Send + Sync>>);

impl Progress {
    /// Report to `f`.
    pub fn new(f: impl Fn(u64) + Send + Sync + 'static) -> Progress {
        Progress(Some(std::sync::Arc::new(f)))
    }

    /// `bytes` more are done.
    pub fn done(&self, bytes: u64) {
        if let Some(f) = &self.0 {
            f(bytes);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Progress(reported)" } else { "Progress(ignored)" })
    }
}
