#!/usr/bin/env bash
# The benchmarks' data, written by a real Apache Kafka 3.9.1 (Maven Central,
# loopback, a single KRaft node) with kafka-producer-perf-test's default
# producer settings (100-byte values, batch.size 16 KiB, linger.ms 0,
# idempotent, acks=all), then stopped cleanly:
#   plain-0  GIB x 1 GiB of uncompressed records (segment.bytes: Kafka's
#            default 1 GiB, so GIB-1 rolled segments and the active one)
#   lz4-0, zstd-0   1/4 of that, compression.type lz4 / zstd
#   txn-0    1/8 of that, transactional (a transaction every 100 ms)
#   many-*   200 partitions of ~2 MiB each
# Made once and cached under target/bench-data/kafka-3.9.1-GIB (a stamp
# file says it is complete); prints the log dir.
#
#   bench/kafka-data.sh [GIB]     (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
. fixtures/kafka/lib.sh
gib=${1:-3}
out=$PWD/target/bench-data/kafka-3.9.1-$gib
if [ -f "$out/complete" ]; then
  echo "$out/logs"
  exit 0
fi
kafka_libs
rm -rf "$out"
mkdir -p "$out"
trap 'kafka_cleanup' EXIT
export KRAFT_QUORUM=static
records=$((gib * 1024 * 1024 * 1024 / 130)) # a record is ~130 bytes in a batch
bport=$(free_port)
cport=$(free_port)
kraft_config "$out/server.properties" "$out/logs" "$bport" "$cport" "log.retention.ms=-1" "num.partitions=1"
kraft_format "$out/server.properties" "$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)" >/dev/null
kafka_start "$out/server.properties" "$out/broker.log" "$bport"
kafka_wait_started "$out/broker.log" "$KAFKA_PID"
b=127.0.0.1:$bport
topic() { kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --create --topic "$1" --partitions "$2" >/dev/null 2>&1; }
perf() { # TOPIC RECORDS PROPS...
  local t=$1 n=$2
  shift 2
  kafka_java org.apache.kafka.tools.ProducerPerformance --topic "$t" --num-records "$n" --record-size 100 \
    --throughput -1 --producer-props bootstrap.servers="$b" "$@" 2>&1 | tail -1 >&2
}
topic plain 1
perf plain "$records"
topic lz4 1
perf lz4 $((records / 4)) compression.type=lz4
topic zstd 1
perf zstd $((records / 4)) compression.type=zstd
topic txn 1
kafka_java org.apache.kafka.tools.ProducerPerformance --topic txn --num-records $((records / 8)) --record-size 100 \
  --throughput -1 --transactional-id bench-txn --transaction-duration-ms 100 \
  --producer-props bootstrap.servers="$b" 2>&1 | tail -1 >&2
topic many 200
perf many $((200 * 2 * 1024 * 1024 / 130))
kafka_stop "$KAFKA_PID"
[ -f "$out/logs/.kafka_cleanshutdown" ] || die "Kafka did not stop cleanly"
date -u +%FT%TZ >"$out/complete"
echo "$out/logs"
