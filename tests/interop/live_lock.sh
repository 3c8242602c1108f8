#!/usr/bin/env bash
# Interop: `logtool verify` on the log dir of a *running* Kafka broker says the
# dir is locked by a live broker (and reads it anyway, changing nothing); a
# repair with --execute is refused; `logtool dump --follow` prints the records
# the broker appends while it runs, across segment rolls.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
kafka_libs
interop_logtool
work=$(mktemp -d "${TMPDIR:-/tmp}/logtool-live.XXXXXX")
bport=$(free_port); cport=$(free_port)
kraft_config "$work/server.properties" "$work/logs" "$bport" "$cport"
kraft_format "$work/server.properties" bG9ndG9vbC1maXh0dXJlcw
kafka_start "$work/server.properties" "$work/broker.log" "$bport"
out=$("$LT" verify --format json "$work/logs" || true)
# a repair is refused (exit 2), names the broker and changes nothing
"$LT" reindex --execute "$work/logs" >"$work/reindex.out" 2>&1 && rc=0 || rc=$?
# dump --follow sees what the broker appends, across segment rolls, as it comes
bs="127.0.0.1:$bport"
kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$bs" --create --topic follow --partitions 1 \
  --config segment.bytes=16384 >/dev/null 2>&1 || die "could not create topic follow"
for _ in $(seq 1 100); do [ -d "$work/logs/follow-0" ] && break; sleep 0.1; done
"$LT" --format json dump --follow --poll-ms 50 "$work/logs/follow-0" >"$work/follow.out" 2>"$work/follow.err" &
follow_pid=$!
sleep 1
seq 1 400 | sed 's/^/follow-record-/; s/$/-padding-padding-padding-padding-padding-padding/' \
  | kafka_java kafka.tools.ConsoleProducer --bootstrap-server "$bs" --topic follow --batch-size 2000 >/dev/null 2>&1 \
  || die "console producer failed"
for _ in $(seq 1 300); do
  [ "$(grep -c '"type":"record"' "$work/follow.out" || true)" -ge 400 ] && break
  sleep 0.1
done
signal_ours TERM "$follow_pid"; wait "$follow_pid" 2>/dev/null || true
n=$(grep -c '"type":"record"' "$work/follow.out" || true)
[ "$n" = 400 ] || { tail -5 "$work/follow.out" >&2; cat "$work/follow.err" >&2; die "dump --follow saw $n of 400 records"; }
python3 - "$work/follow.out" <<'PY' || die "dump --follow: records out of order or wrong"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if '"type":"record"' in l]
want = [f"follow-record-{i}-padding-padding-padding-padding-padding-padding" for i in range(1, 401)]
assert [r["value"] for r in recs] == want, "values"
assert [r["offset"] for r in recs] == list(range(400)), "offsets"
PY
rolls=$(grep -c '"rolled: following segment' "$work/follow.out" || true)
[ "$rolls" -ge 1 ] || die "dump --follow saw no segment roll"
log "dump --follow saw the broker's 400 records as they came, across $rolls segment roll(s)"
kafka_stop "$KAFKA_PID"
[ $rc = 2 ] || { cat "$work/reindex.out" >&2; die "reindex --execute under a live broker: exit $rc, expected 2"; }
grep -q "pid $KAFKA_PID" "$work/reindex.out" || { cat "$work/reindex.out" >&2; die "the refusal does not name pid $KAFKA_PID"; }
[ ! -e "$work/logs.logtool-quarantine" ] || die "a refused repair made a quarantine"
log "reindex --execute refused: $(head -1 "$work/reindex.out")"
echo "$out" | grep -q '"kind":"log_dir_locked"' || { echo "$out" >&2; die "verify did not report the live broker's lock"; }
echo "$out" | grep -q "held by pid $KAFKA_PID" || { echo "$out" >&2; die "verify did not name the broker's pid $KAFKA_PID"; }
log "verify reported the live broker (pid $KAFKA_PID) holding $work/logs/.lock"
rm -rf "$work"
