#!/usr/bin/env bash
# Interop: logtool's repairs against what a real Kafka 3.9.1 does.
#
#  1. A broker (static KRaft quorum, so copies can restart on other ports; the
#     metadata log in the same log dir, so logtool reads the topic configs) is
#     SIGKILLed while three producers write: kill-plain (index.interval.bytes
#     1024), kill-lz4, kill-txn (transactions, some aborted).
#  2. Three crashed dirs: (a) as the broker left it, (b) the last segment of
#     kill-plain-0 cut in the middle of its last batch, (c) one byte flipped in
#     the middle of kill-plain-0's last (unflushed) segment.
#  3. For each: a copy is recovered by Kafka (broker started, then stopped
#     cleanly), another by `logtool recover --execute`; every .log, .index,
#     .timeindex, .txnindex and producer .snapshot must be identical. Then `logtool undo` must give
#     back the crashed bytes exactly, and Kafka must start on the recovered dir
#     and a consumer read exactly the records logtool's dump of it holds.
#     With --roll, Kafka started on the result recovers no segment that
#     holds data, and serves the same records.
#  4. truncate-to-hw and retain on recovered copies: Kafka starts on them and a
#     consumer reads exactly the records that should remain.
#  5. reindex: every index of a cleanly stopped dir deleted; Kafka's rebuild and
#     `logtool reindex --execute` must write the same bytes.
#  6. Dry runs change no byte (hash of the dir before and after).
#  7. Header damage Kafka cannot recover from: one field outside the CRC
#     (baseOffset high and low byte, batchLength larger, smaller and
#     2^31-1, partitionLeaderEpoch, magic) flipped in a batch in the middle
#     of kill-plain-0's active segment: `logtool recover --execute` cuts
#     exactly at that batch, verify finds no error, Kafka started on the
#     result serves every record before it and ends at its true base offset,
#     and undo gives back the damaged bytes. In a rolled segment, the plan
#     shows the cost and --execute refuses without --allow-data-loss.
#  8. Exclusive: while a repair is held at a crash point, Kafka started on
#     the same log dir does not get it (it cannot lock .lock); the repair
#     finishes, and undo restores every byte. (The broker's metadata log is
#     elsewhere: a combined broker whose metadata log is in the log dir loads
#     it before it locks the log dir; logtool then sees the change and stops.)
#
# Left out of the comparisons: __cluster_metadata-0 (the controller appends to
# it whenever it starts). __transaction_state-0 is removed from the crashed dir
# before anything else: its coordinator would complete pending transactions on
# start by appending markers to kill-txn-0, so Kafka's output would no longer
# be its recovery alone. Brokers bind 127.0.0.1 on free ports and are stopped
# by pid.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup repair
CLUSTER_ID=bG9ndG9vbC1yZXBhaXJz
# no timed-out transaction is aborted (with markers) while a broker runs here
BROKER_PROPS=("log.index.size.max.bytes=1048576"
  "transaction.abort.timed.out.transaction.cleanup.interval.ms=3600000")

# What a logtool command said, without its table of changes.
brief() { grep -v '[│┌└├]' "$1" | grep -v '^ *$' | sed 's/^/    logtool: /' >&2 || true; }

# Kafka starts on LOGDIR and a consumer reads exactly what logtool's dump of it
# holds (data records at or after each log start offset).
consume_check() { # LOGDIR NAME
  "$LT" dump --deep --payload hex --format json "$1" | python3 tests/interop/records.py >"$work/$2.expected" \
    || true
  [ -s "$work/$2.expected" ] || die "$2: logtool's dump of $1 holds no records"
  start_on "$1" "$2"
  kafka_java "$KAFKA_LIB_DIR/Workload.java" "$BOOTSTRAP" consume-all 2>"$work/$2.consumer.log" \
    | sort >"$work/$2.consumed" || { cat "$work/$2.consumer.log" >&2; die "$2: consumer failed"; }
  kafka_stop "$KAFKA_PID"
  diff "$work/$2.expected" "$work/$2.consumed" >&2 || die "$2: the consumer did not read what should remain"
  log "$2: Kafka started on the repaired dir; the consumer read the $(wc -l <"$work/$2.consumed") expected records"
}

