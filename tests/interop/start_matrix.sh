#!/usr/bin/env bash
# Interop: `logtool recover` against what Kafka's start does on the partial
# states operators and tools leave (the table "what Kafka does on start" in
# GUIDE.md and logfmt's rules::recovery), on Kafka 3.9.1 and 4.3.1 (or the
# 4.x release LOGTOOL_KAFKA4_VERSION names: 4.4.0 in the interop suite).
#
# For each version, a log dir that release wrote and stopped cleanly (the
# clean scenario for 3.9.1, kafka4 for 4.3.1: fresh from data.sh in CI) is
# copied four times:
#   base     as it is
#   control  Kafka started on it and stopped cleanly: what a start changes on
#            an undamaged dir (an epoch bumped, a stray snapshot deleted,
#            .deleted leftovers removed) is restart noise
#   kafka    damaged (tests/interop/start_matrix.py: one row of the table per
#            partition, as many rows as the dir has partitions of the right
#            shape), then started and stopped like control
#   logtool  damaged the same way, then `logtool recover --execute`
# and then every file of every damaged partition must be as Kafka's start
# left it (noise aside), every other partition untouched, and the log dir's
# checkpoints moved only where Kafka's start moved them; `verify` on the
# damaged copy reports each damaged partition, and finds no warning or
# error after the repair; `undo` gives back the damaged bytes.
#
# LOGTOOL_FIXTURES / LOGTOOL_FIXTURES_4 name fresh data (tests/interop/run.sh);
# the committed fixtures otherwise. LOGTOOL_START_MATRIX_SAVE=1 (with the
# committed fixtures) keeps what Kafka did for `cargo test`
# (tests/start_matrix.rs): fixtures/kafka-<version>/start-matrix/ gets each
# round's damaged partitions (input/), what Kafka's start left of them and
# of the log dir's checkpoints (kafka/), and the control start's (control/),
# each as a difference from the committed dir (start_matrix.py save); and in
# starts, "row file outcome" for each start Kafka refused (refused) or where
# it set a dir aside (stray).
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup start_matrix
fixtures=${LOGTOOL_FIXTURES:-$PWD/fixtures/kafka-3.9.1}
fixtures4=${LOGTOOL_FIXTURES_4:-$PWD/fixtures/kafka-4.3.1}
# the 4.x release (LOGTOOL_KAFKA4_VERSION, with its fresh data in
# LOGTOOL_FIXTURES_4: the interop suite runs 4.4.0), and its label
K4_VERSION=${LOGTOOL_KAFKA4_VERSION:-4.3.1}
V4=${K4_VERSION%.*}
K4_LIBS=$(kafka_libs_of "$K4_VERSION")
# The matrix compares what a start does, so the log cleaner is held off: with
# cleaner-offset-checkpoint lost (checkpoints_lost) it cleans a compacted
# partition from its start again, merging segments, whenever its first pass
# runs before the stop (a race; recover leaves that to Kafka). Topics that set
# their own min.compaction.lag.ms keep theirs.
BROKER_PROPS=("log.retention.ms=-1" "log.cleaner.min.compaction.lag.ms=3153600000000")

# Start node 1 on LOGDIR with release V's jars, wait until it has loaded its
# logs, stop it cleanly.
start_stop() { # V LOGDIR NAME
  start_version "$1" "$2" "$3"
  kafka_wait_started "$work/$3.broker.log" "$KAFKA_PID"
  kafka_stop "$KAFKA_PID"
  [ -f "$2/.kafka_cleanshutdown" ] || die "$3: Kafka did not stop cleanly"
}

# The damaged partitions verify says nothing about (it must name each).
unreported() { # LOGDIR ROWS
  { "$LT" verify --format json "$1" || true; } | python3 -c '
import json, os, sys
said = set()
for l in sys.stdin:
    v = json.loads(l)
    if v.get("type") == "finding" and v.get("file"):
        said.add(os.path.relpath(v["file"], sys.argv[2]).split(os.sep)[0])
sys.path.insert(0, "tests/interop")
from start_matrix import KEPT
for row in open(sys.argv[1]):
    name, part, _ = row.split()
    # (damage Kafka keeps needs no word: it changed nothing)
    if part not in said and name not in KEPT:
        print(name, part)' "$2" "$1"
}

