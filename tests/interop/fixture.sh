#!/usr/bin/env bash
# Interop: log dirs written by `logtool fixture` (no broker involved), loaded
# and served by a real Kafka 3.9.1.
#
#  1. Every shipped spec is written; the same seed gives the same bytes
#     (hash of two writes), another seed other bytes.
#  2. Every clean single-node spec (basic, transactions, compacted, large):
#     `logtool verify --fail-on warning` finds nothing; DumpLogSegments
#     --deep-iteration reads every batch of every segment as valid; Kafka
#     starts on the dir (its own server.properties, node id 1 from
#     meta.properties) without recovering a partition (the clean shutdown is
#     honoured), lists the spec's topics with their configs, and consumers
#     read back every record with the offset, timestamp, key, value and
#     headers the spec produced (read_uncommitted), and exactly the committed
#     ones (read_committed); kafka-get-offsets answers earliest, latest,
#     max-timestamp and time queries as `logtool offset-for-time` does.
#  3. Index rebuild: every .index/.timeindex/.txnindex deleted, Kafka started
#     and stopped: what it rebuilt equals what the writer wrote, byte for byte.
#  4. crash (unclean shutdown, torn tail, flipped byte): Kafka's own recovery
#     and `logtool recover --execute` leave identical segment files, and
#     verify finds nothing on the recovered dir.
#     Kafka started on a copy answers earliest and latest (kafka-get-offsets)
#     as offset-for-time does after recover (the high watermark once the
#     broker leads again: the log end, the ISR being this broker alone).
#  5. failover (two replicas, diverged): diff-replicas reports the spec's
#     divergence point; two real brokers started on the two dirs reconcile
#     them (the old leader truncates to it) and diff-replicas then finds them
#     consistent.
#  6. Every spec again with --kafka-version 4.3, then 4.4: one Kafka 4.x
#     refuses exits 2 naming the config (and verify --kafka-version 4.x says
#     4.x refuses its 3.9 dir); the others are verified clean and served by
#     Kafka 4.3.1 at metadata.version 4.3-IV0 (4.4.0 at 4.4-IV2), every
#     record read back (both isolations).
#
# The metadata log is left out of byte comparisons (the controller appends to
# it whenever it starts). Brokers run with log.retention.ms=-1 (the specs'
# records are dated 2026-01-01; retention would delete them 30 s after start)
# and without the log cleaner (it would compact `compacted` while it is read).
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup fixture
BROKER_PROPS=("log.retention.ms=-1" "log.cleaner.enable=false")
workload() { kafka_java "$KAFKA_LIB_DIR/Workload.java" "$@"; }

# ---- 1. write every shipped spec; determinism ---------------------------------
specs=$("$LT" fixture --list --format json | python3 -c 'import json,sys; print(" ".join(json.loads(l)["name"] for l in sys.stdin))')
for s in $specs; do
  "$LT" -q fixture "$s" --out "$work/$s" >"$work/$s.written" || { cat "$work/$s.written" >&2; die "$s: fixture failed"; }
done
log "wrote the shipped specs: $specs"
for s in basic failover; do
  "$LT" -q fixture "$s" --out "$work/$s.again" >/dev/null
  diff <(tree_hash "$work/$s") <(tree_hash "$work/$s.again") >&2 || die "$s: two writes with the same seed differ"
  "$LT" -q fixture "$s" --seed 99 --out "$work/$s.other" >/dev/null
  [ "$(tree_hash "$work/$s" | sha256sum)" != "$(tree_hash "$work/$s.other" | sha256sum)" ] \
    || die "$s: another seed gave the same bytes"
  rm -rf "$work/$s.again" "$work/$s.other"
done
log "same spec and seed, same bytes (basic, failover); another seed, other bytes"

# ---- 2. and 3. clean specs: Kafka serves what the spec produced ---------------
# the topics and configs a spec declares: "topic partitions k=v ..." sorted
spec_topics() { python3 - "fixtures/specs/$1.toml" <<'EOF'
import sys, tomllib
spec = tomllib.load(open(sys.argv[1], "rb"))
for t in sorted(spec["topic"], key=lambda t: t["name"]):
    kv = sorted(f"{k}={v}" for k, v in t.get("configs", {}).items())
    print(" ".join([t["name"], str(t.get("partitions", 1))] + kv))
EOF
}

