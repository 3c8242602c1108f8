//! `retain`: the retention clean-ups Kafka's log manager does, offline:
//! what [`logrules::retention`] deletes, done. The log start offset
//! becomes the first remaining offset (or the one asked for),
//! `log-start-offset-checkpoint` records it, and the leader-epoch cache is
//! truncated from the start. Producer snapshots stay: Kafka prunes those
//! below the log start itself.
//!
//! A tiered partition (`tiered`: [`logrules::retention::Tiered`])
//! loses only segments remote storage holds, and only its local log start
//! moves: its log start, checkpoint entry and leader epochs stay as Kafka
//! keeps them for remote reads. A new log start below which remote
//! segments lie says so: the broker deletes those from the remote store;
//! logtool never touches remote data.

use super::checkpoints::CheckpointLimits;
use super::{Changes, Loss, Note, write_if_changed};
use logfmt::error::Result;
use logfmt::limits::Limits;
use logfmt::partition::Partition;
use logrules::log as rules;
use logrules::retention::{self, Outcome, plan};
pub use logrules::retention::{Rule, Tiered};

/// How retention sees `p` of `log_dir` with remote storage (`None`: not
/// tiered; `remote`: the log dir's remote log metadata).
pub fn tiered_view(
    p: &Partition,
    log_dir: &logfmt::partition::LogDir,
    remote: Option<&logrules::offsets::RemoteLog>,
    limits: &Limits,
) -> Option<Tiered> {
    logrules::remote::retention_view(p, log_dir, remote, limits)
}

/// Plan a retention clean-up of partition `p`, whose topic's
/// `cleanup.policy` is `policy`. None: nothing read says (a ZooKeeper-mode
/// dir keeps it in ZooKeeper only): retention by time or size plans
/// nothing for the partition, and says why and how to give the policy,
/// since a compact-only topic is never deleted by retention and unknown is
/// not a default (a log start move applies whatever the policy). Returns
/// what is deleted.
#[allow(clippy::too_many_arguments)]
pub fn retain_partition(
    p: &Partition,
    rule: Rule,
    policy: Option<&str>,
    tiered: Option<&Tiered>,
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
        None if !matches!(rule, Rule::LogStart(_)) => {
            changes.note(Note::Warning {
                path: p.dir.clone(),
                message: format!(
                    "skipped: topic {}'s cleanup.policy is not known here (no metadata log in this log dir; a ZooKeeper-mode cluster keeps it in ZooKeeper), and a compact-only topic keeps what retention would delete: give --zookeeper-data (ZooKeeper's dataDir), or --assume-policy delete if you know it",
                    p.name.topic
                ),
            });
            return Ok(None);
        }
        _ => {}
    }
    let plan = match plan(p, rule, tiered, limits)? {
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
    let why =
        if plan.local_only { "deleted by local retention (tiered: in remote storage)" } else { "deleted by retention" };
    for seg in p.segments.iter().take(plan.deleted) {
        for f in seg.files() {
            changes.remove(&f, why)?;
        }
    }
    if let Some(t) = tiered {
        let message = match (plan.local_only, t.highest_remote_offset) {
            (true, Some(h)) => format!(
                "tiered: local retention deletes only segments in remote storage (up to offset {h}); the local log \
                 start becomes {}, the log start {} and the leader epochs stay (remote reads need them)",
                plan.new_start, t.log_start
            ),
            (true, None) => "tiered: what remote storage holds is not known here (its __remote_log_metadata \
                             partition is not in this log dir) or nothing is uploaded: local retention deletes \
                             nothing not yet uploaded, so nothing"
                .into(),
            (false, _) => match (plan.remote_below.first(), plan.remote_below.last()) {
                (Some(first), Some(last)) => format!(
                    "tiered: {} remote segment(s), offsets {}-{}, lie below the new log start {}: the broker's remote \
                     log manager deletes them from the remote store once it runs; logtool never deletes remote data",
                    plan.remote_below.len(),
                    first.0,
                    last.1,
                    plan.new_start
                ),
                _ => format!("tiered: the new log start {} leaves remote storage as it is", plan.new_start),
            },
        };
        changes.note(Note::Info { path: p.dir.clone(), message });
    }
    if plan.active_segment_kept
        && let Some(seg) = p.segments.last()
    {
        changes
            .note(Note::Info { path: seg.log.clone(), message: "the active segment is never deleted offline".into() });
    }
    let Some(loss) = plan.loss else { return Ok(None) };
    // (a tiered partition's log start is always listed: LogManager writes
    // every remote-enabled log's)
    let listed = match tiered {
        Some(_) => Some(plan.new_start),
        None => logrules::log::log_start_checkpoint(plan.new_start, plan.first_kept),
    };
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
