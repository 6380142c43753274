package sim

import (
	"testing"

	"schedlab/sched"
)

// policyConfig is policy's configuration on ncpu CPUs with its defaults.
func policyConfig(t *testing.T, policy string, ncpu int) *sched.Config {
	t.Helper()
	prof, err := sched.Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := prof.NewConfig(ncpu, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
