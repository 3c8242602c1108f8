#!/usr/bin/env bash
# Transaction version 2 (KIP-890) with Kafka 4.x's own clients: the same
# steps against `logtool broker --kafka-version 4.x` and, as the control,
# against a freshly formatted Kafka 4.x (which finalizes
# transaction.version 2). Run with KAFKA_VERSION=4.3.1 or 4.4.0 (run.sh
# runs 4.4.0).
#   1. fixtures/kafka/Tv2App.java: one transactional producer, three transactions of
#      10 records over both partitions of tv2, each committing tv2-group's
#      offset of tv2-0 in the transaction (TxnOffsetCommit v5: no
#      AddOffsetsToTxn; Produce v12: no AddPartitionsToTxn); the second
#      aborts; a fourth is left open and a second producer of tv2-app fences
#      the first (the coordinator aborts its transaction) and commits one
#      record. Then a transactional producer-perf-test of 1000 records.
#   2. Compared between the two brokers: the coordinator's records of
#      tv2-app as `logtool dump --decode` reads `__transaction_state` (state,
#      producer epoch, value version, client transaction version, the
#      transaction's topics; consecutive Ongoing records - one per partition
#      added, as the client's batches happen to go - as one), the markers of
#      each tv2 partition (epoch, commit or abort), `kafka-transactions
#      describe` (state, epoch), the group's committed offset, and what a
#      read_committed consumer reads.
#      `verify` finds nothing on either dir.
#   3. Kafka 4.3.1 starts on logtool broker's dir and describes, serves and
#      reads the same.
# Brokers bind 127.0.0.1 on free ports and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
[[ "$KAFKA_VERSION" == 4.* ]] || die "tv2.sh needs KAFKA_VERSION=4.x (transaction version 2 is Kafka 4's)"
interop_setup tv2
BROKER_PROPS=("log.retention.ms=-1")
tv2_app() { kafka_java "$KAFKA_LIB_DIR/Tv2App.java" "$@"; }
# "STATE EPOCH" of a transactional id, as kafka-transactions describes it
described() { # BOOTSTRAP ID
  k4 org.apache.kafka.tools.TransactionsCommand --bootstrap-server "$1" describe --transactional-id "$2" 2>/dev/null \
    | awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i } NR == 2 { print $col["TransactionState"], $col["ProducerEpoch"] }'
}
committed() { # BOOTSTRAP
  k4 org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$1" --describe --group tv2-group \
    --offsets 2>/dev/null | awk '$1 == "tv2-group" { print $2, $3, $4 }'
}
read_committed() { # BOOTSTRAP OUT
  k4 org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$1" --topic tv2 --from-beginning \
    --isolation-level read_committed --timeout-ms 8000 2>/dev/null | sort >"$2" || true
}
# what a log dir holds of tv2-app's transactions and the tv2 markers
written() { # LOGDIR OUT
  "$LT" dump --deep --format json "$1" | python3 -c '
import json, sys
states, markers = [], {}
for line in sys.stdin:
    r = json.loads(line)
    if r.get("type") == "record" and r.get("decoded", {}).get("record") == "TransactionLog":
        d = r["decoded"]
        if d["key"]["transactionalId"] != "tv2-app":
            continue
        v = d["value"]
        topics = sorted({p["topic"] for p in v.get("transactionPartitions") or []})
        s = (v["state"], v["producerEpoch"], d["version"], v.get("clientTransactionVersion", 0), ",".join(topics))
        if states and s[0] == "Ongoing" and states[-1][0] == "Ongoing":
            states[-1] = s
        else:
            states.append(s)
    elif r.get("type") == "record" and "control" in r and r["file"].split("/")[-2] in ("tv2-0", "tv2-1"):
        markers.setdefault(r["file"].split("/")[-2], []).append(r["control"]["type"])
    elif r.get("type") == "batch" and r.get("is_control") and r["file"].split("/")[-2] in ("tv2-0", "tv2-1"):
        markers.setdefault(r["file"].split("/")[-2], []).append("e%d" % r["producer_epoch"])
for s in states:
    print("state", *s)
for p in sorted(markers):
    print("markers", p, *markers[p])
' >"$2"
}

