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
    pods=$(kubectl get pods -n $NS -l app="$(ds_for "$op")" \
      --field-selector "spec.nodeName=$node,status.phase=Running" -o name 2>/dev/null)
    if [ -z "$pods" ]; then
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
