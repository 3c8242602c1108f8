#!/usr/bin/env bash
# Share groups (KIP-932) with Kafka 4.3.1's own clients: the same steps
# against `logtool broker --kafka-version 4.3` and, as the control, against
# a freshly formatted Kafka 4.3.1. Run with KAFKA_VERSION=4.3.1 (run.sh
# does).
#   1. fixtures/kafka/ShareApp.java: a share consumer of share-app with
#      explicit acknowledgements joins (the coordinator initializes the
#      partition's share state, then assigns it), 10 records come: 0-3
#      accepted, 4-5 released, 6-9 rejected; 4-5 come again (delivery
#      count 2) and are accepted; 5 more: 10-11 accepted, 12-14 left
#      unacknowledged when it closes (released).
#   2. Compared between the two brokers: what was delivered (offset,
#      delivery count), `kafka-share-groups --describe` (--offsets: start
#      offset 12, lag 3, leader epoch; --state: Empty, group and assignment
#      epochs; --members; --list) and the share coordinator's records of
#      the partition as `logtool dump --decode` reads `__share_group_state`
#      (snapshot or update, start offset, delivered count, state batches).
#      `verify` finds nothing on either dir; `logtool groups` shows the
#      group's start offset and lag as Kafka does.
#   Then kafka-configs: share-early set to share.auto.offset.reset=earliest
#   and a record lock duration, the topic's max.message.bytes, a delivery count
#   limit over the broker's bound refused (the same message); a console
#   share consumer of share-early reads sh from offset 0; the group's
#   configs (dynamic and --all) and the topic's described the same;
#   share-limit set to share.delivery.count.limit=2: a consumer releasing
#   every record gets each of sh's 15 twice (not 5 times), and the group's
#   start offset and lag are described the same; share-rc set to
#   share.isolation.level=read_committed gets only the 10 committed records
#   of sh-txn (committed, aborted, committed transactions), described the
#   same.
#   3. Kafka 4.3.1 starts on logtool broker's dir and describes the same
#      (the share group, and the group and topic configs from the
#      ConfigRecords logtool broker wrote).
# Brokers bind 127.0.0.1 on free ports and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
[[ "$KAFKA_VERSION" == 4.* ]] || die "share.sh needs KAFKA_VERSION=4.x (share groups are Kafka 4's)"
interop_setup share
BROKER_PROPS=("log.retention.ms=-1" "share.coordinator.state.topic.replication.factor=1"
  "share.coordinator.state.topic.min.isr=1")
# kafka-share-groups --describe, the coordinator's address left out
described() { # BOOTSTRAP OUT
  local o
  for o in "--offsets --verbose" "--state --verbose" "--members --verbose"; do
    # shellcheck disable=SC2086
    k4 org.apache.kafka.tools.consumer.group.ShareGroupCommand --bootstrap-server "$1" --describe --group share-app $o \
      2>/dev/null
  done | sed -E 's/127\.0\.0\.1:[0-9]+ +\([0-9]+\)/COORDINATOR/; s/ +/ /g; /^ *$/d' >"$2"
  k4 org.apache.kafka.tools.consumer.group.ShareGroupCommand --bootstrap-server "$1" --list 2>/dev/null >>"$2"
}
# the share coordinator's records of share-app as a log dir holds them
written() { # LOGDIR OUT
  "$LT" dump --deep --format json "$1" | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    d = r.get("decoded") if r.get("type") == "record" else None
    if not d or d.get("record") not in ("ShareSnapshot", "ShareUpdate") or d["key"]["groupId"] != "share-app":
        continue
    v = d["value"] or {}
    batches = " ".join("%d-%d:%d:%d" % (b["firstOffset"], b["lastOffset"], b["deliveryState"], b["deliveryCount"])
                       for b in v.get("stateBatches", []))
    print(d["record"], v.get("startOffset"), v.get("deliveryCompleteCount"), v.get("leaderEpoch"), batches)
' >"$2"
}
# `logtool groups` of share-app (the coordinator partition left out: the
# brokers' offsets.topic.num.partitions differ)
lt_groups() { # LOGDIR OUT
  "$LT" groups --group share-app "$1" >"$2.raw" 2>&1 || { cat "$2.raw" >&2; die "logtool groups on $1"; }
  sed -E 's/__consumer_offsets-[0-9]+ */__consumer_offsets /' "$2.raw" >"$2"
}

