#!/usr/bin/env bash
# logtool side by side with its references on data a real Kafka 3.9.1 wrote
# (bench/kafka-data.sh: default producer settings, 1 GiB segments; made once,
# cached under target/). Page cache warm, output to /dev/null, each command
# RUNS times, alternating with its reference: median and spread (min-max),
# and peak RSS (/usr/bin/time).
#   verify vs `cat > /dev/null`: one 1 GiB segment, the partition, the log
#     dir at -j 1 and -j 2, and with --deep (every record read);
#     stats vs verify --deep (both read every record) on the log dir;
#   dump --deep --format json, the table, and dump without --deep vs
#     DumpLogSegments (--deep-iteration --print-data-log, and shallow), on
#     the first 32 MiB of the segment (both tools' --max-bytes: the JVM tool
#     takes about a minute a GiB);
#   digest and diff-replicas (the partition against a copy of it) vs `cat`;
#   offset-for-time vs kafka-get-offsets (GetOffsetShell) asking a live
#     Kafka 3.9.1 started on a copy of the log dir, same timestamp.
# Prints a Markdown table, ratios first, and draws docs/bench-real.png
# (bench/chart: throughput of each command beside its reference; needs a
# TrueType font, DejaVu Sans by default, or BENCH_FONT=FILE.ttf).
#
# Then runs bench/recovery.sh (crash recovery, its own data; 3 runs) and
# bench/compact.sh (compact vs Kafka's cleaner, its own data; 3 runs).
#
#   bench/real.sh [RUNS] [GIB]      (default 5, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
logs=$(bench/kafka-data.sh "${2:-3}" | tail -1)
. fixtures/kafka/lib.sh
kafka_libs
cargo build --release --locked -q
cargo build --release --locked -q --manifest-path bench/chart/Cargo.toml
lt=$PWD/target/release/logtool
seg=$(ls "$logs"/plain-0/*.log | head -1)
tmp=$(mktemp -d)
trap 'kafka_cleanup; rm -rf "$tmp"' EXIT
part=$logs/plain-0
max=33554432

# Every run starts with the data in the page cache (untimed `cat` of
# "${warm[@]}"): this VM's kernel reclaims cold pages between runs (DAMON),
# and verify's live reads drop again what they had to read from disk (pages
# not cached before: the broker's cache is left as it was), so a page
# evicted once would come from disk in every later run of verify and in
# none of cat's.
warm=()
# RUNS wall-clock ms of each of two commands, run alternately (this VM's
# speed drifts over minutes: each pair meets the same phase) -> two lines,
# "median min max" of the first, then of the second
timed() { # REF... -- OURS...
  local i s e ref=() ours=()
  while [ "$1" != -- ]; do ref+=("$1"); shift; done
  shift
  ours=("$@")
  "${ref[@]}" >/dev/null 2>&1 || true # warm
  "${ours[@]}" >/dev/null 2>&1 || true
  for i in $(seq "$runs"); do
    [ ${#warm[@]} = 0 ] || cat "${warm[@]}" >/dev/null
    s=$(date +%s%N); "${ref[@]}" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo "r $(( (e - s) / 1000000 ))"
    [ ${#warm[@]} = 0 ] || cat "${warm[@]}" >/dev/null
    s=$(date +%s%N); "${ours[@]}" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo "o $(( (e - s) / 1000000 ))"
  done >"$tmp/times"
  for w in r o; do
    awk -v w=$w '$1 == w { print $2 }' "$tmp/times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)], a[1], a[NR] }'
  done
}
rss() { /usr/bin/time -o "$tmp/rss" -f "%M" "$@" >/dev/null 2>&1 || true; awk '{ printf "%.0f MiB", $1 / 1024 }' "$tmp/rss"; }
catall() { cat "$@" >/dev/null; }
dls() { kafka_java kafka.tools.DumpLogSegments --files "$seg" --max-bytes "$max" "$@"; }

bytes() { cat "$@" | wc -c; }
tsv=$tmp/results.tsv
: >"$tsv"
row() { # WHAT BYTES_READ REF_NAME -- REF... -- LOGTOOL...   (BYTES_READ 0: not charted)
  local what=$1 nbytes=$2 refname=$3 ref=() ours=() r o
  shift 4
  while [ "$1" != -- ]; do ref+=("$1"); shift; done
  shift
  ours=("$@")
  timed "${ref[@]}" -- "${ours[@]}" >"$tmp/medians"
  { read -r rm rmin rmax; read -r om omin omax; } <"$tmp/medians"
  r=$(awk -v a="$om" -v b="$rm" 'BEGIN { if (a <= b) printf "%.1fx faster", b / (a > 0 ? a : 1); else printf "%.2fx the time", a / b }')
  printf '| %s | %s | %s ms (%s-%s), %s | %s ms (%s-%s) | %s |\n' "$what" "$r" "$om" "$omin" "$omax" "$(rss "${ours[@]}")" \
    "$rm" "$rmin" "$rmax" "$refname"
  [ "$nbytes" = 0 ] || printf '%s\t%s\t%s\t%s\t%s\n' "$what" "$nbytes" "$om" "$refname" "$rm" >>"$tsv"
}

warm=("$logs"/*/*.log)
cat "${warm[@]}" >/dev/null
echo "Data: $logs ($(du -sh "$logs" | cut -f1)); $(nproc) cores; $runs runs each; $(date -u +%F)"
echo
echo "| command | logtool vs reference | logtool: median (min-max), peak RSS | reference: median (min-max) | reference |"
echo "|---|---|---|---|---|"
row "verify, one 1 GiB segment" "$(bytes "$seg")" "cat > /dev/null" -- catall "$seg" -- "$lt" verify -q "$seg"
row "verify, the partition ($(ls "$part"/*.log | wc -l) segments)" "$(bytes "$part"/*.log)" "cat > /dev/null" \
  -- catall "$part"/*.log -- "$lt" verify -q "$part"
row "verify, the log dir, 1 thread" "$(bytes "$logs"/*/*.log)" "cat > /dev/null" -- catall "$logs"/*/*.log -- "$lt" verify -q -j 1 "$logs"
row "verify, the log dir, 2 threads" "$(bytes "$logs"/*/*.log)" "cat > /dev/null" -- catall "$logs"/*/*.log -- "$lt" verify -q -j 2 "$logs"
row "verify --deep, the log dir, 2 threads" "$(bytes "$logs"/*/*.log)" "cat > /dev/null" -- catall "$logs"/*/*.log \
  -- "$lt" verify -q --deep -j 2 "$logs"
