#!/usr/bin/env bash
# `logtool broker` against Kafka 3.9.1's own clients and tools, then a real
# Kafka 3.9.1 started on the log dir it wrote:
#   1. the broker starts on a new log dir (127.0.0.1, a free port) and says
#      where it listens;
#   2. kafka-topics creates and describes a topic; Workload.java's
#      broker-produce creates topics with Admin (one per codec, one
#      LogAppendTime, one of 3 partitions) and sends records with the Java
#      default producer (idempotent, acks=all); a console producer writes
#      lines and a console consumer reads them back; kafka-delete-records,
#      kafka-topics --alter --partitions and --delete; kafka-get-offsets at
#      several times (and earliest, latest, max-timestamp); an assign() consumer
#      reads every record (consume-full); a console consumer in a group and
#      two consumers of one group (a rebalance) commit, and
#      kafka-consumer-groups describes them; 3000 random and cut frames close
#      their connections and the broker goes on serving;
#   3. SIGTERM: the broker stops cleanly; `logtool verify --fail-on warning`
#      finds nothing; DumpLogSegments finds every batch valid; `logtool
#      groups` reads the same committed offsets and lags;
#   4. Kafka 3.9.1 starts on the dir without recovering it, a consumer reads
#      exactly the records the broker served, kafka-get-offsets gives the same
#      answers, kafka-consumer-groups describes
#      the same committed offsets, and it advertises the same API versions.
#   5. a second logtool broker, SIGKILLed after acknowledged produces and a
#      group's commits: Kafka 3.9.1 starts on its dir, recovers it, and
#      serves every acknowledged record and the committed offsets;
# Brokers bind 127.0.0.1 on free ports and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup broker
BROKER_PROPS=("log.retention.ms=-1")
workload() { kafka_java "$KAFKA_LIB_DIR/Workload.java" "$@"; }
logs=$work/logs

# ---- 1. start -------------------------------------------------------------
"$LT" broker --log-dir "$logs" --listen 127.0.0.1:0 >"$work/lt.out" 2>"$work/lt.err" &
lt_pid=$!
KAFKA_PIDS+=("$lt_pid")
i=0
until grep -q '^listening on ' "$work/lt.out"; do
  kill -0 "$lt_pid" 2>/dev/null || { cat "$work/lt.err" >&2; die "logtool broker exited"; }
  [ $i -gt 100 ] && die "logtool broker did not say where it listens"
  sleep 0.05; i=$((i + 1))
done
lt=$(sed -n 's/^listening on //p' "$work/lt.out")
log "logtool broker (pid $lt_pid) on $lt"

# ---- 2. Kafka's clients and tools -----------------------------------------
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --create --topic console --partitions 2 \
  >"$work/create.out" 2>&1 || { cat "$work/create.out" >&2; die "kafka-topics --create failed"; }
grep -q "Created topic console" "$work/create.out" || die "kafka-topics --create: $(cat "$work/create.out")"
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --describe --topic console >"$work/describe.out" 2>&1
grep -q "PartitionCount: 2" "$work/describe.out" || { cat "$work/describe.out" >&2; die "kafka-topics --describe"; }
seq 1 50 | sed 's/^/line-/' | kafka_java kafka.tools.ConsoleProducer --bootstrap-server "$lt" --topic console \
  --property parse.key=false >"$work/console-producer.out" 2>&1 || { cat "$work/console-producer.out" >&2; die "console producer"; }
for p in 0 1; do
  kafka_java org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$lt" --topic console --partition "$p" \
    --offset earliest --timeout-ms 5000 >>"$work/console-consumer.out" 2>"$work/console-consumer.err" || true
