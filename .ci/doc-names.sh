#!/usr/bin/env bash
# Every name and path ARCHITECTURE.md gives in backticks is in the code:
# a path (with a `/` or a file extension) exists, in the repository or, for
# a bare file name, somewhere in it; any other name (a module path, a
# type, a Kafka class the code follows, a config) occurs in the sources,
# each `::` segment as a word. Placeholders (NAME, *_api.rs) and command
# lines (with a space) are skipped. Fails listing what it did not find.
set -euo pipefail
cd "$(dirname "$0")/.."
doc=${1:-ARCHITECTURE.md}
srcs=(crates tests fixtures/kafka fixtures/generate.sh bench fuzz/fuzz_targets .ci Cargo.toml clippy.toml)
found() { grep -rqF --include='*.rs' --include='*.sh' --include='*.toml' --include='*.java' --include='*.py' -e "$1" "${srcs[@]}" 2>/dev/null; }
word() { grep -rqw --include='*.rs' --include='*.sh' --include='*.toml' --include='*.java' --include='*.py' -e "$1" "${srcs[@]}" 2>/dev/null; }
missing=0
checked=0
# backticked tokens outside fenced code blocks
while IFS= read -r t; do
  case "$t" in
    *' '* | *NAME* | *'*'* | -* | '') continue ;;
  esac
  checked=$((checked + 1))
  if [[ "$t" == */* || "$t" =~ \.(rs|sh|md|toml|py|java|jsonl)$ ]]; then
    if [ -e "$t" ] || [ -n "$(find . -path ./target -prune -o -name "$(basename "$t")" -print -quit)" ]; then
      continue
    fi
  elif [[ "$t" =~ ^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*(\(\))?$ ]]; then
    ok=1
    for seg in $(sed 's/()$//; s/::/ /g' <<<"$t"); do
      word "$seg" || { ok=0; break; }
    done
    [ $ok = 1 ] && continue
  else
    found "$(sed 's/^#\[//; s/\]$//' <<<"$t")" && continue
  fi
  echo "  $t" >&2
  missing=1
done < <(awk '/^```/ { fence = !fence; next } !fence' "$doc" | grep -oE '`[^`]+`' | tr -d '`' | sort -u)
if [ $missing = 1 ]; then
  echo "$doc names the above, which the code does not have" >&2
  exit 1
fi
echo "doc-names: every name and path of $checked in $doc is in the code"
