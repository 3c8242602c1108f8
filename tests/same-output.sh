#!/usr/bin/env bash
# Same output before and after a refactor: every command, in table and JSON
# form, on every shipped fixture (Kafka 3.9.1 and 4.3.1), run by the logtool
# built at BASE and by the one built from the working tree, must print the
# same bytes and exit with the same code.
#
#   tests/same-output.sh [BASE]      BASE: a git revision, default HEAD
#
# BASE is built from `git archive` into target/same-output/ (its own target
# dir, cached per commit); nothing is written into the fixtures: the repair
# commands only print their plans, and `fixture` writes into a temp dir.
# Exit 0 when every output is the same, 1 with the diff otherwise.
#
# A BASE from before `verify --deep` read every record by default; today's
# default checks a batch whose CRC holds by its CRC and header (Kafka's
# shallow iteration), so against such a BASE the working tree's `verify`
# runs with `--deep`: the same check, whose output must not have changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=$(git -C "$root" rev-parse "${1:-HEAD}")
work="$root/target/same-output"
mkdir -p "$work"

base_bin="$work/bin-$rev/logtool"
if [ ! -x "$base_bin" ]; then
  src="$work/src"
  rm -rf "$src" && mkdir -p "$src"
  git -C "$root" archive "$rev" | tar -x -C "$src"
  echo "building logtool at ${rev:0:12} (target/same-output/target)" >&2
  (cd "$src" && CARGO_TARGET_DIR="$work/target" cargo build --quiet --locked --bin logtool)
  mkdir -p "$work/bin-$rev"
  cp "$work/target/debug/logtool" "$base_bin"
  rm -rf "$src"
fi
echo "building logtool from the working tree" >&2
(cd "$root" && cargo build --quiet --locked --bin logtool)
new_bin="$root/target/debug/logtool"
new_verify=()
base_help=$("$base_bin" verify --help)
if [[ $base_help != *--deep* ]]; then
  echo "${rev:0:12}'s verify reads every record by default: the working tree's runs with --deep" >&2
  new_verify=(--deep)
fi

# Run every command of the matrix with BIN; one file per command in OUT:
# its stdout, then its exit code. Paths are relative to fixtures/, so both
# binaries print the same ones. VERIFY... (the rest) go after `verify`.
outputs() {
  local bin=$1 out=$2 n=0
  local verify=(verify "${@:3}")
  rm -rf "$out" && mkdir -p "$out"
  local tmp
  tmp=$(mktemp -d)
  one() {
    n=$((n + 1))
    local f
    f="$out/$(printf %04d $n)"
    local line="$*"
    # (the command line as BASE runs it)
    printf '%s\n' "${line/ verify --deep / verify }" >"$f"
    (cd "$root/fixtures" && env -i PATH="$PATH" COLUMNS=120 "$bin" "$@" >>"$f" 2>/dev/null; echo "exit $?" >>"$f") || true
    # how long it took is the one thing allowed to differ
    sed -i -E 's/"elapsed_ms":[0-9]+/"elapsed_ms":T/; s/^(checked .*) in [0-9.]+ (ms|s|min):/\1 in T:/' "$f"
  }
  local logs=(kafka-3.9.1/{clean,healthy,incident,legacy,sigkill,timestamps}/logs
    kafka-3.9.1/failover/{before,after}/broker-{2,3} kafka-4.3.1/kafka4/logs)
  local wall
  wall=$(cat "$root/fixtures/kafka-3.9.1/incident/wall.txt")
  for fmt in table json; do
    for l in "${logs[@]}"; do
      local f=(--quiet --format "$fmt")
      one "${f[@]}" dump "$l"
      one "${f[@]}" dump --deep "$l"
      one "${f[@]}" dump --aborted "$l"
      one "${f[@]}" "${verify[@]}" "$l"
      one "${f[@]}" "${verify[@]}" --kafka-version 4.3 "$l"
      one "${f[@]}" stats --no-charts "$l"
      one "${f[@]}" offset-for-time "$l" earliest latest max-timestamp 0 2026-11-22T00:00:00Z
      one "${f[@]}" groups "$l"
      one "${f[@]}" txns "$l" --at "$wall"
      one "${f[@]}" recover "$l"
      one "${f[@]}" recover --all --roll "$l"
      one "${f[@]}" truncate-to-hw "$l"
      one "${f[@]}" reindex "$l"
      one "${f[@]}" retain --max-bytes 1000 "$l"
      one "${f[@]}" retain --before 2026-11-22T00:00:00Z "$l"
      for p in "$root/fixtures/$l"/*-[0-9]*; do
        [ -d "$p" ] || continue
        p=${p#"$root/fixtures/"}
        one "${f[@]}" dump --deep --decode auto "$p"
        one "${f[@]}" retain --log-start 2 "$p"
        one "${f[@]}" truncate --to 1 "$p"
        [ "$fmt" = table ] && one digest "$p" -o -
      done
    done
    for p in kafka-3.9.1/failover/before/broker-2/*-[0-9]*; do
      local name=${p##*/}
      for when in before after; do
        one "${f[@]}" diff-replicas --records kafka-3.9.1/failover/$when/broker-{2,3}/"$name"
      done
    done
    one "${f[@]}" diff-replicas kafka-3.9.1/failover/before/broker-{2,3}
    one "${f[@]}" partition-of --partitions 6 key-1 key-2 ''
  done
  # fixture: what it prints, and the dir it writes (as dump and verify see it)
  for spec in "$root"/fixtures/specs/*.toml; do
    for v in 3.9 4.3; do
      rm -rf "$tmp/out"
      one fixture "specs/${spec##*/}" --kafka-version $v --out "$tmp/out"
      sed -i "s#$tmp#TMP#g" "$out/$(printf %04d $n)"
      if [ -d "$tmp/out" ]; then
        (cd "$tmp/out" && find . -type f | LC_ALL=C sort | xargs -r sha256sum) >"$out/$(printf %04d $n).files"
      fi
    done
  done
  rm -rf "$tmp"
}

outputs "$base_bin" "$work/out-base"
outputs "$new_bin" "$work/out-new" "${new_verify[@]}"
count=$(find "$work/out-new" -type f | wc -l)
if diff -r "$work/out-base" "$work/out-new" >"$work/diff.txt"; then
  echo "same output: $count outputs of ${rev:0:12} and the working tree are byte-identical"
else
  cat "$work/diff.txt"
  echo "outputs differ from ${rev:0:12} (above; $work/diff.txt)"
  exit 1
fi
