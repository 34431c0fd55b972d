#!/usr/bin/env bash
# Writes the OpenAPI v3 documents the embedded cluster serves for its built-in kinds, as the
# upstream kube-apiserver built by build.sh serves them: read from a running upstream control
# plane (`proctor up --cluster kwokctl`), so that enums, feature-gated fields and media types are
# those of the release with its default feature gates, not of the files published in its
# repository (which differ in all three).
#
# The output, kwok/openapi/kubernetes.json.gz, holds each schema once (the documents share most
# of them) and, per document, everything else plus the names of its schemas; and the document of
# two sample custom resources, which the server's custom resource documents are shaped like. The
# server keeps the documents of the groups, and the paths of the resources, it serves.
#
# Usage: upstream/openapi.sh [--check]   --check: fail if the committed file is not what upstream serves
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$root/kwok/openapi/kubernetes.json.gz"
check=0
case "${1:-}" in
  --check) check=1 ;;
  -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "openapi.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
esac
for tool in cargo jq gzip kubectl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "openapi.sh: $tool is not installed" >&2; exit 1; }
done

work="$(mktemp -d)"
cluster=""
cleanup() {
  [ -z "$cluster" ] || kill "$cluster" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# PROCTOR_BIN: a proctor binary already built (CI passes the one its tests built); else built here.
proctor="${PROCTOR_BIN:-}"
if [ -z "$proctor" ]; then
  echo "building proctor" >&2
  (cd "$root" && cargo build -q -p proctor)
  proctor="$root/target/debug/proctor"
fi
echo "starting an upstream control plane" >&2
"$proctor" up --cluster kwokctl --nodes 1 --kubeconfig "$work/kubeconfig" >"$work/up.log" 2>&1 &
cluster=$!
export KUBECONFIG="$work/kubeconfig"
for _ in $(seq 120); do
  [ -s "$KUBECONFIG" ] && kubectl get --raw /openapi/v3 >/dev/null 2>&1 && break
  kill -0 "$cluster" 2>/dev/null || { cat "$work/up.log" >&2; echo "openapi.sh: the upstream control plane did not start" >&2; exit 1; }
  sleep 1
done
kubectl get --raw /openapi/v3 >/dev/null || { cat "$work/up.log" >&2; exit 1; }

release="$(kubectl get --raw /version | jq -r .gitVersion)"
for name in $(kubectl get --raw /openapi/v3 | jq -r '.paths | keys[]'); do
  kubectl get --raw "/openapi/v3/$name" | jq -c --arg path "$name" '{path: $path, doc: .}'
done >"$work/documents.jsonl"

# A custom resource's document is built, not published: the server shapes each one like the
# document upstream builds for these two sample definitions (a namespaced and a cluster-scoped
# kind, both with the status and scale subresources), whose metadata schemas it also borrows.
sample() { # kind, plural, scope
  cat <<EOF
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: $2.proctor.example}
spec:
  group: proctor.example
  scope: $3
  names: {kind: $1, plural: $2}
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
        scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
      schema:
        openAPIV3Schema: {type: object, properties: {spec: {type: object}}}
---
EOF
}
{ sample Sample samples Namespaced; sample ClusterSample clustersamples Cluster; } | kubectl apply -f - >/dev/null
kubectl wait --for condition=established crd/samples.proctor.example crd/clustersamples.proctor.example --timeout=60s >/dev/null
for _ in $(seq 60); do
  kubectl get --raw /openapi/v3/apis/proctor.example/v1 2>/dev/null >"$work/custom.json" &&
    jq -e '.components.schemas | has("example.proctor.v1.Sample") and has("example.proctor.v1.ClusterSample")' "$work/custom.json" >/dev/null 2>&1 && break
  sleep 1
done
jq -e '.components.schemas | has("example.proctor.v1.ClusterSample")' "$work/custom.json" >/dev/null ||
  { echo "openapi.sh: upstream did not publish the sample definitions' document" >&2; exit 1; }

jq -s -c --arg release "$release" --slurpfile custom "$work/custom.json" '
  # Documents share schemas by name; a name standing for two schemas could not be kept once.
  ([.[].doc.components.schemas // {} | to_entries[]] | group_by(.key)
    | map(select(map(.value) | unique | length > 1) | .[0].key)) as $conflicts
  | if ($conflicts | length) > 0 then error("schemas that differ between documents: \($conflicts)") else . end
  | {
    release: $release,
    schemas: (map(.doc.components.schemas // {}) | add),
    documents: (map({key: .path, value: (.doc | .components.schemas |= ((. // {}) | keys))}) | from_entries),
    custom: $custom[0]
  }' "$work/documents.jsonl" | gzip -9 -n >"$work/bundle.json.gz"

if [ "$check" = 1 ]; then
  if cmp -s "$work/bundle.json.gz" "$out"; then
    echo "kwok/openapi/kubernetes.json.gz is what upstream $release serves"
    exit 0
  fi
  echo "openapi.sh: kwok/openapi/kubernetes.json.gz differs from what upstream $release serves; run upstream/openapi.sh" >&2
  exit 1
fi
mkdir -p "$(dirname "$out")"
mv "$work/bundle.json.gz" "$out"
echo "wrote kwok/openapi/kubernetes.json.gz ($(wc -c <"$out") bytes) from upstream $release" >&2
