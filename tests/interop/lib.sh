# shellcheck shell=bash
# Helpers shared by the interop scripts (sourced after fixtures/kafka/lib.sh).

# Kafka's tools start quicker (fixtures/kafka/lib.sh); nothing here is timed
KAFKA_JAVA_QUICK=1

# The start of an interop script: Kafka's jars fetched, logtool built ($LT),
# a static quorum, a work dir $work (removed on success, kept for a look when
# a check fails) and every broker started stopped on exit.
interop_setup() { # NAME
  kafka_libs
  interop_logtool
  export KRAFT_QUORUM=static
  work=$(mktemp -d "${TMPDIR:-/tmp}/logtool-$1.XXXXXX")
  trap 'rc=$?; kafka_cleanup; if [ $rc = 0 ]; then rm -rf "$work"; else log "kept $work"; fi' EXIT
}

# A Kafka tool's class run quickly and small (the 4.x suites run many),
# with Kafka 4.x's own logging setup (kafka_java's log4j 1 file would send
# its INFO lines to a console consumer's stdout): k4 CLASS ARGS...
k4() { java -Xmx384m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$KAFKA_LIBS/*" "$@"; }

# The logtool binary the suite checks, in $LT: $LOGTOOL_BIN when set (.ci/run
# hands every script the one release build it made), else a debug build.
interop_logtool() {
  if [ -n "${LOGTOOL_BIN:-}" ]; then
    LT=$LOGTOOL_BIN
  else
    cargo build --locked -q
    LT=$PWD/target/debug/logtool
  fi
  [ -x "$LT" ] || die "no logtool binary at $LT"
}

# Start a single-node broker (static quorum, node 1) on LOGDIR, fresh ports,
# with the script's BROKER_PROPS, configs and logs under $work; waits until it
# has loaded its logs. Sets KAFKA_PID and BOOTSTRAP.
start_on() { # LOGDIR NAME
  local bport cport
  bport=$(free_port); cport=$(free_port)
  kraft_config "$work/$2.properties" "$1" "$bport" "$cport" "${BROKER_PROPS[@]}"
  kafka_start "$work/$2.properties" "$work/$2.broker.log" "$bport"
  kafka_wait_started "$work/$2.broker.log" "$KAFKA_PID"
  BOOTSTRAP=127.0.0.1:$bport
}

# Start a newly formatted single-node broker (static quorum, node 1) on
# LOGDIR, fresh ports, with the script's BROKER_PROPS. Sets KAFKA_PID and
# BOOTSTRAP.
start_fresh() { # LOGDIR NAME
  local bport cport
  bport=$(free_port); cport=$(free_port)
  kraft_config "$work/$2.properties" "$1" "$bport" "$cport" "${BROKER_PROPS[@]}"
  kraft_format "$work/$2.properties" "$(kafka_java kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)" >/dev/null
  kafka_start "$work/$2.properties" "$work/$2.broker.log" "$bport"
  kafka_wait_started "$work/$2.broker.log" "$KAFKA_PID"
  BOOTSTRAP=127.0.0.1:$bport
}

# Start node 1 (combined, static quorum) on LOGDIR (several log dirs: a
# comma-separated list) with release V's jars (3.9, or a 4.x: $K4_LIBS, which
# the script sets), in the background: it may refuse to start; configs and logs
# under $work as NAME. Sets KAFKA_PID, BOOTSTRAP.
start_version() { # V LOGDIR NAME [key=value ...]
  local v=$1 dir=$2 name=$3 bport cport libs=$KAFKA_LIBS
  shift 3
  [ "$v" != 3.9 ] && libs=$K4_LIBS
  bport=$(free_port); cport=$(free_port)
  kraft_config "$work/$name.properties" "$dir" "$bport" "$cport" "${BROKER_PROPS[@]}" "$@"
  KAFKA_LIBS=$libs kafka_java_bg "$work/$name.broker.log" kafka.Kafka "$work/$name.properties"
  KAFKA_PID=$BG_PID
  BOOTSTRAP=127.0.0.1:$bport
}

# Wait until the broker start_version started as NAME has started (true)
# or has exited (false: it refused to start).
started_or_exited() { # NAME
  local i=0
  until grep -q "Kafka Server started" "$work/$1.broker.log" 2>/dev/null || ! running_child "$KAFKA_PID"; do
    [ $i -gt 1800 ] && break
    sleep 0.1; i=$((i + 1))
  done
  grep -q "Kafka Server started" "$work/$1.broker.log"
}

# sha256 of every file under a dir, by relative path
tree_hash() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

# The data-partition segment files of a log dir, relative, sorted.
segment_files() {
  (cd "$1" && find . -path ./__cluster_metadata-0 -prune -o -path './__transaction_state-*' -prune -o \
    -type f \( -name '*.log' -o -name '*.index' -o -name '*.timeindex' -o -name '*.txnindex' \) -print | sort)
}

# Every .log/.index/.timeindex/.txnindex of A's data partitions equals B's
# (an empty .txnindex counts as absent: both say no transaction aborted).
same_segments() { # A B WHAT
  local a=$1 b=$2 f bad=0
  diff <(segment_files "$a" | grep -v '\.txnindex$') <(segment_files "$b" | grep -v '\.txnindex$') >&2 \
    || die "$3: not the same segment files"
  while read -r f; do
    cmp "$a/$f" "$b/$f" >&2 || bad=1
  done < <(segment_files "$a" | grep -v '\.txnindex$')
  for f in $( (segment_files "$a"; segment_files "$b") | grep '\.txnindex$' | sort -u); do
    if [ -s "$a/$f" ] || [ -s "$b/$f" ]; then cmp "$a/$f" "$b/$f" >&2 || bad=1; fi
  done
  [ $bad = 0 ] || die "$3: files differ"
  log "$3: $(segment_files "$a" | wc -l) segment files identical"
}


# The Python clients of tests/interop/requirements.txt in a venv in the cache
# (one per version of the requirements, made once; pip keeps its downloads
# in its own cache); sets $PY.
interop_python() {
  local venv
  venv=$LOGTOOL_CACHE/interop-venv-$(sha256sum tests/interop/requirements.txt | cut -c1-16)
  [ -f "$venv/.complete" ] || with_lock "$venv.lock" _interop_venv "$venv" || die "pip could not install tests/interop/requirements.txt"
  PY=$venv/bin/python
}
_interop_venv() { # VENV
  [ -f "$1/.complete" ] && return 0
  rm -rf "$1"
  python3 -m venv "$1" || return 1
  "$1/bin/pip" install -q --disable-pip-version-check -r tests/interop/requirements.txt >&2 || return 1
  touch "$1/.complete"
}

# Start `logtool broker` on LOGDIR (more broker options may follow); its
# pid in $lt_pid (stopped on exit), its address in $lt.
lt_start() { # LOGDIR NAME [OPTIONS...]
  local i=0 dir=$1 name=$2
  shift 2
  "$LT" broker --log-dir "$dir" --listen 127.0.0.1:0 "$@" >"$work/$name.out" 2>"$work/$name.err" &
  lt_pid=$!
  KAFKA_PIDS+=("$lt_pid")
  until grep -qs '^listening on ' "$work/$name.out"; do
    running_child "$lt_pid" || { cat "$work/$name.err" >&2; die "logtool broker ($name) exited"; }
    [ $i -gt 200 ] && die "logtool broker ($name) did not say where it listens"
    sleep 0.05; i=$((i + 1))
  done
  lt=$(sed -n 's/^listening on //p' "$work/$name.out")
}

# earliest and latest of every partition outside Kafka's internal topics as a
# started broker answers them (kafka-get-offsets), "QUERY topic:partition:offset"
# sorted; asked again until N partitions answer both (a partition has a
# leader only once the broker is unfenced).
kafka_answers() { # BOOTSTRAP N
  local i=0 out q t tab=$'\t'
  while :; do
    # both queries in one JVM (fixtures/kafka/ToolBatch.java)
    rm -f "$work"/answers.*
    for q in earliest latest; do
      t=-2; [ $q = latest ] && t=-1
      echo "$work/answers.$q${tab}/dev/null${tab}org.apache.kafka.tools.GetOffsetShell${tab}--bootstrap-server${tab}$1${tab}--time${tab}$t${tab}--exclude-internal-topics"
    done | kafka_java "$KAFKA_LIB_DIR/ToolBatch.java" >/dev/null 2>&1 || true
    out=$(for q in earliest latest; do
      grep -E '^[^:]+:[0-9]+:[0-9]+$' "$work/answers.$q" 2>/dev/null | sed "s/^/$q /" || true
    done | sort)
    [ "$(grep -c . <<<"$out")" -ge $(($2 * 2)) ] && break
    [ $i -gt 60 ] && die "kafka-get-offsets answered only: $out"
    sleep 1; i=$((i + 1))
  done
  printf '%s\n' "$out"
}

# Ask kafka_answers until they equal the file EXPECTED (logtool's), for up to
# 40 s: markers the transaction coordinator writes after a start come within
# its 10 s abort interval. Kafka's last answers are left in OUT.
kafka_agrees() { # BOOTSTRAP N EXPECTED OUT
  local i=0
  until kafka_answers "$1" "$2" >"$4" && cmp -s "$3" "$4"; do
    [ $i -ge 20 ] && return 1
    sleep 2; i=$((i + 1))
  done
}

# The same queries answered by `logtool offset-for-time` on LOGDIR (more
# options may follow), in kafka_answers' form.
logtool_answers() { # LOGDIR [OPTIONS...]
  "$LT" offset-for-time --format json "$1" earliest latest "${@:2}" | python3 -c '
import json, sys
for l in sys.stdin:
    v = json.loads(l)
    if v["type"] == "offset" and not v["topic"].startswith("__") and v["offset"] is not None:
        print("%s %s:%s:%s" % (v["query"], v["topic"], v["partition"], v["offset"]))' | sort
}
