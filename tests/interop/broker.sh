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
#      their connections and the broker goes on serving; librdkafka
#      (confluent-kafka) lists topics, makes r-<codec> topics, produces
#      idempotently in every codec and reads them back through a regex
#      subscription in group cg-rdk, and kafka-python produces and reads
#      p-kpy in group cg-kpy (tests/interop/clients.py), all served again by
#      Kafka in 4; transactions: Java's and librdkafka's consume-transform-
#      produce loops commit, abort and send offsets; a new Java producer
#      fences the old; Kafka 4.3.1's kafka-topics, a transactional
#      producer-perf-test and a read_committed console consumer group;
#   3. SIGTERM: the broker stops cleanly; `logtool verify --fail-on warning`
#      finds nothing; DumpLogSegments finds every batch valid; `logtool
#      groups` reads the same committed offsets and lags;
#   4. Kafka 3.9.1 starts on the dir without recovering it, a consumer reads
#      exactly the records the broker served (read_committed too: the
#      transactions' markers), kafka-get-offsets gives the same
#      answers, kafka-consumer-groups describes
#      the same committed offsets, and it advertises the same API versions.
#   5. logtool broker starts again on the dir Kafka has now written: the
#      same records, ListOffsets answers and committed offsets; it takes
#      100 more records and stops; Kafka serves them all;
#   6. a second logtool broker, SIGKILLed after acknowledged produces and a
#      group's commits: logtool broker started on a copy of its dir recovers
#      it and serves the same records and offsets; Kafka 3.9.1 starts on the
#      dir, recovers it, and serves every acknowledged record and the
#      committed offsets;
#   7. logtool broker and Kafka 3.9.1 each started on a copy of the clean
#      fixture (Kafka-written: transactions, compaction, every codec) serve
#      the same records, read_committed and read_uncommitted;
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
lt_start "$logs" lt
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
# librdkafka (confluent-kafka) and kafka-python: an all-topics Metadata
# (list_topics), a regex subscription, idempotent produce in every codec,
# consumer groups that commit (tests/interop/clients.py)
interop_python
"$PY" tests/interop/clients.py rdkafka "$lt" >"$work/rdkafka.out" 2>"$work/rdkafka.err" \
  || { tail "$work/rdkafka.out" "$work/rdkafka.err" >&2; die "librdkafka against logtool broker"; }
"$PY" tests/interop/clients.py kafka-python "$lt" >"$work/kafka-python.out" 2>"$work/kafka-python.err" \
  || { tail "$work/kafka-python.out" "$work/kafka-python.err" >&2; die "kafka-python against logtool broker"; }
log "$(cat "$work/rdkafka.out"); $(cat "$work/kafka-python.out")"
# transactions: Java's and librdkafka's consume-transform-produce loops (a
# commit, an abort, offsets sent to the transaction; Java's producer then
# fenced by a new instance)
workload "$lt" txn-broker >"$work/txn.out" 2>&1 || { grep -v '^\s*at ' "$work/txn.out" | tail >&2; die "txn-broker failed"; }
grep -q "^TXN committed=20 aborted=20 fenced=ProducerFencedException$" "$work/txn.out" \
  || die "Java transactions: $(grep -v '^\s*at ' "$work/txn.out" | tail -3)"
"$PY" tests/interop/clients.py rdkafka-txn "$lt" >"$work/rdkafka-txn.out" 2>"$work/rdkafka-txn.err" \
  || { tail "$work/rdkafka-txn.out" "$work/rdkafka-txn.err" >&2; die "librdkafka transactions against logtool broker"; }
