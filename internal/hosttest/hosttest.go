// Package hosttest holds what tests that run workloads on the host kernel
// share: the check that the host can, and a stated reason to skip when not
// (through testskip, so that CI's output shows it).
package hosttest

import (
	"testing"

	"schedlab/host"
	"schedlab/internal/testskip"
)

// Need skips t unless the host can run workloads (root, tracefs, a cgroup
// cpu controller), saying which is missing; -short skips too. As root it
// mounts tracefs when it is not mounted, as a run would.
func Need(t testing.TB) {
	t.Helper()
	testskip.Uncached()
	if testing.Short() {
		testskip.Skip(t, "-short: no host runs")
	}
	if _, err := host.Preflight(nil, true); err != nil {
		testskip.Skip(t, "host runs impossible here: %v", err)
	}
}
