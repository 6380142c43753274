package host

import (
	"fmt"

	"schedlab/workload"
)

// hostRefused are the event kinds the worker has no code for (yet).
var hostRefused = map[workload.EventKind]bool{
	workload.Lock: true, workload.Unlock: true, workload.Wait: true, workload.Signal: true, workload.Broadcast: true,
	workload.SigAndWait: true, workload.Barrier: true, workload.SemPost: true, workload.SemWait: true,
	workload.Mem: true, workload.MemRun: true, workload.IORun: true,
}

// checkHostEvents refuses what the simulator runs and the host runner
// does not yet: rt-app's sync objects, mem and I/O events, a suspend on a
// named rendezvous, and phases that change the CPU affinity (the worker
// sets its threads' affinity once).
func checkHostEvents(spec *workload.Spec) error {
	for _, t := range spec.Tasks {
		for _, ph := range t.Phases {
			if ph.Props.CPUs != nil || ph.Props.TaskGroup != nil || ph.Props.Policy != nil {
				return unsupported("task %q phase %q sets cpus, taskgroup or policy: the host runner applies them per task only (the simulator runs it)", t.Name, ph.Name)
			}
			for _, e := range ph.Events {
				where := fmt.Sprintf("task %q event %q", t.Name, e.Key)
				if hostRefused[e.Kind] {
					return unsupported("%s: rt-app's %v is not run on the host yet (the simulator runs it)", where, e.Kind)
				}
				switch e.Kind {
				case workload.Suspend:
					if e.Cond >= 0 {
						return unsupported("%s: a suspend on the rendezvous %q (rt-app 1.0) is not run on the host yet (the simulator runs it)", where, spec.Conds[e.Cond])
					}
				case workload.Resume:
					if e.TargetDef < 0 || e.Cond >= 0 {
						return unsupported("%s: a resume of the rendezvous %q (rt-app 1.0) is not run on the host yet (the simulator runs it)", where, e.Target)
					}
				}
			}
		}
	}
	return nil
}
