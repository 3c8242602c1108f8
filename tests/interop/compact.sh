#!/usr/bin/env bash
# Interop: `logtool compact` against Kafka 3.9.1's own log cleaner (or the
# release KAFKA_VERSION names: 4.3.1 in tests/interop/run.sh too).
#
#  1. A broker with its cleaner off (log.cleaner.enable=false) writes the
#     compaction input (Workload compact-input: overwrites, tombstones,
#     headers, several producers, transactions with aborts, a zstd topic,
#     __consumer_offsets with a group's offsets expired, repeated commits and
#     a deleted group; 4 KiB segments, __consumer_offsets' too) and is
#     stopped cleanly.
#  2. Two copies. Kafka cleans one: started with the cleaner on (dirty ratio
#     0.01), until cleaner-offset-checkpoint reaches the active segment of
#     every compacted partition that has more than one segment, then stopped
#     cleanly. `logtool compact --execute` cleans the other (the same
#     dedupe buffer).
#  3. In every compacted partition the same batches survive (offsets, producer
#     fields, flags, codec, leader epoch, count) holding the same records
#     (offset, key, value, headers, timestamp); delete horizons are not
#     compared (each cleaner writes its own clock into them).
#  4. `verify` finds nothing at warning or above on logtool's copy, nor on
#     Kafka's.
#  5. Kafka starts on logtool's copy without recovering a partition, a
#     consumer reads exactly the records logtool's dump holds, the committed
#     offsets are those Kafka's copy has, and Kafka's cleaner, given time,
#     changes no segment there and moves no cleaner offset.
#  6. `logtool undo --execute` gives back the input byte for byte.
#  7. Compactions SIGKILLed at five points spread over their commit (the
#     commit's start, groups swapped in, one half swapped: its .swap files
#     there, some old files gone, near the end): `verify` finds no error,
#     and Kafka, started on each, completes any swap and serves every key's
#     latest committed record as the input had it.
#
# Brokers bind 127.0.0.1 on free ports and are stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup compact
# Workload.java is written against the pinned client (3.9.1), which speaks to any broker here
client_libs=$(kafka_libs_of "$KAFKA_PINNED")
workload() { KAFKA_LIBS=$client_libs kafka_java "$KAFKA_LIB_DIR/Workload.java" "$@"; }
CLUSTER_ID=bG9ndG9vbC1jb21wYWN0
# Kafka 4.x refuses segments under 1 MiB: bigger values and commit metadata fill them
case "$KAFKA_VERSION" in
  3.*) SEGMENT=4096 PAD=0 META=0 ;;
  *) SEGMENT=1048576 PAD=8000 META=25000 ;;
esac
BASE_PROPS=("offsets.topic.segment.bytes=$SEGMENT" "log.cleaner.min.cleanable.ratio=0.01" "offset.metadata.max.bytes=65536")
BROKER_PROPS=("${BASE_PROPS[@]}")
DEDUPE=4194304 # kraft_config's log.cleaner.dedupe.buffer.size
# consume-full lines -> "topic partition key offset value" of each key's latest record
LATEST='
import sys
last = {}
for l in sys.stdin:
    t, p, off, ts, key, value, headers = l.split()
    if key != "null" and int(off) >= last.get((t, p, key), (-1,))[0]:
        last[(t, p, key)] = (int(off), value)
for (t, p, key), (off, value) in sorted(last.items()):
    print(t, p, key, off, value)'

# ---- 1. the input -----------------------------------------------------------
input=$work/input
BROKER_PROPS+=("log.cleaner.enable=false" "offsets.retention.minutes=1" "offsets.retention.check.interval.ms=1000")
bport=$(free_port); cport=$(free_port)
kraft_config "$work/input.properties" "$input" "$bport" "$cport" "${BROKER_PROPS[@]}"
kraft_format "$work/input.properties" "$CLUSTER_ID"
kafka_start "$work/input.properties" "$work/input.broker.log" "$bport"
kafka_wait_started "$work/input.broker.log" "$KAFKA_PID"
workload "127.0.0.1:$bport" compact-input "$SEGMENT" "$PAD" >"$work/workload.out" 2>&1 \
  || { cat "$work/workload.out" >&2; die "the workload failed"; }
# cg-expired's offsets expire (the coordinator writes their tombstones), then the other groups commit
workload "127.0.0.1:$bport" wait-expired cg-expired >>"$work/workload.out" 2>&1 \
  || { cat "$work/workload.out" >&2; die "cg-expired's offsets did not expire"; }
workload "127.0.0.1:$bport" compact-groups "$META" >>"$work/workload.out" 2>&1 \
  || { cat "$work/workload.out" >&2; die "the workload failed"; }
