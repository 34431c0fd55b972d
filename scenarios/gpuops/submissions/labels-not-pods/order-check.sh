#!/bin/bash
# order-check.sh <node>: a device plugin without a container toolkit on the same node is wrong
node=$1

label() {
  kubectl get node "$node" -o jsonpath="{.metadata.labels.nvidia\.com/gpu\.deploy\.$1}"
}

if [ "$(label device-plugin)" = true ] && [ "$(label container-toolkit)" != true ]; then
  echo device-plugin-without-toolkit
  exit 1
fi
echo ok
