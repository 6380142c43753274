package analyze

import (
	"math/rand/v2"
	"testing"

	"schedlab/trace"
)

// TestRunningRecord checks what lets a switch's prev, a mark's writer and
// a wakee skip the PID table (cpuSeen.task, Analyzer.wakee): on random
// streams over a few PIDs (reused, exiting, leaving dead, forked anew,
// with lost events and restarts), every record kept that still holds a
// PID is the one the table gives for that PID, and every free record is
// zero (newTask sets only a few fields). A record freed without its PID
// cleared, or one kept across a restart, fails it.
func TestRunningRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	states := []trace.TaskState{trace.Running, trace.Sleeping, trace.Dead}
	for round := range 200 {
		a := NewWith(Options{PerTask: true})
		var ts int64
		for range 300 {
			ts += rng.Int64N(3)
			pid := rng.Int32N(6)
			cpu := rng.Int32N(4) - rng.Int32N(2) // a few out of range
			switch rng.IntN(20) {
			case 0:
				a.Event(&trace.Event{TS: ts, CPU: cpu, Kind: trace.Exit, PID: pid})
			case 1:
				a.Event(&trace.Event{TS: ts, CPU: cpu, Kind: trace.Fork, PID: pid, ChildPID: 1 + rng.Int32N(5), ChildComm: "child"})
			case 2, 3:
				a.Event(&trace.Event{TS: ts, CPU: cpu, Kind: trace.Mark, Mark: trace.CallbackStart, PID: pid, Timer: 1, Seq: 1})
			case 4:
				a.Event(&trace.Event{TS: ts, CPU: cpu, Kind: trace.Lost})
			case 5:
				if rng.IntN(10) == 0 {
					a.Event(&trace.Event{TS: ts, CPU: cpu, Kind: trace.BufferStart})
				}
			case 6, 7, 8:
				a.Event(&trace.Event{TS: ts, CPU: cpu, Kind: trace.Waking + trace.Kind(rng.IntN(3)), PID: pid})
			default:
				a.Event(&trace.Event{TS: ts, CPU: cpu, Kind: trace.Switch, PID: pid, PrevState: states[rng.IntN(3)],
					NextPID: rng.Int32N(6), NextComm: "next"})
			}
			for _, j := range a.free { // newTask sets only pid, comm and used
				if r := a.tasks[j]; *r != (task{idx: r.idx}) {
					t.Fatalf("round %d at %d: free record %d is not zero: %+v", round, ts, j, *r)
				}
			}
			kept := []*task{a.wakee}
			for _, c := range a.cpus {
				kept = append(kept, c.task)
			}
			for i, r := range kept {
				if r == nil || r.pid == 0 {
					continue
				}
				j, ok := a.pids.get(r.pid)
				if !ok || a.tasks[j] != r || !r.used {
					t.Fatalf("round %d at %d: record %d kept (0: the wakee, then by CPU) holds PID %d but is not its current task", round, ts, i, r.pid)
				}
			}
		}
	}
}

// An event that starts a new task for a PID whose task has exited (an
// exit, a fork) does so when that task is the one running on the CPU,
// whose record the CPU keeps, as it does through the PID table.
func TestRunningRecordExited(t *testing.T) {
	a := NewWith(Options{PerTask: true})
	for _, e := range []trace.Event{
		{TS: 10, Kind: trace.Switch, NextPID: 5, NextComm: "a"},
		{TS: 20, Kind: trace.Exit, PID: 5},
		{TS: 25, Kind: trace.Exit, PID: 5},                                  // a new task: the first has exited
		{TS: 30, Kind: trace.Fork, PID: 5, ChildPID: 6, ChildComm: "child"}, // and again
	} {
		a.Event(&e)
	}
	if r := a.Finish(40); r.PIDReuse != 2 || len(r.Tasks) != 1 || r.Tasks[0].Runtime != 0 {
		t.Errorf("PIDReuse %d, tasks %+v; want 2 and one row (the first task, whose last slice has no known end)", r.PIDReuse, r.Tasks)
	}
}
