#!/bin/bash
# drv-audit.sh: every GPU node's driver image must be in support-matrix.csv
cd "$(dirname "$0")" || exit 2

missing=0
for node in $(kubectl get nodes -l nvidia.com/gpu.present=true -o jsonpath='{.items[*].metadata.name}'); do
  tag=$(./drv-tag.sh "$node")
  found=no
  while IFS=, read -r branch kernel os_tag; do
    if [ "$branch" = driver_branch ]; then
      continue
    fi
    if [ "$tag" = "$branch-$kernel-$os_tag" ]; then
      found=yes
    fi
  done < support-matrix.csv
  if [ $found = no ]; then
    echo "$node MISSING $tag"
    missing=1
  fi
done

if [ $missing = 0 ]; then
  echo OK
fi