# kafka-configs --describe of share-early (its dynamic configs, then all)
# and of the topic sh
configs_described() { # BOOTSTRAP OUT
  local c; c=$(kafka_config_class)
  { k4 $c --bootstrap-server "$1" --describe --entity-type groups --entity-name share-early
    k4 $c --bootstrap-server "$1" --describe --all --entity-type groups --entity-name share-early
    k4 $c --bootstrap-server "$1" --describe --entity-type topics --entity-name sh; } 2>/dev/null >"$2"
  grep -q 'share.auto.offset.reset=earliest' "$2" || { cat "$2" >&2; die "share-early's configs not described"; }
}
# kafka-configs --alter of a share group (share.auto.offset.reset=earliest,
# a lock duration) and of the topic (max.message.bytes), one refused (over the broker's
# bound), then a console share consumer of that group reads sh from its
# first record
configs() { # BOOTSTRAP NAME
  local b=$1 n=$2 c; c=$(kafka_config_class)
  k4 $c --bootstrap-server "$b" --alter --entity-type groups --entity-name share-early \
    --add-config share.auto.offset.reset=earliest,share.record.lock.duration.ms=20000 >/dev/null 2>"$work/$n.alter.err" \
    || { cat "$work/$n.alter.err" >&2; die "$n: kafka-configs --alter of a group"; }
  k4 $c --bootstrap-server "$b" --alter --entity-type topics --entity-name sh --add-config max.message.bytes=2000000 \
    >/dev/null 2>"$work/$n.alter.err" || { cat "$work/$n.alter.err" >&2; die "$n: kafka-configs --alter of a topic"; }
  ! k4 $c --bootstrap-server "$b" --alter --entity-type groups --entity-name share-early \
    --add-config share.delivery.count.limit=20 >/dev/null 2>"$work/$n.refused.err" \
    || die "$n: a delivery count limit over the broker's bound was taken"
  grep -o 'InvalidConfigurationException: .*' "$work/$n.refused.err" | head -1 >"$work/$n.configs"
  k4 org.apache.kafka.tools.consumer.ConsoleShareConsumer --bootstrap-server "$b" --topic sh --group share-early \
    --max-messages 15 --timeout-ms 30000 --formatter-property print.offset=true 2>"$work/$n.early.err" \
    | sort -t: -k2 -n >"$work/$n.early"
  [ "$(grep -c . "$work/$n.early")" = 15 ] && grep -q '^Offset:0[[:space:]]' "$work/$n.early" \
    || { cat "$work/$n.early" "$work/$n.early.err" >&2; die "$n: share-early did not read sh from its first record"; }
  cat "$work/$n.early" >>"$work/$n.configs"
  # share-limit: share.delivery.count.limit=2 (the broker's is 5); a
  # consumer releasing every record gets each twice, then it is archived
  k4 $c --bootstrap-server "$b" --alter --entity-type groups --entity-name share-limit \
    --add-config share.auto.offset.reset=earliest,share.delivery.count.limit=2 >/dev/null 2>"$work/$n.alter.err" \
    || { cat "$work/$n.alter.err" >&2; die "$n: kafka-configs --alter of share-limit"; }
  kafka_java "$KAFKA_LIB_DIR/ShareApp.java" "$b" sh share-limit release-all >"$work/$n.limit" 2>&1 \
    || { tail -20 "$work/$n.limit" >&2; die "$n: ShareApp release-all"; }
  grep '^DELIVERED' "$work/$n.limit" | sort -k2,2n -k3,3n >"$work/$n.limit-delivered"
  [ "$(grep -c ' 2 RELEASE$' "$work/$n.limit-delivered")" = 15 ] && ! grep -q ' 3 RELEASE$' "$work/$n.limit-delivered" \
    || { cat "$work/$n.limit-delivered" >&2; die "$n: share-limit's records were not delivered twice each"; }
  cat "$work/$n.limit-delivered" >>"$work/$n.configs"
  k4 org.apache.kafka.tools.consumer.group.ShareGroupCommand --bootstrap-server "$b" --describe --group share-limit \
    --offsets 2>/dev/null | awk '$1 == "share-limit" { print $1, $2, $3, $4, $5 }' >>"$work/$n.configs"
  # share-rc: share.isolation.level=read_committed on sh-txn (a committed,
  # an aborted and a committed transaction): only the committed 10 come
  k4 $c --bootstrap-server "$b" --alter --entity-type groups --entity-name share-rc \
    --add-config share.auto.offset.reset=earliest,share.isolation.level=read_committed >/dev/null 2>"$work/$n.alter.err" \
    || { cat "$work/$n.alter.err" >&2; die "$n: kafka-configs --alter of share-rc"; }
  kafka_java "$KAFKA_LIB_DIR/ShareApp.java" "$b" sh-txn share-rc txn >"$work/$n.rc" 2>&1 \
    || { tail -20 "$work/$n.rc" >&2; die "$n: ShareApp txn"; }
  grep '^DELIVERED' "$work/$n.rc" | sort -k2,2n -k3,3n >"$work/$n.rc-delivered"
  [ "$(awk '{ print $2 }' "$work/$n.rc-delivered" | paste -sd' ')" = "0 1 2 3 4 12 13 14 15 16" ] \
    || { cat "$work/$n.rc-delivered" >&2; die "$n: share-rc did not get exactly the committed records"; }
  cat "$work/$n.rc-delivered" >>"$work/$n.configs"
  k4 org.apache.kafka.tools.consumer.group.ShareGroupCommand --bootstrap-server "$b" --describe --group share-rc \
    --offsets 2>/dev/null | awk '$1 == "share-rc" { print $1, $2, $3, $4, $5 }' >>"$work/$n.configs"
  configs_described "$b" "$work/$n.configs-described"
}

