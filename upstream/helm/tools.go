//go:build tools

// The Helm command this module pins, so that `go build helm.sh/helm/v3/cmd/helm` builds it from
// the versions in go.sum.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
