#!/bin/bash
# operand-audit.sh: for each node, every operand switched on by its
# nvidia.com/gpu.deploy.<operand>=true label needs a Running pod of its DaemonSet on that node.
NS=gpu-operator
OPERANDS="driver container-toolkit device-plugin gpu-feature-discovery dcgm-exporter"

ds_for() {
  case $1 in
    driver) echo nvidia-driver-daemonset ;;
    container-toolkit) echo nvidia-container-toolkit-daemonset ;;
    device-plugin) echo nvidia-device-plugin-daemonset ;;
    gpu-feature-discovery) echo gpu-feature-discovery ;;
    dcgm-exporter) echo nvidia-dcgm-exporter ;;
  esac
}

rc=0
for node in $(kubectl get nodes -o jsonpath='{.items[*].metadata.name}'); do
  bad=0
  for op in $OPERANDS; do
    want=$(kubectl get node "$node" -o jsonpath="{.metadata.labels.nvidia\.com/gpu\.deploy\.$op}")
    if [ "$want" != "true" ]; then
      continue
    fi
    # the DaemonSet is healthy when every pod it wants is ready
    ds=$(ds_for "$op")
    desired=$(kubectl get ds "$ds" -n $NS -o jsonpath='{.status.desiredNumberScheduled}')
    ready=$(kubectl get ds "$ds" -n $NS -o jsonpath='{.status.numberReady}')
    if [ -z "$desired" ] || [ "$desired" = 0 ] || [ "$desired" != "$ready" ]; then
      echo "$node MISSING $op"
      bad=1
    fi
  done
  if [ $bad = 0 ]; then
    echo "$node OK"
  else
    rc=1
  fi
done
exit $rc
