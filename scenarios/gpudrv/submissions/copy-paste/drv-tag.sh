#!/bin/bash
# drv-tag.sh <node> -> <branch>-<kernel>-<os id><os version>
set -eu

node=$1

# read one label of the node; the dots in the key have to be escaped for jsonpath
label() {
  local key=${1//./\\.}
  kubectl get node "$node" -o jsonpath="{.metadata.labels.$key}"
}

branch=$(label nvidia.com/cuda.driver.major)
kernel=$(label feature.node.kubernetes.io/kernel-version.full)
os_id=$(label feature.node.kubernetes.io/system-os_release.ID)
os_ver=$(label feature.node.kubernetes.io/system-os_release.VERSION_ID)

echo "${branch}-${kernel}-${os_id}${os_ver}"
