#!/usr/bin/env bash
# `logtool broker` against clients that speak the Kafka protocol themselves
# (no librdkafka, no Java): the Go clients franz-go and sarama
# (tests/interop/goclients, pinned in its go.mod/go.sum) and the Node.js
# client kafkajs (tests/interop/nodeclients, pinned in its package-lock.json).
# Each does what an application does (goclients/main.go says what): admin
# create/list/describe, produce in every codec it has, a consumer group that
# commits, ListOffsets by time, a committed and an aborted transaction.
#   1. each client against logtool broker on a new log dir (127.0.0.1, a
#      free port): every step succeeds, ListOffsets by time answers what the
#      records read say;
#   2. SIGTERM: `logtool verify --fail-on warning` finds nothing;
#   3. Kafka 3.9.1 starts on the dir and serves the records each client read
#      at the same offsets, and the groups' committed offsets;
#   4. the control: the same clients against that Kafka 3.9.1 print the same
#      lines (topic names aside; the by-time answers are checked as in 1),
#      and what the Java Admin client reads of a topic created with the
#      same configs (CreateTopics' configs; DescribeConfigs of every config:
#      value, source, synonyms, type, read-only, sensitive, documentation)
#      is the same, and so is DescribeConfigs of the broker (its 314
#      configs, but those set in either's configuration).
# Builds are cached under $LOGTOOL_CACHE (go's module and build caches,
# npm's cache), so a second run downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
. fixtures/kafka/lib.sh
. tests/interop/lib.sh
interop_setup pure
# (no broker setting of a topic config: DescribeConfigs compares as Kafka's defaults)
BROKER_PROPS=()
workload() { kafka_java "$KAFKA_LIB_DIR/Workload.java" "$@"; }
logs=$work/logs

# ---- the clients, built ------------------------------------------------------
export GOMODCACHE=$LOGTOOL_CACHE/go/mod GOCACHE=$LOGTOOL_CACHE/go/build GOFLAGS=-modcacherw
(cd tests/interop/goclients && go build -o "$work/goclients" . && go vet . && test -z "$(gofmt -l .)") \
  >"$work/go-build.log" 2>&1 || { cat "$work/go-build.log" >&2; die "building (or vetting, gofmt) the Go clients failed"; }
cp -r tests/interop/nodeclients "$work/nodeclients"
(cd "$work/nodeclients" && npm ci --cache "$LOGTOOL_CACHE/npm" --prefer-offline --no-audit --no-fund) \
  >"$work/npm.log" 2>&1 || { cat "$work/npm.log" >&2; die "npm ci of the Node client failed"; }
log "clients built: franz-go, sarama (go $(go env GOVERSION)), kafkajs (node $(node --version))"

# Every client's scenario against BOOTSTRAP with topic prefix PREFIX: its
# lines in $work/PREFIX-CLIENT.txt; the by-time answers checked.
scenarios() { # BOOTSTRAP PREFIX
  local c
  for c in franz sarama; do
    "$work/goclients" "$1" "$c" "$2" >"$work/$2-$c.txt" 2>"$work/$2-$c.err" \
      || { tail -20 "$work/$2-$c.err" >&2; die "$c against $1 failed"; }
  done
  node "$work/nodeclients/main.js" "$1" "$2" >"$work/$2-kafkajs.txt" 2>"$work/$2-kafkajs.err" \
    || { tail -20 "$work/$2-kafkajs.err" >&2; die "kafkajs against $1 failed"; }
  for c in franz sarama kafkajs; do
    [ "$(grep -c '^CONSUMED ' "$work/$2-$c.txt")" -ge 80 ] || die "$c read $(grep -c '^CONSUMED ' "$work/$2-$c.txt") records"
    [ "$(grep -c '^TXN_READ committed-' "$work/$2-$c.txt")" = 10 ] || die "$c: read_committed read other than the committed ten"
    ! grep '^TXN_READ aborted' "$work/$2-$c.txt" >&2 || die "$c: read_committed read the aborted transaction"
    [ "$(grep -c '^BYTIME ' "$work/$2-$c.txt")" = 3 ] || die "$c: $(grep -c '^BYTIME ' "$work/$2-$c.txt") by-time answers"
    awk '$1 == "BYTIME" { split($3, a, "="); split($4, b, "="); if (a[2] != b[2]) bad = 1 } END { exit bad }' \
      "$work/$2-$c.txt" || { grep BYTIME "$work/$2-$c.txt" >&2; die "$c: ListOffsets by time answered otherwise than the records say"; }
  done
}

# ---- 1. logtool broker ---------------------------------------------------------
lt_start "$logs" lt
scenarios "$lt" lt
# a topic created with configs, and every config of it as the Java Admin
# client reads CreateTopics' and DescribeConfigs' answers (synonyms, types,
# documentation): compared with Kafka's in 4
workload "$lt" create-describe lt-configs >"$work/lt-configs.txt" 2>"$work/lt-configs.err" \
  || { tail "$work/lt-configs.err" >&2; die "describe-configs against logtool broker failed"; }