# the segments of a log dir's data partitions, comma-separated
segments_csv() { find "$1" -name '*.log' -not -path '*/__cluster_metadata-0/*' | sort | paste -sd, -; }

for s in basic transactions compacted large; do
  d=$work/$s
  "$LT" verify --deep --fail-on warning "$d" >"$work/$s.verify" || { cat "$work/$s.verify" >&2; die "$s: verify found problems"; }
  kafka_java kafka.tools.DumpLogSegments --deep-iteration --files "$(segments_csv "$d")" >"$work/$s.dls" 2>&1 \
    || { tail "$work/$s.dls" >&2; die "$s: DumpLogSegments failed"; }
  ! grep -qE 'isvalid: false|Exception' "$work/$s.dls" || die "$s: DumpLogSegments found an invalid batch"
  batches=$(grep -c '^baseOffset' "$work/$s.dls")
  expected=$("$LT" dump --format json "$d" | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin for v in [json.loads(l)] if v["type"] == "batch" and v["file"].endswith(".log") and "__cluster_metadata" not in v["file"]))')
  [ "$batches" = "$expected" ] || die "$s: DumpLogSegments read $batches batches, the writer wrote $expected"
  log "$s: verify clean; DumpLogSegments --deep-iteration reads all $batches batches as valid"

  "$LT" dump --deep --payload hex --format json "$d" | python3 tests/interop/records.py --full >"$work/$s.expected"
  "$LT" dump --deep --payload hex --format json "$d" | python3 tests/interop/records.py --full --committed \
    >"$work/$s.expected-committed"
  cp -a "$d" "$work/$s-served"
  start_on "$work/$s-served" "$s"
  grep -q "Skipping recovery of .* logs from .* since clean shutdown file was found" "$work/$s.broker.log" \
    || die "$s: Kafka did not honour the clean shutdown"
  ! grep "Recovering unflushed segment" "$work/$s.broker.log" | grep -v __cluster_metadata >&2 \
    || die "$s: Kafka recovered a partition of a cleanly written dir"
  workload "$BOOTSTRAP" describe-topics >"$work/$s.topics" 2>"$work/$s.describe.err" \
    || { cat "$work/$s.describe.err" >&2; die "$s: describe failed"; }
  diff <(spec_topics "$s") "$work/$s.topics" >&2 || die "$s: Kafka does not list the spec's topics and configs"
  for iso in read_uncommitted read_committed; do
    exp=$work/$s.expected; [ $iso = read_committed ] && exp=$work/$s.expected-committed
    workload "$BOOTSTRAP" consume-full $iso 2>"$work/$s.$iso.err" | sort >"$work/$s.$iso" \
      || { cat "$work/$s.$iso.err" >&2; die "$s: $iso consumer failed"; }
    diff "$exp" "$work/$s.$iso" >&2 || die "$s: the $iso consumer did not read what the spec produced"
  done
  log "$s: Kafka started without recovery, lists the topics and configs; consumers read the $(wc -l <"$work/$s.expected") records ($(wc -l <"$work/$s.expected-committed") committed) exactly"
  # earliest, latest, max-timestamp and times around the records'
  queries="earliest latest max-timestamp 1767225599999 1767225600000 1767225600055 1767225630000 1767225700000"
  : >"$work/$s.gos"
  for q in $queries; do
    t=$q; case $q in earliest) t=-2 ;; latest) t=-1 ;; max-timestamp) t=-3 ;; esac
    kafka_java org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" --time "$t" \
      --exclude-internal-topics 2>"$work/$s.gos.err" | sed "s/^/$q /" >>"$work/$s.gos" \
      || { cat "$work/$s.gos.err" >&2; die "$s: GetOffsetShell --time $q failed"; }
  done
  # shellcheck disable=SC2086
  { "$LT" offset-for-time --format json "$d" $queries | python3 -c '
import json, sys
for l in sys.stdin:
  v = json.loads(l)
  if v["type"] == "offset" and v["offset"] is not None:
      print("%s %s:%s:%s" % (v["query"], v["topic"], v["partition"], v["offset"]))' || true; } | sort >"$work/$s.lt-offsets"
  sort "$work/$s.gos" | diff - "$work/$s.lt-offsets" >&2 || die "$s: kafka-get-offsets and offset-for-time disagree"
  log "$s: kafka-get-offsets and logtool offset-for-time agree on $(wc -l <"$work/$s.gos") answers"
  kafka_stop "$KAFKA_PID"

  # 3. Kafka's index rebuild against the writer's indexes
  cp -a "$d" "$work/$s-rebuilt"
  find "$work/$s-rebuilt" -type f \( -name '*.index' -o -name '*.timeindex' -o -name '*.txnindex' \) \
    -not -path '*/__cluster_metadata-0/*' -delete
  start_on "$work/$s-rebuilt" "$s-rebuild"
  kafka_stop "$KAFKA_PID"
  same_segments "$d" "$work/$s-rebuilt" "$s: Kafka's index rebuild and the writer"
  rm -rf "$work/$s-served" "$work/$s-rebuilt"
done

# ---- 4. crash: Kafka's recovery and logtool's agree ---------------------------
grep "^damage" "$work/crash.written" >&2 || true
cp -a "$work/crash" "$work/crash-kafka"
cp -a "$work/crash" "$work/crash-logtool"
n=$(logtool_answers "$work/crash-kafka" | grep -c '^latest')
start_on "$work/crash-kafka" crash
grep -q "Recovering .* logs from .* since no clean shutdown file was found" "$work/crash.broker.log" \
  || die "crash: Kafka did not see an unclean shutdown"
"$LT" recover --execute "$work/crash-logtool" >"$work/crash.recover" 2>&1 \
  || { cat "$work/crash.recover" >&2; die "crash: logtool recover failed"; }
# the high watermark once the broker leads again (rules::start)
logtool_answers "$work/crash-logtool" >"$work/crash.logtool-answers"
kafka_agrees "$BOOTSTRAP" "$n" "$work/crash.logtool-answers" "$work/crash.kafka-answers" \
  || { diff "$work/crash.kafka-answers" "$work/crash.logtool-answers" >&2
       die "crash: Kafka after its start and offset-for-time after recover answer earliest/latest differently"; }
kafka_stop "$KAFKA_PID"
same_segments "$work/crash-kafka" "$work/crash-logtool" "crash: Kafka's recovery and logtool recover"
log "crash: Kafka after its start and offset-for-time after recover agree on earliest and latest ($n partitions)"
"$LT" verify --deep --fail-on warning "$work/crash-logtool" >"$work/crash.verify" \
  || { cat "$work/crash.verify" >&2; die "crash: verify found problems after recover"; }

# ---- 5. failover: two brokers reconcile the diverged replicas ------------------
f=$work/failover
want=$(python3 -c 'import tomllib; print(tomllib.load(open("fixtures/specs/failover.toml","rb"))["replicas"]["diverge_at"])')
"$LT" diff-replicas --format json "$f/node-1/failover-0" "$f/node-2/failover-0" >"$work/failover.diff" || true
at=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    v = json.loads(l)
    if v["type"] == "replica" and v.get("divergence_offset") is not None: print(v["divergence_offset"])' "$work/failover.diff")
written=$(sed -n 's/^failover-0: the replicas diverge at offset \([0-9]*\)$/\1/p' "$work/failover.written")
[ -n "$at" ] && [ "$at" = "$written" ] && [ "$at" -ge "$want" ] \
  || die "failover: diff-replicas says the replicas diverge at '$at', the fixture wrote them diverging at '$written' (spec: $want)"
b1=$(free_port); c1=$(free_port); b2=$(free_port)
kraft_config "$work/node-1.properties" "$f/node-1" "$b1" "$c1" "${BROKER_PROPS[@]}"
kraft_broker_config "$work/node-2.properties" 2 "$f/node-2" "$b2" "$c1" "${BROKER_PROPS[@]}"
kafka_start "$work/node-1.properties" "$work/node-1.broker.log" "$b1"; p1=$KAFKA_PID
kafka_start "$work/node-2.properties" "$work/node-2.broker.log" "$b2"; p2=$KAFKA_PID
kafka_wait_started "$work/node-1.broker.log" "$p1"
kafka_wait_started "$work/node-2.broker.log" "$p2"
workload "127.0.0.1:$b1" wait-isr failover 2 >&2
kafka_stop "$p2"
kafka_stop "$p1"
grep -q "Truncating to offset $at" "$work/node-1.broker.log" || die "failover: node 1 was not truncated to $at"
"$LT" diff-replicas "$f/node-1/failover-0" "$f/node-2/failover-0" >"$work/failover.after" \
  || { cat "$work/failover.after" >&2; die "failover: the replicas still differ after Kafka reconciled them"; }
log "failover: diverged at $at as the spec says; two Kafka brokers truncated node 1 to it and reconciled the replicas"

# ---- 6. Kafka 4.x on `fixture --kafka-version 4.x` ----------------------------
# every shipped spec written as Kafka 4.3.1 (then 4.4.0) writes it: a spec
# 4.x refuses (sub-MiB segment.bytes) exits 2 naming the config, and verify
# --kafka-version 4.x on its 3.9 dir says Kafka 4.x refuses to start on it;
# the others are served by that real Kafka exactly
on_4x() { # RELEASE (4.3.1, 4.4.0) METADATA_VERSION (4.3-IV0)
  local k=$1 mv=$2 v=${1%.*} libs s d rc d39 exp iso
  libs=$(kafka_libs_of "$k")
  for s in $specs; do
    d=$work/$s-$v
    rc=0; "$LT" -q fixture "$s" --kafka-version "$v" --out "$d" >"$work/$s-$v.written" 2>&1 || rc=$?
    if [ $rc = 2 ]; then
      grep -q "Kafka $v refuses it: Invalid value .* for configuration segment.bytes" "$work/$s-$v.written" \
        || { cat "$work/$s-$v.written" >&2; die "$s: fixture --kafka-version $v failed without naming the config"; }
      [ ! -e "$d" ] || die "$s: the refused fixture left $d behind"
      d39=$work/$s; [ -d "$d39/node-1" ] && d39=$d39/node-1
      { "$LT" verify --deep --format json --kafka-version "$v" "$d39" || true; } | grep -c '"kind":"start_refused"' >/dev/null \
        || die "$s: fixture refuses $v, but verify --kafka-version $v on its 3.9 dir gives no start_refused"
      log "$s: Kafka $v refuses its configs; fixture says so and verify on its 3.9 dir agrees"
      continue
    fi
    [ $rc = 0 ] || { cat "$work/$s-$v.written" >&2; die "$s: fixture --kafka-version $v failed"; }
    "$LT" verify --deep --fail-on warning "$d" >"$work/$s-$v.verify" || { cat "$work/$s-$v.verify" >&2; die "$s ($v): verify found problems"; }
    grep -q "on start, Kafka $v (the dir's metadata.version $mv)" "$work/$s-$v.verify" \
      || die "$s ($v): verify does not judge the dir as Kafka $v's"
    "$LT" dump --deep --payload hex --format json "$d" | python3 tests/interop/records.py --full >"$work/$s-$v.expected"
    "$LT" dump --deep --payload hex --format json "$d" | python3 tests/interop/records.py --full --committed \
      >"$work/$s-$v.expected-committed"
    KAFKA_LIBS=$libs start_on "$d" "$s-$v"
    grep -q "Skipping recovery of .* logs from .* since clean shutdown file was found" "$work/$s-$v.broker.log" \
      || die "$s ($v): Kafka $k did not honour the clean shutdown"
    grep -q "metadata.version Optional\[$mv\]\|metadata.version $mv" "$work/$s-$v.broker.log" \
      || die "$s ($v): Kafka $k does not run at metadata.version $mv"
    for iso in read_uncommitted read_committed; do
      exp=$work/$s-$v.expected; [ $iso = read_committed ] && exp=$work/$s-$v.expected-committed
      workload "$BOOTSTRAP" consume-full $iso 2>"$work/$s-$v.$iso.err" | sort >"$work/$s-$v.$iso" \
        || { cat "$work/$s-$v.$iso.err" >&2; die "$s ($v): $iso consumer failed"; }
      diff "$exp" "$work/$s-$v.$iso" >&2 || die "$s ($v): the $iso consumer did not read what the spec produced"
    done
    kafka_stop "$KAFKA_PID"
    log "$s: Kafka $k started on fixture --kafka-version $v without recovery and served all $(wc -l <"$work/$s-$v.expected") records ($(wc -l <"$work/$s-$v.expected-committed") committed)"
    rm -rf "$d"
  done
}
on_4x 4.3.1 4.3-IV0
on_4x 4.4.0 4.4-IV2
log "fixture interop: all checks passed"
