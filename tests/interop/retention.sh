#!/usr/bin/env bash
# Interop: `logtool retain --before` against Kafka 3.9.1's own time retention
# (UnifiedLog.deleteRetentionMsBreachedSegments), per cleanup.policy.
#
#  1. A broker writes three topics with 2 KiB segments, one per
#     cleanup.policy (delete, compact, compact,delete), without retention
#     (retention.ms -1) and with nothing the cleaner may clean
#     (min.compaction.lag.ms 30 days): records stamped three days ago over
#     several segments, then records stamped now (Workload retention-input),
#     and is stopped cleanly.
#  2. `logtool retain --before NOW-1d` plans on the input (a dry run: no byte
#     changes; the compact-only topic named as skipped, and why) and is
#     executed on a copy.
#  3. Kafka, started on the input, is given retention.ms one day for the
#     three topics and runs its retention (checks every second; a
#     compact,delete topic's is run by the log cleaner's thread, so the
#     cleaner is on, as by default: with it off Kafka applies no retention to
#     such a topic at all) until no segment is left marked .deleted and the
#     segments stay the same; then it is stopped cleanly.
#  4. In every partition the segments left (.log base offsets) and the log
#     start offset are Kafka's; verify finds nothing at warning or above on
#     logtool's copy.
#
# Brokers bind 127.0.0.1 on free ports and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup retention
workload() { kafka_java "$KAFKA_LIB_DIR/Workload.java" "$@"; }
CLUSTER_ID=bG9ndG9vbC1yZXRlbnRpb24
topics=(ret-delete-0 ret-compact-0 ret-both-0)

# ---- 1. the input -----------------------------------------------------------
input=$work/input
BROKER_PROPS=("log.retention.check.interval.ms=3600000")
bport=$(free_port); cport=$(free_port)
kraft_config "$work/input.properties" "$input" "$bport" "$cport" "${BROKER_PROPS[@]}"
kraft_format "$work/input.properties" "$CLUSTER_ID"
kafka_start "$work/input.properties" "$work/input.broker.log" "$bport"
kafka_wait_started "$work/input.broker.log" "$KAFKA_PID"
workload "127.0.0.1:$bport" retention-input >"$work/workload.out" 2>&1 \
  || { cat "$work/workload.out" >&2; die "the workload failed"; }
kafka_stop "$KAFKA_PID"
[ -f "$input/.kafka_cleanshutdown" ] || die "no clean shutdown of the input broker"
for t in "${topics[@]}"; do
  n=$(find "$input/$t" -name '*.log' | wc -l)
  [ "$n" -ge 4 ] || die "$t: only $n segments written"
done

# ---- 2. logtool's plan, and its retain on a copy ------------------------------
before=$(($(date +%s%3N) - 86400000))
copy=$work/logtool
cp -a "$input" "$copy"
hash=$(tree_hash "$input")
"$LT" retain --before "$before" --format json "$input" >"$work/plan.json" || [ $? = 1 ] \
  || die "retain's plan failed"
[ "$(tree_hash "$input")" = "$hash" ] || die "retain's dry run changed the input"
grep -q 'ret-compact-0","message":"skipped: topic ret-compact' "$work/plan.json" \
  && ! grep '"type":"change"' "$work/plan.json" | grep -q 'ret-compact-0/' \
  || { cat "$work/plan.json" >&2; die "the plan does not name ret-compact as skipped (or changes it)"; }
grep '"type":"change"' "$work/plan.json" | grep -q 'ret-delete-0/' \
  || { cat "$work/plan.json" >&2; die "the plan deletes nothing of ret-delete"; }
"$LT" retain --before "$before" --execute "$copy" >"$work/retain.out" 2>&1 || { cat "$work/retain.out" >&2; die "retain --execute failed"; }
grep -i 'compact' "$work/retain.out" | sed 's/^/    logtool: /' >&2 || true

# ---- 3. Kafka's retention on the input ---------------------------------------
BROKER_PROPS=("log.retention.check.interval.ms=1000" "log.initial.task.delay.ms=0" "file.delete.delay.ms=1000"
  "log.cleaner.backoff.ms=1000")
start_on "$input" kafka
for t in "${topics[@]}"; do
  kafka_java kafka.admin.ConfigCommand --bootstrap-server "$BOOTSTRAP" --entity-type topics --entity-name "${t%-0}" \
    --alter --add-config retention.ms=86400000 >>"$work/configs.out" 2>&1 \
    || { cat "$work/configs.out" >&2; die "kafka-configs could not set retention.ms of ${t%-0}"; }
done
segments_now() { for t in "${topics[@]}"; do (cd "$input/$t" && ls); done | tr '\n' ' '; }
stable=0 last=
for _ in $(seq 120); do
  sleep 1
  now=$(segments_now)
  if [ "$now" = "$last" ] && ! grep -q '\.deleted' <<<"$now" && grep -q 'Deleting segment' "$work/kafka.broker.log"; then
    stable=$((stable + 1))
    [ $stable -ge 5 ] && break
  else
    stable=0
  fi
  last=$now
done
[ $stable -ge 5 ] || die "Kafka's retention did not settle: $(segments_now)"
kafka_stop "$KAFKA_PID"

# ---- 4. the same segments and log start offsets ------------------------------
bases() { (cd "$1/$2" && ls -- *.log | sort); }
# the log start offset: the checkpoint's, or the first segment's base (Kafka
# checkpoints a partition only when its start is above that base)
start_of() { # LOGDIR PARTITION
  local c first
  c=$(awk -v t="${2%-*}" -v p="${2##*-}" '$1 == t && $2 == p { print $3 }' "$1/log-start-offset-checkpoint")
  first=$(bases "$1" "$2" | head -1 | sed 's/\.log$//; s/^0*//')
  echo $(( ${c:-0} > ${first:-0} ? ${c:-0} : ${first:-0} ))
}
for t in "${topics[@]}"; do
  diff <(bases "$input" "$t") <(bases "$copy" "$t") >&2 || die "$t: Kafka kept other segments than logtool (< Kafka, > logtool)"
  ks=$(start_of "$input" "$t"); ls_=$(start_of "$copy" "$t")
  [ "$ks" = "$ls_" ] || die "$t: log start offset $ls_ after logtool, $ks after Kafka"
  log "$t: Kafka and logtool keep the same $(bases "$input" "$t" | wc -l) segment(s), log start $ks"
done
"$LT" verify --deep --fail-on warning "$copy" >"$work/verify.out" 2>&1 || { cat "$work/verify.out" >&2; die "verify found problems on logtool's copy"; }
log "retain --before: the segments and log start offsets Kafka's retention.ms left, in every cleanup.policy"
