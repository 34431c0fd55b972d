//go:build tools

// Package tools names the programs this module builds (see ../build.sh), so that go.mod and
// go.sum pin every module they need.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
	_ "sigs.k8s.io/kwok/cmd/kwokctl"
)
