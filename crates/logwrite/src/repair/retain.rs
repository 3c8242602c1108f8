//! `retain`: the retention clean-ups Kafka's log manager does, offline:
//! what [`logfmt::rules::retention`] deletes, done. The log start offset
//! becomes the first remaining offset (or the one asked for),
//! `log-start-offset-checkpoint` records it, and the leader-epoch cache is
//! truncated from the start. Producer snapshots stay: Kafka prunes those
//! below the log start itself.

use super::checkpoints::CheckpointLimits;
use super::{Changes, Loss, Note, write_if_changed};
use logfmt::error::Result;
use logfmt::limits::Limits;
use logfmt::partition::Partition;
use logfmt::rules::log as rules;
pub use logfmt::rules::retention::Rule;
use logfmt::rules::retention::{self, Outcome, plan};

/// Plan a retention clean-up of partition `p`, whose topic's
/// `cleanup.policy` is `policy` (None: nothing in the log dir says; Kafka's
/// default, `delete`, is assumed and said). Returns what is deleted.
pub fn retain_partition(
    p: &Partition,
    rule: Rule,
    policy: Option<&str>,
    limits: &Limits,
    lim: &mut CheckpointLimits,
    changes: &mut dyn Changes,
) -> Result<Option<Loss>> {
    match policy {
        Some(policy) if !retention::applies(rule, policy) => {
            changes.note(Note::Info {
                path: p.dir.clone(),
                message: format!(
                    "skipped: topic {}'s cleanup.policy is {policy}: Kafka applies retention.ms and retention.bytes only where it includes delete (UnifiedLog.deleteOldSegments)",
                    p.name.topic
                ),
            });
            return Ok(None);
        }
        None if !matches!(rule, Rule::LogStart(_)) => changes.note(Note::Warning {
            path: p.dir.clone(),
            message: format!(
                "topic {}'s cleanup.policy is not known here (no metadata log in this log dir): Kafka's default, delete, is assumed; a compacted topic keeps what this plan deletes",
                p.name.topic
            ),
        }),
        _ => {}
    }
    let plan = match plan(p, rule, limits)? {
        Outcome::AboveHighWatermark { log_start, high_watermark } => {
            changes.note(Note::Warning {
                path: p.dir.clone(),
                message: format!(
                    "log start {log_start} is above the high watermark {high_watermark}: Kafka refuses that (DeleteRecords); nothing done"
                ),
            });
            return Ok(None);
        }
        Outcome::Plan(plan) => plan,
    };
    for seg in p.segments.iter().take(plan.deleted) {
        for f in seg.files() {
            changes.remove(&f, "deleted by retention")?;
        }
    }
    if plan.active_segment_kept
        && let Some(seg) = p.segments.last()
    {
        changes
            .note(Note::Info { path: seg.log.clone(), message: "the active segment is never deleted offline".into() });
    }
    let Some(loss) = plan.loss else { return Ok(None) };
    let listed = logfmt::rules::log::log_start_checkpoint(plan.new_start, plan.first_kept);
    lim.log_start.insert((p.name.topic.clone(), p.name.partition), listed);
    let cache = rules::move_log_start(p, plan.new_start, limits);
    if p.epochs_path().exists() {
        write_if_changed(
            changes,
            &p.epochs_path(),
            &cache.to_checkpoint(),
            "leader epochs below the new log start dropped",
        )?;
    }
    Ok(Some(loss))
}
