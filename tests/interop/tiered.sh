#!/usr/bin/env bash
# Interop: tiered storage (KIP-405), `logtool retain` against a real Kafka's
# local retention, and Kafka serving its remote data after logtool's retain.
# Kafka $KAFKA_VERSION (3.9.1 by default; the suite runs 4.4.0 too) with the
# remote store the tiered scenario used (fixtures/kafka/lib.sh
# kafka_tiered_storage: Kafka's LocalTieredStorage, on 4.4 logtool's
# DirRemoteStorage of the same layout), on copies of that scenario's log dir
# and remote store (the fresh one of the interop data: $LOGTOOL_FIXTURES,
# or $LOGTOOL_FIXTURES_4 for 4.x; else the committed one):
#
#  1. `logtool retain --max-bytes 1 --execute` on a copy: of `tiered` only
#     the segments remote storage holds go (every one but the active), of
#     `tiered-txn` none (its upload is held back by an open transaction);
#     log-start-offset-checkpoint and the leader epochs stay byte for byte;
#     verify finds nothing at warning or above.
#  2. Kafka started on logtool's copy answers earliest (the log start, in
#     remote storage) as before and serves every record from there through
#     its high watermark (Workload consume-all, remote records included)
#     exactly as Kafka started on an untouched copy serves them.
#  3. On the untouched copy Kafka is given local.retention.bytes=1 for
#     `tiered` and runs its local retention until the segments below the
#     old active one are gone: the same segments as logtool deleted, the
#     same log start offset in the checkpoint, the same first leader epoch.
#  4. A tiered broker killed with SIGKILL mid-produce: verify finds nothing
#     at warning or above; Kafka started on `logtool recover --execute`'s
#     copy serves every record (remote ones included) as Kafka started on
#     the killed dir itself does.
#
# Brokers bind 127.0.0.1 on free ports and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup "tiered-$KAFKA_VERSION"
# (the tiered scenario's dirs were formatted with a dynamic quorum)
export KRAFT_QUORUM=dynamic
workload() { kafka_java "$KAFKA_LIB_DIR/Workload.java" "$@"; }
case "$KAFKA_VERSION" in
  3.*) src=${LOGTOOL_FIXTURES:-fixtures/kafka-$KAFKA_VERSION}/tiered ;;
  *) src=${LOGTOOL_FIXTURES_4:-fixtures/kafka-$KAFKA_VERSION}/tiered ;;
esac
[ -d "$src/logs" ] && [ -d "$src/remote" ] || die "no tiered scenario in $src (fixtures/generate.sh tiered)"
kafka_tiered_storage
log "Kafka $KAFKA_VERSION, remote store $TIERED_RSM, data $src"

copy() { # NAME: the log dir and the remote store as the scenario left them
  mkdir -p "$work/$1/remote"
  cp -a "$src/logs" "$work/$1/logs"
  cp -a "$src/remote" "$work/$1/remote/kafka-tiered-storage"
}
start_tiered() { # NAME
  BROKER_PROPS=(
    "remote.log.storage.system.enable=true"
    "remote.log.storage.manager.class.name=$TIERED_RSM"
    "rsm.config.dir=$work/$1/remote"
    "remote.log.metadata.manager.listener.name=PLAINTEXT"
    "rlmm.config.remote.log.metadata.topic.replication.factor=1"
    "rlmm.config.remote.log.metadata.topic.num.partitions=1"
    "remote.log.manager.task.interval.ms=500"
    "log.retention.check.interval.ms=500" "log.segment.delete.delay.ms=500"
  )
  KAFKA_EXTRA_CP=$TIERED_CP start_on "$work/$1/logs" "$1"
}
bases() { (cd "$1" && ls -- *.log 2>/dev/null | sed 's/\.log$//' | sort); }
start_entry() { awk -v t="${2%-*}" -v p="${2##*-}" '$1 == t && $2 == p { print $3 }' "$1/log-start-offset-checkpoint"; }
first_epoch() { sed -n 3p "$1/leader-epoch-checkpoint"; }

copy logtool
copy kafka
lt=$work/logtool/logs kl=$work/kafka/logs
active=$(bases "$lt/tiered-0" | tail -1)
txn_before=$(bases "$lt/tiered-txn-0" | tr '\n' ' ')

# ---- 1. logtool's retain ------------------------------------------------------
"$LT" retain --max-bytes 1 --execute "$lt" >"$work/retain.out" 2>&1 \
  || { cat "$work/retain.out" >&2; die "retain --execute failed"; }
[ "$(bases "$lt/tiered-0" | tr '\n' ' ')" = "$active " ] \
  || die "tiered-0: logtool kept $(bases "$lt/tiered-0" | tr '\n' ' '), not only the active segment $active"
[ "$(bases "$lt/tiered-txn-0" | tr '\n' ' ')" = "$txn_before" ] \
  || die "tiered-txn-0: logtool deleted segments remote storage does not hold"
cmp -s "$lt/log-start-offset-checkpoint" "$src/logs/log-start-offset-checkpoint" \
  || die "retain changed log-start-offset-checkpoint"
cmp -s "$lt/tiered-0/leader-epoch-checkpoint" "$src/logs/tiered-0/leader-epoch-checkpoint" \
  || die "retain changed tiered-0's leader epochs"
