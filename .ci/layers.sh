#!/usr/bin/env bash
# The layers the compiler does not enforce, checked: the CLI asks the
# libraries' command modules (logfmt::groups, logfmt::verify, logwrite::repair,
# ...), never Kafka's rules directly - a rule the CLI named would be one a
# command re-derives beside the library. Fails with the lines that do.
set -euo pipefail
cd "$(dirname "$0")/.."
# code lines (not comments) of crates/cli that name `rules::`
bad=$(grep -rnE --include='*.rs' '\brules::' crates/cli | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
if [ -n "$bad" ]; then
  echo "crates/cli names logfmt's rules (ask a command module of the library instead):" >&2
  echo "$bad" >&2
  exit 1
fi
echo "layers: crates/cli names no rule"
