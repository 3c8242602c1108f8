#!/usr/bin/env bash
# Interop: what Kafka does when it starts on a log dir (logfmt rules::start),
# against Kafka 3.9.1 and 4.3.1.
#
#  1. Stray partitions. A two-node Kafka 3.9.1 cluster writes `plain`
#     (node 1) and `elsewhere` (node 2 only); node 1's dir is then tampered
#     three ways: plain-0's topic id edited, a partition dir of an unknown
#     topic (ghost-0), and node 2's elsewhere-0 copied in (a partition placed
#     on another node). Node 1 alone is started on a copy by each version:
#     every dir it renames <dir>.<id>-stray was a stray_partition warning of
#     `verify --kafka-version V`, and no other dir was.
#  2. Refused start. Kafka 4.3.1 on a copy of the clean dir (a real Kafka
#     3.9.1 wrote it; its topics have sub-MiB segment.bytes) stops with one of
#     the ConfigExceptions `verify --kafka-version 4.3` gives as start_refused
#     errors; on the 4.3.1 fixture verify gives none; Kafka 3.9.1 started on
#     the 4.3.1 fixture stops with what `verify --kafka-version 3.9` says.
#  3. The high watermark after start. The sigkill dir (a real broker killed
#     mid-write; its metadata log kept beside it by generate.sh): Kafka 3.9.1
#     started on a copy answers earliest and latest (kafka-get-offsets) as
#     `offset-for-time` does on another copy after `logtool recover` (once
#     the transaction coordinator has aborted the transaction the SIGKILL
#     left open: asked again for up to 40 s). (The
#     crash spec's dir is checked the same way in tests/interop/fixture.sh.)
#  4. What the coordinator writes at start. The committed incident dir holds
#     a transaction open past its timeout: Kafka 3.9.1 started on it aborts
#     it, and answers latest for the partitions that get records (the ABORT
#     marker, and PrepareAbort + CompleteAbort in __transaction_state) as
#     `offset-for-time` predicted on another copy.
#
# LOGTOOL_FIXTURES names freshly generated 3.9.1 fixtures (tests/interop/run.sh)
# and LOGTOOL_FIXTURES_4 the 4.3.1 ones; the committed ones otherwise (the
# committed sigkill dir has no metadata log, so step 3 needs fresh ones).
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup start
fixtures=${LOGTOOL_FIXTURES:-$PWD/fixtures/kafka-3.9.1}
fixtures4=${LOGTOOL_FIXTURES_4:-$PWD/fixtures/kafka-4.3.1}
K4_LIBS=$(kafka_libs_of 4.3.1)
CLUSTER_ID=bG9ndG9vbC1maXh0dXJlcw
BROKER_PROPS=("log.retention.ms=-1")

# The partition dirs `verify --kafka-version V` says are stray, sorted.
verify_strays() { # V LOGDIR
  { "$LT" verify --format json --kafka-version "$1" "$2" || true; } | python3 -c '
import json, os, sys
for l in sys.stdin:
    v = json.loads(l)
    if v.get("kind") == "stray_partition": print(os.path.basename(v["file"]))' | sort
}

# ---- 1. stray partitions --------------------------------------------------------
b1=$(free_port); c1=$(free_port); b2=$(free_port)
kraft_config "$work/n1.properties" "$work/n1" "$b1" "$c1" "${BROKER_PROPS[@]}"
kraft_broker_config "$work/n2.properties" 2 "$work/n2" "$b2" "$c1" "${BROKER_PROPS[@]}"
kraft_format "$work/n1.properties" "$CLUSTER_ID"
kraft_format "$work/n2.properties" "$CLUSTER_ID"
kafka_start "$work/n1.properties" "$work/n1.broker.log" "$b1"; p1=$KAFKA_PID
kafka_start "$work/n2.properties" "$work/n2.broker.log" "$b2"; p2=$KAFKA_PID
kafka_wait_started "$work/n1.broker.log" "$p1"
kafka_wait_started "$work/n2.broker.log" "$p2"
for t in "plain 1" "elsewhere 2"; do
  set -- $t
  kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$b1" --create --topic "$1" \
    --replica-assignment "$2" >&2
  kafka_java org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records 500 --record-size 100 \
    --throughput -1 --producer-props "bootstrap.servers=127.0.0.1:$b1" acks=all >/dev/null
