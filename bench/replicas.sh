#!/usr/bin/env bash
# Benchmarks of diff-replicas and digest (issue 6's targets):
#   1. diffing two 1 GiB replicas that agree costs about one read of each:
#      compared with `cat A B > /dev/null` (page cache warm);
#   2. the digest of a 1 GiB replica is under 1 MiB.
#
#   bench/replicas.sh [RUNS]      (default 9; medians)
#
# The replica is a 1 GiB segment from crates/logfmt/examples/gen_segment.rs
# (16 KiB batches) with its indexes and leader-epoch checkpoint; the second
# replica is a copy. Needs ~2.2 GiB in $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
cargo build --release --locked -q
cargo build --release --locked -q -p logfmt --example gen_segment
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=target/release/logtool
mkdir -p "$tmp/a/r-0" "$tmp/b/r-0"
target/release/examples/gen_segment "$tmp/a/r-0/00000000000000000000.log" 1024 >/dev/null
cp "$tmp/a/r-0/00000000000000000000.log" "$tmp/b/r-0/"
# as a broker leaves them: indexes and the leader-epoch cache
"$bin" reindex -q --execute --index-interval-bytes 4096 "$tmp/a" >/dev/null
"$bin" reindex -q --execute --index-interval-bytes 4096 "$tmp/b" >/dev/null
printf '0\n1\n0 0\n' | tee "$tmp/a/r-0/leader-epoch-checkpoint" >"$tmp/b/r-0/leader-epoch-checkpoint"
median() {
  local i s e
  for i in $(seq "$runs"); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000000 ))
  done | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
cat "$tmp"/*/r-0/*.log >/dev/null
cat_ms=$(median cat "$tmp/a/r-0/00000000000000000000.log" "$tmp/b/r-0/00000000000000000000.log")
diff_ms=$(median "$bin" diff-replicas "$tmp/a/r-0" "$tmp/b/r-0")
rss=$( { /usr/bin/time -f "%M" "$bin" diff-replicas "$tmp/a/r-0" "$tmp/b/r-0" >/dev/null; } 2>&1 | tail -1 )
echo "two agreeing 1 GiB replicas, $runs runs: cat both ${cat_ms} ms, diff-replicas ${diff_ms} ms" \
     "($(awk -v a="$diff_ms" -v b="$cat_ms" 'BEGIN { printf "%.2fx", a / b }')), peak RSS ${rss} KiB"
dg_ms=$(median "$bin" digest "$tmp/a/r-0" -o "$tmp/a.digest")
batches=$("$bin" digest --format json "$tmp/a/r-0" -o "$tmp/a.digest" | sed 's/.*"batches":\([0-9]*\).*/\1/')
size=$(stat -c %s "$tmp/a.digest")
echo "digest of 1 GiB ($batches batches): $size bytes ($(awk -v s="$size" -v b="$batches" 'BEGIN { printf "%.1f", s / b }') bytes/batch), ${dg_ms} ms"
"$bin" digest "$tmp/b/r-0" -o "$tmp/b.digest" >/dev/null
echo "diff-replicas of the two digests: $(median "$bin" diff-replicas "$tmp/a.digest" "$tmp/b.digest") ms"
