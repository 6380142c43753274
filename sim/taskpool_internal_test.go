package sim

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"reflect"
	"testing"
	"unsafe"

	"schedlab/sched"
	_ "schedlab/sched/cfs"
	_ "schedlab/sched/eevdf"
	_ "schedlab/sched/rt"
	"schedlab/trace"
	"schedlab/workload"
)

// hashSink digests every event the engine emits.
type hashSink struct{ h hash.Hash }

func (s *hashSink) Event(e *trace.Event) { fmt.Fprintf(s.h, "%+v\n", *e) }

// forkTimers forks short threads that own per-thread POSIX timers (which
// outlive them, naming their dead owner), wait on a shared one, wake each
// other by name and exit: every kind of reference a dead task leaves.
const forkTimers = `{"tasks": {
	"hog": {"instance": 2, "run": 100000},
	"spawner": {"run": 200, "sleep": 4000, "fork": "worker", "run1": 30, "fork1": "waker"},
	"worker": {"instance": 0, "loop": 2, "timer": {"ref": "unique-p", "period": 3000, "notify": "signal"}, "run": 40, "suspend": 0},
	"waker": {"instance": 0, "loop": 1, "run": 60, "resume": "worker", "timer": {"ref": "shared-p", "period": 1500, "notify": "signal"}},
	"helper": {"timer": {"ref": "cb", "period": 2000, "notify": "thread"}, "run": 30, "fork": "callback"},
	"callback": {"instance": 0, "loop": 1, "run": 20, "resume": "spawner", "fork": "locker"},
	"locker": {"instance": 0, "loop": 1, "lock": "m", "run": 30, "unlock": "m", "lock1": "kept", "run1": 10}}}`