done
kafka_stop "$p2"
kafka_stop "$p1"
[ -d "$work/n2/elsewhere-0" ] && [ -d "$work/n1/plain-0" ] || die "the topics are not where they were assigned"
cp -a "$work/n2/elsewhere-0" "$work/n1/elsewhere-0"
cp -a "$work/n1/plain-0" "$work/n1/ghost-0"
new_id() { python3 -c 'import base64, os; print(base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("="))'; }
printf 'version: 0\ntopic_id: %s\n' "$(new_id)" >"$work/n1/ghost-0/partition.metadata"
printf 'version: 0\ntopic_id: %s\n' "$(new_id)" >"$work/n1/plain-0/partition.metadata"
want=$(printf '%s\n' elsewhere-0 ghost-0 plain-0)
for v in 3.9 4.3; do
  d=$work/stray-$v
  cp -a "$work/n1" "$d"
  said=$(verify_strays "$v" "$d")
  [ "$said" = "$want" ] || die "verify --kafka-version $v says stray: $(echo $said), expected $(echo $want)"
  start_version "$v" "$d" "stray-$v"
  kafka_wait_started "$work/stray-$v.broker.log" "$KAFKA_PID"
  kafka_stop "$KAFKA_PID"
  did=$(cd "$d" && ls -d -- *-stray 2>/dev/null | sed 's/\.[^.]*-stray$//' | sort)
  [ "$did" = "$said" ] \
    || die "Kafka $v renamed these dirs -stray: $(echo $did); verify --kafka-version $v said: $(echo $said)"
  log "Kafka $v set aside exactly the dirs verify called stray: $(echo $did)"
done

# ---- 2. refused starts -----------------------------------------------------------
refusals() { # V LOGDIR: the Kafka messages of verify's start_refused findings
  { "$LT" verify --format json --kafka-version "$1" "$2" || true; } | python3 -c '
import json, sys
for l in sys.stdin:
    v = json.loads(l)
    if v.get("kind") == "start_refused": print(v["message"].split(": ", 2)[2])'
}
# wait until the broker started in the background logs one of the messages
# (whole, or after its exception class) or exits; then stop it
expect_refusal() { # NAME MESSAGES_FILE
  local i=0 log=$work/$1.broker.log hit=
  while [ -z "$hit" ]; do
    while read -r m; do
      grep -qF -- "${m#*Exception: }" "$log" 2>/dev/null && hit=$m && break
    done <"$2"
    [ -n "$hit" ] && break
    running_child "$KAFKA_PID" || break
    [ $i -gt 1200 ] && break
    sleep 0.1; i=$((i + 1))
  done
  kafka_stop "$KAFKA_PID"
  [ -n "$hit" ] || { tail -30 "$log" >&2; die "$1: Kafka did not stop with what verify said"; }
  ! grep -q "Kafka Server started" "$log" || die "$1: Kafka started although verify said it would refuse"
  log "$1: Kafka refused to start as verify said: $hit"
}
cp -a "$fixtures/clean/logs" "$work/clean"
refusals 4.3 "$work/clean" >"$work/clean.refusals"
[ -s "$work/clean.refusals" ] || die "verify --kafka-version 4.3 gives no start_refused on the clean dir"
[ -z "$(refusals 3.9 "$work/clean")" ] || die "verify --kafka-version 3.9 gives start_refused on the clean dir"
start_version 4.3 "$work/clean" clean-4.3
expect_refusal clean-4.3 "$work/clean.refusals"
cp -a "$fixtures4/kafka4/logs" "$work/k4"
[ -z "$(refusals 4.3 "$work/k4")" ] || die "verify --kafka-version 4.3 gives start_refused on the 4.3.1 fixture"
refusals 3.9 "$work/k4" >"$work/k4.refusals"
[ -s "$work/k4.refusals" ] || die "verify --kafka-version 3.9 gives no start_refused on the 4.3.1 fixture"
start_version 3.9 "$work/k4" k4-3.9
expect_refusal k4-3.9 "$work/k4.refusals"

