#!/usr/bin/env bash
# Crash recovery: a real Kafka 3.9.1 recovering alone after a SIGKILL versus
# `logtool recover --execute --roll` followed by the broker's start.
#
# The data (made once, cached under target/bench-data/recovery-3.9.1-GIB):
# a KRaft controller (node 1) and a broker (node 2) as in production, topic
# `rec` of 20 partitions, GIB GiB of 100-byte records from
# kafka-producer-perf-test's default producer settings, then the broker is
# SIGKILLed (the controller fences it, then stops cleanly). Segments are
# Kafka's default 1 GiB, so nothing rolled and nothing was flushed: every
# byte is above the recovery point, in active segments.
#
# Each run copies the broker's dir afresh (then `sync`, so no scenario pays
# for the copy's writeback), starts the broker on it (the controller runs
# throughout) and times, from the start, until the broker answers
# ListOffsets for every partition of `rec` (Workload.java wait-offsets polls
# every 20 ms):
#   kafka, threads=1   the broker recovers by itself, Kafka's default
#                      num.recovery.threads.per.data.dir
#   kafka, threads=2   the same with 2 recovery threads
#   logtool + kafka    logtool recover --execute --roll, then the broker
#                      (threads=1)
# Every scenario must answer the same log end offsets. Prints a Markdown
# table: median (min-max) of RUNS, and how many segments holding data the
# broker itself recovered at start. (A combined broker+controller node
# restarted after a SIGKILL also waits broker.session.timeout.ms, 9 s, for
# its old registration to expire, whatever it recovers: a dedicated
# controller, which stays up, has fenced it by then.)
#
#   bench/recovery.sh [RUNS] [GIB]      (default 3, 4; RUNS 0 only makes the data)
set -euo pipefail
cd "$(dirname "$0")/.."
. fixtures/kafka/lib.sh
runs=${1:-3}
gib=${2:-4}
parts=20
base=$PWD/target/bench-data/recovery-3.9.1-$gib
kafka_libs
trap 'kafka_cleanup' EXIT
export KRAFT_QUORUM=static

if [ ! -f "$base/complete" ]; then
  rm -rf "$base"
  mkdir -p "$base"
  bport=$(free_port)
  cport=$(free_port)
  id=$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)
  kraft_controller_config "$base/controller.properties" "$base/controller" "$cport"
  kraft_broker_config "$base/broker.properties" 2 "$base/killed" "$bport" "$cport" "log.retention.ms=-1"
  kraft_format "$base/controller.properties" "$id" >/dev/null
  kraft_format "$base/broker.properties" "$id" >/dev/null
  kafka_start "$base/controller.properties" "$base/controller.log" "$cport"
  ctl=$KAFKA_PID
  kafka_start "$base/broker.properties" "$base/broker.log" "$bport"
  kafka_wait_started "$base/broker.log" "$KAFKA_PID"
  kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$bport" --create --topic rec \
    --partitions "$parts" >/dev/null 2>&1
  log "producing $gib GiB to $parts partitions"
  kafka_java org.apache.kafka.tools.ProducerPerformance --topic rec --num-records $((gib * 1024 * 1024 * 1024 / 130)) \
    --record-size 100 --throughput -1 --producer-props bootstrap.servers="127.0.0.1:$bport" 2>&1 | tail -1 >&2
  kafka_kill "$KAFKA_PID"
  [ ! -f "$base/killed/.kafka_cleanshutdown" ] || die "the broker shut down cleanly"
  # the controller fences the broker when its session times out (9 s)
  sleep 15
  kafka_stop "$ctl"
  date -u +%FT%TZ >"$base/complete"
fi
[ "$runs" -gt 0 ] || exit 0

cargo build --release --locked -q
lt=$PWD/target/release/logtool
run=$base/run
rm -rf "$run"
mkdir -p "$run"

# the ListOffsets poller, compiled once (javac of a source launch would
# compete with the broker for the CPU in every run)
mkdir -p "$run/classes"
javac -nowarn -cp "$KAFKA_LIBS/*" -d "$run/classes" "$KAFKA_LIB_DIR/Workload.java" 2>"$run/javac.log" \
  || { cat "$run/javac.log" >&2; die "javac Workload.java failed"; }

