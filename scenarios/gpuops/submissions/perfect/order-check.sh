#!/usr/bin/env bash
# order-check.sh <node>: a device-plugin pod Running on <node> without a container-toolkit pod
# Running there is out of order: print device-plugin-without-toolkit and exit 1; otherwise print
# ok and exit 0. Only pods count: a toolkit label whose pod is not running does not help.
set -euo pipefail

node="${1:?usage: order-check.sh <node>}"

apps=$(kubectl get pods -n gpu-operator --field-selector="spec.nodeName=$node,status.phase=Running" \
  -o jsonpath='{range .items[*]}{.metadata.labels.app}{"\n"}{end}')

if grep -qxF nvidia-device-plugin-daemonset <<<"$apps" &&
   ! grep -qxF nvidia-container-toolkit-daemonset <<<"$apps"; then
  echo device-plugin-without-toolkit
  exit 1
fi
echo ok