# ---- 3. the high watermark after start: sigkill -----------------------------------
if [ -d "$fixtures/sigkill/metadata" ]; then
  for c in kafka logtool; do
    cp -a "$fixtures/sigkill/logs" "$work/sigkill-$c"
    cp -a "$fixtures/sigkill/metadata" "$work/sigkill-$c.metadata"
  done
  n=$(logtool_answers "$work/sigkill-kafka" --metadata-dir "$work/sigkill-kafka.metadata" | grep -c '^latest')
  start_version 3.9 "$work/sigkill-kafka" sigkill "metadata.log.dir=$work/sigkill-kafka.metadata"
  kafka_wait_started "$work/sigkill.broker.log" "$KAFKA_PID"
  "$LT" -q recover --execute "$work/sigkill-logtool" >/dev/null
  logtool_answers "$work/sigkill-logtool" --metadata-dir "$work/sigkill-logtool.metadata" >"$work/sigkill.logtool"
  kafka_agrees "$BOOTSTRAP" "$n" "$work/sigkill.logtool" "$work/sigkill.kafka" \
    || { diff "$work/sigkill.kafka" "$work/sigkill.logtool" >&2
         die "sigkill: Kafka after its start and offset-for-time after recover answer differently"; }
  kafka_stop "$KAFKA_PID"
  log "sigkill: Kafka 3.9.1 after its start and offset-for-time after recover agree: $(paste -sd' ' "$work/sigkill.kafka")"
else
  log "sigkill: no metadata log beside the fixture (committed fixtures): step 3 skipped"
fi
# ---- 4. what the coordinator writes on start: incident ------------------------------
# The incident dir holds a transaction left open (tx-open) long past its
# timeout: at start the coordinator aborts it, writing the ABORT marker to
# payments-0 and PrepareAbort + CompleteAbort to __transaction_state-0.
# Every partition offset-for-time says will get such records answers
# latest (kafka-get-offsets) as offset-for-time predicts, once written.
for c in kafka logtool; do cp -a fixtures/kafka-3.9.1/incident/logs "$work/incident-$c"; done
"$LT" offset-for-time --format json "$work/incident-logtool" latest | python3 -c '
import json, sys
for l in sys.stdin:
    v = json.loads(l)
    if v["type"] == "offset" and "coordinator then writes" in (v["detail"] or ""):
        print("%s:%s:%s" % (v["topic"], v["partition"], v["offset"]))' | sort >"$work/incident.expected"
grep -q '^__transaction_state:' "$work/incident.expected" || die "incident: offset-for-time predicts no coordinator records"
grep -q '^payments:' "$work/incident.expected" || die "incident: offset-for-time predicts no ABORT marker"
topics=$(cut -d: -f1 "$work/incident.expected" | sort -u | paste -sd'|')
start_version 3.9 "$work/incident-kafka" incident
kafka_wait_started "$work/incident.broker.log" "$KAFKA_PID"
i=0
# (every expected line among Kafka's answers: comm prints those missing)
until kafka_java org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" --topic "$topics" --time -1 2>/dev/null \
        | grep -E '^[^:]+:[0-9]+:[0-9]+$' | sort >"$work/incident.kafka"
      [ -z "$(comm -23 "$work/incident.expected" "$work/incident.kafka")" ]; do
  [ $i -ge 40 ] && { diff "$work/incident.expected" "$work/incident.kafka" >&2; die "incident: Kafka's latest after its start differs from offset-for-time's"; }
  sleep 1; i=$((i + 1))
done
kafka_stop "$KAFKA_PID"
log "incident: Kafka 3.9.1 aborted the open transaction at start and answers latest as offset-for-time predicted: $(paste -sd' ' "$work/incident.expected")"
log "start interop: all checks passed"
