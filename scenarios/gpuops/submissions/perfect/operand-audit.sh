#!/usr/bin/env bash
# operand-audit.sh: for every node, for every operand whose nvidia.com/gpu.deploy.<operand> label
# is "true" there, is a pod of that operand's DaemonSet Running on that node?
# Prints "<node> MISSING <operand>" for each one that is not, "<node> OK" for a node with nothing
# missing (a node without deploy labels is OK). Exits 1 if anything is missing, else 0.
# Pods are looked at, not DaemonSet counters: desiredNumberScheduled leaves out a node whose
# pod cannot be placed there (e.g. an untolerated taint).
set -euo pipefail

ns=gpu-operator
# operand:DaemonSet, in the roster's order.
operands="driver:nvidia-driver-daemonset
container-toolkit:nvidia-container-toolkit-daemonset
device-plugin:nvidia-device-plugin-daemonset
gpu-feature-discovery:gpu-feature-discovery
dcgm-exporter:nvidia-dcgm-exporter"

# "<node> <app label>" for every Running pod in the namespace (DaemonSet pods carry app: <ds>).
running=$(kubectl get pods -n "$ns" --field-selector=status.phase=Running \
  -o jsonpath='{range .items[*]}{.spec.nodeName}{" "}{.metadata.labels.app}{"\n"}{end}')

# "<node>|<driver>|<toolkit>|<device-plugin>|<gfd>|<dcgm>" label values, '|' keeps empty ones apart.
labels=$(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"|"}{.metadata.labels.nvidia\.com/gpu\.deploy\.driver}{"|"}{.metadata.labels.nvidia\.com/gpu\.deploy\.container-toolkit}{"|"}{.metadata.labels.nvidia\.com/gpu\.deploy\.device-plugin}{"|"}{.metadata.labels.nvidia\.com/gpu\.deploy\.gpu-feature-discovery}{"|"}{.metadata.labels.nvidia\.com/gpu\.deploy\.dcgm-exporter}{"\n"}{end}')

status=0
while IFS="|" read -r node v_driver v_toolkit v_plugin v_gfd v_dcgm; do
  [ -n "$node" ] || continue
  values=("$v_driver" "$v_toolkit" "$v_plugin" "$v_gfd" "$v_dcgm")
  missing=0
  i=0
  while IFS=: read -r operand ds; do
    if [ "${values[$i]}" = true ] && ! grep -qxF "$node $ds" <<<"$running"; then
      echo "$node MISSING $operand"
      missing=1
    fi
    i=$((i + 1))
  done <<<"$operands"
  if [ "$missing" -eq 0 ]; then
    echo "$node OK"
  else
    status=1
  fi
done <<<"$labels"

exit "$status"