# the controller runs throughout, on a copy of its dir
cport=$(free_port)
cp -a "$base/controller" "$run/controller"
kraft_controller_config "$run/controller.properties" "$run/controller" "$cport"
kafka_start "$run/controller.properties" "$run/controller.log" "$cport"

# one run: SCENARIO THREADS -> "ms segments_with_data_kafka_recovered"; the
# end offsets go to $run/SCENARIO.offsets
one() {
  local scenario=$1 threads=$2 bport s ans waiter broker full
  rm -rf "$run/logs" "$run/logs.logtool-quarantine"
  cp -a "$base/killed" "$run/logs"
  sync
  bport=$(free_port)
  kraft_broker_config "$run/broker.properties" 2 "$run/logs" "$bport" "$cport" "log.retention.ms=-1" \
    "num.recovery.threads.per.data.dir=$threads"
  s=$(date +%s%3N)
  KAFKA_EXTRA_CP=$run/classes kafka_java_bg "$run/wait.out" Workload "127.0.0.1:$bport" wait-offsets rec
  waiter=$BG_PID
  if [ "$scenario" = logtool ]; then
    "$lt" recover -q --execute --roll "$run/logs" >"$run/recover.out" 2>&1 \
      || { cat "$run/recover.out" >&2; die "logtool recover failed"; }
    echo "logtool recover: $(($(date +%s%3N) - s)) ms" >>"$run/logtool.ms"
  fi
  kafka_java_bg "$run/broker.log" kafka.Kafka "$run/broker.properties"
  broker=$BG_PID
  wait "$waiter" || { tail -20 "$run/wait.out" "$run/broker.log" >&2; die "the broker did not answer"; }
  ans=$(sed -n 's/^ANSWERED //p' "$run/wait.out")
  grep '^rec ' "$run/wait.out" | sort >"$run/$scenario.offsets"
  # segments the broker recovered that held data (an empty one costs nothing)
  full=$(grep -o "Recovering unflushed segment [0-9]*\. .* for rec-[0-9]*" "$run/broker.log" \
    | while read -r _ _ _ off _ _ _ tp; do
      [ -s "$run/logs/$tp/$(printf '%020d' "${off%.}").log" ] && echo x
    done | wc -l || true)
  kafka_stop "$broker"
  cp "$run/broker.log" "$run/$scenario$threads.$(date +%s%N).broker.log"
  echo "$((ans - s)) $full"
}

stats() { sort -n | awk '{ a[NR] = $1 } END { printf "%.1f s (%.1f-%.1f)", a[int((NR + 1) / 2)] / 1000, a[1] / 1000, a[NR] / 1000 }'; }
declare -A med
echo "Data: $gib GiB over $parts partitions of a SIGKILLed Kafka 3.9.1 broker (dedicated controller), nothing flushed; $(nproc) cores; $runs runs each; $(date -u +%F)"
echo
echo "| start after the crash | until ListOffsets answers: median (min-max) | segments with data the broker recovered itself |"
echo "|---|---|---|"
for sc in "kafka 1" "kafka 2" "logtool 1"; do
  read -r name threads <<<"$sc"
  : >"$run/times"
  for i in $(seq "$runs"); do
    one "$name" "$threads" >>"$run/times"
  done
  label="Kafka alone, num.recovery.threads.per.data.dir=$threads"
  [ "$name" = logtool ] && label="logtool recover --execute --roll, then Kafka (threads=1)"
  med[$name$threads]=$(cut -d' ' -f1 "$run/times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  echo "| $label | $(cut -d' ' -f1 "$run/times" | stats) | $(cut -d' ' -f2 "$run/times" | sort -u | tr '\n' ' ')|"
  cp "$run/$name.offsets" "$run/$name$threads.last"
done
cmp -s "$run/kafka1.last" "$run/logtool1.last" && cmp -s "$run/kafka1.last" "$run/kafka2.last" \
  || die "the scenarios answered different log end offsets"
echo
awk -v a="${med[kafka1]}" -v b="${med[kafka2]}" -v l="${med[logtool1]}" \
  'BEGIN { printf "logtool + Kafka: %.1fx faster than Kafka alone with 1 thread, %.1fx with 2 (same log end offsets in every scenario).\n", a / l, b / l }'
