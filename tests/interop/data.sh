#!/usr/bin/env bash
# The interop suite's fresh real-Kafka data: Kafka 3.9.1's, 4.3.1's and
# 4.4.0's jars fetched (into the cache: fixtures/kafka/lib.sh), then
# fixtures/generate.sh run into OUT: every 3.9.1 scenario into OUT, the
# kafka4 and sigkill scenarios into OUT/4 (Kafka 4.3.1) and OUT/44 (Kafka
# 4.4.0, the newest release of logfmt's rules::release; tiered too). Needs
# no logtool binary, so .ci/run starts it while the
# Rust builds run; tests/interop/run.sh runs it itself when no data is given.
#
#   tests/interop/data.sh OUT
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?OUT}
. fixtures/kafka/lib.sh
kafka_libs
kafka_libs_of 4.3.1 >/dev/null
kafka_libs_of 4.4.0 >/dev/null
mkdir -p "$out"
# (not zookeeper and controller: tests/interop/zookeeper.sh makes its own fresh ZooKeeper-mode dirs)
LOGTOOL_FIXTURES_OUT="$out" fixtures/generate.sh clean sigkill legacy timestamps failover healthy incident tiered
KAFKA_VERSION=4.3.1 LOGTOOL_FIXTURES_OUT="$out/4" fixtures/generate.sh kafka4 sigkill
KAFKA_VERSION=4.4.0 LOGTOOL_FIXTURES_OUT="$out/44" fixtures/generate.sh kafka4 sigkill tiered
log "fresh real-Kafka data in $out"