func runDigest(t *testing.T, spec *workload.Spec, policy string, ncpu int, recycle bool) (string, *Engine) {
	t.Helper()
	defer func(old bool) { recycleTasks = old }(recycleTasks)
	recycleTasks = recycle
	cfg := policyConfig(t, policy, ncpu)
	s := &hashSink{h: sha256.New()}
	e, err := New(Config{Spec: spec, Sched: cfg, Params: DefaultParams(), Duration: 5e8, Sink: s, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", s.h.Sum(nil)), e
}

// mutexOwners lists the PID and state each mutex's owner has.
func mutexOwners(e *Engine) string {
	if e.syncs == nil {
		return ""
	}
	s := ""
	for _, m := range e.syncs.mutexes {
		if m.owner != nil {
			s += fmt.Sprintf("%d/%d ", m.owner.st.PID, m.owner.state)
		} else {
			s += "- "
		}
	}
	return s
}

// Recycling exited tasks changes nothing a run emits: a recycled Task
// reached through a reference of its earlier life (a stale queue entry, a
// POSIX timer's owner or waiter) would fire a timer, mark an expiry or
// wake a thread under the new task's PID, and the traces would differ.
func TestRecycledTasksAreNotReachedThroughOldReferences(t *testing.T) {
	specs := map[string]*workload.Spec{}
	var err error
	if specs["forkTimers"], err = workload.Parse("forkTimers.json", []byte(forkTimers)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sigev-thread", "wakeup-latency-calibrated-make-j10"} {
		if specs[name], _, err = workload.Load(name, nil); err != nil {
			t.Fatal(err)
		}
	}
	for name, spec := range specs {
		for _, policy := range []string{"cfs-2.6.35", "eevdf-6.12"} {
			for _, ncpu := range []int{1, 4} {
				off, e0 := runDigest(t, spec, policy, ncpu, false)
				on, e := runDigest(t, spec, policy, ncpu, true)
				if off != on {
					t.Errorf("%s, %s, %d CPUs: the trace differs with recycled tasks", name, policy, ncpu)
				}
				// What a mutex's owner pointer names must be the same task
				// (a recycled struct would carry another PID).
				if o0, o1 := mutexOwners(e0), mutexOwners(e); o0 != o1 {
					t.Errorf("%s, %s, %d CPUs: mutex owners %s, with recycled tasks %s", name, policy, ncpu, o0, o1)
				}
				if e.reused == 0 {
					t.Errorf("%s, %s, %d CPUs: no task was recycled (%d created)", name, policy, ncpu, e.created)
				}
				// A POSIX timer's owner and a mutex's are never handed out again.
				if e.syncs != nil {
					for _, m := range e.syncs.mutexes {
						if m.owner != nil && e.freeTasks.Has(m.owner) {
							t.Errorf("%s, %s, %d CPUs: the owner of a mutex (pid %d) is on the free list", name, policy, ncpu, m.owner.st.PID)
						}
					}
				}
				for _, pt := range e.posix {
					if e.freeTasks.Has(pt.owner) {
						t.Errorf("%s, %s, %d CPUs: the owner of a POSIX timer (pid %d) is on the free list", name, policy, ncpu, pt.owner.st.PID)
					}
				}
			}
		}
	}
}

// Every Task handed out, fresh from a block or recycled, starts on a
// cache line (newTask1), so that the fields Task lays out to share a
// line do share it.
func TestTasksStartOnLines(t *testing.T) {
	if n := unsafe.Sizeof(Task{}); n != 576 {
		t.Fatalf("Task is %d bytes, want 576 (newTask1)", n)
	}
	e := &Engine{}
	check := func(tk *Task) {
		if a := uintptr(unsafe.Pointer(tk)); a%64 != 0 {
			t.Fatalf("a Task at %#x, not on a cache line", a)
		}
	}
	var ts []*Task
	for i := 0; i < 3*taskBlock+5; i++ {
		tk := e.allocTask()
		check(tk)
		ts = append(ts, tk)
	}
	for _, tk := range ts[:10] {
		e.freeTasks.Put(tk)
	}
	for i := 0; i < 12; i++ {
		check(e.allocTask())
	}
	if e.reused != 10 {
		t.Errorf("%d Tasks reused, 10 were free", e.reused)
	}
}

// A Task's hot part (Task, taskHotBytes) is five lines, the ones warm
// reads, and ends with what the class reads of sched.Task; the fields
// after it start past it.
func TestTaskHotPart(t *testing.T) {
	if taskHotBytes > 5*64 {
		t.Errorf("a Task's hot part is %d bytes, more than the five lines warm reads", taskHotBytes)
	}
	st := unsafe.Offsetof(Task{}.st)
	if st+sched.HotBytes != taskHotBytes {
		t.Errorf("the hot part ends at %d, not with st's (%d + %d)", taskHotBytes, st, sched.HotBytes)
	}
	ty := reflect.TypeOf(Task{})
	after := false
	for i := 0; i < ty.NumField(); i++ {
		f := ty.Field(i)
		if f.Name == "st" {
			after = true
			continue
		}
		if after && f.Offset < taskHotBytes {
			t.Errorf("Task.%s, after st, is at byte %d, within the hot part", f.Name, f.Offset)
		}
	}
	var tk Task
	if got := (&Engine{}).task(&tk.st); got != &tk {
		t.Errorf("task(&t.st) = %p, want %p", got, &tk)
	}
}

// What schedule() and sync read of a CPU (CPU) is in its first two
// lines: the fields up to idle, and the first 16 bytes (when, seq) of
// tickT and reschedT; a CPU is 256 bytes, a size class whose objects
// start on a line.
var cpuSink *CPU

func TestCPULayout(t *testing.T) {
	var c CPU
	if s := unsafe.Sizeof(c); s != 256 {
		t.Errorf("CPU is %d bytes, want 256", s)
	}
	for name, r := range map[string][2]uintptr{
		"idle":            {unsafe.Offsetof(c.idle), 8},
		"tickT's head":    {unsafe.Offsetof(c.tickT), 16},
		"reschedT's head": {unsafe.Offsetof(c.reschedT), 16},
	} {
		want := uintptr(1)
		if name == "idle" {
			want = 0
		}
		if first, last := r[0]/64, (r[0]+r[1]-1)/64; first != want || last != want {
			t.Errorf("CPU: %s is in lines %d-%d, want line %d", name, first, last, want)
		}
	}
	cpuSink = new(CPU) // on the heap, as the engine's are
	if a := uintptr(unsafe.Pointer(cpuSink)); a%64 != 0 {
		t.Errorf("a CPU at %#x, not on a line", a)
	}
}
