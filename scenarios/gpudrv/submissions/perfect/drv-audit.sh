#!/usr/bin/env bash
# drv-audit.sh: for every node labelled nvidia.com/gpu.present=true, check that its
# (driver branch, kernel, os tag) is a row of support-matrix.csv (next to this script).
# Prints "<node> MISSING <tag>" per unbuilt combination and exits 1, or "OK" and exits 0.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
matrix="$here/support-matrix.csv"
[ -r "$matrix" ] || { echo "cannot read $matrix" >&2; exit 2; }

# One line per GPU node: "<name>|<branch>|<kernel>|<os tag>" ('|' keeps empty fields apart).
facts=$(kubectl get nodes -l nvidia.com/gpu.present=true -o jsonpath='{range .items[*]}{.metadata.name}{"|"}{.metadata.labels.nvidia\.com/cuda\.driver\.major}{"|"}{.metadata.labels.feature\.node\.kubernetes\.io/kernel-version\.full}{"|"}{.metadata.labels.feature\.node\.kubernetes\.io/system-os_release\.ID}{.metadata.labels.feature\.node\.kubernetes\.io/system-os_release\.VERSION_ID}{"\n"}{end}')

# The built combinations, without the header and without CR line ends.
built=$(tail -n +2 "$matrix" | tr -d '\r')

missing=0
while IFS="|" read -r node branch kernel ostag; do
  [ -n "$node" ] || continue
  if ! grep -qxF "$branch,$kernel,$ostag" <<<"$built"; then
    echo "$node MISSING $branch-$kernel-$ostag"
    missing=1
  fi
done <<<"$facts"

if [ "$missing" -ne 0 ]; then
  exit 1
fi
echo OK
