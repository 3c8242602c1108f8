#!/usr/bin/env bash
# Benchmark of `logtool broker` against a real Kafka 3.9.1 single node, side
# by side in one run, same machine, log dirs on the same disk:
#   * time from start to ready (logtool: its "listening" line; Kafka: "Kafka
#     Server started") and to the first acknowledged produce;
#   * kafka-producer-perf-test, 100-byte records, one producer, default
#     batch settings (the Java default: idempotent), acks=1 and acks=all:
#     records/s, average and p99 latency;
#   * the same with transactions (--transaction-duration-ms 100: a commit
#     every 100 ms, acks=all);
#   * kafka-consumer-perf-test of what was produced: records/s;
#   * peak RSS of each broker (VmHWM);
#   * peak RSS while 6 librdkafka consumers (bench/many_consumers.py) read the
#     records at once, each asking for 100 MiB per fetch (fetch.max.bytes and
#     max.partition.fetch.bytes): Kafka caps a response at its fetch.max.bytes
#     (55 MiB) and sends from the file; logtool broker does the same
#     (sendfile), holding only the rest of each response in memory.
# Neither fsyncs on produce: Kafka's default flush policy leaves flushing to
# the OS (log.flush.interval.messages is Long.MAX_VALUE), and logtool broker
# fsyncs a segment only when it rolls or at the stop.
#
#   bench/broker.sh [RECORDS]      (default 2000000)
# LOGTOOL_BIN=path runs that logtool instead of building this checkout's
# (an older build beside this one: before/after).
set -euo pipefail
cd "$(dirname "$0")/.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
# the clients are measured here: full JIT (tests/interop/lib.sh sets the quick one)
KAFKA_JAVA_QUICK=
kafka_libs
interop_python
records=${1:-2000000}
if [ -n "${LOGTOOL_BIN:-}" ]; then
  LT=$(realpath "$LOGTOOL_BIN")
else
  cargo build --release --locked -q
  LT=$PWD/target/release/logtool
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/logtool-bench-broker.XXXXXX")
trap 'kafka_cleanup; rm -rf "$work"' EXIT
export KRAFT_QUORUM=static
ms() { date +%s%3N; }
produce_perf() { # BOOTSTRAP TOPIC ACKS [PERF-TEST OPTIONS...]
  local b=$1 t=$2 acks=$3
  shift 3
  kafka_java org.apache.kafka.tools.ProducerPerformance --topic "$t" --num-records "$records" --record-size 100 \
    --throughput -1 "$@" --producer-props bootstrap.servers="$b" acks="$acks" 2>/dev/null | tail -1
}
consume_perf() { # BOOTSTRAP TOPIC
  kafka_java org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$1" --topic "$2" \
    --messages "$records" --timeout 60000 2>/dev/null | tail -1
}
first_produce() { # BOOTSTRAP: ms until one record is acknowledged (after the JVM starts)
  echo x | kafka_java kafka.tools.ConsoleProducer --bootstrap-server "$1" --topic first --request-required-acks all \
    >/dev/null 2>&1
}
hwm() { awk '/VmHWM/ { printf "%.0f MiB", $2 / 1024 }' "/proc/$1/status"; }
run() { # NAME BOOTSTRAP PID READY_MS
  local name=$1 b=$2 pid=$3 ready=$4 t0 first
  kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --create --topic first >/dev/null 2>&1
  t0=$(ms); first_produce "$b"; first=$(( $(ms) - t0 ))
  for acks in 1 all; do
    kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --create --topic "perf-$acks" >/dev/null 2>&1
    echo "$name acks=$acks produce: $(produce_perf "$b" "perf-$acks" "$acks")"
  done
  kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --create --topic perf-txn >/dev/null 2>&1
  echo "$name transactional produce: $(produce_perf "$b" perf-txn all --transactional-id perf --transaction-duration-ms 100)"
  echo "$name consume: $(consume_perf "$b" perf-1)"
  echo "$name ready after ${ready} ms; first acknowledged produce (console producer, JVM start included) ${first} ms; peak RSS $(hwm "$pid")"
  many_consumers "$name" "$b" "$pid"
}
many_consumers() { # NAME BOOTSTRAP PID
  local secs
  # the peak from here on (Linux: 5 resets VmHWM to the current RSS)
  echo 5 >"/proc/$3/clear_refs"
  secs=$("$PY" bench/many_consumers.py "$2" perf-1 "$records" 6)
  echo "$1 6 consumers asking 100 MiB per fetch: peak RSS $(hwm "$3") (all read in $secs s)"
}

# logtool broker
t0=$(ms)
"$LT" broker --log-dir "$work/logtool" --listen 127.0.0.1:0 --group-initial-rebalance-delay-ms 0 >"$work/lt.out" 2>"$work/lt.err" &
lt_pid=$!
KAFKA_PIDS+=("$lt_pid")
until grep -q '^listening on ' "$work/lt.out"; do sleep 0.001; done
ready=$(( $(ms) - t0 ))
run "logtool broker" "$(sed -n 's/^listening on //p' "$work/lt.out")" "$lt_pid" "$ready"
kafka_stop "$lt_pid"

# Kafka 3.9.1
bport=$(free_port); cport=$(free_port)
kraft_config "$work/kafka.properties" "$work/kafka" "$bport" "$cport" "group.initial.rebalance.delay.ms=0"
kraft_format "$work/kafka.properties" "$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)" >/dev/null
t0=$(ms)
kafka_start "$work/kafka.properties" "$work/kafka.log" "$bport"
kafka_wait_started "$work/kafka.log" "$KAFKA_PID"
ready=$(( $(ms) - t0 ))
run "Kafka 3.9.1" "127.0.0.1:$bport" "$KAFKA_PID" "$ready"
kafka_stop "$KAFKA_PID"
