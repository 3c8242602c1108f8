#!/usr/bin/env bash
# Benchmarks of `logtool verify` (issue 3's targets):
#   1. one page-cached 1 GiB uncompressed segment: verify vs `cat FILE > /dev/null`
#      (target: within 1.5x), peak RSS (target: < 64 MiB);
#   2. a log dir of 16 partitions x 64 MiB: CPU cores used (target: all).
#
#   bench/verify.sh [RUNS]      (default 15; medians and minimums are printed)
#
# Data is generated with crates/logfmt/examples/gen_segment.rs in a temp dir
# (~2 GiB free space needed).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-15}
cargo build --release --locked -q
cargo build --release --locked -q -p logfmt --example gen_segment
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=target/release/examples/gen_segment
bin=target/release/logtool

# wall-clock milliseconds of each of $runs runs of a command -> "min median"
timed() {
  local i s e
  for i in $(seq "$runs"); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000000 ))
  done | sort -n | awk '{ a[NR] = $1 } END { print a[1], a[int((NR + 1) / 2)] }'
}

seg="$tmp/one/t-0/00000000000000000000.log"
mkdir -p "$(dirname "$seg")"
$gen "$seg" 1024 >/dev/null
cat "$seg" >/dev/null
read -r cat_min cat_med < <(timed cat "$seg")
read -r ver_min ver_med < <(timed "$bin" verify -q "$seg")
rss=$( { /usr/bin/time -f "%M" "$bin" verify -q "$seg" >/dev/null; } 2>&1 | tail -1 )
echo "1 GiB segment, $runs runs: cat ${cat_med} ms (min ${cat_min}), verify ${ver_med} ms (min ${ver_min}):" \
     "$(awk -v a="$ver_med" -v b="$cat_med" 'BEGIN { printf "%.2fx", a / b }') median," \
     "$(awk -v a="$ver_min" -v b="$cat_min" 'BEGIN { printf "%.2fx", a / b }') best; peak RSS ${rss} KiB"

many="$tmp/many"
for p in $(seq 0 15); do
  mkdir -p "$many/t-$p"
  $gen "$many/t-$p/00000000000000000000.log" 64 >/dev/null
done
cat "$many"/*/*.log >/dev/null
stat=$( { /usr/bin/time -f "%e %U %S %M" "$bin" verify -q "$many" >/dev/null; } 2>&1 | tail -1 )
read -r secs user sys rss <<<"$stat"
echo "16 partitions x 64 MiB: ${secs} s, $(awk -v u="$user" -v s="$sys" -v w="$secs" 'BEGIN { printf "%.2f", (u + s) / w }')" \
     "of $(nproc) cores busy on average, peak RSS ${rss} KiB"
