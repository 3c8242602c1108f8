#!/usr/bin/env bash
# Refresh crates/kmsg/schemas/ from Apache Kafka's published message
# definitions: the JSON files inside the release jars on Maven Central, with
# their comment lines removed (Kafka's JSON allows // comments). Then
# regenerate src/schemas.rs, the list that embeds them. Needs java/mvn like
# the fixture scripts.
#
# * The records Kafka keeps in its log dirs (KRaft metadata, group, share
#   and transaction coordinators, tiered storage's __remote_log_metadata
#   (kafka-storage's RemoteLogMetadataSerde: "type": "metadata" too, with
#   api keys of their own), and the messages they embed) come from the
#   newest Kafka logtool reads, RECORDS_VERSION (4.3.1): a definition keeps
#   every version it ever had, so older brokers' records read too. (From
#   4.0 a coordinator key names its record type in "apiKey" and is version
#   0; in 3.x the type was the key's version: kmsg::coordinator reads both.)
# * The requests and responses come from the version pinned in
#   fixtures/kafka/pom.xml (3.9.1): what logtool broker speaks (4.x dropped
#   old request versions that 3.x clients still send); but Produce, EndTxn,
#   TxnOffsetCommit and ConsumerGroupHeartbeat from RECORDS_VERSION, whose
#   newer versions a Kafka 4.x cluster's clients use, and the share group
#   APIs (KIP-932), whose 3.9.1 versions were an early access Kafka 4.1
#   replaced.
#
#   crates/kmsg/update-schemas.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../fixtures/kafka/lib.sh"
kafka_libs
RECORDS_VERSION=${RECORDS_VERSION:-4.3.1}
records_libs=$(kafka_libs_of "$RECORDS_VERSION")
out="$here/schemas"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
v=$RECORDS_VERSION
(cd "$work" \
  && unzip -q -o "$records_libs/kafka-metadata-$v.jar" 'common/metadata/*.json' \
  && unzip -q -o "$records_libs/kafka-group-coordinator-$v.jar" 'common/message/*.json' \
  && unzip -q -o "$records_libs/kafka-share-coordinator-$v.jar" 'common/message/*.json' \
  && unzip -q -o "$records_libs/kafka-transaction-coordinator-$v.jar" 'common/message/*.json' \
  && unzip -q -o "$records_libs/kafka-raft-$v.jar" 'common/message/*.json' \
  && unzip -q -o "$records_libs/kafka-storage-$v.jar" 'message/RemoteLogSegmentMetadataRecord.json' \
       'message/RemoteLogSegmentMetadataUpdateRecord.json' 'message/RemotePartitionDeleteMetadataRecord.json' \
       'message/RemoteLogSegmentMetadataSnapshotRecord.json' -d remote \
  && unzip -q -o "$records_libs/kafka-clients-$v.jar" \
       'common/message/LeaderChangeMessage.json' 'common/message/SnapshotHeaderRecord.json' \
       'common/message/SnapshotFooterRecord.json' 'common/message/KRaftVersionRecord.json' \
       'common/message/VotersRecord.json' 'common/message/ConsumerProtocolSubscription.json' \
       'common/message/ConsumerProtocolAssignment.json' 'common/message/DefaultPrincipalData.json' \
       'common/message/EndTxnMarker.json' 2>/dev/null || true)
# every request a broker listener takes ("listeners" names "broker") and its
# response: logtool broker walks each request before it is decoded, and
# answers the ones it does not implement (and fault rules) from them
(cd "$work" && unzip -q -o "$KAFKA_LIBS/kafka-clients-$KAFKA_VERSION.jar" 'common/message/*Request.json' \
  'common/message/*Response.json' -d all)
for req in "$work"/all/common/message/*Request.json; do
  grep -q '"listeners":.*"broker"' "$req" || continue
  cp "$req" "${req%Request.json}Response.json" "$work/common/message/"
done
# the requests whose newer versions transaction version 2 (KIP-890),
# regular-expression subscriptions (ConsumerGroupHeartbeat v1) and share
# groups (KIP-932: ShareGroupHeartbeat/Describe, ShareFetch/Acknowledge v1,
# DescribeShareGroupOffsets) need,
# which logtool broker speaks as a Kafka 4.x cluster (`--kafka-version 4.3`):
# from RECORDS_VERSION (a definition keeps every version 3.9.1 had, but
# Produce v0-v2, which Kafka 4.0 removed and logtool broker never read)
(cd "$work" && unzip -q -o "$records_libs/kafka-clients-$v.jar" -d tv2 \
  'common/message/ProduceRequest.json' 'common/message/ProduceResponse.json' \
  'common/message/EndTxnRequest.json' 'common/message/EndTxnResponse.json' \
  'common/message/TxnOffsetCommitRequest.json' 'common/message/TxnOffsetCommitResponse.json' \
  'common/message/ConsumerGroupHeartbeatRequest.json' 'common/message/ConsumerGroupHeartbeatResponse.json' \
  'common/message/ShareGroupHeartbeatRequest.json' 'common/message/ShareGroupHeartbeatResponse.json' \
  'common/message/ShareGroupDescribeRequest.json' 'common/message/ShareGroupDescribeResponse.json' \
  'common/message/ShareFetchRequest.json' 'common/message/ShareFetchResponse.json' \
  'common/message/ShareAcknowledgeRequest.json' 'common/message/ShareAcknowledgeResponse.json' \
  'common/message/DescribeShareGroupOffsetsRequest.json' 'common/message/DescribeShareGroupOffsetsResponse.json' \
  && cp tv2/common/message/*.json common/message/)
rm -f "$out"/*.json
for f in "$work"/common/metadata/*.json "$work"/common/message/*.json "$work"/remote/message/*.json; do
  [ -f "$f" ] || continue
  grep -v '^[[:space:]]*//' "$f" >"$out/$(basename "$f")"
done
{
  echo "// Generated by update-schemas.sh from Apache Kafka's message definitions (records: $RECORDS_VERSION,"
  echo "// requests and responses: $KAFKA_VERSION); do not edit."
  echo "/// Every schema: (file name without .json, its JSON)."
  echo "pub(crate) const SCHEMAS: &[(&str, &str)] = &["
  for f in "$out"/*.json; do
    n=$(basename "$f" .json)
    echo "    (\"$n\", include_str!(\"../schemas/$n.json\")),"
  done
  echo "];"
} >"$here/src/schemas.rs"
log "$(ls "$out"/*.json | wc -l) schemas (records from Kafka $RECORDS_VERSION, requests from $KAFKA_VERSION) in $out"
