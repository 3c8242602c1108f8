#!/usr/bin/env bash
# A Kafka Streams application with processing.guarantee=exactly_once_v2
# (fixtures/kafka/StreamsApp.java: a word count with a repartition topic and
# an in-memory state store with its changelog, caching off) against
# `logtool broker` and against a real Kafka 3.9.1, on the same input:
#   1. each broker: wc-in gets the same lines; the application runs until
#      wc-out holds one update per word, read read_committed, and closes;
#   2. wc-out read read_committed is the same from both (every update, each
#      partition in order), and so is the group's committed offset;
#   3. logtool broker stops; `logtool verify` finds nothing; Kafka 3.9.1
#      starts on its log dir and serves the same wc-out read_committed and
#      the application's committed offsets.
# Brokers bind 127.0.0.1 on free ports and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup streams
BROKER_PROPS=("log.retention.ms=-1")
lines=300
app() { kafka_java "$KAFKA_LIB_DIR/StreamsApp.java" "$@"; }
workload() { kafka_java "$KAFKA_LIB_DIR/Workload.java" "$@"; }
# topic partition offset key value of wc-out, read_committed, sorted
wc_out() { workload "$1" consume-full read_committed 2>/dev/null | awk '$1 == "wc-out"' | sort -k2,2n -k3,3n; }
committed() { kafka_java org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$1" \
  --describe --group wordcount-eos 2>/dev/null | awk '$2 == "wc-in" { print $2, $3, $4 }' | sort; }

# both brokers, one after the other, on the same input
run_on() { # BOOTSTRAP NAME
  local words
  words=$(app "$1" produce "$lines" 2>"$work/$2.produce.err" | sed -n 's/^WORDS //p')
  [ -n "$words" ] || { tail "$work/$2.produce.err" >&2; die "$2: producing wc-in failed"; }
  app "$1" run "$words" >"$work/$2.app.out" 2>"$work/$2.app.err" \
    || { grep -v '^\s*at ' "$work/$2.app.err" | tail >&2; die "$2: the exactly-once application failed"; }
  wc_out "$1" >"$work/$2.wc-out"
  committed "$1" >"$work/$2.committed"
  [ "$(wc -l <"$work/$2.wc-out")" = "$words" ] || die "$2: wc-out holds $(wc -l <"$work/$2.wc-out") updates, not $words"
  log "$2: $words words counted exactly once ($(grep '^OUTPUT' "$work/$2.app.out"))"
}

lt_dir=$work/lt-logs
lt_start "$lt_dir" lt --group-initial-rebalance-delay-ms 0
run_on "$lt" logtool
kafka_stop "$lt_pid"
"$LT" verify --deep --fail-on warning "$lt_dir" >"$work/verify.out" || { cat "$work/verify.out" >&2; die "verify found problems"; }

BROKER_PROPS+=("group.initial.rebalance.delay.ms=0")
kafka_dir=$work/kafka-logs
mkdir -p "$kafka_dir"
start_fresh "$kafka_dir" kafka
run_on "$BOOTSTRAP" kafka
kafka_stop "$KAFKA_PID"

# the same updates (word, count), each once, in the same partitions (their
# offsets aside: the transactions' markers and the interleaving of the
# count tasks' writes differ between runs)
updates() { awk '{ print $1, $2, $5, $6 }' "$1" | sort; }
diff <(updates "$work/logtool.wc-out") <(updates "$work/kafka.wc-out") >&2 \
  || die "wc-out read_committed differs between logtool broker and Kafka"
[ -s "$work/logtool.committed" ] || die "no committed offsets of the application on logtool broker"
diff "$work/logtool.committed" "$work/kafka.committed" >&2 || die "the application's committed offsets differ"
log "logtool broker and Kafka 3.9.1: the same $(wc -l <"$work/kafka.wc-out") updates read_committed, the same committed offsets"

# Kafka on the dir logtool broker wrote
start_on "$lt_dir" kafka-on-lt
wc_out "$BOOTSTRAP" >"$work/kafka-on-lt.wc-out"
committed "$BOOTSTRAP" >"$work/kafka-on-lt.committed"
kafka_stop "$KAFKA_PID"
diff "$work/logtool.wc-out" "$work/kafka-on-lt.wc-out" >&2 || die "Kafka serves logtool broker's wc-out otherwise"
diff "$work/logtool.committed" "$work/kafka-on-lt.committed" >&2 || die "Kafka loaded other committed offsets"
log "Kafka 3.9.1 on logtool broker's dir: the same wc-out read_committed and committed offsets"