done
[ "$(grep -c '^line-' "$work/console-consumer.out")" = 50 ] || die "console consumer read $(grep -c '^line-' "$work/console-consumer.out") of 50 lines"
diff <(seq 1 50 | sed 's/^/line-/' | sort) <(grep '^line-' "$work/console-consumer.out" | sort) >&2 || die "console lines differ"
log "kafka-topics, console producer and consumer: 50 lines back"
workload "$lt" broker-produce 500 >"$work/produce.out" 2>&1 || { tail "$work/produce.out" >&2; die "broker-produce failed"; }
grep -q "PRODUCED 500" "$work/produce.out" || die "broker-produce: $(tail -3 "$work/produce.out")"
# topic admin: DeleteRecords, more partitions, a topic deleted
echo '{"partitions":[{"topic":"b-none","partition":0,"offset":40}],"version":1}' >"$work/delete-records.json"
kafka_java org.apache.kafka.tools.DeleteRecordsCommand --bootstrap-server "$lt" --offset-json-file "$work/delete-records.json" \
  >"$work/delete-records.out" 2>&1
grep -q "low_watermark: 40" "$work/delete-records.out" || { cat "$work/delete-records.out" >&2; die "kafka-delete-records"; }
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --alter --topic b-three --partitions 5 >/dev/null 2>&1
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --create --topic b-doomed >/dev/null 2>&1
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --delete --topic b-doomed >/dev/null 2>&1
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --describe --topic b-three >"$work/three.out" 2>&1
grep -q "PartitionCount: 5" "$work/three.out" || { cat "$work/three.out" >&2; die "kafka-topics --alter --partitions"; }
[ ! -d "$logs/b-doomed-0" ] || die "a deleted topic's partition dir is still there"
# ListOffsets: kafka-get-offsets at times before, inside and after the records
get_offsets() { local t; for t in -1 -2 -3 1699999999999 1700000000000 1700000000123 1700000000499 1700000000500; do
  kafka_java org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$1" --topic 'b-.*' --time "$t" 2>/dev/null | sed "s/^/$t /"
done | sort; }
get_offsets "$lt" >"$work/offsets.lt"
grep -q "^-2 b-none:0:40$" "$work/offsets.lt" || { cat "$work/offsets.lt" >&2; die "earliest after DeleteRecords"; }
grep -q "^1700000000123 b-zstd:0:123$" "$work/offsets.lt" || { cat "$work/offsets.lt" >&2; die "an offset by time"; }
log "DeleteRecords, CreatePartitions, DeleteTopics; $(wc -l <"$work/offsets.lt") kafka-get-offsets answers"
workload "$lt" consume-full read_uncommitted >"$work/served.txt" 2>"$work/served.err" \
  || { tail "$work/served.err" >&2; die "consume-full from logtool broker failed"; }
[ "$(grep -c '^b-' "$work/served.txt")" = $((500 * 7 - 40)) ] || die "logtool broker served $(grep -c '^b-' "$work/served.txt") of $((500 * 7 - 40)) records"
log "broker-produce: $(wc -l <"$work/served.txt") records served by logtool broker"

# consumer groups: a console consumer in a group, then two consumers of one
# group with a rebalance between them; kafka-consumer-groups describes them
kafka_java org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$lt" --topic console --group cg-console \
  --from-beginning --timeout-ms 8000 >"$work/cg-console.out" 2>"$work/cg-console.err" || true
