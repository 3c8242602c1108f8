#!/usr/bin/env bash
# KIP-848 consumer groups (group.protocol=consumer) with Kafka 4.3.1's own
# clients: the same steps against `logtool broker` and, as the control,
# against a real Kafka 4.3.1, compared as kafka-consumer-groups describes
# them. Run with KAFKA_VERSION=4.3.1 or 4.4.0 (run.sh runs 4.4.0).
#   1. a topic of 4 partitions gets 400 keyed records; console consumer A
#      joins group cg-848 and reads them (every partition); consumer B
#      joins (A revokes two partitions, B gets them); 100 more records are
#      read by the two; B leaves (SIGTERM): A gets all four again; a
#      static member (group.instance.id) joins, leaves for a while (its
#      close sends epoch -2) and returns as a new member of the instance,
#      keeping its partitions without a new epoch;
#   2. after each step the group as `kafka-consumer-groups --describe
#      --state --verbose` and `--members --verbose` show it - state,
#      assignor, group and target assignment epochs, member count, each
#      member's partition count and epochs - is the same from both brokers,
#      and the committed offsets at the end too (500 records in all);
#   3. a second group whose two members name the range assignor
#      (group.remote.assignor=range) on a topic of 3 partitions: the same
#      assignor, state, epochs and partitions per member from both;
#      a member of a third group subscribed with a regular expression
#      (RegexApp.java, SubscriptionPattern "k848.*": the coordinator
#      resolves it to both topics): the same state and epochs;
#   4. logtool broker stops with A and the static member still members
#      (they are then killed);
#      `logtool groups` reads the group as the describe showed it; Kafka
#      4.3.1 starts on the dir, `kafka-features upgrade --feature
#      group.version=1` (the dir is a 3.9 cluster's), and it describes the
#      same group: its member, epochs, assignment and committed offsets;
#      Kafka 4.3.1 starts on the 4.3 cluster's dir of the regex group and
#      describes it as logtool broker did (its resolved topics loaded).
# Brokers bind 127.0.0.1 on free ports and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
[[ "$KAFKA_VERSION" == 4.* ]] || die "kip848.sh needs KAFKA_VERSION=4.x (the consumer protocol is Kafka 4's)"
interop_setup kip848
BROKER_PROPS=("log.retention.ms=-1")
groups_cmd() { k4 org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$1" --describe --group cg-848 "${@:2}" 2>/dev/null; }
# the group without what differs between brokers (member ids, addresses;
# a member's columns counted from the end of its line: a GROUP-INSTANCE-ID
# column is there, empty for dynamic members, once a static member is):
# "state ASSIGNOR STATE GROUP-EPOCH TARGET-EPOCH MEMBERS", then one
# "member #PARTITIONS CURRENT-EPOCH TARGET-EPOCH" per member, sorted
described() { # BOOTSTRAP
  groups_cmd "$1" --state --verbose | awk '$1 == "cg-848" { print "state", $4, $5, $6, $7, $8 }'
  groups_cmd "$1" --members --verbose | awk '$1 == "cg-848" { print "member", $(NF-4), $(NF-3), $(NF-1) }' | sort
}
# ask until the group's members are as WANT says (members' heartbeats come
# every 5 s; one tool run a round), then the whole group must be WANT
settle() { # BOOTSTRAP WANT OUT
  local i=0
  until groups_cmd "$1" --members --verbose | awk '$1 == "cg-848" { print "member", $(NF-4), $(NF-3), $(NF-1) }' | sort >"$3" \
    && [ "$(cat "$3")" = "$(grep '^member' <<<"$2")" ]; do
    [ $i -ge 30 ] && { cat "$3" >&2; die "the group's members did not become: $2"; }
    sleep 1; i=$((i + 1))
  done
  described "$1" >"$3"
  [ "$(cat "$3")" = "$2" ] || { cat "$3" >&2; die "the group is not: $2"; }
}
consumer() { # BOOTSTRAP OUT [PROPERTY...]: a console consumer of cg-848 in the background, its pid in $consumer_pid
  local props=() p
  for p in "${@:3}"; do props+=(--consumer-property "$p"); done
  # (java itself, not a function's subshell: its pid is the one stopped)
  java -Xmx384m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$KAFKA_LIBS/*" org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$1" --topic k848 --group cg-848 \
    --consumer-property group.protocol=consumer --consumer-property client.id="$(basename "$2")" "${props[@]}" \
    --from-beginning --property print.key=true >"$2" 2>"$2.err" &
  consumer_pid=$!
  KAFKA_PIDS+=("$consumer_pid")
}
produce() { # BOOTSTRAP FROM TO
  seq "$2" "$3" | sed 's/.*/k&:v&/' | k4 org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$1" --topic k848 \
    --reader-property parse.key=true --reader-property key.separator=: >/dev/null 2>&1 || die "producing to k848 failed"
}
offsets() { groups_cmd "$1" --offsets | awk '$1 == "cg-848" { print $3, $4 }' | sort -n; }

# the steps, on one broker; the group after each in $work/NAME.N
steps() { # BOOTSTRAP NAME
  local b=$1 n=$2
  k4 org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --create --topic k848 --partitions 4 >/dev/null 2>&1 \
    || die "$n: kafka-topics --create"
  produce "$b" 1 400
  consumer "$b" "$work/$n.a"
  a_pid=$consumer_pid
  settle "$b" "state uniform Stable 2 2 1
member 4 2 2" "$work/$n.1"
  consumer "$b" "$work/$n.b"
  b_pid=$consumer_pid
  settle "$b" "state uniform Stable 3 3 2
member 2 3 3
member 2 3 3" "$work/$n.2"
  produce "$b" 401 500
  local i=0
  until [ "$(cat "$work/$n.a" "$work/$n.b" | sort -u | wc -l)" -ge 500 ]; do
    [ $i -ge 60 ] && die "$n: the two consumers read $(cat "$work/$n.a" "$work/$n.b" | sort -u | wc -l) of 500 records"
    sleep 1; i=$((i + 1))
  done
  signal_ours TERM "$b_pid"; wait "$b_pid" 2>/dev/null || true
  settle "$b" "state uniform Stable 4 4 1
member 4 4 4" "$work/$n.3"
  i=0
  until offsets "$b" >"$work/$n.offsets" && [ "$(awk '{ s += $2 } END { print s }' "$work/$n.offsets")" = 500 ]; do
    [ $i -ge 20 ] && { cat "$work/$n.offsets" >&2; die "$n: the committed offsets do not reach 500 records"; }
    sleep 1; i=$((i + 1))
  done
  # a static member (group.instance.id) joins, leaves for a while (its
  # close sends epoch -2: it keeps its partitions) and comes back as a new
  # member of the same instance: no new epoch, the same partitions
  consumer "$b" "$work/$n.c" group.instance.id=static-1
  settle "$b" "state uniform Stable 5 5 2
member 2 5 5
member 2 5 5" "$work/$n.4"
  signal_ours TERM "$consumer_pid"; wait "$consumer_pid" 2>/dev/null || true
  consumer "$b" "$work/$n.c2" group.instance.id=static-1
  settle "$b" "state uniform Stable 5 5 2
member 2 5 5
member 2 5 5" "$work/$n.5"
  log "$n: A read 400, B joined (A revoked two), 100 more read by both, B left, a static member joined, left for a while and came back; the group: $(paste -sd' ' "$work/$n.5")"
}

# whether a group as described (a "state ..." line and "member ..." lines, as
# range_described and regex_described print) is one settled moment: the
# group epoch, its target assignment epoch and every member's current and
# target epoch are the same. (--state and --members are two requests; a
# rebalance between them, e.g. a regular expression resolved late, would
# pair an old group epoch with a new member epoch.)
epochs_agree() { # FILE
  awk '$1 == "state" { g = $4; t = $5 } $1 == "member" { m[NR] = $3 " " $4 }
    END { if (g == "" || g != t) exit 1; for (k in m) if (m[k] != g " " g) exit 1 }' "$1"
}

# the range assignor: group cg-range of two console consumers naming it
# (group.remote.assignor=range) on a topic of 3 partitions; once both are
# members, the group as described (in $work/NAME.range); the consumers'
# pids in $range_pids
range_group() { # BOOTSTRAP NAME
  local b=$1 n=$2 i=0 c
  k4 org.apache.kafka.tools.TopicCommand --bootstrap-server "$b" --create --topic k848r --partitions 3 >/dev/null 2>&1 \
    || die "$n: kafka-topics --create k848r"
  range_pids=()
  for c in r1 r2; do
    java -Xmx384m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$KAFKA_LIBS/*" org.apache.kafka.tools.consumer.ConsoleConsumer \
      --bootstrap-server "$b" --topic k848r --group cg-range --consumer-property group.protocol=consumer \
      --consumer-property group.remote.assignor=range --consumer-property client.id="$c" >"$work/$n.$c" 2>&1 &
    range_pids+=("$!")
    KAFKA_PIDS+=("$!")
    sleep 2
  done
  range_described() {
    k4 org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$b" --describe --group cg-range \
      --state --verbose 2>/dev/null | awk '$1 == "cg-range" { print "state", $4, $5, $6, $7, $8 }'
    k4 org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$b" --describe --group cg-range \
      --members --verbose 2>/dev/null | awk '$1 == "cg-range" { print "member", $(NF-4), $(NF-3), $(NF-1) }' | sort
  }
  until range_described >"$work/$n.range" && [ "$(grep -c '^member' "$work/$n.range")" = 2 ] \
    && grep -q '^state range Stable' "$work/$n.range" && epochs_agree "$work/$n.range" \
    && [ "$(awk '$1 == "member" { s += $2 } END { print s }' "$work/$n.range")" = 3 ]; do
    [ $i -ge 40 ] && { cat "$work/$n.range" >&2; die "$n: the range group did not settle"; }
    sleep 1; i=$((i + 1))
  done
  log "$n: a group of two members naming the range assignor: $(paste -sd' ' "$work/$n.range")"
}

# a broker-side regular expression (fixtures/kafka/RegexApp.java: a 4.3.1
# consumer's SubscriptionPattern, ConsumerGroupHeartbeat v1): one member
# of group cg-regex subscribed to "k848.*", which the coordinator resolves
# to k848 and k848r (7 partitions); the group as described, once it has
# them all, in $work/NAME.regex; the consumer's pid in $regex_pid
regex_described() { # BOOTSTRAP
  k4 org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$1" --describe --group cg-regex \
    --state --verbose 2>/dev/null | awk '$1 == "cg-regex" { print "state", $4, $5, $6, $7, $8 }'
  k4 org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$1" --describe --group cg-regex \
    --members --verbose 2>/dev/null | awk '$1 == "cg-regex" { print "member", $(NF-4), $(NF-3), $(NF-1) }' | sort
}
regex_group() { # BOOTSTRAP NAME
  local b=$1 n=$2 i=0
  # (java itself, not a function's subshell: its pid is the one stopped)
  kafka_java_bg "$work/$n.regex-app" "$KAFKA_LIB_DIR/RegexApp.java" "$b" cg-regex 'k848.*'
  regex_pid=$BG_PID
  until regex_described "$b" >"$work/$n.regex" && grep -q '^state uniform Stable' "$work/$n.regex" \
    && epochs_agree "$work/$n.regex" \
    && [ "$(awk '$1 == "member" { s += $2 } END { print s }' "$work/$n.regex")" = 7 ]; do
    [ $i -ge 60 ] && { cat "$work/$n.regex" "$work/$n.regex-app" >&2; die "$n: the regex group did not settle"; }
    sleep 1; i=$((i + 1))
  done
  log "$n: a member subscribed to the regular expression k848.*: $(paste -sd' ' "$work/$n.regex")"
}

# ---- logtool broker, then the control ---------------------------------------
lt_dir=$work/lt-logs
lt_start "$lt_dir" lt
steps "$lt" logtool
range_group "$lt" logtool
groups_cmd "$lt" --members --verbose >"$work/lt.members"
kafka_stop "$lt_pid"
{ signal_ours KILL "${range_pids[@]}"; wait "${range_pids[@]}"; } 2>/dev/null || true
# (regular expressions are ConsumerGroupHeartbeat v1, which a Kafka 4.x
# cluster advertises: a logtool broker of a 4.3 cluster, its topics made alike)
lt_start "$work/lt43-logs" lt43 --kafka-version "${KAFKA_VERSION%.*}"
k4 org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --create --topic k848 --partitions 4 >/dev/null 2>&1 \
  || die "lt43: kafka-topics --create k848"
k4 org.apache.kafka.tools.TopicCommand --bootstrap-server "$lt" --create --topic k848r --partitions 3 >/dev/null 2>&1 \
  || die "lt43: kafka-topics --create k848r"
regex_group "$lt" logtool
kafka_stop "$lt_pid"
{ signal_ours KILL "$regex_pid"; wait "$regex_pid"; } 2>/dev/null || true
"$LT" verify --deep --fail-on warning "$work/lt43-logs" >"$work/verify43.out" || { cat "$work/verify43.out" >&2; die "verify found problems"; }
{ signal_ours KILL "$a_pid" "$consumer_pid"; wait "$a_pid" "$consumer_pid"; } 2>/dev/null || true
"$LT" verify --deep --fail-on warning "$lt_dir" >"$work/verify.out" || { cat "$work/verify.out" >&2; die "verify found problems"; }

mkdir -p "$work/kafka-logs"
start_fresh "$work/kafka-logs" kafka
steps "$BOOTSTRAP" kafka
range_group "$BOOTSTRAP" kafka
regex_group "$BOOTSTRAP" kafka
kafka_stop "$KAFKA_PID"
{ signal_ours KILL "${range_pids[@]}" "$regex_pid"; wait "${range_pids[@]}" "$regex_pid"; } 2>/dev/null || true
{ signal_ours KILL "$a_pid" "$consumer_pid"; wait "$a_pid" "$consumer_pid"; } 2>/dev/null || true
for s in 1 2 3 4 5 offsets range regex; do
  diff "$work/logtool.$s" "$work/kafka.$s" >&2 || die "step $s: logtool broker's group is not Kafka $KAFKA_VERSION's"
done
log "logtool broker and Kafka $KAFKA_VERSION: the same states, epochs, members, assignments and committed offsets at every step"

# ---- what logtool broker wrote, read back -----------------------------------
"$LT" groups --format json --group cg-848 "$lt_dir" >"$work/groups.json"
python3 - "$work/groups.json" <<'EOF' || die "logtool groups does not read the group the describe showed"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
g = [l for l in lines if l.get("type") == "group"][0]
assert (g["group_type"], g["state"], g["generation"], g["assignment_epoch"]) == ("Consumer", "Stable", 5, 5), g
assert len(g["members"]) == 2 and any(m["group_instance_id"] == "static-1" for m in g["members"]), g
offsets = sorted((l["partition"], l["offset"]) for l in lines if l.get("type") == "committed_offset")
assert sum(o for _, o in offsets) == 500, offsets
EOF
start_on "$lt_dir" kafka-on-lt
# (the dir is a Kafka 3.9 cluster's, metadata.version 3.9-IV0: Kafka 4.3.1
# loads its consumer groups, and serves them over the consumer protocol's
# APIs once group.version=1 is finalized, as after an upgrade from 3.9)
k4 org.apache.kafka.tools.FeatureCommand --bootstrap-server "$BOOTSTRAP" upgrade --feature group.version=1 \
  >"$work/features.out" 2>&1 || { cat "$work/features.out" >&2; die "kafka-features upgrade --feature group.version=1"; }
groups_cmd "$BOOTSTRAP" --members --verbose >"$work/kafka-on-lt.members"
described "$BOOTSTRAP" >"$work/kafka-on-lt.group"
offsets "$BOOTSTRAP" >"$work/kafka-on-lt.offsets"
kafka_stop "$KAFKA_PID"
diff "$work/logtool.5" "$work/kafka-on-lt.group" >&2 || die "Kafka $KAFKA_VERSION loads another group from logtool broker's dir"
# (the members in either order: Kafka lists them from a hash map)
diff <(sort "$work/lt.members") <(sort "$work/kafka-on-lt.members") >&2 \
  || die "Kafka $KAFKA_VERSION loads another member from logtool broker's dir"
diff "$work/logtool.offsets" "$work/kafka-on-lt.offsets" >&2 || die "Kafka $KAFKA_VERSION loads other committed offsets"
log "Kafka $KAFKA_VERSION on logtool broker's dir: the same group, member, assignment and committed offsets"

# ---- Kafka 4.3.1 on the 4.3 cluster's dir: the regex group -------------------
start_on "$work/lt43-logs" kafka-on-lt43
regex_described "$BOOTSTRAP" >"$work/kafka-on-lt43.regex"
kafka_stop "$KAFKA_PID"
diff "$work/logtool.regex" "$work/kafka-on-lt43.regex" >&2 \
  || die "Kafka $KAFKA_VERSION loads another regex group from the ${KAFKA_VERSION%.*} logtool broker's dir"
log "Kafka $KAFKA_VERSION on the ${KAFKA_VERSION%.*} logtool broker's dir: the same regex group ($(paste -sd' ' "$work/kafka-on-lt43.regex"))"
