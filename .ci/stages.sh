# shellcheck shell=bash
# Stages of .ci/run, each timed: `stage NAME CMD...` runs CMD in the
# foreground; `stage_bg NAME CMD...` starts it beside the others (its output
# goes to target/ci/NAME.log, shown when `stage_wait NAME` collects it, or
# on failure); `stage_wait NAME` waits for it and fails if it failed. On
# exit, success or failure, a table of every stage's wall time is printed
# (a stage still running is marked so), so a note can say where the time
# went.
#
# Sourced by .ci/run after `cd` to the repository root.

CI_T0=$SECONDS
CI_LOGS=$PWD/target/ci
mkdir -p "$CI_LOGS"
# "name|seconds|result|cpu seconds" per finished stage, in the order they ended
CI_STAGES=()
CI_TCK=$(getconf CLK_TCK)
# CPU seconds (user + system) of this shell's children waited for so far:
# a stage's CPU time is the difference across it (the table shows how much
# of its wall time both cores were busy, i.e. whether overlap could help)
ci_cpu() { local f; read -ra f <"/proc/$$/stat"; echo $(((f[15] + f[16]) / CI_TCK)); }
# name -> pid, start (the stages running in the background)
declare -A CI_BG_PID CI_BG_T0

ci_stage_record() { # NAME SECONDS RESULT [CPU]
  CI_STAGES+=("$1|$2|$3|${4:-}")
}

stage() { # NAME CMD...
  local name=$1 t0=$SECONDS rc=0 c0
  shift
  c0=$(ci_cpu)
  printf '\n==> %s: %s\n' "$name" "$*" >&2
  "$@" || rc=$?
  ci_stage_record "$name" $((SECONDS - t0)) "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")" $(($(ci_cpu) - c0))
  return $rc
}

stage_bg() { # NAME CMD... (CMD an executable, in a process group of its own)
  local name=$1
  shift
  printf '\n==> %s (in the background, log %s): %s\n' "$name" "$CI_LOGS/$name.log" "$*" >&2
  # (its own time goes to NAME.time: the table shows how long it ran, not
  # how long the run waited for it)
  (exec setsid bash -c 't0=$SECONDS; "${@:2}"; rc=$?; read -ra f </proc/$$/stat
      echo $((SECONDS - t0)) $(((f[15] + f[16]) / $(getconf CLK_TCK))) >"$1.time"; exit $rc' \
    stage "$CI_LOGS/$name" "$@") >"$CI_LOGS/$name.log" 2>&1 &
  CI_BG_PID[$name]=$!
  CI_BG_T0[$name]=$SECONDS
}

stage_wait() { # NAME
  local name=$1 rc=0 secs cpu
  wait "${CI_BG_PID[$name]}" || rc=$?
  read -r secs cpu <"$CI_LOGS/$name.time" 2>/dev/null || secs=$((SECONDS - CI_BG_T0[$name]))
  ci_stage_record "$name &" "$secs" "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")" "${cpu:-}"
  unset "CI_BG_PID[$name]"
  if [ $rc != 0 ]; then
    printf '\n==> %s failed; the end of its log (%s):\n' "$name" "$CI_LOGS/$name.log" >&2
    tail -80 "$CI_LOGS/$name.log" >&2
    return $rc
  fi
  printf '\n==> %s (finished in the background): its log\n' "$name" >&2
  cat "$CI_LOGS/$name.log" >&2
}

ci_report() {
  local rc=$? s name pid
  for name in "${!CI_BG_PID[@]}"; do
    pid=${CI_BG_PID[$name]}
    ci_stage_record "$name &" $((SECONDS - CI_BG_T0[$name])) "unfinished (stopped)"
    # a background stage still running when the run fails: its process group, by its pid
    kill -TERM -- "-$pid" 2>/dev/null || true
  done
  printf '\nStage times (wall clock, CPU seconds of user + system; stages marked & ran beside others):\n' >&2
  for s in "${CI_STAGES[@]}"; do
    IFS='|' read -r name secs result cpu <<<"$s"
    printf '  %-22s %4dm%02ds  %6s  %s\n' "$name" $((secs / 60)) $((secs % 60)) "${cpu:+${cpu}s cpu}" "$result" >&2
  done
  printf '  %-22s %4dm%02ds  %s\n' total $(((SECONDS - CI_T0) / 60)) $(((SECONDS - CI_T0) % 60)) \
    "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")" >&2
}
trap ci_report EXIT
