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
exit $status