"$LT" verify --deep --fail-on warning "$lt" >"$work/verify.out" 2>&1 \
  || { cat "$work/verify.out" >&2; die "verify found problems on logtool's copy"; }
log "retain: tiered-0 keeps its active segment $active alone, tiered-txn-0 all of its $(wc -w <<<"$txn_before")"

# ---- 2. Kafka serves logtool's copy, remote data included ----------------------
start_tiered logtool
workload "$BOOTSTRAP" list-offsets-of tiered earliest earliest-local | grep '^tiered' >"$work/logtool.offsets" \
  || die "list-offsets failed on logtool's copy"
workload "$BOOTSTRAP" consume-all | grep '^tiered' | sort >"$work/logtool.records" || die "consume-all failed on logtool's copy"
kafka_stop "$KAFKA_PID"
start=$(start_entry "$src/logs" tiered-0)
grep -q "^tiered 0 earliest $start " "$work/logtool.offsets" \
  || { cat "$work/logtool.offsets" >&2; die "earliest of tiered-0 is not the log start $start after logtool's retain"; }
grep -q "^tiered 0 earliest-local $((10#$active)) " "$work/logtool.offsets" \
  || { cat "$work/logtool.offsets" >&2; die "earliest-local of tiered-0 is not the active segment's base after retain"; }

# ---- 3. Kafka's local retention on the untouched copy --------------------------
start_tiered kafka
workload "$BOOTSTRAP" consume-all | grep '^tiered' | sort >"$work/kafka.records" || die "consume-all failed on the untouched copy"
kafka_java "$(kafka_config_class)" --bootstrap-server "$BOOTSTRAP" --entity-type topics --entity-name tiered \
  --alter --add-config local.retention.bytes=1 >"$work/configs.out" 2>&1 \
  || { cat "$work/configs.out" >&2; die "kafka-configs could not set local.retention.bytes"; }
below() { bases "$kl/tiered-0" | awk -v a="$active" '$1 < a' | tr '\n' ' '; }
stable=0
for _ in $(seq 120); do
  sleep 1
  if [ -z "$(below)" ] && ! ls "$kl/tiered-0" | grep -q '\.deleted$'; then
    stable=$((stable + 1))
    [ $stable -ge 3 ] && break
  else
    stable=0
  fi
done
[ $stable -ge 3 ] || die "Kafka's local retention did not delete tiered-0's segments below $active: $(below)"
kafka_stop "$KAFKA_PID"

# the same records served; the same segments gone, log start and first epoch
diff "$work/kafka.records" "$work/logtool.records" >&2 \
  || die "Kafka serves other records from logtool's copy (>) than from the untouched one (<)"
grep -q "^tiered 0 $start " "$work/logtool.records" \
  || die "no record at tiered-0's log start $start served (from remote storage) on logtool's copy"
[ "$(start_entry "$kl" tiered-0)" = "$(start_entry "$lt" tiered-0)" ] \
  || die "tiered-0's log start: $(start_entry "$lt" tiered-0) after logtool, $(start_entry "$kl" tiered-0) after Kafka"
[ "$(first_epoch "$kl/tiered-0")" = "$(first_epoch "$lt/tiered-0")" ] \
  || die "tiered-0's first leader epoch: $(first_epoch "$lt/tiered-0") after logtool, $(first_epoch "$kl/tiered-0") after Kafka"
log "Kafka $KAFKA_VERSION's local retention deleted tiered-0's segments below $active as logtool did, log start $start kept; \
$(wc -l <"$work/kafka.records") records served alike from logtool's copy, remote ones included"

# ---- 4. SIGKILL mid-produce: verify, and recover against Kafka's own -----------
copy killed
start_tiered killed
workload "$BOOTSTRAP" produce tiered 400 killed 1 >"$work/produce.out" 2>&1 \
  || { cat "$work/produce.out" >&2; die "produce to tiered failed"; }
kafka_kill "$KAFKA_PID"
[ ! -f "$work/killed/logs/.kafka_cleanshutdown" ] || die "the killed broker left a clean-shutdown marker"
"$LT" verify --deep --fail-on warning "$work/killed/logs" >"$work/verify-killed.out" 2>&1 \
  || { cat "$work/verify-killed.out" >&2; die "verify: a false alarm on a killed tiered broker's dir"; }
cp -a "$work/killed" "$work/recovered"
"$LT" recover --execute "$work/recovered/logs" >"$work/recover.out" 2>&1 \
  || { cat "$work/recover.out" >&2; die "recover --execute failed"; }
for d in killed recovered; do
  start_tiered "$d"
  workload "$BOOTSTRAP" consume-all | grep '^tiered' | sort >"$work/$d.records" || die "consume-all failed on $d"
  kafka_stop "$KAFKA_PID"
done
diff "$work/killed.records" "$work/recovered.records" >&2 \
  || die "Kafka serves other records after logtool's recover (>) than after its own recovery (<)"
grep -q "^tiered 0 $start " "$work/recovered.records" || die "no record at the log start $start served after recover"
log "SIGKILL: verify clean, and $(wc -l <"$work/recovered.records") records served alike after logtool's recover and Kafka's own"
