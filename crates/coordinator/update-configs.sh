#!/usr/bin/env bash
# Refresh src/{topic,broker}-configs-3.9.jsonl: Kafka 3.9.1's topic
# and broker config definitions (type, default, synonyms, read-only,
# documentation) as fixtures/kafka/ConfigDump.java reads them from the
# release's own classes (fetched from Maven Central like the fixture
# scripts). coordinator::config describes a topic's and the broker's configs from
# them, as DescribeConfigs does.
#
#   crates/coordinator/update-configs.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../fixtures/kafka/lib.sh"
kafka_libs
for kind in topic broker; do
  out=$here/src/$kind-configs-3.9.jsonl
  kafka_java "$here/../../fixtures/kafka/ConfigDump.java" "$kind" >"$out.tmp"
  mv "$out.tmp" "$out"
  echo "$(wc -l <"$out") $kind configs written" >&2
done
