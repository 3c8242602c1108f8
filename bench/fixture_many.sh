#!/usr/bin/env bash
# Benchmark of `logtool fixture` writing many small partitions: 2000
# partitions of 5 records (issue 27: 82 s when every file was fsynced on its
# own, about 12 per partition; target under 5 s). The build is staged,
# synced once (syncfs) and renamed, as crash-safe as before.
#
#   bench/fixture_many.sh [PARTITIONS] [RUNS]    (default 2000, 3)
#
# Prints each run's wall time and the median.
set -euo pipefail
cd "$(dirname "$0")/.."
parts=${1:-2000}
runs=${2:-3}
cargo build --release --locked -q
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/spec.toml" <<SPEC
description = "many small partitions"
[[topic]]
name = "many"
partitions = $parts
[topic.workload]
records = 5
batch_records = 5
SPEC
times=()
for i in $(seq "$runs"); do
  sync
  start=$(date +%s.%N)
  target/release/logtool -q fixture "$tmp/spec.toml" --out "$tmp/out-$i" >/dev/null
  end=$(date +%s.%N)
  t=$(echo "$end - $start" | bc)
  times+=("$t")
  echo "run $i: $t s"
  rm -rf "$tmp/out-$i"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
echo "logtool fixture, $parts partitions x 5 records: median $median s over $runs runs"
