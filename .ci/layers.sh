#!/usr/bin/env bash
# The layers the compiler does not enforce, checked. Fails with the lines
# that cross one.
#
# 1. The CLI asks the libraries' command modules (inspect::groups,
#    inspect::verify, logwrite::repair, ...), never Kafka's rules directly: a
#    rule the CLI named would be one a command re-derives beside the library.
#    (The binary does not depend on `logrules`, so the compiler refuses it
#    too; this names the lines.)
# 2. logfmt's layers are its folders, lowest first: util, format, model
#    (Kafka's rules over them are the `logrules` crate and the commands the
#    `inspect` crate, which Cargo keeps above). A file names (`crate::X`)
#    only modules of its own layer or lower ones; and `logrules` implements
#    no `Report` (how a rule's answer reads is the commands' business).
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

src=crates/logfmt/src
layers=(util format model)
declare -A rank=()
for i in "${!layers[@]}"; do
  l=${layers[$i]}
  rank[$l]=$i
  # the modules of the layer (files and folders in it; each is re-exported
  # at the crate root, so `crate::batch` is format's) rank as it does
  for m in "$src/$l"/*; do
    m=$(basename "$m" .rs)
    [ "$m" = mod ] || rank[$m]=$i
  done
done
# the types re-exported at the root rank as the module they come from
rank[Error]=${rank[error]}; rank[ErrorClass]=${rank[error]}; rank[ErrorKind]=${rank[error]}
rank[Result]=${rank[error]}; rank[Limits]=${rank[limits]}
crossed=0
for l in "${layers[@]}"; do
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    for m in $(grep -oE 'crate::[A-Za-z_]+' <<<"${line#*:*:}" | sed 's/crate:://' | sort -u); do
      r=${rank[$m]:-}
      if [ -n "$r" ] && [ "$r" -gt "${rank[$l]}" ]; then
        echo "  $line  (layer $l names $m, of layer ${layers[$r]})" >&2
        crossed=1
      fi
    done
  done < <(code 'crate::[A-Za-z_]+' $(find "$src/$l" -name '*.rs'))
done
presenting=$(code 'impl\b.*\bReport\b.*\bfor\b' $(find crates/logrules/src -name '*.rs'))
if [ -n "$presenting" ]; then
  echo "  $presenting  (logrules implements Report: presentation is the commands')" >&2
  crossed=1
fi
if [ $crossed = 1 ]; then
  echo "logfmt: a layer names a higher one (util < format < model):" >&2
  status=1
else
  echo "layers: logfmt's util < format < model hold; logrules and inspect above them"
fi
exit $status
