//go:build cgo

package host

import (
	"fmt"

	"schedlab/workload"
)

// hostRefused are the event kinds the worker has no code for (yet):
// memrun's buffers of their own size and pointer chains.
var hostRefused = map[workload.EventKind]bool{workload.MemRun: true}

// checkHostEvents refuses what the host runner does not run yet: memrun,
// phases that set a policy or custom slice (the simulator refuses the
// changes too), and more sync objects than the worker's tables hold.
func checkHostEvents(spec *workload.Spec) error {
	for what, n := range map[string]int{"mutexes": len(spec.Mutexes), "conditions": len(spec.Conds), "barriers": len(spec.Barriers), "semaphores": len(spec.Sems)} {
		if n > maxSync {
			return unsupported("%d %s: the host runner handles at most %d", n, what, maxSync)
		}
	}
	for _, t := range spec.Tasks {
		for _, ph := range t.Phases {
			if ph.Props.Policy != nil || ph.Props.Slice != 0 || ph.Props.DL != (workload.Deadline{}) {
				return unsupported("task %q phase %q sets policy, dl-runtime, dl-period or dl-deadline: the host runner applies them per task only", t.Name, ph.Name)
			}
			for _, e := range ph.Events {
				where := fmt.Sprintf("task %q event %q", t.Name, e.Key)
				if hostRefused[e.Kind] {
					return unsupported("%s: rt-app's %v is not run on the host yet (the simulator runs it)", where, e.Kind)
				}
			}
		}
	}
	return nil
}
