package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"schedlab/workload"
)

// WorkloadError is a run the workload itself cannot finish, whatever the
// engine does: its events loop without simulated time passing (a yield or
// resume ping-pong with zero costs), or its forks make more threads than
// the engine holds. Like a bad file it is the input's fault, and the
// message says what to change.
type WorkloadError struct{ Msg string }

func (e *WorkloadError) Error() string { return e.Msg }

// The no-progress bound: the events the engine dispatches at one instant
// before it calls the run a loop. Every event of a real workload takes
// some time or ends (a run, a sleep, a cost, a thread's exit), so a burst
// at one instant is a few events per thread and CPU; a loop of events
// that all cost nothing repeats forever, and each turn's wakeup adds a
// sample to the analysis (a ping-pong grew by 50 MB/s). The largest burst
// measured on the built-in scenarios is 8192 events (calibrated-make-j10000 on 4096
// CPUs with every cost 0), at most 1 per thread and CPU (6 for a synthetic
// program of six zero-cost events), so the bound leaves a margin of over
// 100 both ways. A loop found costs about a second and tens of MB.
const (
	stallBase      = 1_000_000
	stallPerEntity = 64
	// stallWitness is how many more events the engine dispatches, once
	// over the bound, to see which threads loop and in which events.
	stallWitness = 1024
)

// stallLimit is the no-progress bound now: it grows with the threads and
// CPUs that can take part in one instant.
func (e *Engine) stallLimit() uint64 {
	return stallBase + stallPerEntity*uint64(e.live+e.pending+len(e.cpus))
}

// stallSeen is a thread seen in a loop, and what it was doing.
type stallSeen struct {
	comm   string
	pid    int
	events map[string]bool
}

// stallNote records the thread of an event dispatched past the bound.
func (e *Engine) stallNote(t *timer) {
	task := t.taskOrNil()
	if task == nil {
		return
	}
	for _, s := range e.stall {
		if s.pid == task.st.PID {
			s.events[task.doing()] = true
			return
		}
	}
	if len(e.stall) < 8 {
		e.stall = append(e.stall, &stallSeen{comm: task.st.Comm, pid: task.st.PID, events: map[string]bool{task.doing(): true}})
	}
}

// doing names the event t is in: the key of its current event, or what
// it is about to do.
func (t *Task) doing() string {
	switch t.action {
	case actExit:
		return "exit"
	case actFork, actYield, actResume, actBlock, actStep:
		if t.phase >= 0 && t.phase < len(t.def.Phases) {
			if ph := t.def.Phases[t.phase]; t.event > 0 && t.event <= len(ph.Events) {
				ev := &ph.Events[t.event-1]
				if ev.Key == ev.Kind.String() {
					return fmt.Sprintf("%q", ev.Key)
				}
				return fmt.Sprintf("%q (%s)", ev.Key, ev.Kind)
			}
		}
	}
	return "its start"
}

// stallError says what looped and which costs would make it take time.
func (e *Engine) stallError() error {
	var who []string
	kinds := map[workload.EventKind]bool{}
	for _, s := range e.stall {
		evs := slices.Sorted(maps.Keys(s.events))
		who = append(who, fmt.Sprintf("%s (pid %d) at %s", s.comm, s.pid, strings.Join(evs, ", ")))
	}
	for t := range e.alive.all() {
		for _, s := range e.stall {
			if s.pid == t.st.PID && t.phase >= 0 && t.phase < len(t.def.Phases) {
				for _, ev := range t.def.Phases[t.phase].Events {
					kinds[ev.Kind] = true
				}
			}
		}
	}
	// The costs that could break the loop: the context switch whenever
	// threads alternate, and each zero-time event's own cost.
	var zero []string
	costs := []struct {
		name string
		v    int64
		kind workload.EventKind
	}{
		{ParamCtxSwitch, e.p.CostContextSwitch, 0},
		{ParamYield, e.p.CostYield, workload.Yield},
		{ParamWakeup, e.p.CostWakeup, workload.Resume},
		{ParamFork, e.p.CostFork, workload.Fork},
	}
	for _, c := range costs {
		if c.v == 0 && (c.kind == 0 || kinds[c.kind]) {
			zero = append(zero, c.name)
		}
	}
	raise := "give the loop's events run or sleep time"
	switch len(zero) {
	case 0:
	case 1:
		raise = fmt.Sprintf("raise %s (0 now; --set NAME=VALUE), or %s", zero[0], raise)
	default:
		raise = fmt.Sprintf("raise %s (all 0 now; --set NAME=VALUE), or %s", strings.Join(zero, " or "), raise)
	}
	return &WorkloadError{Msg: fmt.Sprintf("the workload makes no progress: at %d ns the simulated clock has not moved for %d events (the bound is %d); looping: %s. Every step of the loop takes no time: %s",
		e.now, e.still, e.stallLimit(), strings.Join(who, "; "), raise)}
}
