#!/usr/bin/env bash
# Compaction: `logtool compact --execute` versus Kafka 3.9.1's own log
# cleaner, on the same partition a real broker wrote.
#
# The data (made once, cached under target/bench-data/compact-3.9.1-MIB):
# a single-node Kafka 3.9.1 with its cleaner off writes MIB MiB of 100-byte
# random values under 100,000 keys drawn at random (Workload.java
# compact-bench; acks=1, 64 KiB batches, idempotent) to cmpbench-0
# (cleanup.policy=compact, 128 MiB segments), then stops cleanly.
#
# Each run copies the dir afresh (then `sync`), and:
#   logtool compact    `logtool compact --execute` (defaults: --memory 64M),
#                      timed, with its peak RSS (/usr/bin/time)
#   kafka cleaner      a broker started on the copy with its cleaner on
#                      (log.cleaner.dedupe.buffer.size 128 MiB, Kafka's
#                      default); the time its cleaner reports for the pass
#                      ("... of log processed in N seconds")
#   cat                cat of the partition's segments > /dev/null
# Both cleaners must leave the same number of records. Prints a Markdown
# table: median (min-max) of RUNS, and GiB/s of the dirty bytes.
#
#   bench/compact.sh [RUNS] [MIB]      (default 3, 1024; RUNS 0 only makes the data)
set -euo pipefail
cd "$(dirname "$0")/.."
. fixtures/kafka/lib.sh
runs=${1:-3}
mib=${2:-1024}
base=$PWD/target/bench-data/compact-3.9.1-$mib
kafka_libs
trap 'kafka_cleanup' EXIT
export KRAFT_QUORUM=static
CLUSTER_ID=bG9ndG9vbC1iZW5jaGNw

if [ ! -f "$base/complete" ]; then
  rm -rf "$base"
  mkdir -p "$base"
  bport=$(free_port); cport=$(free_port)
  kraft_config "$base/input.properties" "$base/input" "$bport" "$cport" "log.cleaner.enable=false"
  kraft_format "$base/input.properties" "$CLUSTER_ID" >/dev/null
  kafka_start "$base/input.properties" "$base/input.log" "$bport"
  kafka_wait_started "$base/input.log" "$KAFKA_PID"
  kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$bport" --create --topic cmpbench \
    --partitions 1 --config cleanup.policy=compact --config segment.bytes=134217728 \
    --config min.cleanable.dirty.ratio=0.01 >/dev/null 2>&1
  log "producing $mib MiB of keyed records"
  kafka_java "$KAFKA_LIB_DIR/Workload.java" "127.0.0.1:$bport" compact-bench "$mib" 100000
  kafka_stop "$KAFKA_PID"
  [ -f "$base/input/.kafka_cleanshutdown" ] || die "the broker did not stop cleanly"
  date -u +%FT%TZ >"$base/complete"
fi
[ "$runs" -gt 0 ] || exit 0

cargo build --release --locked -q
lt=$PWD/target/release/logtool
run=$base/run
dirty=$(find "$base/input/cmpbench-0" -name '*.log' | sort | head -n -1 | xargs cat | wc -c)
median() { sort -n | awk '{a[NR]=$1} END {printf "%.2f (%.2f-%.2f)", a[int((NR+1)/2)], a[1], a[NR]}'; }
records() { "$lt" stats --format json "$1/cmpbench-0" | python3 -c 'import json,sys; print([json.loads(l) for l in sys.stdin if "\"scope\":\"partition\"" in l][0]["records"])'; }
: >"$run.lt"; : >"$run.rss"; : >"$run.kafka"; : >"$run.cat"
for i in $(seq "$runs"); do
  rm -rf "$run" "$run.logtool-quarantine"; cp -a "$base/input" "$run"; sync
  /usr/bin/time -f "%e %M" -o "$run.time" "$lt" compact --execute -q "$run" >/dev/null
  read -r secs kib <"$run.time"
  echo "$secs" >>"$run.lt"; echo $((kib / 1024)) >>"$run.rss"
  lt_records=$(records "$run")
  rm -rf "$run" "$run.logtool-quarantine"; cp -a "$base/input" "$run"; sync
  bport=$(free_port); cport=$(free_port)
  kraft_config "$run.properties" "$run" "$bport" "$cport" "log.cleaner.dedupe.buffer.size=134217728"
  kafka_start "$run.properties" "$run.broker.log" "$bport"
  j=0
  until grep -q "of log processed in" "$run.broker.log"; do
    [ $j -gt 6000 ] && die "Kafka's cleaner did not finish"
    sleep 0.1; j=$((j + 1))
  done
  kafka_stop "$KAFKA_PID"
  grep -o "of log processed in [0-9.,]* seconds" "$run.broker.log" | head -1 | awk '{print $5}' | tr -d , >>"$run.kafka"
  [ "$(records "$run")" = "$lt_records" ] || die "Kafka's cleaner left $(records "$run") records, logtool $lt_records"
  s=$(date +%s.%N); find "$base/input/cmpbench-0" -name '*.log' -exec cat {} + >/dev/null; e=$(date +%s.%N)
  echo "$e - $s" | bc >>"$run.cat"
done
gib=$(echo "scale=3; $dirty / 1073741824" | bc)
rate() { sort -n | awk -v g="$gib" '{a[NR]=$1} END {printf "%.2f GiB/s", g / a[int((NR+1)/2)]}'; }
echo "| cleaning $(printf '%.2f' "$gib") GiB ($lt_records records left) | time, s: median (min-max) | throughput | peak RSS |"
echo "|---|---|---|---|"
echo "| logtool compact --execute | $(median <"$run.lt") | $(rate <"$run.lt") | $(sort -n "$run.rss" | tail -1) MiB |"
echo "| Kafka 3.9.1's cleaner (its own timing) | $(median <"$run.kafka") | $(rate <"$run.kafka") | (JVM) |"
echo "| cat > /dev/null | $(median <"$run.cat") | $(rate <"$run.cat") | |"
