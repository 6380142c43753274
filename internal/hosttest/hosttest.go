// Package hosttest holds what tests that run workloads on the host kernel
// share: the check that the host can, and a stated reason to skip when not.
package hosttest

import (
	"testing"

	"schedlab/host"
)

// Need skips t unless the host can run workloads (root, tracefs, a cgroup
// cpu controller), saying which is missing; -short skips too.
func Need(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no host runs")
	}
	if _, err := host.Preflight(nil, true); err != nil {
		t.Skipf("host runs impossible here: %v", err)
	}
}
