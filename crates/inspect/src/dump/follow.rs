//! `dump --follow`: the records a broker appends to one partition, told as
//! they come, across segment rolls, until the visitor fails (its output
//! closed) or reading does. A batch still being written (a torn tail at the
//! end of the active segment) is waited for, not reported; one left
//! unfinished for ten polls after a roll is damage.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::OffsetRange;
use super::walk::{RecordFilter, Visit, Walk};
use logfmt::error::{Error, Result};
use logfmt::log::{Item, LogReader};
use logfmt::logdir;
use logfmt::naming::{self, FileKind};

/// Polls a batch may stay unfinished after a roll before it is damage.
const STALLED_POLLS: u32 = 10;

/// The live segments of partition `dir` by base offset (a directory
/// listing: polled often).
fn segments(dir: &Path) -> Result<Vec<(i64, PathBuf)>> {
    let mut segs: Vec<(i64, PathBuf)> = logdir::partition_files(dir)?
        .into_iter()
        .filter_map(|f| {
            let name = naming::classify(f.file_name()?.to_str()?);
            let base = name.offset.filter(|_| name.kind == FileKind::Log && name.suffix.is_none())?;
            Some((base, f))
        })
        .collect();
    segs.sort_by_key(|(base, _)| *base);
    Ok(segs)
}

fn io(e: std::io::Error) -> Error {
    Error::io(e, None)
}

impl<F: RecordFilter + ?Sized, V: Visit> Walk<'_, F, V> {
    /// Follow partition `dir` from `range`'s start (or from its log end),
    /// telling the records in `range`, looking for more every `poll`.
    /// Returns only with an error.
    pub fn follow(mut self, dir: &Path, range: Option<OffsetRange>, poll: Duration) -> Result<()> {
        let limits = self.opts.limits;
        // where to start: the segment holding the range's start, or the log end
        let mut segs = segments(dir)?;
        let start = range.map(|r| r.start);
        let first = match start {
            Some(o) => segs.iter().rposition(|(base, _)| *base <= o).unwrap_or(0),
            None => segs.len().saturating_sub(1),
        };
        let Some((mut base, mut path)) = segs.get(first).cloned() else {
            let e = std::io::Error::new(std::io::ErrorKind::NotFound, "no segment to follow");
            return Err(Error::io(e, Some(dir)));
        };
        let mut reader = LogReader::open_segment(&path, limits, None)?;
        let mut scratch = Vec::new();
        if start.is_none() {
            // from the log end: past every whole batch there now
            loop {
                match reader.next_item()? {
                    Some(Item::Damage(dm)) if dm.truncated_tail => {
                        reader.seek(dm.start);
                        break;
                    }
                    Some(Item::Entry(_) | Item::Damage(_)) => {}
                    None => break,
                }
            }
            let at = format!("following from byte {}", reader.position());
            self.note(&path.display().to_string(), at).map_err(io)?;
        }
        self.sink.flush().map_err(io)?;
        let mut stalled = 0u32;
        loop {
            let file = path.display().to_string();
            match reader.next_item()? {
                Some(Item::Entry(e)) => {
                    self.entry(&file, &e, range, &mut scratch).map_err(io)?;
                    continue;
                }
                Some(Item::Damage(dm)) if dm.truncated_tail => {
                    // being written: wait for the rest
                    reader.seek(dm.start);
                }
                Some(Item::Damage(dm)) => {
                    self.damage(&file, dm.start, dm.end, &dm.error).map_err(io)?;
                    continue;
                }
                None => {}
            }
            self.sink.flush().map_err(io)?;
            // at the end of what is there: more in this segment, or a roll
            let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            if len > reader.end() {
                reader.grow_end(len);
                continue;
            }
            segs = segments(dir)?;
            if let Some((next_base, next)) = segs.iter().find(|(b, _)| *b > base).cloned() {
                // rolled: this segment is complete once nothing more came
                stalled = if reader.position() < len { stalled.saturating_add(1) } else { 0 };
                if stalled > STALLED_POLLS {
                    let e = Error::truncated(reader.position(), "record batch", 0);
                    self.damage(&file, reader.position(), len, &e).map_err(io)?;
                    stalled = 0;
                    reader.seek(len);
                }
                if reader.position() >= len {
                    let m = format!("rolled: following segment {next_base}");
                    self.note(&next.display().to_string(), m).map_err(io)?;
                    base = next_base;
                    path = next;
                    reader = LogReader::open_segment(&path, limits, None)?;
                    continue;
                }
            }
            std::thread::sleep(poll);
        }
    }
}
