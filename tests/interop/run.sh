#!/usr/bin/env bash
# The interop suite: logtool against a real Apache Kafka, now.
#
# Runs fixtures/generate.sh into a temporary directory - a real Kafka 3.9.1
# broker (fetched from Maven Central) writes the clean, sigkill, legacy and
# incident log dirs and DumpLogSegments dumps them (its internal-topic
# decoders too), describes the incident's groups and transactions live
# (kafka-consumer-groups, kafka-transactions), answers the timestamps scenario's
# ListOffsets queries live, and (three nodes) diverges two replicas by an
# unclean leader election and reconciles them - and a Kafka 4.3.1 broker
# writes the kafka4 scenario - then runs the whole integration test binary
# against that fresh data instead of the committed copy; then checks
# that `verify` recognises a running broker's log dir and repairs refuse it,
# and checks the repairs against Kafka's own recovery and index rebuild
# (tests/interop/repair.sh) and `compact` against Kafka's log cleaner
# (tests/interop/compact.sh); then starts Kafka on the log dirs `logtool
# fixture` writes and checks it serves exactly what the specs produced
# (tests/interop/fixture.sh); then runs Kafka's clients and tools against
# `logtool broker` and starts Kafka on the log dir it wrote
# (tests/interop/broker.sh); then runs a Kafka Streams exactly_once_v2
# application on both and compares (tests/interop/streams.sh). Needs java 17+
# and mvn; brokers bind 127.0.0.1 only and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d "${TMPDIR:-/tmp}/logtool-interop.XXXXXX")
trap 'rm -rf "$out"' EXIT
LOGTOOL_FIXTURES_OUT="$out" fixtures/generate.sh
# and what Kafka 4.3.1 writes (its own tools; the kafka4 scenario)
KAFKA_VERSION=4.3.1 LOGTOOL_FIXTURES_OUT="$out/4" fixtures/generate.sh kafka4
LOGTOOL_FIXTURES="$out" LOGTOOL_FIXTURES_4="$out/4" cargo test --locked --test integration
# internal-topic records decoded as DumpLogSegments' decoders print them
LOGTOOL_FIXTURES="$out" LOGTOOL_FIXTURES_4="$out/4" cargo test --locked -p logfmt --test kmsg_oracle
# a live broker's lock is seen, and repairs refuse it
tests/interop/live_lock.sh
# the repairs against what Kafka itself does
tests/interop/repair.sh
# logtool compact against Kafka's own log cleaner, 3.9.1's and 4.3.1's
tests/interop/compact.sh
KAFKA_VERSION=4.3.1 tests/interop/compact.sh
# what Kafka 3.9.1 and 4.3.1 do when they start on a dir: strays, refused
# starts, the high watermark once a partition leads again
LOGTOOL_FIXTURES="$out" LOGTOOL_FIXTURES_4="$out/4" tests/interop/start.sh
# log dirs logtool writes (logtool fixture), loaded and served by Kafka
tests/interop/fixture.sh
# logtool broker against Kafka's clients and tools, then Kafka on its log dir
tests/interop/broker.sh
# a Kafka Streams exactly-once application on logtool broker and on Kafka
tests/interop/streams.sh
