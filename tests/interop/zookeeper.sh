#!/usr/bin/env bash
# Interop: a ZooKeeper-mode cluster through the migration to KRaft (KIP-866)
# and the upgrade to Kafka 4.4.0, logtool's answers against Kafka's at every
# step:
#
#  1. zk        ZooKeeper 3.8.4 (Kafka 3.9.1's classpath, 127.0.0.1 through
#               a config file) and a ZooKeeper-mode broker 1 (Workload.java
#               zookeeper: per-topic configs, compact-only topics, a group, a
#               transaction), stopped cleanly. `verify` is clean and says
#               `zookeeper`; ListOffsets (kafka-get-offsets) equals
#               offset-for-time; `--kafka-version 4.4` predicts every
#               partition stray, and Kafka 4.4.0 in KRaft mode on a copy
#               sets exactly those aside.
#  2. dual      a KRaft controller (node 3000, zookeeper.metadata.migration
#               .enable) and the broker restarted in migration mode: the
#               controller copies the metadata out of ZooKeeper; the
#               broker's dir now replicates the metadata log: `verify` says
#               `zookeeper-migrating`, clean at 3.9, `migration_unfinished`
#               as 4.4.
#  3. kraft     the broker restarted as a KRaft broker: `kraft-migrating`,
#               clean at 3.9, offsets equal to Kafka's answers.
#  4. final     the controller restarted without the migration: finalized
#               (ZkMigrationState POST_MIGRATION): `kraft`, clean; `groups`
#               finds the group's committed offsets; the controller's own dir
#               is `kraft-controller` and nothing of a broker's refusals.
#  5. upgrade   checked as 4.4, the broker's dir names the topics whose
#               segment.bytes (< 1 MiB) make 4.4.0's broker refuse to start:
#               Kafka 4.4.0 refuses; with those raised to 1 MiB (on 3.9, as
#               an operator would), verify predicts a load, and Kafka 4.4.0
#               (controller and broker) starts and serves the same offsets.
#
# Brokers bind 127.0.0.1 on free ports and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup zookeeper
workload() { kafka_java "$KAFKA_LIB_DIR/Workload.java" "$@"; }
K4_LIBS=$(kafka_libs_of 4.4.0)
zport=$(free_port); bport=$(free_port); cport=$(free_port)
logs=$work/broker
BOOTSTRAP=127.0.0.1:$bport

# verify's start plan of DIR (more options may follow): "mode refusals strays exit"
plan_of() { # DIR [OPTIONS...]
  local rc=0 out
  out=$("$LT" verify --format json --fail-on warning "$@" 2>&1) || rc=$?
  python3 -c '
import json, sys
plan = [json.loads(l) for l in sys.argv[1].splitlines() if l.startswith("{") and "\"start_plan\"" in l]
p = plan[0]
print(p["mode"], p["refusals"], p["stray_partitions"], sys.argv[2])' "$out" "$rc"
}
kinds_of() { # DIR [OPTIONS...]: the finding kinds at warning or above, sorted, unique
  "$LT" verify --format json "$@" | python3 -c '
import json, sys
ks = {v["kind"] for v in map(json.loads, sys.stdin) if v.get("type") == "finding" and v["severity"] != "info"}
print(" ".join(sorted(ks)))' || true
}
expect() { # WHAT GOT WANT
  [ "$2" = "$3" ] || die "$1: got '$2', want '$3'"
  log "zookeeper: $1: $2"
}
offsets_agree() { # STEP N
  logtool_answers "$logs" >"$work/$1.logtool"
  kafka_agrees "$BOOTSTRAP" "$2" "$work/$1.logtool" "$work/$1.kafka" \
    || { diff "$work/$1.logtool" "$work/$1.kafka" >&2; die "$1: offset-for-time is not Kafka's ListOffsets"; }
  log "zookeeper: $1: offset-for-time equals kafka-get-offsets on $2 partitions"
}

