#!/bin/bash
# drv-audit.sh: check our GPU nodes against the matrix
cd "$(dirname "$0")" || exit 2

missing=0
for node in lab-node-0 lab-node-1 lab-node-2 lab-node-3; do
  # lab-node-3 only exists from step 4 on
  kubectl get node "$node" >/dev/null 2>&1 || continue
  tag=$(./drv-tag.sh "$node")
  row=$(echo "$tag" | sed -E 's/^([0-9]+)-(.*-generic)-(.*)$/\1,\2,\3/')
  if ! grep -qx "$row" support-matrix.csv; then
    echo "$node MISSING $tag"
    missing=1
  fi
done

if [ $missing = 1 ]; then
  exit 1
fi
echo OK
