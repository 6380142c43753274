package lab

import (
	"strings"
	"testing"
	"time"

	"schedlab/workload"
)

// The process-level build keeps its N slots busy: every parent is woken by
// its child, so jobs keep coming (no slot deadlocks on a lost wakeup).
// With cc1's mean 340 ms (median 300 ms, σ 0.5) and 3 slots on one CPU, 6 s
// hold about 17 compiles in all: every slot must have compiled at least 3
// times, and only the 3 slots' compilers exist.
func TestKbuildSlotsKeepCompiling(t *testing.T) {
	for _, params := range []map[string]string{{"N": "3"}, {"N": "3", "shell": "0", "pipe": "0"}} {
		spec, name, err := workload.Load("make-jN", params)
		if err != nil {
			t.Fatal(err)
		}
		oc, err := Simulate(Request{Spec: spec, Name: name, Policy: "cfs-6.1", Duration: 6 * time.Second, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		compiles := map[string]int{}
		// The by-comm table: a row per slot's compiler, counting its tasks.
		for _, r := range oc.Analysis.ByComm {
			if strings.HasPrefix(r.Comm, "cc1_") {
				compiles[r.Comm] += r.Tasks
			}
		}
		for _, slot := range []string{"cc1_0", "cc1_1", "cc1_2"} {
			if compiles[slot] < 3 {
				t.Errorf("%v: slot %s compiled %d times in 6 s (%v)", params, slot, compiles[slot], compiles)
			}
		}
		t.Logf("%v: %v", params, compiles)
		if len(compiles) != 3 {
			t.Errorf("%v: compiles of %d slots, want 3: %v", params, len(compiles), compiles)
		}
	}
}
