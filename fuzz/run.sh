#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (cargo-fuzz, nightly; installed
# once into $LOGTOOL_CACHE/tools, ~/.cache/logtool/tools by default, kept
# across runs on this machine, as the targets' build is in
# $LOGTOOL_CACHE/fuzz-target), seeded with the real-Kafka fixtures'
# files, the corpus kept under target/fuzz/corpus between runs. A crash
# stops the run: its input is in target/fuzz/artifacts/TARGET/; make it a
# regression test (docs/robustness.md).
#
#   fuzz/run.sh SECONDS [TARGET...]     (FUZZ_JOBS targets at a time: one per core)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${1:?SECONDS}
shift
cargo_fuzz=0.13.2
tools=${LOGTOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/logtool}/tools/cargo-fuzz-$cargo_fuzz
if ! [ -x "$tools/bin/cargo-fuzz" ]; then
  cargo install --locked --quiet cargo-fuzz --version "$cargo_fuzz" --root "$tools"
fi
export PATH=$tools/bin:$PATH
targets=("$@")
if [ ${#targets[@]} = 0 ]; then
  mapfile -t targets < <(cd fuzz/fuzz_targets && ls *.rs | sed 's/\.rs$//')
fi
fx=fixtures/kafka-3.9.1
seed() { # TARGET -> the fixture files that seed it
  case $1 in
    batch | log_reader | verify_segment) find "$fx" -name '*.log' -size -200k ;;
    legacy) find "$fx/legacy" -name '*.log' -size -200k ;;
    kraft_checkpoint) find "$fx" -path '*__cluster_metadata*' -name '*.checkpoint' -size -200k ;;
    index) find "$fx" \( -name '*.index' -o -name '*.timeindex' -o -name '*.txnindex' \) -size -200k ;;
    small_files) find "$fx" \( -name '*.snapshot' -o -name '*checkpoint' -o -name partition.metadata \
      -o -name meta.properties \) -size -200k ;;
    *) ;;
  esac
}
# the zookeeper target's seeds: each fixture's snapshot (its length in 2
# bytes first) and transaction log in one input (fuzz_targets/zookeeper.rs)
zookeeper_seeds() { # DIR
  local v2 s l n=0
  for v2 in "$fx"/*/zookeeper-data/version-2; do
    for s in "$v2"/snapshot.*; do
      for l in "$v2"/log.*; do
        n=$((n + 1))
        { printf "\\x$(printf %02x $(($(stat -c %s "$s") >> 8)))\\x$(printf %02x $(($(stat -c %s "$s") & 255)))"
          cat "$s" "$l"; } >"$1/zk-$n"
      done
    done
  done
}
max_len() {
  case $1 in log_reader | verify_segment | batch | legacy | kraft_checkpoint | zookeeper) echo 65536 ;; *) echo 8192 ;; esac
}
mkdir -p target/fuzz
# the targets' build kept in the cache (like cargo-fuzz itself): a clean
# clone rebuilds only what changed (cargo locks it against a second run)
build_dir=${LOGTOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/logtool}/fuzz-target
(cd fuzz && cargo +nightly fuzz build -O --target-dir "$build_dir" >"$root/target/fuzz/build.log" 2>&1) \
  || { tail -40 target/fuzz/build.log >&2; echo "fuzz: the targets did not build" >&2; exit 1; }
# One target for SECS seconds; a crash's input is kept in its artifacts dir.
one() { # TARGET
  local t=$1 corpus seeds artifacts
  corpus=$root/target/fuzz/corpus/$t
  seeds=$root/target/fuzz/seeds/$t
  artifacts=$root/target/fuzz/artifacts/$t/
  mkdir -p "$corpus" "$seeds" "$artifacts"
  seed "$t" | while read -r f; do cp "$f" "$seeds/$(echo "$f" | tr / _)"; done
  if [ "$t" = zookeeper ]; then zookeeper_seeds "$seeds"; fi
  echo "fuzz: $t for ${secs}s"
  (cd fuzz && cargo +nightly fuzz run -O --target-dir "$build_dir" "$t" "$corpus" "$seeds" -- \
    -max_total_time="$secs" -rss_limit_mb=2048 -max_len="$(max_len "$t")" -dict="$root/fuzz/logtool.dict" \
    -artifact_prefix="$artifacts" -print_final_stats=1 2>&1) >"$root/target/fuzz/$t.log" \
    || { tail -40 "$root/target/fuzz/$t.log" >&2; echo "fuzz: $t failed; input in $artifacts" >&2; return 1; }
  grep -E '^stat::number_of_executed_units|^Done' "$root/target/fuzz/$t.log" | tail -1 | sed "s/^/fuzz: $t: /"
}
# libFuzzer runs a target on one core: FUZZ_JOBS targets at a time (one per
# core by default), each still for SECONDS
jobs=${FUZZ_JOBS:-$(nproc)}
failed=0
running=0
for t in "${targets[@]}"; do
  if [ $running -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  one "$t" &
  running=$((running + 1))
done
while [ $running -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit $failed
