#!/usr/bin/env bash
# Peak RSS of `verify --deep` and `dump --deep` on hostile inputs (issue 16): a
# decompression bomb of every codec (1 GiB of zeros behind one record), a log
# dir of eight of them at -j 1, 2 and 8, a legitimate batch inflating to
# 200 MiB in every codec, a 24 MiB record. The inputs are written by the
# test helpers of tests/hostile.rs (the same ones the tests assert on);
# times are GNU time's, RSS its maximum resident set size. Prints a
# Markdown table (docs/robustness.md).
#
#   bench/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
inputs=$PWD/target/memory-inputs
LOGTOOL_MEMORY_INPUTS=$inputs cargo test --release --locked --quiet --test integration \
  hostile::memory_inputs -- --ignored --exact >/dev/null
bin=$PWD/target/release/logtool
echo "| input | command | peak RSS | time | exit |"
echo "|---|---|---|---|---|"
stats=$(mktemp)
trap 'rm -f "$stats"' EXIT
measure() { # LABEL ARGS... (paths under the inputs dir)
  local label=$1
  shift
  local rc
  (cd "$inputs" && /usr/bin/time -o "$stats" -f '%M %e' "$bin" --format json "$@" >/dev/null 2>&1) && rc=0 || rc=$?
  read -r kib secs <<<"$(tail -1 "$stats")"
  printf '| %s | `logtool %s` | %.1f MiB | %s s | %s |\n' "$label" "$*" "$(bc -l <<<"$kib / 1024")" "$secs" "$rc"
}
for c in gzip snappy lz4 zstd; do
  size=$(stat -c %s "$inputs/bomb-$c/t-0/00000000000000000000.log")
  for cmd in "verify --deep" "dump --deep"; do
    # shellcheck disable=SC2086
    measure "$c bomb (1 GiB of zeros in $((size / 1024)) KiB)" $cmd "bomb-$c/t-0"
  done
done
for j in 1 2 8; do
  measure "8 bombs, 2 of each codec" verify --deep -j "$j" bombs
done
for c in gzip snappy lz4 zstd; do
  size=$(stat -c %s "$inputs/expanded-$c/t-0/00000000000000000000.log")
  measure "$c batch inflating to 200 MiB ($((size / 1024)) KiB)" verify --deep "expanded-$c/t-0"
  measure "$c batch inflating to 200 MiB ($((size / 1024)) KiB)" dump --deep --payload none "expanded-$c/t-0"
done
measure "a 24 MiB record" verify --deep record-24m/t-0
measure "a 24 MiB record" dump --deep --payload none record-24m/t-0
measure "a 24 MiB record" dump --deep --payload none --memory 16M record-24m/t-0
