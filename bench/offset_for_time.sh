#!/usr/bin/env bash
# Benchmark of `logtool offset-for-time` (issue 5's target: an answer on a
# 1 GiB partition in under 50 ms, from a cold process).
#
#   bench/offset_for_time.sh [RUNS]      (default 20; medians and maximums)
#
# A 1 GiB segment (8.8M records, CreateTime 1 ms apart, from
# crates/logfmt/examples/gen_segment.rs) gets its indexes from
# `logtool reindex --execute` (index.interval.bytes 4096, Kafka's default),
# then each query runs RUNS times as a new process, page cache warm.
# Needs ~1.1 GiB free in $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
cargo build --release --locked -q
cargo build --release --locked -q -p logfmt --example gen_segment
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=target/release/logtool
part="$tmp/logs/bench-0"
mkdir -p "$part"
target/release/examples/gen_segment "$part/00000000000000000000.log" 1024 >/dev/null
"$bin" reindex -q --execute --index-interval-bytes 4096 "$part" >/dev/null
ts0=1800000000000
records=$("$bin" offset-for-time --format json "$part" latest | sed 's/.*"offset":\([0-9]*\).*/\1/')
echo "1 GiB partition, $records records, $(du -k "$part"/*.index | cut -f1) KiB offset index, $runs runs each:"
for q in earliest latest max-timestamp $((ts0 + 1000)) $((ts0 + records / 2)) $((ts0 + records - 10)) $((ts0 + records * 2)); do
  for i in $(seq "$runs"); do
    s=$(date +%s%N); "$bin" offset-for-time "$part" "$q" >/dev/null || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
  done | sort -n | awk -v q="$q" '{ a[NR] = $1 } END { printf "  %-15s median %5.1f ms, max %5.1f ms\n", q, a[int((NR + 1) / 2)] / 1000, a[NR] / 1000 }'
done