# One round: the rows not yet done (in $work/$v.done) put into a copy of
# BASE, Kafka started on one copy, recover on another, compared. Returns 1
# when no row was left to put in.
round() { # V ROUND
  local v=$1 r=$2 d=$work/$1-$2 c
  cp -a "$work/$v-base" "$d-kafka"
  python3 tests/interop/start_matrix.py damage "$d-kafka" "$d.rows" "$work/$v.done" kafka >&2
  [ -s "$d.rows" ] || { rm -rf "$d-kafka"; return 1; }
  cat "$d.rows" >>"$work/$v.done"
  cp -a "$work/$v-base" "$d-logtool"
  python3 tests/interop/start_matrix.py damage "$d-logtool" "$d.rows.again" "$work/$v.done.before" >/dev/null
  cmp -s "$d.rows" "$d.rows.again" || die "$v round $r: the damage is not the same twice"
  cp -a "$d-logtool" "$d-damaged"
  c=$(unreported "$d-damaged" "$d.rows")
  [ -z "$c" ] || die "$v round $r: verify reports nothing for these damaged partitions: $c"
  start_stop "$v" "$d-kafka" "$v-$r-kafka"
  grep -E "recovering segment|Could not find offset index|corrupted index|Failed to load producer snapshot" \
    "$work/$v-$r-kafka.broker.log" | sed 's/^/    kafka: /' | head -20 >&2 || true
  # (Kafka cuts a rolled segment without asking: --allow-data-loss)
  "$LT" recover --execute --allow-data-loss "$d-logtool" >"$d-recover.out" \
    || { cat "$d-recover.out" >&2; die "$v round $r: recover --execute failed"; }
  python3 tests/interop/start_matrix.py compare "$work/$v-base" "$work/$v-control" "$d-kafka" \
    "$d-logtool" "$d.rows" >&2 || { cat "$d-recover.out" >&2; die "$v round $r: recover did not do what Kafka's start did"; }
  # no warning or error after the repair, but where Kafka keeps the damage too
  "$LT" verify --format json "$d-logtool" >"$d-verify.out" || true
  python3 -c '
import json, os, sys
kept = set(sys.argv[2:])
for l in open(sys.argv[1]):
    v = json.loads(l)
    if v.get("type") == "finding" and v["severity"] != "info":
        part = os.path.relpath(v["file"], os.path.dirname(sys.argv[1]) + "/" + os.path.basename(sys.argv[1])[:-len("-verify.out")] + "-logtool").split(os.sep)[0]
        if part not in kept:
            sys.exit("%s: %s %s" % (v["file"], v["kind"], v["message"]))' "$d-verify.out" \
    $(python3 tests/interop/start_matrix.py kept "$d.rows") || die "$v round $r: verify finds a problem after recover"
  "$LT" undo --execute "$d-logtool" >/dev/null
  [ "$(tree_hash "$d-damaged")" = "$(tree_hash "$d-logtool")" ] || die "$v round $r: undo did not restore every byte"
  log "Kafka $v round $r: recover did what the start did on $(wc -l <"$d.rows") damaged partitions; verify named each"
  [ -z "${LOGTOOL_START_MATRIX_SAVE:-}" ] || save_round "$v" "$r"
}

# Keep round R of version V under fixtures/ (see the top).
save_round() { # V R
  local v=$1 r=$2 d=$work/$1-$2 to part cp keep=tests/interop/start_matrix.py
  to=$(saved "$v")/round-$r
  rm -rf "$to"
  mkdir -p "$to"
  cp "$d.rows" "$to/rows"
  while read -r _ part _; do
    python3 "$keep" save "$work/$v-base" "$d-damaged" "$part" "$to/input"
    python3 "$keep" save "$work/$v-base" "$d-kafka" "$part" "$to/kafka"
    python3 "$keep" save "$work/$v-base" "$work/$v-control" "$part" "$(saved "$v")/control"
  done <"$d.rows"
  for cp in recovery-point-offset-checkpoint replication-offset-checkpoint log-start-offset-checkpoint \
    cleaner-offset-checkpoint; do
    [ ! -f "$d-kafka/$cp" ] || python3 "$keep" save "$work/$v-base" "$d-kafka" "$cp" "$to/kafka"
    [ ! -f "$work/$v-control/$cp" ] || python3 "$keep" save "$work/$v-base" "$work/$v-control" "$cp" "$(saved "$v")/control"
  done
}
saved() { case $1 in 3.9) echo fixtures/kafka-3.9.1/start-matrix ;; *) echo fixtures/kafka-4.3.1/start-matrix ;; esac; }