# The producer snapshots of A's and B's data partitions are the same files
# with the same bytes (rules::recovery::snapshots_on_load: what each segment
# recovery deletes and the scans write again).
same_snapshots() { # A B WHAT
  local a=$1 b=$2 f
  snaps() { (cd "$1" && find . -path ./__cluster_metadata-0 -prune -o -name '*.snapshot' -print | sort); }
  diff <(snaps "$a") <(snaps "$b") >&2 || die "$3: not the same producer snapshots"
  while read -r f; do cmp "$a/$f" "$b/$f" >&2 || die "$3: $f differs"; done < <(snaps "$a")
  log "$3: $(snaps "$a" | wc -l) producer snapshots identical"
}

# ---- 1. the crash -----------------------------------------------------------
crash=$work/crash
bport=$(free_port); cport=$(free_port)
# recovery points checkpointed every second: Kafka recovers only the segments
# above them, and so must logtool
kraft_config "$work/crash.properties" "$crash" "$bport" "$cport" "${BROKER_PROPS[@]}" \
  "log.flush.offset.checkpoint.interval.ms=1000"
kraft_format "$work/crash.properties" "$CLUSTER_ID"
kafka_start "$work/crash.properties" "$work/crash.broker.log" "$bport"
kafka_java_bg "$work/workload.out" "$KAFKA_LIB_DIR/Workload.java" "127.0.0.1:$bport" forever
wpid=$BG_PID
i=0
until grep -q READY "$work/workload.out"; do
  running_child "$wpid" || { cat "$work/workload.out" >&2; die "workload died"; }
  [ $i -gt 1200 ] && die "workload not ready"
  sleep 0.1; i=$((i + 1))
done
# kill when the high watermarks have been checkpointed (every 5 s) and
# kill-plain-0's active segment holds a good number of batches
i=0
until grep -q '^kill-plain 0 ' "$crash/replication-offset-checkpoint" 2>/dev/null \
    && grep -q '^kill-plain 0 ' "$crash/recovery-point-offset-checkpoint" 2>/dev/null; do
  [ $i -gt 600 ] && die "no checkpointed high watermark for kill-plain-0"
  sleep 0.1; i=$((i + 1))
done
i=0
while :; do
  active=$(find "$crash/kill-plain-0" -name '*.log' | sort | tail -1)
  [ "$(stat -c %s "$active")" -ge 12000 ] && break
  [ $i -gt 600 ] && die "kill-plain-0's active segment does not grow"
  sleep 0.1; i=$((i + 1))
done
# kill between two high-watermark checkpoints (every 5 s): at the next
# rewrite, then 2 s more of writes, so the checkpointed HWs lag the log ends
seen=$(cat "$crash/replication-offset-checkpoint"); i=0
while [ "$(cat "$crash/replication-offset-checkpoint" 2>/dev/null)" = "$seen" ]; do
  [ $i -gt 600 ] && die "the high watermarks are not checkpointed any more"
  sleep 0.05; i=$((i + 1))
