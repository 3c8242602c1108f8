//! Lowering and moving the log dir's offset checkpoints after a repair, as
//! Kafka does when a log's end or start moves: each value as
//! `rules::log::checkpoint_after_truncation` and
//! `rules::log::log_start_checkpoint` say.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Changes, Note, write_if_changed};
use logfmt::checkpoint::{self, OffsetCheckpointEntry};
use logfmt::error::Result;
use logfmt::limits::Limits;
use logfmt::spec::names as n;

/// New log-dir checkpoint values, by (topic, partition).
#[derive(Clone, Debug, Default)]
pub struct CheckpointLimits {
    /// Partitions whose log now ends at this offset: every checkpoint value
    /// above it is lowered to it.
    pub log_end: BTreeMap<(String, i32), i64>,
    /// New log start offsets (written as is; removed when equal to the first
    /// segment's base, as Kafka writes the file).
    pub log_start: BTreeMap<(String, i32), Option<i64>>,
    /// New recovery points (after the log was flushed up to them), written
    /// as is, added when the checkpoint has no line for the partition.
    pub recovery_point: BTreeMap<(String, i32), i64>,
    /// New cleaner offsets (where a cleaning pass ended), written as is,
    /// added when the checkpoint has no line for the partition
    /// (`LogCleanerManager.doneCleaning`).
    pub cleaner_offset: BTreeMap<(String, i32), i64>,
    /// A checkpoint that does not parse (Kafka takes the log dir offline
    /// at start: `rules::start::unreadable_file_refusal`) is replaced by an
    /// empty one, which Kafka reads as it reads a missing file (every value
    /// absent), and what that means is said; else it is left as it is.
    pub replace_unreadable: bool,
}

/// What an empty checkpoint `name` means to Kafka's start, for a plan.
fn when_emptied(name: &str) -> &'static str {
    match name {
        n::RECOVERY_POINT_OFFSET_CHECKPOINT => {
            "every recovery point is 0: after an unclean shutdown Kafka recovers every segment (slow, safe); after a clean one nothing"
        }
        n::REPLICATION_OFFSET_CHECKPOINT => {
            "every high watermark starts at the log start: a leader raises it once its ISR has caught up (a single node: to its log end), and until then consumers read less"
        }
        n::LOG_START_OFFSET_CHECKPOINT => {
            "every log starts at its first segment: records that DeleteRecords or retention had put below the log start in that segment are served again"
        }
        _ => "the cleaner starts each compacted log over from its start",
    }
}

/// Rewrite the log dir's offset checkpoints for `limits` (only the lines that
/// change; the rest as they are).
pub fn adjust_checkpoints(
    log_dir: &Path,
    lim: &CheckpointLimits,
    limits: &Limits,
    changes: &mut dyn Changes,
) -> Result<()> {
    let empty = BTreeMap::new();
    for name in n::LOG_DIR_CHECKPOINTS {
        let path = log_dir.join(name);
        let set = match name {
            n::RECOVERY_POINT_OFFSET_CHECKPOINT => &lim.recovery_point,
            n::CLEANER_OFFSET_CHECKPOINT => &lim.cleaner_offset,
            _ => &empty,
        };
        let raising = !set.is_empty();
        let before: Vec<OffsetCheckpointEntry> = if !path.exists() {
            if !raising {
                continue;
            }
            Vec::new()
        } else {
            let Ok(c) = checkpoint::read_offsets(&path, limits) else {
                if lim.replace_unreadable {
                    changes.note(Note::Warning {
                        path: path.clone(),
                        message: format!(
                            "does not parse: Kafka takes the log dir offline at start (a broker with no other log dir halts); replaced by an empty checkpoint, as Kafka reads a missing one: {}",
                            when_emptied(name)
                        ),
                    });
                    let entries: Vec<OffsetCheckpointEntry> = set
                        .iter()
                        .map(|((topic, partition), offset)| OffsetCheckpointEntry {
                            topic: topic.clone(),
                            partition: *partition,
                            offset: *offset,
                        })
                        .collect();
                    changes.write(&path, &logfmt::emit::offset_checkpoint(&entries), "a checkpoint Kafka can read")?;
                } else {
                    changes.note(Note::Warning {
                        path: path.clone(),
                        message: "unreadable checkpoint left as it is".into(),
                    });
                }
                continue;
            };
            c.entries.into_iter().map(|(_, e)| e).collect()
        };
        let mut entries = before.clone();
        for e in &mut entries {
            if let Some(end) = lim.log_end.get(&(e.topic.clone(), e.partition)) {
                e.offset = logrules::log::checkpoint_after_truncation(e.offset, *end);
            }
        }
        if raising {
            for ((topic, partition), rp) in set {
                match entries.iter_mut().find(|e| (e.topic.as_str(), e.partition) == (topic.as_str(), *partition)) {
                    Some(e) => e.offset = *rp,
                    None => {
                        entries.push(OffsetCheckpointEntry { topic: topic.clone(), partition: *partition, offset: *rp })
                    }
                }
            }
        }
        if name == n::LOG_START_OFFSET_CHECKPOINT {
            for (key, start) in &lim.log_start {
                entries.retain(|e| (e.topic.as_str(), e.partition) != (key.0.as_str(), key.1));
                if let Some(start) = start {
                    entries.push(OffsetCheckpointEntry { topic: key.0.clone(), partition: key.1, offset: *start });
                }
            }
        }
        if entries != before {
            let why = if name == n::LOG_START_OFFSET_CHECKPOINT {
                "log start offsets updated"
            } else if raising && name == n::CLEANER_OFFSET_CHECKPOINT {
                "cleaner offsets moved to where the cleaning ended"
            } else if raising {
                "recovery points moved to the flushed log end"
            } else {
                "values above the new log end lowered to it"
            };
            write_if_changed(changes, &path, &logfmt::emit::offset_checkpoint(&entries), why)?;
        }
    }
    Ok(())
}
