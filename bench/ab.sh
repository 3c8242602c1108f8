#!/usr/bin/env bash
# A refactor's speed: bench/real.sh's dump, verify, stats and compact rows
# run by the logtool built at BASE and by the working tree's, alternately,
# on the data a real Kafka 3.9.1 wrote (bench/kafka-data.sh; made once,
# cached; compact on bench/compact.sh's dirty log when it was made, a fresh
# copy before each run, the copy not timed). Page cache warm, output to
# /dev/null; median and spread (min-max) of RUNS runs each, and the new
# binary's median as a share of the old one's.
#
#   bench/ab.sh [BASE] [RUNS] [GIB]     (default HEAD, 7, 1)
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$(git rev-parse "${1:-HEAD}")
runs=${2:-7}
logs=$(bench/kafka-data.sh "${3:-1}" | tail -1)
work=$PWD/target/ab
old=$work/bin-$rev/logtool
if [ ! -x "$old" ]; then
  rm -rf "$work/src" && mkdir -p "$work/src"
  git archive "$rev" | tar -x -C "$work/src"
  echo "building logtool at ${rev:0:12} (target/ab/target)" >&2
  (cd "$work/src" && CARGO_TARGET_DIR="$work/target" cargo build --release --locked -q --bin logtool)
  mkdir -p "$work/bin-$rev"
  cp "$work/target/release/logtool" "$old"
  rm -rf "$work/src"
fi
cargo build --release --locked -q --bin logtool
new=$PWD/target/release/logtool
seg=$(ls "$logs"/plain-0/*.log | head -1)
max=33554432
cat "$logs"/*/*.log >/dev/null

ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
stats() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)], a[1], a[NR] }'; }
row() { # WHAT ARGS...
  local what=$1 i a=() b=()
  shift
  "$old" "$@" >/dev/null 2>&1 || true
  "$new" "$@" >/dev/null 2>&1 || true
  for i in $(seq "$runs"); do
    a+=("$(ms "$old" "$@")")
    b+=("$(ms "$new" "$@")")
  done
  report "$what"
}
dirty=$PWD/target/bench-data/compact-3.9.1-1024/input
compacted() { # LOGTOOL: ms of compact --execute on a fresh copy of the dirty log
  rm -rf "$work/c" "$work/c.logtool-quarantine"
  cp -a "$dirty" "$work/c"
  sync
  ms "$1" compact --execute -q "$work/c"
}
compact_row() {
  local i a=() b=()
  [ -d "$dirty" ] || return 0
  for i in $(seq "$runs"); do
    a+=("$(compacted "$old")")
    b+=("$(compacted "$new")")
  done
  rm -rf "$work/c" "$work/c.logtool-quarantine"
  report "compact --execute, bench/compact.sh's dirty log"
}
report() { # WHAT (the runs: the caller's a and b)
  local what=$1
  read -r om omin omax < <(printf '%s\n' "${a[@]}" | stats)
  read -r nm nmin nmax < <(printf '%s\n' "${b[@]}" | stats)
  printf '| %s | %s ms (%s-%s) | %s ms (%s-%s) | %s%% |\n' "$what" "$om" "$omin" "$omax" "$nm" "$nmin" "$nmax" \
    "$(awk -v n="$nm" -v o="$om" 'BEGIN { printf "%.0f", 100 * n / (o > 0 ? o : 1) }')"
}
echo "Data: $logs; $(nproc) cores; $runs runs each, alternating; $(date -u +%F)"
echo
echo "| command | ${rev:0:12}: median (min-max) | working tree: median (min-max) | new/old |"
echo "|---|---|---|---|"
row "dump --deep --format json, 32 MiB" dump --deep --format json --max-bytes "$max" "$seg"
row "dump --deep (table), 32 MiB" dump --deep --max-bytes "$max" "$seg"
row "dump (batches), 32 MiB" dump --max-bytes "$max" "$seg"
row "dump --format json, one 1 GiB segment" dump --format json "$seg"
row "verify, one 1 GiB segment" verify -q "$seg"
row "verify, the partition" verify -q "$logs/plain-0"
row "verify, the log dir, 2 threads" verify -q -j 2 "$logs"
row "stats, the log dir, 2 threads" stats -q --no-charts -j 2 "$logs"
compact_row
