package sim_test

import (
	"testing"

	"schedlab/sched"
	"schedlab/sim"
	"schedlab/uapi"
)

// schedProbe records each child's policy and nice when it is forked and
// every renice after.
type schedProbe struct {
	sched.Class
	atFork  map[int][2]int // child PID → policy, nice at Fork
	renices map[int][][2]int
}

func (p *schedProbe) Fork(rq, dst sched.RQ, parent, child *sched.Task) {
	if parent != nil {
		p.atFork[child.PID] = [2]int{int(child.Policy), child.Nice}
	}
	p.Class.Fork(rq, dst, parent, child)
}

func (p *schedProbe) SetNice(rq sched.RQ, t *sched.Task, nice int) {
	p.renices[t.PID] = append(p.renices[t.PID], [2]int{int(t.Policy), nice})
	p.Class.SetNice(rq, t, nice)
}

// sched_fork gives the child its parent's policy and nice; the thread
// then sets its own definition's (rt-app's set_thread_param when the
// thread starts): SCHED_OTHER and nice 0 for "c", which names neither,
// nice -3 for "d".
func TestForkedChildStartsWithParentsPolicyAndNice(t *testing.T) {
	probe := &schedProbe{atFork: map[int][2]int{}, renices: map[int][][2]int{}}
	cfg := wrapped(t, probe, func(c sched.Class) { probe.Class = c })
	run(t, sim.Config{Spec: spec(t, `{"tasks": {
		"p": {"policy": "SCHED_BATCH", "priority": 5, "loop": 1, "run": 1000, "fork": "c", "run1": 1000, "fork1": "d"},
		"c": {"instance": 0, "loop": 1, "run": 500},
		"d": {"instance": 0, "loop": 1, "priority": -3, "run": 500}}}`),
		Sched: cfg, Duration: 1e8, Check: true})
	parent := [2]int{int(uapi.SchedBatch), 5}
	for pid, own := range map[int][2]int{1002: {int(uapi.SchedNormal), 0}, 1003: {int(uapi.SchedNormal), -3}} {
		if got := probe.atFork[pid]; got != parent {
			t.Errorf("child %d forked with policy/nice %v, want its parent's %v", pid, got, parent)
		}
		if r := probe.renices[pid]; len(r) != 1 || r[0] != own {
			t.Errorf("child %d set its policy/nice to %v, want once %v", pid, r, own)
		}
	}
}
