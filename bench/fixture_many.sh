#!/usr/bin/env bash
# Benchmark of `logtool fixture` writing many small partitions: 2000
# partitions of 5 records (issue 27: 82 s when every file was fsynced on its
# own, about 12 per partition; target under 5 s). The build is staged,
# synced once (syncfs) and renamed, as crash-safe as before.
#
#   bench/fixture_many.sh [PARTITIONS] [RUNS]    (default 2000, 3)
#
# Side by side in each run: the same number of files (and dirs) created
# with python3, each written once and closed, no fsync - the filesystem's
# own floor for that many creations. Prints each run's wall times and the
# medians.
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
target/release/logtool -q fixture "$tmp/spec.toml" --out "$tmp/first" >/dev/null
files=$(find "$tmp/first" -type f | wc -l)
dirs=$(find "$tmp/first" -type d | wc -l)
rm -rf "$tmp/first"
elapsed() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
floor() {
  python3 - "$1" "$files" "$dirs" <<'PY'
import os, sys
out, files, dirs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
per = -(-files // dirs)
n = 0
for d in range(dirs):
    p = os.path.join(out, str(d)); os.makedirs(p)
    for f in range(per):
        if n == files: break
        with open(os.path.join(p, str(f)), "wb") as fh: fh.write(b"x" * 100)
        n += 1
PY
}
lt=() py=()
for i in $(seq "$runs"); do
  sync; sleep 2
  t=$(elapsed target/release/logtool -q fixture "$tmp/spec.toml" --out "$tmp/out-$i")
  lt+=("$t"); rm -rf "$tmp/out-$i"
  sync; sleep 2
  f=$(elapsed floor "$tmp/py-$i")
  py+=("$f"); rm -rf "$tmp/py-$i"
  echo "run $i: logtool $t s, python3 creating the same $files files in $dirs dirs $f s"
done
med() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
echo "logtool fixture, $parts partitions x 5 records ($files files): median $(med "${lt[@]}") s; the filesystem's floor (python3): median $(med "${py[@]}") s; $runs runs"