# stats beside verify (issue 52: within 1.3x of it), the same log dir; both
# read every record
row "stats, the log dir, 2 threads" "$(bytes "$logs"/*/*.log)" "logtool verify --deep -j 2" \
  -- "$lt" verify -q --deep -j 2 "$logs" -- "$lt" stats -q --no-charts -j 2 "$logs"
row "dump --deep --format json, 32 MiB" "$max" "DumpLogSegments --deep-iteration --print-data-log" \
  -- dls --deep-iteration --print-data-log -- "$lt" dump --deep --format json --max-bytes "$max" "$seg"
row "dump --deep (table), 32 MiB" "$max" "DumpLogSegments --deep-iteration --print-data-log" \
  -- dls --deep-iteration --print-data-log -- "$lt" dump --deep --max-bytes "$max" "$seg"
row "dump (batches), 32 MiB" "$max" "DumpLogSegments" -- dls -- "$lt" dump --max-bytes "$max" "$seg"

# a copy of the log dir: the second replica, then a live broker's data
cp -a "$logs" "$tmp/live"
warm+=("$tmp/live/plain-0"/*.log)
row "digest, the partition" "$(bytes "$part"/*.log)" "cat > /dev/null" \
  -- catall "$part"/*.log -- "$lt" digest --output "$tmp/plain.digest" "$part"
row "diff-replicas, the partition and a copy" "$(bytes "$part"/*.log "$tmp/live/plain-0"/*.log)" "cat A B > /dev/null" \
  -- catall "$part"/*.log "$tmp/live/plain-0"/*.log -- "$lt" diff-replicas "$part" "$tmp/live/plain-0"

# offset-for-time: the middle of plain-0's time range, asked of logtool (on
# the cached dir) and of a live broker (on the copy), one process per query
ts_of() { "$lt" offset-for-time --format json "$part" "$1" | sed 's/.*"timestamp":\([0-9]*\).*/\1/'; }
first_ts=$("$lt" dump --format json --max-bytes 100000 "$seg" | sed -n 's/.*"max_timestamp":\([0-9]*\).*/\1/p' | head -1)
mid_ts=$(( (first_ts + $(ts_of max-timestamp)) / 2 ))
bport=$(free_port)
cport=$(free_port)
KRAFT_QUORUM=static kraft_config "$tmp/live.properties" "$tmp/live" "$bport" "$cport" "log.retention.ms=-1"
kafka_start "$tmp/live.properties" "$tmp/live.broker.log" "$bport"
kafka_wait_started "$tmp/live.broker.log" "$KAFKA_PID"
gos() { kafka_java org.apache.kafka.tools.GetOffsetShell --bootstrap-server "127.0.0.1:$bport" --topic-partitions plain:0 --time "$mid_ts"; }
want=$(gos | cut -d: -f3)
got=$("$lt" offset-for-time --format json "$part" "$mid_ts" | sed 's/.*"offset":\([0-9]*\).*/\1/')
[ "$want" = "$got" ] || die "offset-for-time $mid_ts: logtool $got, Kafka $want"
row "offset-for-time, one query (offset $got)" 0 "kafka-get-offsets (GetOffsetShell) to a live broker" \
  -- gos -- "$lt" offset-for-time "$part" "$mid_ts"
kafka_stop "$KAFKA_PID"

bench/chart/target/release/bench-chart "$tsv" docs/bench-real.png ${BENCH_FONT:+"$BENCH_FONT"}
echo
echo "Chart: docs/bench-real.png"

# crash recovery: Kafka alone vs logtool recover --roll then Kafka
echo
bench/recovery.sh 3

# compaction: logtool compact vs Kafka 3.9.1's own cleaner on the same dirty log
echo
bench/compact.sh 3
