#!/usr/bin/env bash
# The interop suite: logtool against a real Apache Kafka, now.
#
# Fresh data first: tests/interop/data.sh - a real Kafka 3.9.1 broker
# (fetched from Maven Central) writes the clean, sigkill, legacy and incident
# log dirs and DumpLogSegments dumps them (its internal-topic decoders too),
# describes the incident's groups and transactions live
# (kafka-consumer-groups, kafka-transactions), answers the timestamps
# scenario's ListOffsets queries live, and (three nodes) diverges two
# replicas by an unclean leader election and reconciles them - and a Kafka
# 4.3.1 broker writes the kafka4 scenario. Then these suites, side by side
# ($LOGTOOL_INTEROP_JOBS at a time, 2 by default; each its own brokers on
# ports claimed for the whole run, its own work dir):
#   integration  the whole integration test binary against that fresh data
#                instead of the committed copy, and internal-topic records
#                decoded as DumpLogSegments' decoders print them (kmsg_oracle)
#   live_lock    `verify` recognises a running broker's log dir and repairs
#                refuse it
#   repair       the repairs against Kafka's own recovery and index rebuild
#   compact      `compact` against Kafka 3.9.1's log cleaner; compact-4.3.1
#                against 4.3.1's
#   retention    `retain --before` against Kafka 3.9.1's retention.ms, per
#                cleanup.policy (delete, compact, compact,delete)
#   start        what Kafka 3.9.1 and 4.3.1 do when they start on a dir:
#                strays, refused starts, the high watermark once a
#                partition leads again
#   start_matrix `recover` against Kafka 3.9.1's and 4.3.1's start on the
#                partial states operators and tools leave (lost indexes,
#                lost or damaged producer snapshots, ...): file by file
#   fixture      Kafka started on the log dirs `logtool fixture` writes
#                serves exactly what the specs produced
#   broker       Kafka's clients and tools against `logtool broker`, then
#                Kafka on the log dir it wrote
#   pure         the Go clients franz-go and sarama and the Node.js client
#                kafkajs (each speaks the protocol itself) against `logtool
#                broker` and, as the control, Kafka 3.9.1 on the dir it wrote;
#                CreateTopics/DescribeConfigs of a topic against Kafka's
#   streams      a Kafka Streams exactly_once_v2 application on both
#   kip848       KIP-848 consumer groups of Kafka 4.3.1's console consumer
#                against `logtool broker` and a real Kafka 4.3.1 (the same
#                states, epochs and assignments), then Kafka 4.3.1 on the
#                dir logtool broker wrote
#   tv2          transaction version 2 of Kafka 4.3.1's clients against
#                `logtool broker --kafka-version 4.3` and a real Kafka 4.3.1
#                (the same coordinator records, epoch bumps, markers and
#                offsets), then Kafka 4.3.1 on the dir logtool broker wrote
#   share        a KIP-932 share consumer of Kafka 4.3.1 (accept, release,
#                reject, redelivery) against `logtool broker --kafka-version
#                4.3` and a real Kafka 4.3.1 (the same deliveries,
#                kafka-share-groups --describe and share coordinator
#                records), then Kafka 4.3.1 on the dir logtool broker wrote
#   zookeeper    a ZooKeeper-mode cluster through the migration to KRaft and
#                the upgrade to 4.4.0: verify's mode and start prediction,
#                offset-for-time and groups against Kafka's answers at each
#                step, and what each next start did
#   tiered       tiered storage: `retain` against Kafka 3.9.1's and 4.4.0's
#                local retention (only uploaded segments, the log start and
#                epochs kept), and Kafka serving remote records alike from
#                logtool's copy, after retain and after a SIGKILL's recover
# Each suite's output is shown whole when it ends, with its time.
#
#   tests/interop/run.sh [SUITE...]     all suites, or those named
#   LOGTOOL_INTEROP_DATA=DIR            data.sh's output made beforehand (.ci/run
#                                       makes it while the Rust builds run)
#   LOGTOOL_BIN=PATH                    the logtool under test (.ci/run: its one
#                                       release build); else a debug build
#
# Needs java 17+ and mvn, go and node/npm (pure); brokers bind 127.0.0.1 only
# and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
logs=$(mktemp -d "${TMPDIR:-/tmp}/logtool-interop-logs.XXXXXX")
data=${LOGTOOL_INTEROP_DATA:-}
cleanup() {
  local rc=$? name
  for name in "${!running[@]}"; do kill -TERM -- "-${running[$name]}" 2>/dev/null || true; done
  [ -z "${made_data:-}" ] || rm -rf "$made_data"
  kafka_cleanup
  if [ $rc = 0 ]; then rm -rf "$logs"; else log "suite logs kept in $logs"; fi
}
declare -A running=()
trap cleanup EXIT
if [ -z "$data" ]; then
  made_data=$(mktemp -d "${TMPDIR:-/tmp}/logtool-interop.XXXXXX")
  data=$made_data
  tests/interop/data.sh "$data"
