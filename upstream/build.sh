#!/usr/bin/env bash
# Builds the upstream control plane the embedded cluster is judged against, from the Go modules
# pinned beside this script (go.mod and go.sum: nothing is copied, nothing else is downloaded):
#   kubernetes/  kube-apiserver, kube-controller-manager, kube-scheduler (k8s.io/kubernetes) and
#                etcd (go.etcd.io/etcd/server/v3, the version that Kubernetes release pins)
#   kwok/        kwok and kwokctl (sigs.k8s.io/kwok)
#   kubernetes/clientgo-probe/  client-go-probe: client-go's typed clients (protobuf bodies) doing
#                every verb on every served kind, for the differential suite
#   helm/        helm (helm.sh/helm/v3), a client the differential suite drives through a chart's
#                whole life
#   metrics-server/  metrics-server (sigs.k8s.io/metrics-server), which kwokctl runs to serve
#                metrics.k8s.io from the resource usage kwok reports
# kubectl is not built: kwokctl runs the one on PATH (it looks there first), which Proctor needs
# anyway; building it too cost about 200 more packages.
#
# The binaries go to $PROCTOR_UPSTREAM (default ~/.cache/proctor-upstream), in a directory named
# for the versions and a hash of the pins, once per machine; `current` points at the newest build.
# A second run with the same pins only checks that each binary starts.
#
# Usage: upstream/build.sh [--force]      prints the bin directory on its last line
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
force=0
case "${1:-}" in
  --force) force=1 ;;
  -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "build.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
esac

command -v go >/dev/null 2>&1 || {
  echo "build.sh: Go is not installed (the upstream binaries are built from Go modules; Go 1.23+ is needed)" >&2
  exit 1
}

# The versions, read from the pins rather than written twice.
pinned() { # module dir, module path
  (cd "$here/$1" && go list -m -f '{{if .Replace}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}' "$2")
}
kube_version="$(pinned kubernetes k8s.io/kubernetes)"
etcd_version="$(pinned kubernetes go.etcd.io/etcd/server/v3)"
kwok_version="$(pinned kwok sigs.k8s.io/kwok)"
helm_version="$(pinned helm helm.sh/helm/v3)"
metrics_server_version="$(pinned metrics-server sigs.k8s.io/metrics-server)"
go_version="$(go env GOVERSION)"

hash="$(cat "$here"/kubernetes/go.{mod,sum} "$here"/kubernetes/clientgo-probe/*.go "$here"/kwok/go.{mod,sum} "$here"/helm/go.{mod,sum} "$here"/metrics-server/go.{mod,sum} "$0" | { echo "$go_version"; cat; } | sha256sum | cut -c1-12)"
root="${PROCTOR_UPSTREAM:-${XDG_CACHE_HOME:-$HOME/.cache}/proctor-upstream}"
key="kubernetes-${kube_version}-etcd-${etcd_version}-kwok-${kwok_version}-${hash}"
out="$root/$key"
binaries=(kube-apiserver kube-controller-manager kube-scheduler etcd kwok kwokctl client-go-probe helm metrics-server)

# Each binary must start and say its version.
check() {
  local bin="$1/bin"
  "$bin/kube-apiserver" --version | grep -qx "Kubernetes $kube_version"
  "$bin/kube-controller-manager" --version | grep -qx "Kubernetes $kube_version"
  "$bin/kube-scheduler" --version | grep -qx "Kubernetes $kube_version"
  "$bin/etcd" --version | grep -q "etcd Version: ${etcd_version#v}"
  "$bin/kwok" --version | grep -q "${kwok_version#v}"
  "$bin/kwokctl" --version | grep -q "${kwok_version#v}"
  { "$bin/client-go-probe" 2>&1 || true; } | grep -q "usage: client-go-probe"
  "$bin/helm" version --short | grep -q "^${helm_version}"
  "$bin/metrics-server" --version | grep -qx "$metrics_server_version"
}

if [ "$force" = 0 ] && [ -f "$out/complete" ]; then
  if check "$out"; then
    echo "upstream binaries are up to date ($key)" >&2
    ln -sfn "$key" "$root/current"
    echo "$out/bin"
    exit 0
  fi
  echo "the cached binaries in $out do not start: building them again" >&2
fi

mkdir -p "$root"
work="$(mktemp -d "$root/.build-XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0

# `go build -v` names each package as it compiles it: count them as progress, show anything else.
progress() {
  awk -v what="$1" '
    / / { print; fflush(); next }
    { n++; if (n % 250 == 0) { printf "  %s: %d packages compiled\n", what, n; fflush() } }
    END { printf "  %s: %d packages compiled\n", what, n }' >&2
}

started=$SECONDS
echo "building the upstream control plane ($key) into $out" >&2
echo "  a first build compiles about 4,100 packages: about 10 minutes on 2 cores, plus the module downloads" >&2