[ "$(grep -c '^line-' "$work/cg-console.out")" = 50 ] || die "the console consumer group read $(grep -c '^line-' "$work/cg-console.out") of 50 lines"
workload "$lt" group-pair cg-pair b-three >"$work/pair.out" 2>&1 || { grep -v '^\s*at ' "$work/pair.out" | tail >&2; die "group-pair failed"; }
grep -q "^PAIR 500 " "$work/pair.out" || die "group-pair: $(tail -3 "$work/pair.out")"
describe_groups() { kafka_java org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$1" --describe --all-groups 2>&1; }
# GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG of a describe, sorted
offsets_table() { awk '$1 ~ /^cg-/ && $3 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5, $6 }' "$1" | sort; }
describe_groups "$lt" >"$work/groups.lt"
[ "$(offsets_table "$work/groups.lt" | wc -l)" = 7 ] || { cat "$work/groups.lt" >&2; die "kafka-consumer-groups --describe against logtool broker"; }
log "consumer groups: a console consumer's, and a pair with a rebalance ($(grep '^PAIR' "$work/pair.out"))"

# garbage and cut frames close their connections; the broker goes on serving
python3 tests/interop/garbage.py "$lt" 3000 1 >"$work/garbage.out" || die "garbage.py failed"
kill -0 "$lt_pid" 2>/dev/null || { tail "$work/lt.err" >&2; die "logtool broker died of garbage frames"; }
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --list >"$work/list.out" 2>&1
grep -qx "b-three" "$work/list.out" || { cat "$work/list.out" >&2; die "kafka-topics --list after the garbage"; }
log "3000 garbage frames: connections closed, the broker still serves"
kafka_java kafka.admin.BrokerApiVersionsCommand --bootstrap-server "$lt" >"$work/api-versions.lt" 2>&1 \
  || { cat "$work/api-versions.lt" >&2; die "kafka-broker-api-versions against logtool broker failed"; }

# ---- 3. a clean stop ------------------------------------------------------
kafka_stop "$lt_pid"
[ -f "$logs/.kafka_cleanshutdown" ] || { cat "$work/lt.err" >&2; die "no clean shutdown"; }
"$LT" verify --fail-on warning "$logs" >"$work/verify.out" || { cat "$work/verify.out" >&2; die "verify found problems"; }
kafka_java kafka.tools.DumpLogSegments --deep-iteration \
  --files "$(find "$logs" -name '*.log' -not -path '*/__cluster_metadata-0/*' | sort | paste -sd, -)" >"$work/dls.out" 2>&1 \
  || { tail "$work/dls.out" >&2; die "DumpLogSegments failed"; }
! grep -qE 'isvalid: false|Exception' "$work/dls.out" || die "DumpLogSegments found an invalid batch"
log "stopped cleanly; verify and DumpLogSegments find nothing"
# logtool groups reads back what the broker's coordinator wrote
"$LT" groups --format json "$logs" | python3 -c '
import json, sys
for l in sys.stdin:
    v = json.loads(l)
    if v["type"] == "committed_offset":
        print(v["group"], v["topic"], v["partition"], v["offset"], v["high_watermark"], v["lag"])' | sort >"$work/groups.logtool"
diff "$work/groups.logtool" <(offsets_table "$work/groups.lt") >&2 || die "logtool groups differs from what the broker described"

# ---- 4. Kafka on the same dir ---------------------------------------------
start_on "$logs" kafka
grep -q "Skipping recovery of .* logs from .* since clean shutdown file was found" "$work/kafka.broker.log" \
  || die "Kafka did not take the dir as cleanly shut down"
! grep "Recovering unflushed segment" "$work/kafka.broker.log" | grep -v __cluster_metadata >&2 \
  || die "Kafka recovered a partition of the cleanly stopped dir"
workload "$BOOTSTRAP" consume-full read_uncommitted >"$work/kafka.txt" 2>"$work/kafka.err" \
  || { tail "$work/kafka.err" >&2; die "consume-full from Kafka failed"; }
diff <(sort "$work/served.txt") <(sort "$work/kafka.txt") >&2 || die "Kafka serves other records than logtool broker did"
[ "$(grep -c '^console ' "$work/kafka.txt")" = 50 ] || die "Kafka serves $(grep -c '^console ' "$work/kafka.txt") console lines"
# every API logtool broker advertises, at the versions Kafka 3.9.1 advertises
kafka_java kafka.admin.BrokerApiVersionsCommand --bootstrap-server "$BOOTSTRAP" >"$work/api-versions.kafka" 2>&1
ranges() { grep -oE '^\s*[A-Za-z]+\([0-9]+\): [0-9]+ to [0-9]+' "$1" | sed 's/^ *//' | sort; }
[ "$(ranges "$work/api-versions.lt" | wc -l)" -ge 8 ] || { cat "$work/api-versions.lt" >&2; die "logtool broker advertised too little"; }
missing=$(comm -23 <(ranges "$work/api-versions.lt") <(ranges "$work/api-versions.kafka"))
[ -z "$missing" ] || die "advertised otherwise than Kafka 3.9.1: $missing"
get_offsets "$BOOTSTRAP" >"$work/offsets.kafka"
diff "$work/offsets.lt" "$work/offsets.kafka" >&2 || die "Kafka answers ListOffsets otherwise than logtool broker did"
describe_groups "$BOOTSTRAP" >"$work/groups.kafka"
diff <(offsets_table "$work/groups.lt") <(offsets_table "$work/groups.kafka") >&2 \
  || die "Kafka restored other committed offsets than logtool broker described"
kafka_stop "$KAFKA_PID"
log "Kafka 3.9.1 started on the dir, answered the same offsets, restored the groups' offsets and served the same $(wc -l <"$work/kafka.txt") records"

# ---- 5. SIGKILL: Kafka recovers the dir -----------------------------------
# the metadata log is kept as a controller keeps it, so a killed broker's dir
# is one Kafka starts on; its recovery keeps every acknowledged record
"$LT" broker --log-dir "$work/killed" --listen 127.0.0.1:0 >"$work/killed.out" 2>"$work/killed.err" &
k_pid=$!
KAFKA_PIDS+=("$k_pid")
i=0
until grep -q '^listening on ' "$work/killed.out"; do
  [ $i -gt 100 ] && die "the second logtool broker did not start"
  sleep 0.05; i=$((i + 1))
done
k=$(sed -n 's/^listening on //p' "$work/killed.out")
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$k" --create --topic k-acked --partitions 2 >/dev/null 2>&1
workload "$k" produce k-acked 300 acked all >"$work/killed-produce.out" 2>&1 || { tail "$work/killed-produce.out" >&2; die "produce to the second broker"; }
kafka_java org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$k" --topic k-acked --group cg-killed \
  --from-beginning --timeout-ms 8000 >/dev/null 2>&1 || true
workload "$k" consume-full read_uncommitted >"$work/killed-served.txt" 2>/dev/null
[ "$(wc -l <"$work/killed-served.txt")" = 300 ] || die "the second broker served $(wc -l <"$work/killed-served.txt") of 300 records"
describe_groups "$k" >"$work/killed-groups.lt"
kafka_kill "$k_pid"
[ ! -f "$work/killed/.kafka_cleanshutdown" ] || die "a clean-shutdown marker after SIGKILL"
"$LT" verify --fail-on error "$work/killed" >"$work/killed.verify" || { cat "$work/killed.verify" >&2; die "verify: errors on a killed broker's dir"; }
start_on "$work/killed" kafka-killed
workload "$BOOTSTRAP" consume-full read_uncommitted >"$work/killed-kafka.txt" 2>"$work/killed-kafka.err" \
  || { tail "$work/killed-kafka.err" >&2; die "consume-full from Kafka on the killed dir failed"; }
diff "$work/killed-served.txt" <(grep '^k-acked ' "$work/killed-kafka.txt") >&2 || die "Kafka's recovery lost or changed acknowledged records"
describe_groups "$BOOTSTRAP" >"$work/killed-groups.kafka"
diff <(offsets_table "$work/killed-groups.lt") <(offsets_table "$work/killed-groups.kafka") >&2 \
  || die "Kafka restored other committed offsets from the killed dir"
kafka_stop "$KAFKA_PID"
log "SIGKILL: Kafka 3.9.1 recovered the dir and served the 300 acknowledged records and the group's offsets"
