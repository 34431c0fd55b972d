#!/usr/bin/env bash
# Writes the protobuf message tables the embedded cluster decodes request bodies with
# (kwok/machinery/src/protobuf/schema/<group>_<version>.rs) from the Go API types of the Kubernetes release
# pinned in kubernetes/go.mod: field numbers from each field's `protobuf` tag, JSON names and
# presence from its `json` tag and Go type (kubernetes/protobuf-tables/main.go). Every message
# reachable from the kinds the embedded cluster serves is written.
#
# Usage: upstream/protobuf-tables.sh [--check]   --check: fail if the committed tables differ
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$root/kwok/machinery/src/protobuf/schema"
check=0
case "${1:-}" in
  --check) check=1 ;;
  -h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "protobuf-tables.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
esac
for tool in go rustfmt; do
  command -v "$tool" >/dev/null 2>&1 || { echo "protobuf-tables.sh: $tool is not installed" >&2; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$here/kubernetes" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly go run ./protobuf-tables "$work")
rustfmt --edition 2021 "$work"/*.rs

if [ "$check" = 1 ]; then
  status=0
  for file in "$work"/*.rs; do
    name="$(basename "$file")"
    if ! cmp -s "$file" "$out/$name"; then
      echo "protobuf-tables.sh: $out/$name is not what the Go types say (run upstream/protobuf-tables.sh):" >&2
      diff -u "$out/$name" "$file" | head -40 >&2 || true
      status=1
    fi
  done
  for file in "$out"/*_v*.rs; do
    [ -e "$work/$(basename "$file")" ] || { echo "protobuf-tables.sh: $file is not written by the generator" >&2; status=1; }
  done
  [ "$status" = 0 ] && echo "protobuf tables match the Go types" >&2
  exit "$status"
fi
rm -f "$out"/*_v*.rs
cp "$work"/*.rs "$out/"
echo "wrote $(ls "$work" | wc -l) modules to $out" >&2
