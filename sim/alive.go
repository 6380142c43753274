package sim

import (
	"iter"

	"schedlab/workload"
)

// liveTasks is the tasks created and not yet exited, in creation order
// (which is PID order). A million threads can be live, and thousands
// exit a second: an exit leaves a hole, closed when holes are half the
// list, so leaving is O(1) and the order never changes.
type liveTasks struct {
	list  []*Task // nil: a hole
	holes int
	// resume names a thread by comm or definition (resumeTarget): past
	// a few tasks, a list of each comm's and each definition's tasks in
	// creation order answers without a scan, built at the first lookup.
	byComm map[string]*taskRun
	byDef  map[*workload.Task]*taskRun
}

// resumeScan is the live count up to which resumeTarget scans.
const resumeScan = 64

func (l *liveTasks) add(t *Task) {
	t.liveIdx = len(l.list)
	l.list = append(l.list, t)
	if l.byComm != nil {
		l.index(t)
	}
}

func (l *liveTasks) remove(t *Task) {
	if t.liveIdx < 0 || t.liveIdx >= len(l.list) || l.list[t.liveIdx] != t {
		return
	}
	l.list[t.liveIdx] = nil
	t.liveIdx = -1
	if l.byComm != nil {
		l.byComm[t.st.Comm].left()
		l.byDef[t.def].left()
	}
	if l.holes++; l.holes > 32 && 2*l.holes > len(l.list) {
		n := 0
		for _, o := range l.list {
			if o != nil {
				o.liveIdx = n
				l.list[n] = o
				n++
			}
		}
		clear(l.list[n:])
		l.list, l.holes = l.list[:n], 0
	}
}

// len is the number of live tasks.
func (l *liveTasks) len() int { return len(l.list) - l.holes }

// all yields the live tasks in creation order.
func (l *liveTasks) all() iter.Seq[*Task] {
	return func(yield func(*Task) bool) {
		for _, t := range l.list {
			if t != nil && !yield(t) {
				return
			}
		}
	}
}

func (l *liveTasks) index(t *Task) {
	r := l.byComm[t.st.Comm]
	if r == nil {
		r = &taskRun{}
		l.byComm[t.st.Comm] = r
	}
	r.add(t)
	if r = l.byDef[t.def]; r == nil {
		r = &taskRun{}
		l.byDef[t.def] = r
	}
	r.add(t)
}

// first returns the first live task whose comm is comm, else, with a
// definition, the first live task of it.
func (l *liveTasks) first(comm string, def *workload.Task) *Task {
	if l.byComm == nil && l.len() <= resumeScan {
		for t := range l.all() {
			if t.st.Comm == comm {
				return t
			}
		}
		if def == nil {
			return nil
		}
		for t := range l.all() {
			if t.def == def {
				return t
			}
		}
		return nil
	}
	if l.byComm == nil {
		l.byComm, l.byDef = map[string]*taskRun{}, map[*workload.Task]*taskRun{}
		for t := range l.all() {
			l.index(t)
		}
	}
	if t := l.byComm[comm].first(); t != nil || def == nil {
		return t
	}
	return l.byDef[def].first()
}

// taskRun lists tasks sharing a comm or a definition, in creation order.
// An entry whose task exited (or whose Task was recycled as another
// PID) is stale: skipped at the head, and dropped when stale entries
// are half the list.
type taskRun struct {
	ts    []runEntry
	head  int
	stale int
}

type runEntry struct {
	t   *Task
	pid int
}

func (e runEntry) live() bool { return e.t.liveIdx >= 0 && e.t.st.PID == e.pid }

func (r *taskRun) add(t *Task) { r.ts = append(r.ts, runEntry{t, t.st.PID}) }

// left notes that one of the run's tasks exited.
func (r *taskRun) left() {
	if r.stale++; r.stale > 16 && 2*r.stale > len(r.ts)-r.head {
		n := 0
		for _, e := range r.ts[r.head:] {
			if e.live() {
				r.ts[n] = e
				n++
			}
		}
		clear(r.ts[n:])
		r.ts, r.head, r.stale = r.ts[:n], 0, 0
	}
}

func (r *taskRun) first() *Task {
	if r == nil {
		return nil
	}
	for r.head < len(r.ts) && !r.ts[r.head].live() {
		r.ts[r.head] = runEntry{}
		r.head++
		r.stale--
	}
	if r.head == len(r.ts) {
		return nil
	}
	return r.ts[r.head].t
}
