#!/usr/bin/env bash
# The layers the compiler does not enforce, checked. Fails with the lines
# that cross one. (The crates are the layers Cargo enforces: logfmt the
# formats, logrules Kafka's rules over them, inspect the reading commands,
# logwrite the writer and repairs; ARCHITECTURE.md.)
#
# 1. The CLI asks the libraries' command modules (inspect::groups,
#    inspect::verify, logwrite::repair, ...), never Kafka's rules directly: a
#    rule the CLI named would be one a command re-derives beside the library.
#    (The binary does not depend on `logrules`, so the compiler refuses it
#    too; this names the lines.)
# 2. `logrules` implements no `Report` (how a rule's answer reads is the
#    commands' business).
# 3. The broker's files name one another without a circle (tsort finds any):
#    `error` and `zerocopy` are leaves, `store` the log dir under the API
#    families, `server` over them all.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
# code lines (not comments) of the files given that match a pattern
code() { # PATTERN FILE...
  grep -nE "$1" "${@:2}" /dev/null | grep -vE '^[^:]+:[0-9]+:\s*//' || true
}

bad=$(code '\b(log)?rules::' $(find crates/cli -name '*.rs'))
if [ -n "$bad" ]; then
  echo "crates/cli names logrules (ask a command module of the library instead):" >&2
  echo "$bad" >&2
  status=1
else
  echo "layers: crates/cli names no rule"
fi

presenting=$(code 'impl\b.*\bReport\b.*\bfor\b' $(find crates/logrules/src -name '*.rs'))
if [ -n "$presenting" ]; then
  echo "  $presenting  (logrules implements Report: presentation is the commands')" >&2
  echo "logrules: a rule presents itself" >&2
  status=1
else
  echo "layers: logrules implements no Report"
fi

# file -> each broker file it names (`crate::x`, `use crate::{x, ...}`), tests aside
edges=$(for f in crates/broker/src/*.rs; do
  m=$(basename "$f" .rs)
  [ "$m" = lib ] && continue
  sed '/^#\[cfg(test)\]/,$d' "$f" | grep -vE '^\s*//' |
    grep -oE 'crate::(\{[^}]*\}|[a-z_]+)' | sed -E 's/crate:://; s/[{},]/ /g' | tr ' ' '\n' | grep -E '^[a-z_]+$' |
    sort -u | while read -r d; do
      [ "$d" != "$m" ] && [ -f "crates/broker/src/$d.rs" ] && echo "$d $m"
    done
  echo "$m $m"
done)
if loop=$(echo "$edges" | tsort 2>&1 >/dev/null) && [ -z "$loop" ]; then
  echo "layers: the broker's files name one another without a circle"
else
  echo "the broker's files name one another in a circle:" >&2
  echo "$loop" >&2
  status=1
fi
exit $status