steps() { # BOOTSTRAP NAME
  local b=$1 n=$2
  tv2_app "$b" >"$work/$n.app" 2>&1 || { tail "$work/$n.app" >&2; die "$n: Tv2App"; }
  grep -q "^TXNS 3" "$work/$n.app" && grep -q "^FENCED" "$work/$n.app" || die "$n: Tv2App: $(tail -2 "$work/$n.app")"
  k4 org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --create --topic tv2-perf --partitions 2 >/dev/null 2>&1 \
    || die "$n: kafka-topics --create tv2-perf"
  k4 org.apache.kafka.tools.ProducerPerformance --topic tv2-perf --num-records 1000 --record-size 50 --throughput -1 \
    --transactional-id tv2-perf --transaction-duration-ms 50 --producer-props bootstrap.servers="$b" acks=all \
    >"$work/$n.perf" 2>&1 || { tail "$work/$n.perf" >&2; die "$n: a transactional producer-perf-test"; }
  grep -q "^1000 records sent" "$work/$n.perf" || die "$n: producer-perf-test: $(tail -2 "$work/$n.perf")"
  described "$b" tv2-app >"$work/$n.describe"
  committed "$b" >"$work/$n.committed"
  read_committed "$b" "$work/$n.read"
  [ "$(wc -l <"$work/$n.read")" = 21 ] || die "$n: read_committed read $(wc -l <"$work/$n.read") records of tv2, not the 21 committed"
  log "$n: three transactions (the second aborted), one aborted by a fence, one of the new producer, and 1000 records in transactions of 50 ms; tv2-app: $(cat "$work/$n.describe")"
}

# ---- logtool broker, then the control ---------------------------------------
lt_dir=$work/lt-logs
lt_start "$lt_dir" lt --kafka-version "${KAFKA_VERSION%.*}"
steps "$lt" logtool
kafka_stop "$lt_pid"
"$LT" verify --deep --fail-on warning "$lt_dir" >"$work/verify.out" || { cat "$work/verify.out" >&2; die "verify found problems"; }
written "$lt_dir" "$work/logtool.written"

mkdir -p "$work/kafka-logs"
start_fresh "$work/kafka-logs" kafka
steps "$BOOTSTRAP" kafka
kafka_stop "$KAFKA_PID"
"$LT" verify --deep --fail-on warning "$work/kafka-logs" >"$work/verify-kafka.out" \
  || { cat "$work/verify-kafka.out" >&2; die "verify reports the healthy dir Kafka $KAFKA_VERSION left (TV2 epoch bumps, a fence)"; }
written "$work/kafka-logs" "$work/kafka.written"
for s in describe committed read written; do
  diff "$work/logtool.$s" "$work/kafka.$s" >&2 || die "$s: logtool broker's transactions are not Kafka $KAFKA_VERSION's"
done
grep -q "^state PrepareCommit 3 1 2" "$work/kafka.written" || { cat "$work/kafka.written" >&2; die "Kafka $KAFKA_VERSION did not bump the epoch per transaction"; }
log "logtool broker and Kafka $KAFKA_VERSION: the same coordinator records, epochs, markers, committed offset and read_committed records:"
sed 's/^/    /' "$work/kafka.written" >&2

# ---- Kafka 4.3.1 on what logtool broker wrote -------------------------------
start_on "$lt_dir" kafka-on-lt
described "$BOOTSTRAP" tv2-app >"$work/kafka-on-lt.describe"
committed "$BOOTSTRAP" >"$work/kafka-on-lt.committed"
read_committed "$BOOTSTRAP" "$work/kafka-on-lt.read"
kafka_stop "$KAFKA_PID"
for s in describe committed read; do
  diff "$work/logtool.$s" "$work/kafka-on-lt.$s" >&2 || die "$s: Kafka $KAFKA_VERSION on logtool broker's dir differs"
done
log "Kafka $KAFKA_VERSION on logtool broker's dir: the same transaction state and epoch, committed offset and read_committed records"