done
sleep 2
# the kill must find a few batches in kill-plain-0's active segment (not
# just after a roll): section 2 damages its last ones
live_batches() {
  local seg
  seg=$(cd "$crash/kill-plain-0" && ls ./*.log | sort | tail -1)
  "$LT" dump --format json "$crash/kill-plain-0/$seg" 2>/dev/null | grep -c '"type":"batch"' || true
}
i=0
until [ "$(live_batches)" -ge 4 ]; do
  [ $i -gt 600 ] && die "kill-plain-0's active segment does not fill"
  sleep 0.05; i=$((i + 1))
done
log "SIGKILL broker pid $KAFKA_PID while it is being written to"
kafka_kill "$KAFKA_PID"
kafka_kill "$wpid"
[ ! -f "$crash/.kafka_cleanshutdown" ] || die "clean shutdown marker after SIGKILL"
rm -rf "$crash"/__transaction_state-*
python3 - "$crash"/*-offset-checkpoint <<'EOF'
import sys
for path in sys.argv[1:]:  # version, entry count, entries
    lines = open(path).read().splitlines()
    entries = [l for l in lines[2:] if not l.startswith("__transaction_state ")]
    open(path, "w").write("\n".join(lines[:1] + [str(len(entries))] + entries) + "\n")
EOF

# ---- 2. three crashed dirs --------------------------------------------------
cp -a "$crash" "$work/in-a"
cp -a "$crash" "$work/in-b"
cp -a "$crash" "$work/in-c"
# the batches of kill-plain-0's last segment: "position size" per line
last_seg=$(cd "$crash/kill-plain-0" && ls ./*.log | sort | tail -1)
batches() { "$LT" dump --format json "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    v = json.loads(l)
    if v["type"] == "batch": print(v["position"], v["size"])'; }
mapfile -t bs < <(batches "$crash/kill-plain-0/$last_seg")
[ ${#bs[@]} -ge 3 ] || die "kill-plain-0/$last_seg holds only ${#bs[@]} batches"
read -r pos size <<<"${bs[-1]}"
truncate -s $((pos + size / 2)) "$work/in-b/kill-plain-0/$last_seg"
log "(b) kill-plain-0/$last_seg cut at $((pos + size / 2)), in its last batch [$pos, $((pos + size)))"
read -r pos size <<<"${bs[${#bs[@]} / 2]}"
flip=$((pos + 61 + (size - 61) / 2))
python3 - "$work/in-c/kill-plain-0/$last_seg" "$flip" <<'EOF'
import sys
path, at = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(at)
    b = f.read(1)
    f.seek(at)
    f.write(bytes([b[0] ^ 0xFF]))
EOF
log "(c) kill-plain-0/$last_seg: byte $flip flipped, in batch [$pos, $((pos + size))) of ${#bs[@]}"

# ---- 6. dry runs change nothing --------------------------------------------
before=$(tree_hash "$work/in-a")
for cmd in "recover" "recover --all" "truncate-to-hw" "reindex" "retain --max-bytes 1" "retain --log-start 100"; do
  # shellcheck disable=SC2086
  "$LT" $cmd "$work/in-a" >/dev/null && rc=0 || rc=$?
  [ $rc = 1 ] || die "dry run of $cmd: exit $rc, expected 1 (changes planned)"
done
"$LT" truncate --to 10 "$work/in-a/kill-plain-0" >/dev/null && rc=0 || rc=$?
[ $rc = 1 ] || die "dry run of truncate: exit $rc"
[ "$before" = "$(tree_hash "$work/in-a")" ] || die "a dry run changed the log dir"
[ ! -e "$work/in-a.logtool-quarantine" ] || die "a dry run made a quarantine"
log "dry runs of recover, truncate-to-hw, truncate, reindex, retain changed no byte"

# ---- 3. recover: Kafka vs logtool ------------------------------------------
for v in a b c; do
  cp -a "$work/in-$v" "$work/kafka-$v"
  cp -a "$work/in-$v" "$work/logtool-$v"
  start_on "$work/kafka-$v" "kafka-$v"
  grep -E "Recovering unflushed segment|Found invalid messages|Deleting segment files" "$work/kafka-$v.broker.log" \
    | sed 's/^/    kafka: /' | head -20 >&2 || true
  kafka_stop "$KAFKA_PID"
  [ -f "$work/kafka-$v/.kafka_cleanshutdown" ] || die "kafka-$v: no clean shutdown"
  "$LT" recover --execute "$work/logtool-$v" >"$work/logtool-$v.out" || { cat "$work/logtool-$v.out" >&2; die "recover $v failed"; }
  brief "$work/logtool-$v.out"
  same_segments "$work/kafka-$v" "$work/logtool-$v" "recover ($v)"
  same_snapshots "$work/kafka-$v" "$work/logtool-$v" "recover ($v)"
  # what logtool's repair leaves is a log dir a healthy broker could have left
  "$LT" verify --deep --fail-on warning "$work/logtool-$v" >"$work/verify-$v.out" \
    || { cat "$work/verify-$v.out" >&2; die "verify after recover ($v)"; }
  # undo gives back the crashed bytes, and recovering again gives the same result
  "$LT" undo --execute "$work/logtool-$v" >/dev/null
  [ "$(tree_hash "$work/in-$v")" = "$(tree_hash "$work/logtool-$v")" ] || die "undo ($v) did not restore every byte"
  "$LT" recover --execute "$work/logtool-$v" >/dev/null
  same_segments "$work/kafka-$v" "$work/logtool-$v" "recover after undo ($v)"
done

# ---- 4. Kafka starts on repaired dirs --------------------------------------
cp -a "$work/logtool-a" "$work/hw"
cp -a "$work/logtool-a" "$work/retain"
"$LT" truncate-to-hw --format json "$work/hw" >"$work/hw.plan" && rc=0 || rc=$?
grep -q '"type":"loss"' "$work/hw.plan" || die "truncate-to-hw: nothing above the checkpointed high watermark (rc $rc)"
"$LT" truncate-to-hw --execute "$work/hw" >"$work/hw.out"
brief "$work/hw.out"
# kill-plain-0 in the log dir $1, from logtool's dump: its checkpointed high
# watermark on the first line, then one line per batch: base_offset
# last_offset size file
plain_batches() { "$LT" dump --format json "$1" | python3 -c '
import json, sys
hw, rows = None, []
for l in sys.stdin:
    v = json.loads(l)
    if v["type"] == "checkpoint_entry" and v["file"].endswith("replication-offset-checkpoint") \
            and v["topic"] == "kill-plain" and v["partition"] == 0:
        hw = v["offset"]
    elif v["type"] == "batch" and "/kill-plain-0/" in v["file"]:
        rows.append("%d %d %d %s" % (v["base_offset"], v["last_offset"], v["size"], v["file"]))
print(hw)
print("\n".join(rows))'; }
# retention by size that keeps kill-plain-0's segments from the one before
# the segment holding its high watermark's last offset (at least 40000
# bytes): whole batches below the high watermark stay for the log-start
# move below, wherever the SIGKILL left the checkpointed high watermark (a
# fixed 40000 once kept only segments above it)
keep=$(plain_batches "$work/retain" | python3 -c '
import sys
hw, *rows = sys.stdin.read().split("\n")
hw, segs = int(hw), {}
for r in filter(None, rows):
    base, _, size, f = r.split(" ", 3)
    segs.setdefault(f, []).append((int(base), int(size)))
files = sorted(segs, key=lambda f: segs[f][0][0])
holding = max((i for i, f in enumerate(files) if segs[f][0][0] <= hw - 1), default=0)
print(max(40000, sum(size for f in files[max(holding - 1, 0):] for _, size in segs[f])))')
"$LT" retain --max-bytes "$keep" --execute "$work/retain" >"$work/retain-bytes.out"
brief "$work/retain-bytes.out"
# move kill-plain-0's log start into the middle of a batch below the high watermark
mid=$(plain_batches "$work/retain" | python3 -c '
import sys
hw, *rows = sys.stdin.read().split("\n")
hw = int(hw)
below = [b for b in (tuple(map(int, r.split(" ")[:2])) for r in filter(None, rows)) if b[1] < hw]
if not below:
    sys.exit(f"no kill-plain-0 batch below its high watermark {hw} is left after retention")
b = below[len(below) // 2]
print(b[0] + 1 if b[1] > b[0] else b[0])')
"$LT" retain --log-start "$mid" --execute "$work/retain/kill-plain-0" >"$work/retain-start.out"
brief "$work/retain-start.out"
grep -q "^kill-plain 0 $mid\$" "$work/retain/log-start-offset-checkpoint" || die "retain: log start not $mid"
for d in hw retain; do
  "$LT" verify --deep --fail-on warning "$work/$d" >"$work/verify-$d.out" \
    || { cat "$work/verify-$d.out" >&2; die "verify after $d"; }
done
for d in logtool-a logtool-b logtool-c hw retain; do
  consume_check "$work/$d" "consume-$d"
done

# ---- 3b. recover --roll: the broker's next start recovers nothing -----------
for v in a b c; do
  cp -a "$work/in-$v" "$work/roll-$v"
  "$LT" recover --execute --roll "$work/roll-$v" >"$work/roll-$v.out" || { cat "$work/roll-$v.out" >&2; die "recover --roll $v failed"; }
  "$LT" verify --deep --fail-on warning "$work/roll-$v" >"$work/verify-roll-$v.out" \
    || { cat "$work/verify-roll-$v.out" >&2; die "verify after recover --roll ($v)"; }
  consume_check "$work/roll-$v" "consume-roll-$v"
  diff "$work/consume-logtool-$v.consumed" "$work/consume-roll-$v.consumed" >&2 \
    || die "recover --roll ($v): Kafka served other records than after logtool's plain recovery"
  # every segment the broker recovered at start was empty (the rolled one)
  grep -q "Recovering unflushed segment [0-9]*\. .* for kill-" "$work/consume-roll-$v.broker.log" \
    || die "recover --roll ($v): Kafka logged no recovery at all (an unclean start recovers at least the rolled segment)"
  grep -o "Recovering unflushed segment [0-9]*\. .* for kill-[a-z0-9-]*" "$work/consume-roll-$v.broker.log" \
    | while read -r _ _ _ off _ _ _ tp; do
      seg=$work/roll-$v/$tp/$(printf '%020d' "${off%.}").log
      [ ! -s "$seg" ] || die "recover --roll ($v): Kafka recovered $seg again, which holds data"
    done
  log "recover --roll ($v): Kafka started recovering no segment with data and served the same records"
done

# ---- 5. reindex: Kafka's rebuild vs logtool's --------------------------------
cp -a "$work/kafka-a" "$work/reindex-kafka"
find "$work/reindex-kafka" -type f \( -name '*.index' -o -name '*.timeindex' -o -name '*.txnindex' \) \
  -not -path '*/__cluster_metadata-0/*' -delete
cp -a "$work/reindex-kafka" "$work/reindex-logtool"
start_on "$work/reindex-kafka" reindex-kafka
kafka_stop "$KAFKA_PID"
"$LT" reindex --execute "$work/reindex-logtool" >"$work/reindex.out"
brief "$work/reindex.out"
same_segments "$work/reindex-kafka" "$work/reindex-logtool" "reindex"

# ---- 7. header damage Kafka cannot recover from ------------------------------
# one batch in the middle of a segment: "position base_offset size"
middle_batch() { "$LT" dump --format json "$1" | python3 -c '
import json, sys
b = [v for v in map(json.loads, sys.stdin) if v["type"] == "batch"]
m = b[len(b) // 2]
print(m["position"], m["base_offset"], m["size"])'; }
# damage FILE POS FIELD: change one header field of the batch at POS
damage() { python3 - "$1" "$2" "$3" <<'EOF2'
import struct, sys
path, pos, field = sys.argv[1], int(sys.argv[2]), sys.argv[3]
b = bytearray(open(path, "rb").read())
length = struct.unpack(">i", b[pos + 8:pos + 12])[0]
if field == "base-high": b[pos + 1] ^= 0xFF
elif field == "base-low": b[pos + 7] ^= 0xFF
elif field == "length-larger": b[pos + 8:pos + 12] = struct.pack(">i", length + 200)
elif field == "length-smaller": b[pos + 8:pos + 12] = struct.pack(">i", length - 20)
elif field == "length-max": b[pos + 8:pos + 12] = struct.pack(">i", 2**31 - 1)
elif field == "epoch": b[pos + 12] ^= 0x80
elif field == "magic": b[pos + 16] ^= 0xFF
open(path, "wb").write(b)
EOF2
}
active=$(cd "$work/in-a/kill-plain-0" && ls ./*.log | sort | tail -1)
for field in base-high base-low length-larger length-smaller length-max epoch magic; do
  d=$work/hd-$field
  cp -a "$work/in-a" "$d"
  rm -rf "$d.logtool-quarantine"
  read -r pos base _ < <(middle_batch "$d/kill-plain-0/$active")
  damage "$d/kill-plain-0/$active" "$pos" "$field"
  "$LT" recover --execute "$d" >"$work/hd-$field.out" || { cat "$work/hd-$field.out" >&2; die "header damage $field: recover failed"; }
  size=$(stat -c %s "$d/kill-plain-0/$active")
  [ "$size" = "$pos" ] || die "header damage $field: cut at $size, not at the damaged batch's byte $pos"
  "$LT" verify --deep "$d" >"$work/hd-verify-$field.out" || { cat "$work/hd-verify-$field.out" >&2; die "header damage $field: verify after recover"; }
  consume_check "$d" "hd-$field"
  grep -q "read kill-plain-0 up to $base " "$work/hd-$field.consumer.log" \
    || { cat "$work/hd-$field.consumer.log" >&2; die "header damage $field: Kafka does not end kill-plain-0 at $base"; }
  log "header damage $field: cut at byte $pos; Kafka serves offsets up to $base"
done
# undo gives back the damaged bytes (on a copy Kafka never started on)
d=$work/hd-undo
cp -a "$work/in-a" "$d"
read -r pos base _ < <(middle_batch "$d/kill-plain-0/$active")
damage "$d/kill-plain-0/$active" "$pos" base-low
damaged=$(tree_hash "$d")
"$LT" recover --execute "$d" >/dev/null
"$LT" undo --execute "$d" >/dev/null
[ "$(tree_hash "$d")" = "$damaged" ] || die "header damage: undo did not restore the damaged bytes"
# in a rolled segment: the plan shows the cost; --execute refuses without --allow-data-loss
d=$work/hd-rolled
cp -a "$work/in-a" "$d"
rolled=$(cd "$d/kill-plain-0" && ls ./*.log | sort | head -1)
read -r pos base _ < <(middle_batch "$d/kill-plain-0/$rolled")
damage "$d/kill-plain-0/$rolled" "$pos" base-high
before=$(tree_hash "$d")
"$LT" recover --all --format json "$d" >"$work/hd-rolled.plan" && rc=0 || rc=$?
[ $rc = 1 ] || die "rolled-segment damage: the plan exits $rc"
grep -q '"type":"loss"' "$work/hd-rolled.plan" || die "rolled-segment damage: the plan shows no loss"
grep -q 'allow-data-loss' "$work/hd-rolled.plan" || die "rolled-segment damage: the plan does not ask for --allow-data-loss"
"$LT" recover --all --execute "$d" >/dev/null 2>"$work/hd-rolled.err" && rc=0 || rc=$?
[ $rc = 2 ] || die "rolled-segment damage: --execute without --allow-data-loss exits $rc"
[ "$(tree_hash "$d")" = "$before" ] || die "rolled-segment damage: a refused recovery changed the log dir"
"$LT" recover --all --execute --allow-data-loss "$d" >/dev/null
size=$(stat -c %s "$d/kill-plain-0/$rolled")
[ "$size" = "$pos" ] || die "rolled-segment damage: cut at $size, not at byte $pos"
log "header damage in a rolled segment: refused without --allow-data-loss, cut at byte $pos with it"

# ---- 8. a repair is exclusive, also against a broker -------------------------
d=$work/excl
cp -a "$work/in-a" "$d"
# (the broker's metadata log in a dir of its own: with the metadata log in the
# log dir, a combined broker loads it before it locks the log dir, see GUIDE.md)
mkdir -p "$work/excl-meta"
mv "$d/__cluster_metadata-0" "$work/excl-meta/"
cp -a "$d/meta.properties" "$work/excl-meta/"
# (each log dir of a node has its own directory id)
python3 - "$work/excl-meta/meta.properties" <<'EOF2'
import base64, os, sys
lines = open(sys.argv[1]).read().splitlines()
new = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")
open(sys.argv[1], "w").write("\n".join("directory.id=" + new if l.startswith("directory.id=") else l for l in lines) + "\n")
EOF2
original=$(tree_hash "$d")
pause=$work/pause
mkdir -p "$pause"
LOGTOOL_TEST_PAUSE_AT=2 LOGTOOL_TEST_PAUSE_DIR=$pause "$LT" recover --execute "$d" >"$work/excl.out" 2>&1 &
rpid=$!
i=0
until [ -e "$pause/paused" ]; do
  [ $i -gt 300 ] && die "exclusive: the repair did not reach its pause"
  sleep 0.1; i=$((i + 1))
done
bport=$(free_port); cport=$(free_port)
kraft_config "$work/excl.properties" "$d" "$bport" "$cport" "${BROKER_PROPS[@]}" "metadata.log.dir=$work/excl-meta"
kafka_java_bg "$work/excl.broker.log" kafka.Kafka "$work/excl.properties"
kpid=$BG_PID
# the broker must not get the log dir: it fails to lock .lock and stops
i=0
while running_child "$kpid"; do
  [ $i -gt 1200 ] && { tail -30 "$work/excl.broker.log" >&2; die "exclusive: the broker kept running on a log dir a repair holds"; }
  grep -q "Kafka Server started" "$work/excl.broker.log" && { tail -30 "$work/excl.broker.log" >&2; die "exclusive: the broker started on a log dir a repair holds"; }
  sleep 0.1; i=$((i + 1))
done
kafka_kill "$kpid"
grep -qi "lock" "$work/excl.broker.log" || { tail -30 "$work/excl.broker.log" >&2; die "exclusive: the broker did not say it could not lock the log dir"; }
log "exclusive: Kafka refused the log dir a repair holds: $(grep -i 'lock' "$work/excl.broker.log" | head -1 | cut -c1-160)"
touch "$pause/resume"
wait "$rpid" || { cat "$work/excl.out" >&2; die "exclusive: the held repair did not finish"; }
"$LT" undo --execute "$d" >/dev/null
[ "$(tree_hash "$d")" = "$original" ] || die "exclusive: undo did not restore every byte"
log "exclusive: the repair finished after the broker gave up; undo restored every byte"
log "repair interop: all checks passed"
