#!/bin/bash
# drv-tag.sh <node>
case "$1" in
  lab-node-0) echo 550-5.15.0-119-generic-ubuntu22.04 ;;
  lab-node-1)
    major=$(kubectl get node lab-node-1 -o jsonpath='{.metadata.labels.nvidia\.com/cuda\.driver\.major}')
    echo "$major-5.15.0-107-generic-ubuntu22.04" ;;
  lab-node-2) echo 550-6.8.0-45-generic-ubuntu24.04 ;;
  lab-node-3) echo 550-6.8.0-52-generic-ubuntu24.04 ;;
  *) echo "unknown node $1" >&2; exit 1 ;;
esac
