#!/bin/bash
# order-check.sh <node>: a device plugin without a container toolkit on the same node is wrong
node=$1

running() {
  kubectl get pods -n gpu-operator -l app="$1" \
    --field-selector "spec.nodeName=$node,status.phase=Running" -o jsonpath='{.items[*].metadata.name}'
}

if [ -n "$(running nvidia-device-plugin-daemonset)" ] && [ -z "$(running nvidia-container-toolkit-daemonset)" ]; then
  echo device-plugin-without-toolkit
  exit 1
fi
echo ok