# Version stamps as the projects' own release builds set them (Kubernetes: hack/lib/version.sh,
# so /version and `--version` say the release; kwok: hack/releases.sh with the git tag, so its fake
# kubelets say kwok-v0.7.0). The date comes from the module proxy's record; it has no commit.
info_file="$(cd "$here/kubernetes" && go mod download -json "k8s.io/kubernetes@$kube_version" |
  sed -n 's/.*"Info": "\([^"]*\)".*/\1/p')"
info="$(cat "$info_file" 2>/dev/null || true)"
commit="$(grep -o '"Hash": *"[0-9a-f]*"' <<<"$info" | grep -o '[0-9a-f]\{40\}' | head -1 || true)"
date="$(grep -o '"Time": *"[^"]*"' <<<"$info" | sed 's/.*"\([^"]*\)"$/\1/' | head -1 || true)"
minor="${kube_version#v1.}"
minor="${minor%%.*}"
ldflags=""
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  ldflags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitCommit=${commit:-unknown} -X $pkg.gitTreeState=clean -X $pkg.buildDate=${date:-unknown}"
done

t=$SECONDS
echo "[1/4] kube-apiserver, kube-controller-manager, kube-scheduler ($kube_version), etcd ($etcd_version)" >&2
(cd "$here/kubernetes" && go build -v -trimpath -ldflags "-s -w $ldflags" -o "$work/bin/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler 2>&1 | progress kubernetes)
# etcd's main package is the module root, so its binary would be called v3.
(cd "$here/kubernetes" && go build -v -trimpath -ldflags "-s -w" -o "$work/bin/etcd" go.etcd.io/etcd/server/v3 2>&1 | progress etcd)
(cd "$here/kubernetes" && go build -v -trimpath -ldflags "-s -w" -o "$work/bin/client-go-probe" ./clientgo-probe 2>&1 | progress client-go-probe)
echo "  done in $((SECONDS - t)) s" >&2

t=$SECONDS
echo "[2/4] kwok, kwokctl ($kwok_version)" >&2
kwok_ldflags="-X sigs.k8s.io/kwok/pkg/consts.Version=${kwok_version} -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=${kube_version#v}"
(cd "$here/kwok" && go build -v -trimpath -ldflags "-s -w $kwok_ldflags" -o "$work/bin/" \
  sigs.k8s.io/kwok/cmd/kwok sigs.k8s.io/kwok/cmd/kwokctl 2>&1 | progress kwok)
echo "  done in $((SECONDS - t)) s" >&2

t=$SECONDS
echo "[3/4] helm ($helm_version)" >&2
(cd "$here/helm" && go build -v -trimpath -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version" \
  -o "$work/bin/helm" helm.sh/helm/v3/cmd/helm 2>&1 | progress helm)
echo "  done in $((SECONDS - t)) s" >&2

t=$SECONDS
echo "[4/4] metrics-server ($metrics_server_version)" >&2
# Stamped as its Makefile stamps a release, so kwokctl reads the version it runs.
(cd "$here/metrics-server" && go build -v -trimpath \
  -ldflags "-s -w -X k8s.io/client-go/pkg/version.gitVersion=$metrics_server_version" \
  -o "$work/bin/metrics-server" sigs.k8s.io/metrics-server/cmd/metrics-server 2>&1 | progress metrics-server)
echo "  done in $((SECONDS - t)) s" >&2

# The stages kwokctl gives kwok by default (kwok's runtime/cluster.go, getDefaultNodeStages with a
# lease and getDefaultPodStages), as kwok's module holds them: Proctor gives kwok these, narrowed,
# beside the stages of its fault annotations (harness/src/cluster/kwok_stages.rs), since kwokctl
# gives no default once any stage is configured.
kwok_module="$(cd "$here/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)"
mkdir -p "$work/kwok-stages"
for stage in node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease \
  pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
  install -m 0644 "$kwok_module/kustomize/stage/$stage.yaml" "$work/kwok-stages/"
done

for b in "${binaries[@]}"; do
  [ -x "$work/bin/$b" ] || { echo "build.sh: $b was not built" >&2; exit 1; }
done
check "$work" || { echo "build.sh: a built binary does not start or says another version" >&2; exit 1; }
cat >"$work/versions" <<EOF
kubernetes $kube_version
etcd $etcd_version
kwok $kwok_version
helm $helm_version
metrics-server $metrics_server_version
go $go_version
EOF
touch "$work/complete"
rm -rf "$out"
mv "$work" "$out"
trap - EXIT
ln -sfn "$key" "$root/current"
# Builds of earlier pins are half a gigabyte each and nothing uses them any more.
for old in "$root"/kubernetes-*; do
  [ "$old" = "$out" ] || rm -rf "$old"
done
echo "built in $((SECONDS - started)) s: $(du -sh "$out/bin" | cut -f1) of binaries in $out/bin" >&2
echo "$out/bin"
