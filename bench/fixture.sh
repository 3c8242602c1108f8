#!/usr/bin/env bash
# Benchmark of `logtool fixture` writing one 1 GiB partition, side by side
# with dd writing 1 GiB to the same disk.
#
#   bench/fixture.sh [MIB] [DIR]     (default 1024 MiB, under $TMPDIR)
#
# The spec: one partition, ~100-byte values, null keys, batches of ~150
# records (what the Java producer's default batch.size of 16 KiB holds),
# default segment.bytes (1 GiB). Both writers fsync what they write (dd with
# conv=fsync; logtool fsyncs every file it writes). dd copies the segment
# logtool wrote in a first, untimed run (real bytes, read from the page
# cache: zeros can be cheaper for a virtual disk). Six runs each,
# in alternating order, each after a `sync` and two seconds' rest (a
# virtual disk may take a burst faster than it sustains, and deleting the
# last run's gigabyte discards its blocks). Prints wall time, MiB/s and
# logtool's peak RSS (GNU time) per run, and the median ratio.
# Targets (issue 12): within 2x of dd, peak RSS under 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-1024}
base=${2:-${TMPDIR:-/tmp}}
cargo build --release --locked -q
tmp=$(mktemp -d "$base/logtool-bench-fixture.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# records of ~108 bytes on disk (100-byte value, varint framing, deltas)
records=$(( mib * 1024 * 1024 / 108 ))
cat >"$tmp/spec.toml" <<SPEC
description = "bench: one partition of $mib MiB"
[[topic]]
name = "bench"
[topic.workload]
records = $records
batch_records = [140, 160]
key = { kind = "null" }
value = { kind = "ascii", size = 100 }
timestamps = { start = "2026-01-01T00:00:00Z", step_ms = 1 }
SPEC
timed() { # OUT CMD...
  local out=$1
  shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null
  else
    local start
    start=$(date +%s.%N)
    "$@" >/dev/null
    echo "$(echo "$(date +%s.%N) - $start" | bc) ?" >"$out"
  fi
}
echo "logtool fixture: $records records (~$mib MiB) vs dd $mib MiB, in $base; logtool $(target/release/logtool --version)"
target/release/logtool -q fixture "$tmp/spec.toml" --out "$tmp/first" >/dev/null
src=$tmp/first/bench-0/00000000000000000000.log
cat "$src" >/dev/null
run_dd() { sync; sleep 2; timed "$tmp/t-dd" dd if="$src" of="$tmp/dd" bs=1M count="$mib" conv=fsync status=none; }
run_lt() { sync; sleep 2; timed "$tmp/t-lt" target/release/logtool -q fixture "$tmp/spec.toml" --out "$tmp/out"; }
: >"$tmp/ratios"
for run in 1 2 3 4 5 6; do
  rm -rf "$tmp/out" "$tmp/dd"
  # the order alternates: a virtual disk may absorb a burst faster than it sustains
  if [ $((run % 2)) = 1 ]; then run_dd; run_lt; else run_lt; run_dd; fi
  read -r dd_s _ <"$tmp/t-dd"
  read -r lt_s lt_rss <"$tmp/t-lt"
  bytes=$(du -sb "$tmp/out/bench-0" | cut -f1)
  awk -v d="$dd_s" -v l="$lt_s" -v m="$mib" -v b="$bytes" -v r="$lt_rss" -v n="$run" 'BEGIN {
    printf "run %d: dd %.2fs (%.0f MiB/s); logtool fixture %.2fs (%.0f MiB/s), %.2fx dd, peak RSS %s KiB\n",
      n, d, m / d, l, b / 1048576 / l, l / d, r }'
  echo "$dd_s $lt_s" >>"$tmp/ratios"
done
python3 - "$tmp/ratios" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
dd, lt = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
first_dd = statistics.median(r[0] for i, r in enumerate(rows) if i % 2 == 0)
first_lt = statistics.median(r[1] for i, r in enumerate(rows) if i % 2 == 1)
print(f"median: dd {dd:.2f}s, logtool fixture {lt:.2f}s: {lt / dd:.2f}x dd")
print(f"each going first: dd {first_dd:.2f}s, logtool fixture {first_lt:.2f}s: {first_lt / first_dd:.2f}x dd")
PY