kafka_stop "$KAFKA_PID"
BROKER_PROPS=("${BASE_PROPS[@]}")
[ -f "$input/.kafka_cleanshutdown" ] || die "no clean shutdown of the input broker"
compacted=(cmp-plain-0 cmp-txn-0 cmp-zstd-0 __consumer_offsets-0)
for p in "${compacted[@]}"; do
  n=$(find "$input/$p" -name '*.log' | wc -l)
  [ "$n" -ge 3 ] || die "$p: only $n segment(s): nothing for a cleaner to do"
done
cp -a "$input" "$work/kafka"
cp -a "$input" "$work/logtool"

# ---- 2. Kafka's cleaner, and logtool's ---------------------------------------
active_base() { find "$1" -name '*.log' | sort | tail -1 | xargs basename | sed 's/\.log$//; s/^0*//; s/^$/0/'; }
start_on "$work/kafka" kafka
i=0
for p in "${compacted[@]}"; do
  want="${p%-*} ${p##*-} $(active_base "$work/kafka/$p")"
  until grep -qx "$want" "$work/kafka/cleaner-offset-checkpoint" 2>/dev/null; do
    [ $i -gt 1200 ] && die "Kafka's cleaner did not reach '$want'"
    sleep 0.1; i=$((i + 1))
  done
done
kafka_stop "$KAFKA_PID"
log "Kafka's cleaner cleaned ${compacted[*]}"
"$LT" compact --execute --dedupe-buffer "$DEDUPE" "$work/logtool" >"$work/compact.out" 2>&1 \
  || { cat "$work/compact.out" >&2; die "logtool compact failed"; }
grep -v '[│┌└├]' "$work/compact.out" | sed 's/^/    logtool: /' >&2 || true

# ---- 3. the same batches and records ------------------------------------------
survivors() { # PARTITION_DIR: every batch and record of its live segments
  "$LT" dump --deep --payload hex --format json "$1" | python3 -c '
import json, sys
keep = ("base_offset", "last_offset", "count", "magic", "compression", "timestamp_type", "producer_id",
        "producer_epoch", "base_sequence", "partition_leader_epoch", "is_transactional", "is_control")
for l in sys.stdin:
    v = json.loads(l)
    if v.get("suffix") or v.get("file", "").endswith((".deleted", ".swap", ".cleaned")):
        continue
    if v["type"] == "batch":
        ts = v["max_timestamp"] if v["count"] else "-"
        print("batch", *[v[k] for k in keep], ts)
    elif v["type"] == "record":
        print("record", v["offset"], v["timestamp"], v["key"], v["value"], json.dumps(v["headers"]))'
}
for p in "${compacted[@]}"; do
  survivors "$work/kafka/$p" >"$work/$p.kafka"
  survivors "$work/logtool/$p" >"$work/$p.logtool"
  diff "$work/$p.kafka" "$work/$p.logtool" >&2 || die "$p: logtool kept other batches or records than Kafka's cleaner"
  [ "$(grep -c '^record' "$work/$p.kafka")" -lt "$(survivors "$input/$p" | grep -c '^record')" ] \
    || die "$p: Kafka's cleaner removed nothing: the comparison proves little"
  log "$p: the same $(grep -c '^batch' "$work/$p.kafka") batches and $(grep -c '^record' "$work/$p.kafka") records as Kafka's cleaner kept"
done

# ---- 4. verify ---------------------------------------------------------------------
"$LT" verify --deep "$work/logtool" >"$work/verify.out" 2>&1 || { cat "$work/verify.out" >&2; die "verify finds problems in logtool's compacted dir"; }
# (and no false alarm on what Kafka's own cleaner left)
"$LT" verify --deep "$work/kafka" >"$work/verify-kafka.out" 2>&1 || { cat "$work/verify-kafka.out" >&2; die "verify finds problems in Kafka's compacted dir"; }
log "verify: nothing at warning or above in either compacted dir"

