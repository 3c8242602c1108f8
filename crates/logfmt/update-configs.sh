#!/usr/bin/env bash
# Refresh src/rules/topic-configs-3.9.jsonl: Kafka 3.9.1's topic config
# definitions (type, default, broker synonyms, documentation) as
# fixtures/kafka/ConfigDump.java reads them from the release's own classes
# (fetched from Maven Central like the fixture scripts). rules::config
# describes a topic's configs from it, as DescribeConfigs does.
#
#   crates/logfmt/update-configs.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../fixtures/kafka/lib.sh"
kafka_libs
kafka_java "$here/../../fixtures/kafka/ConfigDump.java" >"$here/src/rules/topic-configs-3.9.jsonl.tmp"
mv "$here/src/rules/topic-configs-3.9.jsonl.tmp" "$here/src/rules/topic-configs-3.9.jsonl"
echo "$(wc -l <"$here/src/rules/topic-configs-3.9.jsonl") topic configs written" >&2
