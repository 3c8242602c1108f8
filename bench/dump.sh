#!/usr/bin/env bash
# Benchmark of `logtool dump --format json --deep` on a generated segment.
#
#   bench/dump.sh [MIB]      (default 128)
#
# Generates an uncompressed segment of MIB MiB with ~100-byte values
# (crates/logfmt/examples/gen_segment.rs) in a temp dir, warms the page
# cache, then runs the release binary pinned to one core with output to
# /dev/null, three times. Prints wall time, records per second and peak RSS
# (from GNU time). Targets (issue 2): >= 1M records/s, peak RSS < 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-128}
cargo build --release --locked -q
cargo build --release --locked -q -p logfmt --example gen_segment
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seg="$tmp/00000000000000000000.log"
records=$(target/release/examples/gen_segment "$seg" "$mib" | sed 's/.*bytes, \([0-9]*\) records/\1/')
cat "$seg" >/dev/null
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
echo "segment: $mib MiB, $records records; logtool $(target/release/logtool --version)"
for run in 1 2 3; do
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %M" -o "$tmp/time" $pin target/release/logtool dump --format json --deep "$seg" >/dev/null
    read -r secs rss_kib <"$tmp/time"
  else
    start=$(date +%s.%N)
    $pin target/release/logtool dump --format json --deep "$seg" >/dev/null
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    rss_kib="?"
  fi
  rate=$(awk -v r="$records" -v s="$secs" 'BEGIN { printf "%.2f", r / s / 1e6 }')
  echo "run $run: ${secs}s, ${rate}M records/s, peak RSS ${rss_kib} KiB"
done