# ---- 5. Kafka on logtool's copy ----------------------------------------------------
served=$work/served
cp -a "$work/logtool" "$served"
before=$(for p in "${compacted[@]}"; do (cd "$served/$p" && sha256sum ./*.log); done)
checkpoint=$(cat "$served/cleaner-offset-checkpoint")
"$LT" dump --deep --payload hex --format json "$served" | python3 tests/interop/records.py >"$work/expected"
start_on "$served" served
! grep "Recovering unflushed segment" "$work/served.broker.log" | grep -v __cluster_metadata >&2 \
  || die "Kafka recovered a partition of logtool's compacted dir"
workload "$BOOTSTRAP" consume-all 2>"$work/consumer.log" | sort >"$work/consumed" \
  || { cat "$work/consumer.log" >&2; die "the consumer failed"; }
diff "$work/expected" "$work/consumed" >&2 || die "Kafka served other records than logtool's dump holds"
groups() { # BOOTSTRAP
  for g in cg-a cg-b cg-expired; do
    kafka_java org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$1" --describe \
      --group "$g" 2>/dev/null | awk -v g="$g" '$1 == g { print g, $2, $3, $4 }'
  done | sort
}
groups "$BOOTSTRAP" >"$work/groups.logtool"
# the cleaner had its chance: backoff 500 ms, dirty ratio 0.01
sleep 5
kafka_stop "$KAFKA_PID"
after=$(for p in "${compacted[@]}"; do (cd "$served/$p" && sha256sum ./*.log); done)
[ "$before" = "$after" ] || die "Kafka's cleaner changed segments of logtool's compacted dir"
[ "$checkpoint" = "$(cat "$served/cleaner-offset-checkpoint")" ] || die "Kafka's cleaner moved a cleaner offset"
start_on "$work/kafka" offsets
groups "$BOOTSTRAP" >"$work/groups.kafka"
kafka_stop "$KAFKA_PID"
[ -s "$work/groups.kafka" ] || die "no committed offsets described"
diff "$work/groups.kafka" "$work/groups.logtool" >&2 || die "other committed offsets than on Kafka's cleaned copy"
log "Kafka started on logtool's copy without recovering, served the $(wc -l <"$work/consumed") records and the same committed offsets, and its cleaner found nothing to do"

# ---- 6. undo -------------------------------------------------------------------------
"$LT" undo --execute "$work/logtool" >/dev/null
diff <(tree_hash "$input") <(tree_hash "$work/logtool") >&2 || die "undo did not give back the input"
log "undo gave back the input byte for byte"

# ---- 7. compactions killed at points through their commit, then Kafka -------------
"$LT" dump --deep --payload hex --format json "$input" | python3 tests/interop/records.py --full --committed \
  | python3 -c "$LATEST" >"$work/latest.expected"
# the crash points: one per staged step, the commit's start, one per step
# done, the journal marked done
steps=$( ("$LT" compact --format json --dedupe-buffer "$DEDUPE" "$input" || [ $? = 1 ]) | grep -c '"type":"change"')
swapped=0
for k in 0 1 2 3 4; do
  at=$((steps + 1 + k * steps / 4))
  mid=$work/mid-$k
  cp -a "$input" "$mid"
  # (waited for in a subshell, which says "Killed" to /dev/null)
  (LOGTOOL_TEST_KILL_AT=$at "$LT" compact --execute --dedupe-buffer "$DEDUPE" "$mid" & wait $!) >/dev/null 2>&1 \
    && die "the compaction was not killed at crash point $at"
  "$LT" verify --deep "$mid" >"$work/verify-mid-$k.out" 2>&1 || [ $? = 1 ] \
    || { cat "$work/verify-mid-$k.out" >&2; die "verify failed on the compaction killed at $at"; }
  # (the one error: logtool's own journal says the compaction stopped part
  # way, naming undo and a re-run; Kafka's loader completes it regardless)
  ! grep '│ error ' "$work/verify-mid-$k.out" | grep -qv unfinished_repair \
    || { cat "$work/verify-mid-$k.out" >&2; die "verify finds errors in the compaction killed at $at"; }
  grep -q unfinished_repair "$work/verify-mid-$k.out" \
    || { cat "$work/verify-mid-$k.out" >&2; die "verify does not say the compaction killed at $at is unfinished"; }
  start_on "$mid" "mid-$k"
  if grep -q "by renaming from .swap files" "$work/mid-$k.broker.log"; then swapped=$((swapped + 1)); fi
  workload "$BOOTSTRAP" consume-full read_committed 2>"$work/mid-$k.consumer.log" \
    | python3 -c "$LATEST" >"$work/latest.mid-$k" || { cat "$work/mid-$k.consumer.log" >&2; die "the consumer failed"; }
  kafka_stop "$KAFKA_PID"
  diff "$work/latest.expected" "$work/latest.mid-$k" >&2 \
    || die "Kafka on the compaction killed at $at serves other latest records"
  log "killed at crash point $at of $((2 * steps + 2)): verify finds no error but the unfinished repair; Kafka serves every key's latest record"
done
[ $swapped -gt 0 ] || die "no crash point left a swap for Kafka to complete"
log "Kafka completed $swapped interrupted swap(s)"
