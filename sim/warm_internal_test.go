package sim

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"schedlab/workload"
)

// Warming only reads: runs whose queue splits (a thousand tasks asleep
// for long, their wakeups far) emit the same events with and without it,
// under each fair class, and the warming was done.
func TestWarmingChangesNothing(t *testing.T) {
	sp, err := workload.Parse("warm.json", []byte(`{"tasks": {"t": {"instance": 1000,
		"run": {"dist": "exponential", "mean": 300}, "sleep": {"dist": "exponential", "mean": 200000}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer func(old bool) { warmTasks = old }(warmTasks)
	for _, c := range []struct {
		policy string
		ncpu   int
	}{{"cfs-2.6.24", 1}, {"cfs-2.6.35", 1}, {"cfs-2.6.35", 8}, {"eevdf-6.12", 4}} {
		digest := func(warm bool) (string, uint64) {
			warmTasks = warm
			s := &hashSink{h: sha256.New()}
			e, err := New(Config{Spec: sp, Sched: policyConfig(t, c.policy, c.ncpu), Params: DefaultParams(), Duration: 3e8, Sink: s})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.Run(); err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("%x", s.h.Sum(nil)), e.q.warmth
		}
		on, warmth := digest(true)
		off, none := digest(false)
		if on != off {
			t.Errorf("%s on %d CPUs: warming changed the event stream", c.policy, c.ncpu)
		}
		if warmth == 0 || none != 0 {
			t.Errorf("%s on %d CPUs: warmth %d with warming, %d without: the far wakeups were not warmed", c.policy, c.ncpu, warmth, none)
		}
	}
}
