package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The queue fires live timers in (when, arming order), drops cancelled
// and re-armed entries, frees timer numbers with their entry, and
// keeps all of it across a renumbering of the arming counter.
func TestEventQueueOrder(t *testing.T) {
	for _, nearWrap := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(7, 8))
		var q eventQueue
		if nearWrap {
			q.seq = 1<<(64-idBits) - 1 - 500 // renumbers after 500 armings
		}
		timers := make([]timer, 200)
		type want struct {
			when int64
			seq  uint64
			t    *timer
		}
		live := map[*timer]want{}
		var fired []*timer
		now := int64(0)
		order := uint64(0) // arming order, independent of q.seq
		for step := 0; step < 20000; step++ {
			switch r := rng.IntN(10); {
			case r < 5:
				tm := &timers[rng.IntN(len(timers))]
				when := now + rng.Int64N(1000)
				q.arm(tm, when)
				order++
				live[tm] = want{when, order, tm}
			case r < 6:
				tm := &timers[rng.IntN(len(timers))]
				q.cancel(tm)
				delete(live, tm)
			default:
				got := q.peek()
				if len(live) == 0 {
					if got != nil {
						t.Fatalf("step %d: peek found a timer with none armed", step)
					}
					continue
				}
				var ws []want
				for _, w := range live {
					ws = append(ws, w)
				}
				first := slices.MinFunc(ws, func(a, b want) int {
					if a.when != b.when {
						return int(a.when - b.when)
					}
					return int(a.seq) - int(b.seq)
				})
				if got != first.t || got.when != first.when {
					t.Fatalf("step %d (near wrap %v): peek = timer at %d, want the one at %d", step, nearWrap, got.when, first.when)
				}
				q.pop()
				now = got.when
				delete(live, got)
				fired = append(fired, got)
			}
		}
		for q.peek() != nil {
			q.pop()
		}
		if len(q.h) != 0 || len(q.free) != len(q.timers) {
			t.Errorf("drained: %d entries, %d of %d numbers free", len(q.h), len(q.free), len(q.timers))
		}
		if len(q.timers) > len(timers) {
			t.Errorf("%d numbers for %d timers", len(q.timers), len(timers))
		}
		if nearWrap && q.seq > 1<<20 {
			t.Errorf("not renumbered: seq %d", q.seq)
		}
		if len(fired) < 1000 {
			t.Errorf("only %d timers fired", len(fired))
		}
	}
}
