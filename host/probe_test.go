package host_test

import (
	"testing"

	"schedlab/host"
	"schedlab/internal/testskip"
)

// The probe measures every path and each figure is of a plausible order:
// positive, and a process start dearer than a thread's (it is a thread's
// creation and much more). Never a threshold on the machine's speed.
func TestProbe(t *testing.T) {
	if !host.HaveRunner {
		testskip.Skip(t, "built without cgo: no probe")
	}
	if testing.Short() {
		testskip.Skip(t, "-short: no host runs")
	}
	c, err := host.Probe(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *c)
	if c.ContextSwitchNS < 0 || c.PipeNS <= 0 || c.CloneNS <= 0 || c.TimerNS <= 0 {
		t.Errorf("a figure is not positive: %+v", *c)
	}
	if c.ForkExecNS <= c.CloneNS {
		t.Errorf("fork + exec %d ns is not dearer than a thread's creation %d ns", c.ForkExecNS, c.CloneNS)
	}
}
