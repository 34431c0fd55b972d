//go:build tools

// Package tools names the program this module builds (see ../build.sh), so that go.mod and
// go.sum pin every module it needs.
package tools

import (
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
