#!/bin/bash
# GPU capacity per GPU node: allocatable from the node status (what the device plugin reports),
# requested = nvidia.com/gpu limits of the pods on the node that still hold their GPU.
set -eu

for node in $(kubectl get nodes -l nvidia.com/gpu.present=true -o jsonpath='{.items[*].metadata.name}'); do
  alloc=$(kubectl get node "$node" -o jsonpath='{.status.allocatable.nvidia\.com/gpu}')
  # one line per pod: "<phase> <limit of container 1> <limit of container 2> ..."
  used=$(kubectl get pods --all-namespaces --field-selector "spec.nodeName=$node" \
    -o jsonpath='{range .items[*]}{.status.phase}{" "}{range .spec.containers[*]}{.resources.limits.nvidia\.com/gpu}{" "}{end}{"\n"}{end}' |
    awk '$1 != "Succeeded" && $1 != "Failed" { for (i = 2; i <= NF; i++) sum += $i } END { print sum + 0 }')
  echo "$node allocatable=${alloc:-0} requested=$used"
done
