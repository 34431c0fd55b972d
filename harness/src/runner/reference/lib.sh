# shellcheck shell=bash
# Defined by Proctor before every `reference` step of every scenario (see scenarios/README.md);
# never in a learner's run. Strict mode too, so a reference step stops at its first failure.
set -euo pipefail

# wait_until SECONDS COMMAND...: run COMMAND every 0.2 s until it succeeds; fail after SECONDS.
wait_until() {
  local deadline=$(( $(date +%s) + $1 ))
  shift
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "timed out waiting for: $*" >&2
      return 1
    fi
    sleep 0.2
  done
}

# lines_are N COMMAND...: COMMAND prints exactly N non-empty lines (used with wait_until).
lines_are() {
  local want=$1
  shift
  [ "$("$@" | grep -c .)" -eq "$want" ]
}

# running_pods NAMESPACE SELECTOR [FIELD-SELECTOR]: names of Running pods (one a line).
running_pods() {
  local fields="status.phase=Running"
  if [ -n "${3:-}" ]; then fields="$fields,$3"; fi
  kubectl get pods -n "$1" -l "$2" --field-selector "$fields" -o name
}

# field_is VALUE GET-ARGS...: `kubectl get GET-ARGS` (ending in -o jsonpath=...) prints exactly VALUE.
field_is() {
  local want=$1
  shift
  [ "$(kubectl get "$@")" = "$want" ]
}
