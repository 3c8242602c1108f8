#!/usr/bin/env bash
# logtool side by side with its references on data a real Kafka 3.9.1 wrote
# (bench/kafka-data.sh: default producer settings, 1 GiB segments; made once,
# cached under target/). Page cache warm, output to /dev/null, each command
# RUNS times: median and spread (min-max), and peak RSS (/usr/bin/time).
#   verify vs `cat > /dev/null`: one 1 GiB segment, the partition, the log
#     dir at -j 1 and -j 2;
#   dump --deep --format json, the table, and dump without --deep vs
#     DumpLogSegments (--deep-iteration --print-data-log, and shallow), on
#     the first 32 MiB of the segment (both tools' --max-bytes: the JVM tool
#     takes about a minute a GiB).
# Prints a Markdown table, ratios first.
#
#   bench/real.sh [RUNS] [GIB]      (default 5, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
logs=$(bench/kafka-data.sh "${2:-3}" | tail -1)
. fixtures/kafka/lib.sh
kafka_libs
cargo build --release --locked -q
lt=$PWD/target/release/logtool
seg=$(ls "$logs"/plain-0/*.log | head -1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
part=$logs/plain-0
max=33554432

# RUNS wall-clock ms of a command -> "median min max"
timed() {
  local i s e
  "$@" >/dev/null 2>&1 || true # warm
  for i in $(seq "$runs"); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000000 ))
  done | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)], a[1], a[NR] }'
}
rss() { /usr/bin/time -o "$tmp/rss" -f "%M" "$@" >/dev/null 2>&1 || true; awk '{ printf "%.0f MiB", $1 / 1024 }' "$tmp/rss"; }
catall() { cat "$@" >/dev/null; }
dls() { kafka_java kafka.tools.DumpLogSegments --files "$seg" --max-bytes "$max" "$@"; }

row() { # WHAT REF_NAME -- REF... -- LOGTOOL...
  local what=$1 refname=$2 ref=() ours=() r o
  shift 3
  while [ "$1" != -- ]; do ref+=("$1"); shift; done
  shift
  ours=("$@")
  read -r rm rmin rmax < <(timed "${ref[@]}")
  read -r om omin omax < <(timed "${ours[@]}")
  r=$(awk -v a="$om" -v b="$rm" 'BEGIN { if (a <= b) printf "%.1fx faster", b / (a > 0 ? a : 1); else printf "%.2fx the time", a / b }')
  printf '| %s | %s | %s ms (%s-%s), %s | %s ms (%s-%s) | %s |\n' "$what" "$r" "$om" "$omin" "$omax" "$(rss "${ours[@]}")" \
    "$rm" "$rmin" "$rmax" "$refname"
}

cat "$logs"/*/*.log >/dev/null
echo "Data: $logs ($(du -sh "$logs" | cut -f1)); $(nproc) cores; $runs runs each; $(date -u +%F)"
echo
echo "| command | logtool vs reference | logtool: median (min-max), peak RSS | reference: median (min-max) | reference |"
echo "|---|---|---|---|---|"
row "verify, one 1 GiB segment" "cat > /dev/null" -- catall "$seg" -- "$lt" verify -q "$seg"
row "verify, the partition ($(ls "$part"/*.log | wc -l) segments)" "cat > /dev/null" -- catall "$part"/*.log -- "$lt" verify -q "$part"
row "verify, the log dir, 1 thread" "cat > /dev/null" -- catall "$logs"/*/*.log -- "$lt" verify -q -j 1 "$logs"
row "verify, the log dir, 2 threads" "cat > /dev/null" -- catall "$logs"/*/*.log -- "$lt" verify -q -j 2 "$logs"
row "dump --deep --format json, 32 MiB" "DumpLogSegments --deep-iteration --print-data-log" \
  -- dls --deep-iteration --print-data-log -- "$lt" dump --deep --format json --max-bytes "$max" "$seg"
row "dump --deep (table), 32 MiB" "DumpLogSegments --deep-iteration --print-data-log" \
  -- dls --deep-iteration --print-data-log -- "$lt" dump --deep --max-bytes "$max" "$seg"
row "dump (batches), 32 MiB" "DumpLogSegments" -- dls -- "$lt" dump --max-bytes "$max" "$seg"