workload "$lt" describe-broker 1 >"$work/lt-broker.txt" 2>"$work/lt-broker.err" \
  || { tail "$work/lt-broker.err" >&2; die "describe-broker against logtool broker failed"; }
log "franz-go, sarama and kafkajs against logtool broker: $(cat "$work"/lt-*.txt | grep -c '^CONSUMED ') records read in groups, transactions, offsets by time"

# ---- 2. a clean stop ------------------------------------------------------------
kafka_stop "$lt_pid"
"$LT" verify --deep --fail-on warning "$logs" >"$work/verify.out" 2>&1 || { cat "$work/verify.out" >&2; die "verify found problems"; }

# ---- 3. Kafka 3.9.1 on the dir ---------------------------------------------------
start_on "$logs" kafka
workload "$BOOTSTRAP" consume-full read_uncommitted >"$work/kafka.txt" 2>"$work/kafka.err" \
  || { tail "$work/kafka.err" >&2; die "consume-full from Kafka failed"; }
# topic partition offset key value of what each client read in its group
# (consume-full prints keys and values in hex)
diff <(cat "$work"/lt-*.txt | python3 -c '
import sys
for l in sys.stdin:
    f = l.split()
    if f[0] == "CONSUMED":
        print(*f[1:4], f[4].encode().hex(), f[5].encode().hex())' | sort) \
     <(awk '$1 !~ /-tx$/ { print $1, $2, $3, $5, $6 }' "$work/kafka.txt" | sort) | head -20 >"$work/served.diff" || true
[ ! -s "$work/served.diff" ] || { cat "$work/served.diff" >&2; die "Kafka serves other records than logtool broker did"; }
kafka_java org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" --describe --all-groups \
  >"$work/groups.kafka" 2>&1 || true
diff <(cat "$work"/lt-*.txt | awk '$1 == "COMMITTED" { print $2, $3, $4, $5 }' | sort) \
     <(awk '$1 ~ /^lt-.*-g$/ && $3 ~ /^[0-9]+$/ { print $1, $2, $3, $4 }' "$work/groups.kafka" | sort) >&2 \
  || { cat "$work/groups.kafka" >&2; die "Kafka restored other committed offsets than the clients committed"; }
log "Kafka 3.9.1 started on the dir and served the same $(wc -l <"$work/kafka.txt") records and committed offsets"

# ---- 4. the control: the same clients against Kafka 3.9.1 -------------------------
scenarios "$BOOTSTRAP" kf
for c in franz sarama kafkajs; do
  # (sarama's and kafkajs' config sources are spelled by the client)
  diff <(grep -v '^BYTIME ' "$work/lt-$c.txt" | sed 's/\blt-/P-/g') <(grep -v '^BYTIME ' "$work/kf-$c.txt" | sed 's/\bkf-/P-/g') \
    | head -20 >"$work/$c.diff" || true
  [ ! -s "$work/$c.diff" ] || { cat "$work/$c.diff" >&2; die "$c: logtool broker and Kafka 3.9.1 answered otherwise (<: logtool broker)"; }
done
workload "$BOOTSTRAP" create-describe kf-configs >"$work/kf-configs.txt" 2>"$work/kf-configs.err" \
  || { tail "$work/kf-configs.err" >&2; die "describe-configs against Kafka failed"; }
diff "$work/lt-configs.txt" "$work/kf-configs.txt" | head -30 >"$work/configs.diff" || true
[ ! -s "$work/configs.diff" ] || { cat "$work/configs.diff" >&2; die "CreateTopics/DescribeConfigs of a topic: logtool broker (<) and Kafka 3.9.1 (>) differ"; }
# the broker's configs: the same, but for those set in either's
# configuration (a Kafka's server.properties, logtool broker's options)
workload "$BOOTSTRAP" describe-broker 1 >"$work/kf-broker.txt" 2>"$work/kf-broker.err" \
  || { tail "$work/kf-broker.err" >&2; die "describe-broker against Kafka failed"; }
[ "$(wc -l <"$work/kf-broker.txt")" -ge 300 ] || die "Kafka described $(wc -l <"$work/kf-broker.txt") broker configs"
set_in=$(cat "$work/lt-broker.txt" "$work/kf-broker.txt" | awk '/STATIC_BROKER_CONFIG/ { print $1 }' | sort -u)
diff <(grep -vwFf <(echo "$set_in") "$work/lt-broker.txt") <(grep -vwFf <(echo "$set_in") "$work/kf-broker.txt") \
  | head -30 >"$work/broker-configs.diff" || true
[ ! -s "$work/broker-configs.diff" ] || { cat "$work/broker-configs.diff" >&2; die "DescribeConfigs of the broker: logtool broker (<) and Kafka 3.9.1 (>) differ"; }
kafka_stop "$KAFKA_PID"
log "the control: franz-go, sarama and kafkajs print the same against Kafka 3.9.1"