# Kafka refused to start: it exited, or its only log dir failed. A 4.x
# broker reads replication-offset-checkpoint when the metadata publishes the
# partitions, which can be just after "Kafka Server started"; the log dir
# fails and the broker halts then, so a start is watched a while longer.
refused_start() { # NAME
  local i=0 log=$work/$1.broker.log
  started_or_exited "$1" || return 0
  until ! running_child "$KAFKA_PID" || grep -q "have failed" "$log"; do
    [ $i -gt 150 ] && return 1
    sleep 0.1; i=$((i + 1))
  done
}

# A refusal row: Kafka does not start on the damaged copy (it exits before
# "Kafka Server started"), and verify says so: an error on the damaged file
# and a start plan that refuses.
refusal() { # V ROW
  local v=$1 row=$2 d=$work/$1-$2 rel said
  cp -a "$work/$v-base" "$d"
  rel=$(python3 tests/interop/start_matrix.py refuse "$d" "$row")
  [ -n "$rel" ] || { log "Kafka $v: no file of the dir fits $row"; rm -rf "$d"; return 0; }
  said=$({ "$LT" verify --format json "$d" || true; } | python3 -c '
import json, os, sys
d, rel = sys.argv[1], sys.argv[2]
err = plan = False
for l in sys.stdin:
    v = json.loads(l)
    if v.get("type") == "finding" and v["severity"] == "error" and os.path.relpath(v["file"], d) == rel:
        err = True
    if v.get("type") == "start_plan" and v["refusals"] > 0:
        plan = True
print("error" if err else "no error on the file", "refused" if plan else "no refusal in the start plan")' "$d" "$rel")
  # (a voter that is not one waits for its registration to time out: 60 s
  # by default)
  local extra=()
  [ "$row" != meta_properties_directory_id_missing ] || extra=("initial.broker.registration.timeout.ms=15000")
  start_version "$v" "$d" "$v-$row" "${extra[@]}"
  if ! refused_start "$v-$row"; then
    kafka_stop "$KAFKA_PID"
    die "Kafka $v started on $row ($rel); verify said: $said"
  fi
  kafka_stop "$KAFKA_PID"
  [ "$said" = "error refused" ] || die "Kafka $v refused to start on $row ($rel), but verify gives: $said"
  [ -z "${LOGTOOL_START_MATRIX_SAVE:-}" ] || echo "$row $rel refused" >>"$(saved "$v")/starts"
  log "Kafka $v refused to start on $row ($rel), as verify said: $(grep -a -m1 -iE 'have failed|fatal|No .meta' \
    "$work/$v-$row.broker.log" | cut -c1-160)"
  # recover says what makes it start, and where it can, does it
  cp -a "$work/$v-base" "$d-logtool"
  python3 tests/interop/start_matrix.py refuse "$d-logtool" "$row" >/dev/null
  "$LT" recover --execute "$d-logtool" >"$d-recover.out" 2>&1 || { cat "$d-recover.out" >&2; die "$v $row: recover failed"; }
  if [ "$row" = meta_properties_missing ]; then
    grep -q "meta.properties: missing: Kafka does not start" "$d-recover.out" \
      || { cat "$d-recover.out" >&2; die "$v $row: recover does not say why Kafka does not start"; }
    return 0
  fi
  start_stop "$v" "$d-logtool" "$v-$row-logtool"
  [ -z "$(cd "$d-logtool" && ls -d -- *-stray 2>/dev/null)" ] || die "$v $row: Kafka set a dir aside after recover"
  log "Kafka $v started on the dir recover left ($row)"
}

# A garbage .index of a last segment after a clean shutdown (start_matrix.py's
# AS_IF): Kafka's load takes the log end from its last entry, finds no batch
# there and hides the segment's records (the log end, high watermark and
# recovery point become the segment's base), as verify says (log_end_hidden).
# The rounds compare recover with Kafka's start on the lost index instead.
hidden_row() { # V
  local v=$1 d=$work/$1-hidden part base
  cp -a "$work/$v-base" "$d"
  read -r part base < <(python3 -c '
import os, sys
sys.path.insert(0, "tests/interop")
import start_matrix as m
for p in m.data_partitions(sys.argv[1]):
    pdir = os.path.join(sys.argv[1], p)
    b = m.last(pdir, m.segments(pdir))
    if b is not None:
        m.overwrite(m.seg(pdir, b, m.INDEX), b"\x7f" * 24)
        print(p, b)
        break' "$d")
  { "$LT" verify --format json "$d" || true; } | grep '"kind":"log_end_hidden"' | grep -q "/$part/" \
    || die "$v: verify does not say the garbage index of $part hides its records"
  start_stop "$v" "$d" "$v-hidden"
  python3 - "$d" "$part" "$base" <<'PY' || die "$v: Kafka did not hide the records of $part"
import sys
sys.path.insert(0, "tests/interop")
import start_matrix as m
d, part, base = sys.argv[1], sys.argv[2], sys.argv[3]
topic, _, n = part.rpartition("-")
cp = m.checkpoint(d + "/recovery-point-offset-checkpoint")
sys.exit(0 if cp.get((topic, n)) == base else "recovery point %s" % cp.get((topic, n)))
PY
  log "Kafka $v hid the records of $part behind its garbage .index (log end $base), as verify said"
}

# A log dir damaged as a whole where Kafka starts (start_matrix.py's STARTS:
# its four checkpoints lost, its cluster.id changed): verify finds no
# warning or error (the lost files said as info), Kafka's start changes no
# partition beyond restart noise, recover changes none either (and leaves the
# lost checkpoints to Kafka, which creates them), undo restores every byte.
dir_row() { # V ROW
  local v=$1 row=$2 d=$work/$1-$2 rel
  cp -a "$work/$v-base" "$d-kafka"
  rel=$(python3 tests/interop/start_matrix.py refuse "$d-kafka" "$row")
  cp -a "$d-kafka" "$d-logtool"
  cp -a "$d-kafka" "$d-damaged"
  python3 -c 'import sys; sys.path.insert(0, "tests/interop"); import start_matrix as m
for p in m.data_partitions(sys.argv[1]): print(sys.argv[2], p, 0)' "$d-kafka" "$row" >"$d.rows"
  { "$LT" verify --format json "$d-damaged" || true; } | python3 -c '
import json, sys
sys.path.insert(0, "tests/interop")
from start_matrix import LOST_CHECKPOINTS
said = set()
for l in sys.stdin:
    v = json.loads(l)
    if v.get("type") != "finding":
        continue
    if v["severity"] != "info":
        sys.exit("verify: %s %s %s" % (v["file"], v["kind"], v["message"]))
    if v["kind"] == "checkpoint_file_missing":
        said.add(v["file"].rsplit("/", 1)[-1])
missing = LOST_CHECKPOINTS.get(sys.argv[1], set()) - said
if missing:
    sys.exit("verify does not say these are missing: %s" % sorted(missing))' "$row" || die "$v $row: verify on the damaged dir"
  start_stop "$v" "$d-kafka" "$v-$row-kafka"
  "$LT" recover --execute "$d-logtool" >"$d-recover.out" || { cat "$d-recover.out" >&2; die "$v $row: recover failed"; }
  python3 tests/interop/start_matrix.py compare "$work/$v-base" "$work/$v-control" "$d-kafka" "$d-logtool" "$d.rows" >&2 \
    || { cat "$d-recover.out" >&2; die "$v $row: recover did not do what Kafka's start did"; }
  "$LT" undo --execute "$d-logtool" >/dev/null
  [ "$(tree_hash "$d-damaged")" = "$(tree_hash "$d-logtool")" ] || die "$v $row: undo did not restore every byte"
  [ -z "${LOGTOOL_START_MATRIX_SAVE:-}" ] || echo "$row $rel started" >>"$(saved "$v")/starts"
  log "Kafka $v started on $row, as verify said, changing no partition; neither did recover"
}

# A lost partition.metadata: Kafka starts, sets the dir aside (-stray) and
# serves the partition empty; verify says so; recover writes the topic id of
# the metadata log, and Kafka then loads the partition.
stray_row() { # V
  local v=$1 d=$work/$1-stray part
  cp -a "$work/$v-base" "$d"
  part=$(python3 tests/interop/start_matrix.py refuse "$d" partition_metadata_missing)
  part=${part%/partition.metadata}
  cp -a "$d" "$d-logtool"
  { "$LT" verify --format json "$d" || true; } | grep -q "\"kind\":\"stray_partition\".*$part" \
    || die "$v: verify does not call $part stray without its partition.metadata"
  start_stop "$v" "$d" "$v-stray"
  [ -n "$(cd "$d" && ls -d -- "$part".*-stray 2>/dev/null)" ] || die "$v: Kafka did not set $part aside"
  [ -z "${LOGTOOL_START_MATRIX_SAVE:-}" ] || echo "partition_metadata_missing $part/partition.metadata stray" >>"$(saved "$v")/starts"
  "$LT" recover --execute "$d-logtool" >"$d-recover.out" 2>&1 || { cat "$d-recover.out" >&2; die "$v: recover failed"; }
  start_stop "$v" "$d-logtool" "$v-stray-logtool"
  [ -z "$(cd "$d-logtool" && ls -d -- *-stray 2>/dev/null)" ] || die "$v: Kafka set a dir aside after recover"
  cmp -s "$d-logtool/$part/partition.metadata" "$work/$v-base/$part/partition.metadata" \
    || die "$v: recover wrote another partition.metadata than Kafka's"
  log "Kafka $v set $part aside without its partition.metadata, as verify said; recover wrote it back as it was, and Kafka loaded it"
}

# A KRaft voter of a dynamic quorum (formatted --standalone, as the 4.x
# dirs of data.sh are not) whose meta.properties lost its directory.id: the
# voter set names the old id, so Kafka V is no voter, elects no leader and
# exits when its registration times out, as verify says; recover writes the
# id back and Kafka starts. (3.9.1's clean dir is such a voter: the refusal
# row meta_properties_directory_id_missing.)
voter_row() { # V
  local v=$1 d=$work/$1-voter said
  # (formatted --standalone, configured with controller.quorum.bootstrap.servers)
  local -x KRAFT_QUORUM=dynamic
  local KAFKA_LIBS=$KAFKA_LIBS
  [ "$v" != 3.9 ] && KAFKA_LIBS=$K4_LIBS
  start_fresh "$d" "$v-voter-fresh"
  kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --topic vt \
    --partitions 1 >/dev/null
  seq 1 100 | kafka_java org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$BOOTSTRAP" --topic vt >/dev/null
  kafka_stop "$KAFKA_PID"
  cp "$d/meta.properties" "$work/$v-voter.meta.properties"
  python3 tests/interop/start_matrix.py refuse "$d" meta_properties_directory_id_missing >/dev/null
  cp -a "$d" "$d-logtool"
  said=$({ "$LT" verify --format json "$d" || true; } | grep -c '"kind":"start_refused".*directory.id' || true)
  [ "$said" -ge 1 ] || die "$v: verify does not say a voter without its directory.id does not start"
  start_version "$v" "$d" "$v-voter" "initial.broker.registration.timeout.ms=15000"
  if ! refused_start "$v-voter"; then
    kafka_stop "$KAFKA_PID"
    die "Kafka $v started as a voter without its directory.id"
  fi
  kafka_stop "$KAFKA_PID"
  "$LT" recover --execute "$d-logtool" >"$d-recover.out" 2>&1 || { cat "$d-recover.out" >&2; die "$v voter: recover failed"; }
  cmp -s "$d-logtool/meta.properties" "$work/$v-voter.meta.properties" || die "$v voter: recover wrote another meta.properties"
  start_stop "$v" "$d-logtool" "$v-voter-logtool"
  log "Kafka $v refused to start as a voter without its directory.id, as verify said; recover wrote it back, and Kafka started"
}

# A broker of two log dirs holding the same partition dir (a move between
# log dirs interrupted by a failure): Kafka does not start, and verify given
# both dirs says so.
duplicate_row() { # V
  local v=$1 a=$work/$1-dup-a b=$work/$1-dup-b part said
  cp -a "$work/$v-base" "$a"
  mkdir -p "$b"
  part=$(python3 -c 'import sys; sys.path.insert(0, "tests/interop"); import start_matrix as m; print(m.data_partitions(sys.argv[1])[0])' "$a")
  cp -a "$a/$part" "$b/"
  python3 - "$a/meta.properties" "$b/meta.properties" <<'PY'
import base64, os, sys
lines = open(sys.argv[1]).read().splitlines()
new = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")
open(sys.argv[2], "w").write("\n".join("directory.id=" + new if l.startswith("directory.id=") else l for l in lines) + "\n")
PY
  said=$({ "$LT" verify --format json "$a" "$b" || true; } | grep -c '"kind":"start_refused".*Duplicate log directories' || true)
  [ "$said" -ge 1 ] || die "$v: verify of both dirs does not say $part is in two"
  start_version "$v" "$a,$b" "$v-dup"
  if ! refused_start "$v-dup"; then
    kafka_stop "$KAFKA_PID"
    die "Kafka $v started with $part in two log dirs"
  fi
  kafka_stop "$KAFKA_PID"
  grep -aq "Duplicate log directories" "$work/$v-dup.broker.log" \
    || { tail -20 "$work/$v-dup.broker.log" >&2; die "Kafka $v stopped, but not for the duplicate $part"; }
  log "Kafka $v refused to start with $part in two log dirs, as verify of both said"
}

# A broker of two log dirs (Kafka V): jb-0 moved to the other dir and
# the move completed (its old replica left as a -delete dir), then big-0
# moved under a throttle and the broker SIGKILLed while big-0's -future
# replica is being copied. verify of both dirs finds no warning or error;
# recover changes neither replica's segments; Kafka started again on the
# recovered dirs finishes the move, and verify of both finds nothing then
# either (the -delete dirs are Kafka's); its DescribeLogDirs, asked while the
# move goes on, lists the replicas stats counts (the future one too).
jbod() { # V
  local v=$1 a=$work/$1-jb-a b=$work/$1-jb-b bport cport i=0 to json seg=262144
  # (the functions called see this release's jars; 4.x takes no segment.bytes below 1 MiB)
  local KAFKA_LIBS=$KAFKA_LIBS
  [ "$v" != 3.9 ] && KAFKA_LIBS=$K4_LIBS && seg=1048576
  bport=$(free_port); cport=$(free_port)
  kraft_config "$work/$v-jb.properties" "$a,$b" "$bport" "$cport" "${BROKER_PROPS[@]}" \
    "log.flush.offset.checkpoint.interval.ms=1000" "file.delete.delay.ms=600000"
  kraft_format "$work/$v-jb.properties" "$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)"
  kafka_start "$work/$v-jb.properties" "$work/$v-jb.broker.log" "$bport"
  kafka_wait_started "$work/$v-jb.broker.log" "$KAFKA_PID"
  for t in "jb 1000" "big 40000"; do
    set -- $t
    kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$bport" --create --topic "$1" \
      --partitions 1 --replication-factor 1 --config segment.bytes=$seg >&2
    kafka_java org.apache.kafka.tools.ProducerPerformance --topic "$1" --num-records "$2" --record-size 100 \
      --throughput -1 --producer-props "bootstrap.servers=127.0.0.1:$bport" acks=all >/dev/null
  done
  # move P to the dir it is not in; prints that dir
  move() { # PARTITION-DIR [THROTTLE]
    if [ -d "$a/$1" ]; then to=$b; else to=$a; fi
    json=$work/$v-move-$1.json
    printf '{"version":1,"partitions":[{"topic":"%s","partition":0,"replicas":[1],"log_dirs":["%s"]}]}' \
      "${1%-0}" "$to" >"$json"
    kafka_java org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "127.0.0.1:$bport" \
      --execute --reassignment-json-file "$json" ${2:+--replica-alter-log-dirs-throttle "$2"} >&2
  }
  move jb-0
  until [ -d "$to/jb-0" ] && ! ls -d "$a"/jb-0.*-future "$b"/jb-0.*-future >/dev/null 2>&1; do
    [ $i -gt 600 ] && die "jbod $v: the move of jb-0 did not complete"
    sleep 0.1; i=$((i + 1))
  done
  local jb_to=$to
  move big-0 200000
  i=0
  until ls "$to"/big-0.*-future/*.log >/dev/null 2>&1 && [ "$(du -sb "$to"/big-0.*-future | cut -f1)" -gt 400000 ]; do
    [ $i -gt 1200 ] && die "jbod $v: big-0's future replica does not grow"
    sleep 0.1; i=$((i + 1))
  done
  sleep 1.5
  kafka_kill "$KAFKA_PID"
  ls -d "$to"/big-0.*-future >/dev/null || die "jbod $v: the move of big-0 finished before the kill"
  log "jbod $v: jb-0 moved to $(basename "$jb_to"), big-0 killed moving to $(basename "$to"): $(cd "$a" && ls -d jb-* big-* | paste -sd' ') | $(cd "$b" && ls -d jb-* big-* | paste -sd' ')"
  "$LT" verify --fail-on warning "$a" "$b" >"$work/$v-jb-verify.out" \
    || { cat "$work/$v-jb-verify.out" >&2; die "jbod $v: verify of the two dirs finds a problem"; }
  cp -a "$a" "$a.before"; cp -a "$b" "$b.before"
  for d in "$a" "$b"; do
    "$LT" recover --execute "$d" >"$work/$v-jb-recover.out" || { cat "$work/$v-jb-recover.out" >&2; die "jbod $v: recover failed"; }
  done
  diff <(segment_files "$a.before") <(segment_files "$a") >&2 && diff <(segment_files "$b.before") <(segment_files "$b") >&2 \
    || die "jbod $v: recover changed the segments of the two dirs"
  "$LT" stats --format json "$a" "$b" >"$work/$v-jb-stats.json"
  kafka_start "$work/$v-jb.properties" "$work/$v-jb2.broker.log" "$bport"
  kafka_wait_started "$work/$v-jb2.broker.log" "$KAFKA_PID"
  # DescribeLogDirs of the restarted broker (the throttled move still under
  # way) lists what stats read: each replica in its dir, the future one too,
  # and a live replica's size as stats counts it
  kafka_java org.apache.kafka.tools.LogDirsCommand --bootstrap-server "127.0.0.1:$bport" --describe \
    --broker-list 1 2>/dev/null | grep '^{' >"$work/$v-jb-logdirs.json"
  python3 - "$work/$v-jb-logdirs.json" "$work/$v-jb-stats.json" <<'PY' || die "jbod $v: stats and Kafka's DescribeLogDirs differ"
import json, os, sys
kafka = json.load(open(sys.argv[1]))
stats = {}
for l in open(sys.argv[2]):
    v = json.loads(l)
    if v.get("scope") == "partition":
        d, name = os.path.split(v["path"])
        future = name.endswith("-future")
        stats[(d, name.split(".")[0] if future else name, future)] = v["log_bytes"]
seen = set()
bad = []
for b in kafka["brokers"]:
    for ld in b["logDirs"]:
        for p in ld["partitions"]:
            key = (ld["logDir"], p["partition"], p["isFuture"])
            seen.add(key)
            if key not in stats:
                bad.append("Kafka lists %s, stats does not" % (key,))
            elif not p["isFuture"] and stats[key] != p["size"]:
                bad.append("%s: Kafka says %d bytes, stats %d" % (key, p["size"], stats[key]))
bad += ["stats lists %s, Kafka does not" % (k,) for k in stats if k not in seen and not k[1].startswith("__")]
print("\n".join(bad) if bad else "  DescribeLogDirs lists what stats read: %d replicas, %d future" % (len(seen), sum(k[2] for k in seen)), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
  i=0
  until [ -d "$to/big-0" ] && ! ls -d "$to"/big-0.*-future >/dev/null 2>&1; do
    [ $i -gt 1200 ] && die "jbod $v: Kafka did not finish the move of big-0 after recover"
    sleep 0.1; i=$((i + 1))
  done
  kafka_stop "$KAFKA_PID"
  "$LT" verify --fail-on warning "$a" "$b" >"$work/$v-jb-verify2.out" \
    || { cat "$work/$v-jb-verify2.out" >&2; die "jbod $v: verify after the move finds a problem"; }
  log "jbod $v: verify of both dirs clean mid-move and after; Kafka resumed the move on what recover left"
}

# The log dir's .kafka_cleanshutdown lost: Kafka's start is an unclean one
# (the log's recovery from each recovery point, which after a clean stop is
# the log end: the last segment). A round of its own, every data partition
# a row; verify says unclean_shutdown; recover does what the start did.
marker_round() { # V [ROW]
  local v=$1 row=${2:-clean_shutdown_marker_lost} d=$work/$1-${2:-marker} r
  r=$(($(find "$work" -maxdepth 1 -name "$v-*.rows" -size +0 | wc -l) + 1))
  cp -a "$work/$v-base" "$d-kafka"
  rm "$d-kafka/.kafka_cleanshutdown"
  # the variant: its recovery points lost too (Kafka recovers every segment)
  [ "$row" = clean_shutdown_marker_lost ] || rm "$d-kafka/recovery-point-offset-checkpoint"
  python3 -c 'import sys; sys.path.insert(0, "tests/interop"); import start_matrix as m
for p in m.data_partitions(sys.argv[1]): print(sys.argv[2], p, 0)' "$d-kafka" "$row" >"$d.rows"
  cp -a "$d-kafka" "$d-logtool"
  cp -a "$d-kafka" "$d-damaged"
  { "$LT" verify --format json "$d-damaged" || true; } | grep -q '"kind":"unclean_shutdown"' \
    || die "$v: verify does not say the shutdown was unclean"
  start_stop "$v" "$d-kafka" "$v-${2:-marker}-kafka"
  "$LT" recover --execute "$d-logtool" >"$d-recover.out" || { cat "$d-recover.out" >&2; die "$v marker: recover failed"; }
  python3 tests/interop/start_matrix.py compare "$work/$v-base" "$work/$v-control" "$d-kafka" "$d-logtool" "$d.rows" >&2 \
    || { cat "$d-recover.out" >&2; die "$v: without the clean-shutdown marker, recover did not do what Kafka's start did"; }
  "$LT" verify --fail-on warning "$d-logtool" >"$d-verify.out" || { cat "$d-verify.out" >&2; die "$v marker: verify after recover"; }
  "$LT" undo --execute "$d-logtool" >/dev/null
  [ "$(tree_hash "$d-damaged")" = "$(tree_hash "$d-logtool")" ] || die "$v marker: undo did not restore every byte"
  log "Kafka $v: $row, recover did what the start did on $(wc -l <"$d.rows") partitions"
  if [ -n "${LOGTOOL_START_MATRIX_SAVE:-}" ]; then
    # as a round: no partition changed in input/, the marker's loss said by the row
    local to part
    to=$(saved "$v")/round-$r
    rm -rf "$to"; mkdir -p "$to"
    cp "$d.rows" "$to/rows"
    while read -r _ part _; do
      python3 tests/interop/start_matrix.py save "$work/$v-base" "$d-damaged" "$part" "$to/input"
      python3 tests/interop/start_matrix.py save "$work/$v-base" "$d-kafka" "$part" "$to/kafka"
      python3 tests/interop/start_matrix.py save "$work/$v-base" "$work/$v-control" "$part" "$(saved "$v")/control"
    done <"$d.rows"
    for cp in recovery-point-offset-checkpoint replication-offset-checkpoint log-start-offset-checkpoint \
      cleaner-offset-checkpoint; do
      [ ! -f "$d-kafka/$cp" ] || python3 tests/interop/start_matrix.py save "$work/$v-base" "$d-kafka" "$cp" "$to/kafka"
    done
  fi
}

run() { # V SOURCE
  local v=$1 src=$2 r=1
  # (start_matrix.py's rows by release: START_RELEASE)
  export START_RELEASE=$v
  cp -a "$src" "$work/$v-base"
  cp -a "$src" "$work/$v-control"
  start_stop "$v" "$work/$v-control" "$v-control"
  : >"$work/$v.done"
  while cp "$work/$v.done" "$work/$v.done.before" && round "$v" "$r"; do r=$((r + 1)); done
  log "Kafka $v: $(wc -l <"$work/$v.done") rows in $((r - 1)) starts"
  marker_round "$v"
  marker_round "$v" recovery_point_and_marker_lost
  for row in $(python3 tests/interop/start_matrix.py refusals); do refusal "$v" "$row"; done
  for row in $(python3 tests/interop/start_matrix.py starts); do dir_row "$v" "$row"; done
  hidden_row "$v"
  stray_row "$v"
  duplicate_row "$v"
}

if [ -n "${LOGTOOL_START_MATRIX_SAVE:-}" ]; then
  [ -z "${LOGTOOL_FIXTURES:-}${LOGTOOL_FIXTURES_4:-}" ] || die "LOGTOOL_START_MATRIX_SAVE goes with the committed fixtures"
  [ "$K4_VERSION" = 4.3.1 ] || die "LOGTOOL_START_MATRIX_SAVE keeps what 4.3.1 did (the committed kafka-4.3.1 dir)"
  rm -rf "$(saved 3.9)" "$(saved "$V4")"
  mkdir -p "$(saved 3.9)" "$(saved "$V4")"
fi
run 3.9 "$fixtures/clean/logs"
run "$V4" "$fixtures4/kafka4/logs"
jbod 3.9
jbod "$V4"
voter_row "$V4"
log "start matrix: all checks passed"
