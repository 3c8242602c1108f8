#!/usr/bin/env bash
# Interop: `logtool verify` on the log dir of a *running* Kafka broker says the
# dir is locked by a live broker (and reads it anyway, changing nothing); a
# repair with --execute is refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
kafka_libs
cargo build --locked -q
work=$(mktemp -d "${TMPDIR:-/tmp}/logtool-live.XXXXXX")
bport=$(free_port); cport=$(free_port)
kraft_config "$work/server.properties" "$work/logs" "$bport" "$cport"
kraft_format "$work/server.properties" bG9ndG9vbC1maXh0dXJlcw
kafka_start "$work/server.properties" "$work/broker.log" "$bport"
out=$(target/debug/logtool verify --format json "$work/logs" || true)
# a repair is refused (exit 2), names the broker and changes nothing
target/debug/logtool reindex --execute "$work/logs" >"$work/reindex.out" 2>&1 && rc=0 || rc=$?
kafka_stop "$KAFKA_PID"
[ $rc = 2 ] || { cat "$work/reindex.out" >&2; die "reindex --execute under a live broker: exit $rc, expected 2"; }
grep -q "pid $KAFKA_PID" "$work/reindex.out" || { cat "$work/reindex.out" >&2; die "the refusal does not name pid $KAFKA_PID"; }
[ ! -e "$work/logs.logtool-quarantine" ] || die "a refused repair made a quarantine"
log "reindex --execute refused: $(head -1 "$work/reindex.out")"
echo "$out" | grep -q '"kind":"log_dir_locked"' || { echo "$out" >&2; die "verify did not report the live broker's lock"; }
echo "$out" | grep -q "held by pid $KAFKA_PID" || { echo "$out" >&2; die "verify did not name the broker's pid $KAFKA_PID"; }
log "verify reported the live broker (pid $KAFKA_PID) holding $work/logs/.lock"
rm -rf "$work"