log "transactions: $(grep '^TXN' "$work/txn.out"); $(cat "$work/rdkafka-txn.out")"
# kafka-transactions list and describe (ListTransactions, DescribeTransactions)
txn_list() { kafka_java org.apache.kafka.tools.TransactionsCommand --bootstrap-server "$1" list 2>/dev/null | awk 'NR > 1 { print $1, $3, $4 }' | sort; }
txn_list "$lt" >"$work/txns.lt"
grep -q "^tx-java [0-9]* Empty$" "$work/txns.lt" && grep -q "^tx-rdk [0-9]* CompleteAbort$" "$work/txns.lt" \
  || { cat "$work/txns.lt" >&2; die "kafka-transactions list against logtool broker"; }
kafka_java org.apache.kafka.tools.TransactionsCommand --bootstrap-server "$lt" describe --transactional-id tx-rdk \
  >"$work/txn-describe.lt" 2>&1 || { cat "$work/txn-describe.lt" >&2; die "kafka-transactions describe against logtool broker"; }
grep -q "CompleteAbort" "$work/txn-describe.lt" || { cat "$work/txn-describe.lt" >&2; die "kafka-transactions describe"; }
# Kafka 4.3.1's clients and tools: a topic made, a transactional
# producer-perf-test (a commit every 100 ms), a console consumer in a group
# reading read_committed, kafka-consumer-groups describing it
k4_libs=$(kafka_libs_of 4.3.1)
# (Kafka 4.x's own logging setup: kafka_java's log4j 1 file would send its
# INFO lines to the console consumer's stdout)
k4_java() { java -Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$k4_libs/*" "$@"; }
k4_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --create --topic k4-txn --partitions 2 \
  >"$work/k4-create.out" 2>&1 || { cat "$work/k4-create.out" >&2; die "Kafka 4.3.1's kafka-topics --create"; }
k4_java org.apache.kafka.tools.ProducerPerformance --topic k4-txn --num-records 2000 --record-size 50 --throughput -1 \
  --transactional-id k4-perf --transaction-duration-ms 100 --producer-props bootstrap.servers="$lt" acks=all \
  >"$work/k4-perf.out" 2>&1 || { tail "$work/k4-perf.out" >&2; die "Kafka 4.3.1's transactional producer-perf-test"; }
grep -q "^2000 records sent" "$work/k4-perf.out" || die "Kafka 4.3.1's producer-perf-test: $(tail -2 "$work/k4-perf.out")"
k4_java org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$lt" --topic k4-txn --group cg-k4 \
  --from-beginning --isolation-level read_committed --timeout-ms 8000 >"$work/k4-consumer.out" 2>"$work/k4-consumer.err" || true
[ "$(wc -l <"$work/k4-consumer.out")" = 2000 ] || die "Kafka 4.3.1's console consumer read $(wc -l <"$work/k4-consumer.out") of 2000 records"
k4_java org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$lt" --describe --group cg-k4 \
  >"$work/k4-groups.out" 2>&1
[ "$(awk '$1 == "cg-k4" && $6 == "0"' "$work/k4-groups.out" | wc -l)" = 2 ] \
  || { cat "$work/k4-groups.out" >&2; die "Kafka 4.3.1's kafka-consumer-groups: not both partitions committed at the end"; }
log "Kafka 4.3.1's clients: kafka-topics, a transactional producer-perf-test of 2000 records, a read_committed console consumer group"
workload "$lt" consume-full read_committed >"$work/served-rc.txt" 2>"$work/served-rc.err" \
  || { tail "$work/served-rc.err" >&2; die "consume-full read_committed from logtool broker failed"; }
[ "$(grep -c '^t-out ' "$work/served-rc.txt")" = 20 ] || die "read_committed t-out: $(grep -c '^t-out ' "$work/served-rc.txt") records, not the 20 committed"
[ "$(grep -c '^x-out ' "$work/served-rc.txt")" = 10 ] || die "read_committed x-out: $(grep -c '^x-out ' "$work/served-rc.txt") records, not the 10 committed"
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
[ "$(offsets_table "$work/groups.lt" | wc -l)" = 22 ] || { cat "$work/groups.lt" >&2; die "kafka-consumer-groups --describe against logtool broker"; }
log "consumer groups: a console consumer's, and a pair with a rebalance ($(grep '^PAIR' "$work/pair.out"))"


# garbage and cut frames close their connections; the broker goes on serving
python3 tests/interop/garbage.py "$lt" 3000 1 >"$work/garbage.out" || die "garbage.py failed"
running_child "$lt_pid" || { tail "$work/lt.err" >&2; die "logtool broker died of garbage frames"; }
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --list >"$work/list.out" 2>&1
grep -qx "b-three" "$work/list.out" || { cat "$work/list.out" >&2; die "kafka-topics --list after the garbage"; }
log "3000 garbage frames: connections closed, the broker still serves"
kafka_java kafka.admin.BrokerApiVersionsCommand --bootstrap-server "$lt" >"$work/api-versions.lt" 2>&1 \
  || { cat "$work/api-versions.lt" >&2; die "kafka-broker-api-versions against logtool broker failed"; }

# every transactional id as it stands at the stop (Kafka must load the same)
txn_list "$lt" >"$work/txns.lt"

# ---- 3. a clean stop ------------------------------------------------------
kafka_stop "$lt_pid"
[ -f "$logs/.kafka_cleanshutdown" ] || { cat "$work/lt.err" >&2; die "no clean shutdown"; }
"$LT" verify --deep --fail-on warning "$logs" >"$work/verify.out" || { cat "$work/verify.out" >&2; die "verify found problems"; }
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
workload "$BOOTSTRAP" consume-full read_committed >"$work/kafka-rc.txt" 2>"$work/kafka-rc.err" \
  || { tail "$work/kafka-rc.err" >&2; die "consume-full read_committed from Kafka failed"; }
diff <(sort "$work/served-rc.txt") <(sort "$work/kafka-rc.txt") >&2 \
  || die "Kafka serves other records read_committed than logtool broker did (the transactions' markers)"
txn_list "$BOOTSTRAP" >"$work/txns.kafka"
diff "$work/txns.lt" "$work/txns.kafka" >&2 || die "Kafka loaded other transactional ids or states from __transaction_state"
[ "$(grep -c '^console ' "$work/kafka.txt")" = 50 ] || die "Kafka serves $(grep -c '^console ' "$work/kafka.txt") console lines"
# every API logtool broker advertises, up to the version Kafka 3.9.1
# advertises, from Kafka 3.9.1's minimum or the higher one Kafka 4.x keeps
kafka_java kafka.admin.BrokerApiVersionsCommand --bootstrap-server "$BOOTSTRAP" >"$work/api-versions.kafka" 2>&1
ranges() { grep -oE '^\s*[A-Za-z]+\([0-9]+\): [0-9]+ to [0-9]+' "$1" | sed 's/^ *//' | sort; }
[ "$(ranges "$work/api-versions.lt" | wc -l)" -ge 8 ] || { cat "$work/api-versions.lt" >&2; die "logtool broker advertised too little"; }
outside=$(join -t'|' <(ranges "$work/api-versions.lt" | sed -E 's/: ([0-9]+) to ([0-9]+)$/|\1|\2/' | sort) \
                     <(ranges "$work/api-versions.kafka" | sed -E 's/: ([0-9]+) to ([0-9]+)$/|\1|\2/' | sort) \
  | awk -F'|' '$2 < $4 || $3 != $5')
unknown=$(comm -23 <(ranges "$work/api-versions.lt" | sed 's/:.*//') <(ranges "$work/api-versions.kafka" | sed 's/:.*//'))
[ -z "$outside$unknown" ] || die "advertised outside Kafka 3.9.1's ranges: $outside $unknown"
get_offsets "$BOOTSTRAP" >"$work/offsets.kafka"
diff "$work/offsets.lt" "$work/offsets.kafka" >&2 || die "Kafka answers ListOffsets otherwise than logtool broker did"
describe_groups "$BOOTSTRAP" >"$work/groups.kafka"
diff <(offsets_table "$work/groups.lt") <(offsets_table "$work/groups.kafka") >&2 \
  || die "Kafka restored other committed offsets than logtool broker described"
kafka_stop "$KAFKA_PID"
log "Kafka 3.9.1 started on the dir, answered the same offsets, restored the groups' offsets and served the same $(wc -l <"$work/kafka.txt") records"

# ---- 5. logtool broker again, on the dir Kafka 3.9.1 has now written ------
lt_start "$logs" lt-again
workload "$lt" consume-full read_uncommitted >"$work/again.txt" 2>"$work/again.err" \
  || { tail "$work/again.err" >&2; die "consume-full from the restarted logtool broker failed"; }
diff <(sort "$work/kafka.txt") <(sort "$work/again.txt") >&2 || die "the restarted logtool broker serves other records than Kafka did"
get_offsets "$lt" >"$work/offsets.again"
diff "$work/offsets.kafka" "$work/offsets.again" >&2 || die "the restarted logtool broker answers ListOffsets otherwise"
describe_groups "$lt" >"$work/groups.again"
diff <(offsets_table "$work/groups.kafka") <(offsets_table "$work/groups.again") >&2 \
  || die "the restarted logtool broker loaded other committed offsets"
workload "$lt" produce b-none 100 again all >"$work/again-produce.out" 2>&1 || { tail "$work/again-produce.out" >&2; die "produce after the restart"; }
kafka_stop "$lt_pid"
"$LT" verify --deep --fail-on warning "$logs" >"$work/verify-again.out" || { cat "$work/verify-again.out" >&2; die "verify after the restart"; }
start_on "$logs" kafka-again
workload "$BOOTSTRAP" consume-full read_uncommitted >"$work/kafka-again.txt" 2>"$work/kafka-again.err" \
  || { tail "$work/kafka-again.err" >&2; die "consume-full from Kafka (again) failed"; }
[ "$(wc -l <"$work/kafka-again.txt")" = $(($(wc -l <"$work/kafka.txt") + 100)) ] \
  || die "Kafka serves $(wc -l <"$work/kafka-again.txt") records, not the $(wc -l <"$work/kafka.txt") + 100 the restarted broker had"
kafka_stop "$KAFKA_PID"
log "logtool broker started on Kafka's dir: same records, offsets and groups; 100 more records, then Kafka serves them all"

# ---- 6. SIGKILL: logtool broker and Kafka recover the dir -----------------
# the metadata log is kept as a controller keeps it, so a killed broker's dir
# is one Kafka starts on; its recovery keeps every acknowledged record
lt_start "$work/killed" killed
k_pid=$lt_pid k=$lt
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$k" --create --topic k-acked --partitions 2 >/dev/null 2>&1
workload "$k" produce k-acked 300 acked all >"$work/killed-produce.out" 2>&1 || { tail "$work/killed-produce.out" >&2; die "produce to the second broker"; }
kafka_java org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$k" --topic k-acked --group cg-killed \
  --from-beginning --timeout-ms 8000 >/dev/null 2>&1 || true
workload "$k" consume-full read_uncommitted >"$work/killed-served.txt" 2>/dev/null
[ "$(wc -l <"$work/killed-served.txt")" = 300 ] || die "the second broker served $(wc -l <"$work/killed-served.txt") of 300 records"
describe_groups "$k" >"$work/killed-groups.lt"
kafka_kill "$k_pid"
[ ! -f "$work/killed/.kafka_cleanshutdown" ] || die "a clean-shutdown marker after SIGKILL"
"$LT" verify --deep --fail-on error "$work/killed" >"$work/killed.verify" || { cat "$work/killed.verify" >&2; die "verify: errors on a killed broker's dir"; }
# logtool broker on a copy: it recovers the dir and serves the same
cp -r "$work/killed" "$work/killed-copy"
lt_start "$work/killed-copy" killed-again
workload "$lt" consume-full read_uncommitted >"$work/killed-again.txt" 2>/dev/null
diff "$work/killed-served.txt" "$work/killed-again.txt" >&2 || die "logtool broker restarted on its killed dir serves other records"
describe_groups "$lt" >"$work/killed-groups.again"
diff <(offsets_table "$work/killed-groups.lt") <(offsets_table "$work/killed-groups.again") >&2 \
  || die "logtool broker restarted on its killed dir loaded other committed offsets"
kafka_stop "$lt_pid"
"$LT" verify --deep --fail-on warning "$work/killed-copy" >"$work/killed-copy.verify" \
  || { cat "$work/killed-copy.verify" >&2; die "verify after logtool broker recovered and stopped"; }
log "SIGKILL: logtool broker started on the killed dir, recovered it and served the same records and offsets"
start_on "$work/killed" kafka-killed
workload "$BOOTSTRAP" consume-full read_uncommitted >"$work/killed-kafka.txt" 2>"$work/killed-kafka.err" \
  || { tail "$work/killed-kafka.err" >&2; die "consume-full from Kafka on the killed dir failed"; }
diff "$work/killed-served.txt" <(grep '^k-acked ' "$work/killed-kafka.txt") >&2 || die "Kafka's recovery lost or changed acknowledged records"
describe_groups "$BOOTSTRAP" >"$work/killed-groups.kafka"
diff <(offsets_table "$work/killed-groups.lt") <(offsets_table "$work/killed-groups.kafka") >&2 \
  || die "Kafka restored other committed offsets from the killed dir"
kafka_stop "$KAFKA_PID"
log "SIGKILL: Kafka 3.9.1 recovered the dir and served the 300 acknowledged records and the group's offsets"

# ---- 7. a log dir Kafka 3.9.1 wrote, served by logtool broker and by Kafka --
# the clean fixture (transactions committed and aborted, compaction, every
# codec, LogAppendTime): both isolation levels read the same from both
fixture=fixtures/kafka-3.9.1/clean/logs
cp -r "$fixture" "$work/fx-lt"
cp -r "$fixture" "$work/fx-kafka"
lt_start "$work/fx-lt" fx
for iso in read_committed read_uncommitted; do
  workload "$lt" consume-full "$iso" 2>"$work/fx-lt.$iso.err" | sort >"$work/fx-lt.$iso" \
    || { tail "$work/fx-lt.$iso.err" >&2; die "consume-full $iso from logtool broker on Kafka's dir failed"; }
done
kafka_stop "$lt_pid"
"$LT" verify --deep --fail-on warning "$work/fx-lt" >"$work/fx-lt.verify" || { cat "$work/fx-lt.verify" >&2; die "verify after serving Kafka's dir"; }
start_on "$work/fx-kafka" fx-kafka
for iso in read_committed read_uncommitted; do
  workload "$BOOTSTRAP" consume-full "$iso" 2>"$work/fx-kafka.$iso.err" | sort >"$work/fx-kafka.$iso" \
    || { tail "$work/fx-kafka.$iso.err" >&2; die "consume-full $iso from Kafka failed"; }
  diff "$work/fx-kafka.$iso" "$work/fx-lt.$iso" >&2 || die "$iso: logtool broker serves Kafka's dir otherwise than Kafka"
done
kafka_stop "$KAFKA_PID"
[ "$(wc -l <"$work/fx-lt.read_committed")" -lt "$(wc -l <"$work/fx-lt.read_uncommitted")" ] \
  || die "the fixture's aborted records were not filtered by read_committed"
log "Kafka's clean fixture: logtool broker serves $(wc -l <"$work/fx-lt.read_committed") read_committed and $(wc -l <"$work/fx-lt.read_uncommitted") read_uncommitted records, as Kafka does"
