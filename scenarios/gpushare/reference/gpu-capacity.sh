#!/usr/bin/env bash
# gpu-capacity.sh: for every node labelled nvidia.com/gpu.present=true, in `kubectl get nodes`
# order (by name), print "<node> allocatable=<n> requested=<m>":
#   n = the node's status.allocatable["nvidia.com/gpu"] (what the device plugin reports; 0 when
#       the node reports none),
#   m = the sum of the nvidia.com/gpu limits of the containers of the pods bound to the node, in
#       every namespace, except pods that are Succeeded or Failed (they hold no GPU any more).
# No node names: the nodes and pods are read from the cluster.
set -euo pipefail

# {"<node>": <GPUs held by its unfinished pods>} over every namespace.
in_use=$(kubectl get pods --all-namespaces -o json |
  jq -c 'reduce (.items[]
                 | select(.spec.nodeName != null)
                 | select(.status.phase != "Succeeded" and .status.phase != "Failed")) as $pod
           ({}; .[$pod.spec.nodeName] +=
                  ([$pod.spec.containers[] | .resources.limits["nvidia.com/gpu"] // "0" | tonumber] | add))')

kubectl get nodes -l nvidia.com/gpu.present=true -o json |
  jq -r --argjson in_use "$in_use" '
    .items[]
    | "\(.metadata.name) allocatable=\(.status.allocatable["nvidia.com/gpu"] // "0") requested=\($in_use[.metadata.name] // 0)"'