fi
export LOGTOOL_FIXTURES=$data LOGTOOL_FIXTURES_4=$data/4
# (every suite is handed one binary; without LOGTOOL_BIN, build it once here)
if [ -z "${LOGTOOL_BIN:-}" ]; then
  cargo build --locked -q
  export LOGTOOL_BIN=$PWD/target/debug/logtool
fi

# each suite's command
declare -A suite=(
  # --workspace: the features `cargo test --workspace` built with, so nothing is rebuilt
  [integration]="cargo test --workspace --locked --test integration && cargo test --workspace --locked --test kmsg_oracle"
  [live_lock]=tests/interop/live_lock.sh
  [repair]=tests/interop/repair.sh
  [compact]=tests/interop/compact.sh
  [compact-4.3.1]="KAFKA_VERSION=4.3.1 tests/interop/compact.sh"
  [retention]=tests/interop/retention.sh
  [start]=tests/interop/start.sh
  [start_matrix]="LOGTOOL_FIXTURES_4=$data/44 LOGTOOL_KAFKA4_VERSION=4.4.0 tests/interop/start_matrix.sh"
  # the 4.x oracle tests (dump = DumpLogSegments, verify without a false
  # alarm, every record decoded and equal to its decoders', groups =
  # kafka-groups, tiered storage's answers) on Kafka 4.4.0's data
  [kafka-4.4.0]="LOGTOOL_FIXTURES_4=$data/44 cargo test --workspace --locked --test integration -- kafka_oracle:: verify:: offsets::tiered && LOGTOOL_FIXTURES_4=$data/44 cargo test --workspace --locked --test kmsg_oracle"
  [fixture]=tests/interop/fixture.sh
  [broker]=tests/interop/broker.sh
  [pure]=tests/interop/pure.sh
  [streams]=tests/interop/streams.sh
  [kip848]="KAFKA_VERSION=4.4.0 tests/interop/kip848.sh"
  [tv2]="KAFKA_VERSION=4.4.0 tests/interop/tv2.sh"
  [share]="KAFKA_VERSION=4.3.1 tests/interop/share.sh"
  [tiered]="tests/interop/tiered.sh && KAFKA_VERSION=4.4.0 LOGTOOL_FIXTURES_4=$data/44 tests/interop/tiered.sh"
  [zookeeper]=tests/interop/zookeeper.sh
)
# the longest first (as in the last runs), so the lanes end close together
all=(broker fixture repair compact-4.3.1 integration compact pure start kip848 tv2 retention streams share start_matrix tiered zookeeper kafka-4.4.0 live_lock)
if [ $# -gt 0 ]; then suites=("$@"); else suites=("${all[@]}"); fi
for s in "${suites[@]}"; do [ -n "${suite[$s]:-}" ] || die "no interop suite $s (one of: ${all[*]})"; done
jobs=${LOGTOOL_INTEROP_JOBS:-2}

# the kernel's count of processes its OOM killer killed (0 where unknown)
oom_kills() { awk '$1 == "oom_kill" { n = $2 } END { print n + 0 }' /proc/vmstat 2>/dev/null || echo 0; }
oom_at_start=$(oom_kills)
declare -A started=()
failed=()
# Wait for one running suite to end; show its log and time.
reap() {
  local pid name rc=0
  wait -n -p pid "${running[@]}" || rc=$?
  for name in "${!running[@]}"; do [ "${running[$name]}" = "$pid" ] && break; done
  unset "running[$name]"
  if [ $rc = 0 ]; then
    log "interop $name: passed in $((SECONDS - started[$name])) s ($(cat "$logs/$name.cpu" 2>/dev/null || echo ?) s of CPU)"
    cat "$logs/$name.log" >&2
  else
    log "interop $name: FAILED (exit $rc) after $((SECONDS - started[$name])) s; its log:"
    cat "$logs/$name.log" >&2
    # (a process killed from outside - "Killed" in the log - by the kernel's
    # OOM killer shows here)
    log "processes the kernel's OOM killer killed since the interop suites started: $(($(oom_kills) - oom_at_start))"
    failed+=("$name")
  fi
}
for s in "${suites[@]}"; do
  while [ ${#running[@]} -ge "$jobs" ]; do reap; done
  [ ${#failed[@]} = 0 ] || break
  log "interop $s: started"
  started[$s]=$SECONDS
  # a process group of its own (setsid), so a failure elsewhere stops it whole
  # (its CPU seconds, user + system of what it waited for, go to NAME.cpu)
  setsid bash -c "${suite[$s]}"'
    rc=$?; read -ra f </proc/$$/stat; echo $(((f[15] + f[16]) / $(getconf CLK_TCK))) >"$0"; exit $rc' \
    "$logs/$s.cpu" >"$logs/$s.log" 2>&1 &
  running[$s]=$!
done
while [ ${#running[@]} -gt 0 ] && [ ${#failed[@]} = 0 ]; do reap; done
# (on a failure the suites still running are stopped by cleanup)
[ ${#failed[@]} = 0 ] || die "interop suites failed: ${failed[*]}"
log "interop: every suite passed (${suites[*]})"