steps() { # BOOTSTRAP NAME
  local b=$1 n=$2
  kafka_java "$KAFKA_LIB_DIR/ShareApp.java" "$b" sh share-app >"$work/$n.app" 2>&1 \
    || { tail -20 "$work/$n.app" >&2; die "$n: ShareApp"; }
  grep -q "^DONE" "$work/$n.app" || die "$n: ShareApp: $(tail -2 "$work/$n.app")"
  grep "^DELIVERED" "$work/$n.app" >"$work/$n.delivered"
  configs "$b" "$n"
  described "$b" "$work/$n.describe"
  log "$n: share-app accepted, released, rejected and was redelivered: $(grep -c . "$work/$n.delivered") deliveries; $(grep '^share-app sh' "$work/$n.describe" | head -1)"
}

# ---- logtool broker, then the control ---------------------------------------
lt_dir=$work/lt-logs
lt_start "$lt_dir" lt --kafka-version "${KAFKA_VERSION%.*}"
steps "$lt" logtool
kafka_stop "$lt_pid"
"$LT" verify --deep --fail-on warning "$lt_dir" >"$work/verify.out" || { cat "$work/verify.out" >&2; die "verify found problems"; }
written "$lt_dir" "$work/logtool.written"
lt_groups "$lt_dir" "$work/logtool.groups"

mkdir -p "$work/kafka-logs"
start_fresh "$work/kafka-logs" kafka
# (share groups on: share.version 1 or above; 4.4.0 formats with 2)
k4 org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BOOTSTRAP" describe 2>/dev/null \
  | grep -q 'Feature: share.version.*FinalizedVersionLevel: [1-9]' \
  || die "a fresh Kafka $KAFKA_VERSION has no share.version finalized"
steps "$BOOTSTRAP" kafka
kafka_stop "$KAFKA_PID"
"$LT" verify --deep --fail-on warning "$work/kafka-logs" >"$work/verify-kafka.out" \
  || { cat "$work/verify-kafka.out" >&2; die "verify reports the healthy dir Kafka $KAFKA_VERSION left (a share group)"; }
written "$work/kafka-logs" "$work/kafka.written"
lt_groups "$work/kafka-logs" "$work/kafka.groups"
for s in delivered describe written groups configs configs-described; do
  diff "$work/logtool.$s" "$work/kafka.$s" >&2 || die "$s: logtool broker's share group is not Kafka $KAFKA_VERSION's"
done
log "logtool broker and Kafka $KAFKA_VERSION: the same deliveries, describe and share coordinator records:"
sed 's/^/    /' "$work/kafka.describe" "$work/kafka.written" >&2
log "and share-limit (share.delivery.count.limit=2): $(grep -c ' RELEASE$' "$work/kafka.configs") deliveries, each record twice, then archived ($(grep '^share-limit' "$work/kafka.configs"))"
log "and share-rc (share.isolation.level=read_committed): the committed records of sh-txn only, $(grep -c ' ACCEPT$' "$work/kafka.configs") of 15 ($(grep '^share-rc' "$work/kafka.configs"))"
log "and the same group and topic configs set, refused and described, share-early reading from offset 0:"
sed 's/^/    /' "$work/kafka.configs-described" >&2

# ---- Kafka 4.3.1 on what logtool broker wrote -------------------------------
start_on "$lt_dir" kafka-on-lt
described "$BOOTSTRAP" "$work/kafka-on-lt.describe"
configs_described "$BOOTSTRAP" "$work/kafka-on-lt.configs-described"
kafka_stop "$KAFKA_PID"
diff "$work/logtool.describe" "$work/kafka-on-lt.describe" >&2 || die "describe: Kafka $KAFKA_VERSION on logtool broker's dir differs"
diff "$work/logtool.configs-described" "$work/kafka-on-lt.configs-described" >&2 \
  || die "configs: Kafka $KAFKA_VERSION on logtool broker's dir describes other group or topic configs"
log "Kafka $KAFKA_VERSION on logtool broker's dir: the same share group, start offset and lag, group and topic configs"