# ---- 1. a ZooKeeper-mode broker ---------------------------------------------
zookeeper_start "$work/zk" "$zport" "$work/zk.log"
zk_broker_config "$work/zk.properties" 1 "$logs" "$bport" "$zport" "log.index.size.max.bytes=65536"
kafka_start "$work/zk.properties" "$work/zk.broker.log" "$bport"
kafka_wait_started "$work/zk.broker.log" "$KAFKA_PID"
workload "$BOOTSTRAP" zookeeper
parts=$(find "$logs" -mindepth 1 -maxdepth 1 -type d ! -name '__*' | wc -l)
offsets_agree zk "$parts"
kafka_stop "$KAFKA_PID"
expect "zk: verify (3.9)" "$(plan_of "$logs")" "zookeeper 0 0 0"
all=$(find "$logs" -mindepth 1 -maxdepth 1 -type d | wc -l)
expect "zk: verify --kafka-version 4.4" "$(plan_of "$logs" --kafka-version 4.4)" "zookeeper 0 $all 1"
# Kafka 4.4.0 in KRaft mode on a copy, never migrated
cp -a "$logs" "$work/kraft44"
k4port=$(free_port); k4c=$(free_port)
kraft_config "$work/kraft44.properties" "$work/kraft44" "$k4port" "$k4c"
KAFKA_LIBS=$K4_LIBS kafka_start "$work/kraft44.properties" "$work/kraft44.broker.log" "$k4port"
KAFKA_LIBS=$K4_LIBS kafka_wait_started "$work/kraft44.broker.log" "$KAFKA_PID"
kafka_stop "$KAFKA_PID"
ours=$("$LT" verify --format json --kafka-version 4.4 "$logs" | python3 -c '
import json, os, sys
print(" ".join(sorted(os.path.basename(v["file"]) for v in map(json.loads, sys.stdin) if v.get("kind") == "stray_partition")))' || true)
theirs=$(cd "$work/kraft44" && ls -d *-stray | sed 's/\.[0-9a-f]*-stray$//' | sort | paste -sd' ' -)
expect "zk: the strays Kafka 4.4.0 made" "$theirs" "$ours"

# ---- 2. the migration: a KRaft controller, the broker in dual-write ---------
cluster_id=$(sed -n 's/^cluster.id=//p' "$logs/meta.properties")
migration_props=("zookeeper.metadata.migration.enable=true" "zookeeper.connect=127.0.0.1:$zport")
controller_config() { # FILE [key=value ...]
  local f=$1
  shift
  cat >"$f" <<EOF
process.roles=controller
node.id=3000
controller.quorum.voters=3000@127.0.0.1:$cport
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$cport
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$work/controller
EOF
  local kv
  for kv in "$@"; do echo "$kv" >>"$f"; done
}
controller_config "$work/controller.properties" "${migration_props[@]}"
kafka_java kafka.tools.StorageTool format -c "$work/controller.properties" -t "$cluster_id" >"$work/format.log" 2>&1 \
  || { cat "$work/format.log" >&2; die "the controller could not be formatted"; }
kafka_start "$work/controller.properties" "$work/controller.log" "$cport"
cpid=$KAFKA_PID
zk_broker_config "$work/dual.properties" 1 "$logs" "$bport" "$zport" "log.index.size.max.bytes=65536" \
  "inter.broker.protocol.version=3.9" "zookeeper.metadata.migration.enable=true" \
  "controller.quorum.voters=3000@127.0.0.1:$cport" "controller.listener.names=CONTROLLER" \
  "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
kafka_start "$work/dual.properties" "$work/dual.broker.log" "$bport"
kafka_wait_started "$work/dual.broker.log" "$KAFKA_PID"
i=0
until grep -q "Completed migration of metadata from ZooKeeper to KRaft" "$work/controller.log"; do
  [ $i -gt 1200 ] && { tail -30 "$work/controller.log" >&2; die "the controller did not migrate the metadata"; }
  sleep 0.1; i=$((i + 1))
done
sleep 3
offsets_agree dual "$parts"
kafka_stop "$KAFKA_PID"
expect "dual: verify (3.9)" "$(plan_of "$logs")" "zookeeper-migrating 0 0 0"
expect "dual: verify --kafka-version 4.4" "$(kinds_of "$logs" --kafka-version 4.4 | grep -o migration_unfinished)" \
  migration_unfinished

# ---- 3. the broker as a KRaft broker ----------------------------------------
KRAFT_CONTROLLER_ID=3000 kraft_broker_config "$work/kraft.properties" 1 "$logs" "$bport" "$cport" \
  "log.index.size.max.bytes=65536"
kafka_start "$work/kraft.properties" "$work/kraft.broker.log" "$bport"
kafka_wait_started "$work/kraft.broker.log" "$KAFKA_PID"
offsets_agree kraft "$parts"
kafka_stop "$KAFKA_PID"
expect "kraft: verify (3.9)" "$(plan_of "$logs")" "kraft-migrating 0 0 0"

# ---- 4. finalized ------------------------------------------------------------
kafka_stop "$cpid"
controller_config "$work/final.properties"
kafka_start "$work/final.properties" "$work/final.controller.log" "$cport"
cpid=$KAFKA_PID
kafka_start "$work/kraft.properties" "$work/final.broker.log" "$bport"
kafka_wait_started "$work/final.broker.log" "$KAFKA_PID"
i=0
until "$LT" dump --deep "$logs/__cluster_metadata-0" 2>/dev/null | grep -q 'ZK_MIGRATION_STATE_RECORD zkMigrationState=3'; do
  [ $i -gt 300 ] && die "the broker's metadata log holds no POST_MIGRATION state"
  sleep 0.2; i=$((i + 1))
done
offsets_agree final "$parts"
# (Kafka's kafka-consumer-groups and logtool groups: the same committed offsets)
kafka_java org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" --describe --group zk-group \
  | awk '$1 == "zk-group" { print $2 ":" $3 ":" $4 }' | sort >"$work/groups.kafka"
kafka_stop "$KAFKA_PID"
kafka_stop "$cpid"
"$LT" groups --format json "$logs" --group zk-group | python3 -c '
import json, sys
for v in map(json.loads, sys.stdin):
    if v.get("type") == "committed_offset":
        print("%s:%s:%s" % (v["topic"], v["partition"], v["offset"]))' | sort >"$work/groups.logtool"
cmp -s "$work/groups.kafka" "$work/groups.logtool" \
  || { diff "$work/groups.kafka" "$work/groups.logtool" >&2; die "final: groups is not kafka-consumer-groups"; }
expect "final: zk-group's committed offsets" "$(wc -l <"$work/groups.logtool")" 2
expect "final: verify (3.9)" "$(plan_of "$logs")" "kraft 0 0 0"
expect "final: the controller's dir" "$(plan_of "$work/controller" --kafka-version 4.4)" "kraft-controller 0 0 0"

# ---- 5. the upgrade to Kafka 4.4.0 -------------------------------------------
small=$("$LT" verify --format json --kafka-version 4.4 "$logs" | python3 -c '
import json, sys
print(sum(1 for v in map(json.loads, sys.stdin) if v.get("kind") == "start_refused" and "segment.bytes" in v["message"]))' || true)
[ "$small" -gt 0 ] || die "upgrade: verify names no topic whose segment.bytes 4.4 refuses"
log "zookeeper: upgrade: verify --kafka-version 4.4 names $small topic(s) whose segment.bytes 4.4.0 refuses"
cp -a "$work/controller" "$work/controller44"
cp -a "$logs" "$work/broker44"
sed "s:$work/controller:$work/controller44:" "$work/final.properties" >"$work/c44.properties"
sed "s:^log.dirs=.*:log.dirs=$work/broker44:" "$work/kraft.properties" >"$work/b44.properties"
KAFKA_LIBS=$K4_LIBS kafka_start "$work/c44.properties" "$work/c44.log" "$cport"
cpid=$KAFKA_PID
KAFKA_LIBS=$K4_LIBS kafka_java_bg "$work/b44.refused.log" kafka.Kafka "$work/b44.properties"
bpid=$BG_PID
i=0
while running_child "$bpid"; do
  grep -q "Kafka Server started" "$work/b44.refused.log" && die "upgrade: Kafka 4.4.0 started where verify said it refuses"
  [ $i -gt 1200 ] && die "upgrade: Kafka 4.4.0 neither started nor stopped"
  sleep 0.1; i=$((i + 1))
done
grep -q "segment.bytes" "$work/b44.refused.log" || { tail -20 "$work/b44.refused.log" >&2; die "upgrade: 4.4.0 stopped for another reason"; }
log "zookeeper: upgrade: Kafka 4.4.0's broker refused to start, as verify said"
kafka_stop "$cpid"
# raised on 3.9 first, as an operator would
kafka_start "$work/final.properties" "$work/raise.controller.log" "$cport"
cpid=$KAFKA_PID
kafka_start "$work/kraft.properties" "$work/raise.broker.log" "$bport"
kafka_wait_started "$work/raise.broker.log" "$KAFKA_PID"
for t in zk-plain zk-fine zk-compact zk-compact-2 zk-both zk-txn; do
  kafka_java "$(kafka_config_class 3.9.1)" --bootstrap-server "$BOOTSTRAP" --alter --entity-type topics \
    --entity-name "$t" --add-config segment.bytes=1048576 >/dev/null
done
sleep 2
kafka_stop "$KAFKA_PID"
kafka_stop "$cpid"
expect "upgrade: verify --kafka-version 4.4 after the raise" "$(plan_of "$logs" --kafka-version 4.4)" "kraft 0 0 0"
KAFKA_LIBS=$K4_LIBS kafka_start "$work/final.properties" "$work/up.controller.log" "$cport"
cpid=$KAFKA_PID
KAFKA_LIBS=$K4_LIBS kafka_start "$work/kraft.properties" "$work/up.broker.log" "$bport"
KAFKA_LIBS=$K4_LIBS kafka_wait_started "$work/up.broker.log" "$KAFKA_PID"
offsets_agree upgrade "$parts"
kafka_stop "$KAFKA_PID"
kafka_stop "$cpid"
expect "upgrade: verify after Kafka 4.4.0 ran" "$(plan_of "$logs")" "kraft 0 0 0"
log "zookeeper: every step agrees with Kafka"
