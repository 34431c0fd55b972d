#!/usr/bin/env bash
# drv-tag.sh <node>: print the precompiled driver image tag <branch>-<kernel>-<os id><os version>
# that <node> needs, read from its labels. Label keys contain dots, so they are escaped in jsonpath.
set -euo pipefail

node="${1:?usage: drv-tag.sh <node>}"

kubectl get node "$node" -o jsonpath='{.metadata.labels.nvidia\.com/cuda\.driver\.major}-{.metadata.labels.feature\.node\.kubernetes\.io/kernel-version\.full}-{.metadata.labels.feature\.node\.kubernetes\.io/system-os_release\.ID}{.metadata.labels.feature\.node\.kubernetes\.io/system-os_release\.VERSION_ID}{"\n"}'
