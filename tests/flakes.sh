#!/usr/bin/env bash
# Runs the default test tier ROUNDS times (default 10) while busy loops hog every core, and names
# every test that failed in any round, with how often. A test whose verdict depends on how loaded
# the machine is will show here; the suite must report none.
#
# Usage: tests/flakes.sh [ROUNDS] [-- NEXTEST-ARGS...]
#   FLAKES_HOGS   busy loops per core (default 1: every core fully taken besides the tests)
# Needs cargo-nextest (`cargo install cargo-nextest --locked`) and python3 (to read JUnit).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${1:-10}"
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
case "$rounds" in '' | *[!0-9]*) echo "flakes.sh: ROUNDS must be a number, not $rounds" >&2; exit 2 ;; esac
command -v cargo-nextest >/dev/null 2>&1 || {
  echo "flakes.sh: cargo-nextest is not installed (cargo install cargo-nextest --locked)" >&2
  exit 2
}

cargo nextest run --workspace --locked --profile flakes --no-run

hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true; }
trap stop_hogs EXIT
per_core="${FLAKES_HOGS:-1}"
for _ in $(seq $((per_core * $(nproc)))); do
  sh -c 'while :; do :; done' &
  hogs+=($!)
done
echo "flakes: $rounds rounds of the default tier beside ${#hogs[@]} busy loops on $(nproc) cores" >&2

junit=target/nextest/flakes/junit.xml
record="$(mktemp)"
for round in $(seq "$rounds"); do
  started=$SECONDS
  rm -f "$junit"
  status=0
  cargo nextest run --workspace --locked --profile flakes "$@" >"$record.log" 2>&1 || status=$?
  if [ ! -f "$junit" ]; then
    echo "round $round: nextest ended with $status and wrote no report:" >&2
    tail -20 "$record.log" >&2
    exit 2
  fi
  # One line per failed test: "<binary> <test>".
  failed="$(python3 - "$junit" <<'PY'
import sys, xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if case.find("failure") is not None or case.find("error") is not None:
        print(case.get("classname"), case.get("name"))
PY
)"
  count=0
  [ -z "$failed" ] || count=$(printf '%s\n' "$failed" | wc -l)
  echo "round $round: $count failed in $((SECONDS - started)) s" >&2
  if [ -n "$failed" ]; then
    printf '%s\n' "$failed" | tee -a "$record" | sed 's/^/  /' >&2
    # What the failing tests printed, for the record.
    cp "$record.log" "target/nextest/flakes/round-$round.log"
    echo "  output: target/nextest/flakes/round-$round.log" >&2
  fi
done

echo >&2
if [ -s "$record" ]; then
  echo "flaky: $(sort -u "$record" | wc -l) tests failed in at least one of $rounds rounds:" >&2
  sort "$record" | uniq -c | sort -rn >&2
  exit 1
fi
echo "flaky: 0 tests failed in $rounds rounds" >&2
