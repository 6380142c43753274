// Package hosttest holds what tests that run workloads on the host kernel
// share: the check that the host can, and a stated reason to skip when not
// (through testskip, so that CI's output shows it).
package hosttest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"

	"schedlab/host"
	"schedlab/internal/testskip"
	"schedlab/trace"
	"schedlab/vm"
)

// Need skips t unless the host can run workloads (root, tracefs, a cgroup
// cpu controller), saying which is missing; -short skips too. As root it
// mounts tracefs when it is not mounted, as a run would.
func Need(t testing.TB) {
	t.Helper()
	testskip.Uncached()
	if testing.Short() {
		testskip.Skip(t, "-short: no host runs")
	}
	if _, err := host.Preflight(nil, true); err != nil {
		testskip.Skip(t, "host runs impossible here: %v", err)
	}
}

// Main runs a test binary's tests, unless the binary is a VM guest's
// init (a VM test boots the test binary itself as init): it then runs the
// launcher's request and powers the machine off. A package with VM tests
// calls it from its TestMain.
func Main(m *testing.M) {
	if vm.IsGuest() {
		vm.GuestMain()
	}
	os.Exit(m.Run())
}

// Kernel gives the named kernel for a VM test, fetching it once when it is
// not cached, or skips saying why it cannot be had (-short, no cgo, no
// QEMU, no apt).
func Kernel(t testing.TB, name string) *vm.Kernel {
	t.Helper()
	testskip.Uncached()
	if testing.Short() {
		testskip.Skip(t, "-short: no VM boots")
	}
	if !host.HaveRunner {
		testskip.Skip(t, "built without cgo: the guest's init would have no host runner")
	}
	if _, err := exec.LookPath(vm.QEMU); err != nil {
		testskip.Skip(t, "%s is not installed (Debian's qemu-system-x86; .ci/setup installs it)", vm.QEMU)
	}
	k, err := vm.Cached(name)
	var nf *vm.NotFetchedError
	if errors.As(err, &nf) {
		var log bytes.Buffer
		if k, err = vm.Fetch(name, &log); err != nil {
			testskip.Skip(t, "kernel %s cannot be fetched here: %v", name, err)
		}
		t.Logf("%s", log.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Workload is what a recording shows of the workload that started at its
// root process: the tasks followed through forks from it.
type Workload struct {
	Tasks map[int32]bool
	// Comms counts the switch-outs of the workload's tasks by comm: a new
	// thread or process names itself once it runs, so its name shows when
	// it leaves a CPU.
	Comms        map[string]int
	Forks, Marks int
	// ForeignMarks are marks written by tasks outside the workload.
	ForeignMarks []trace.Event
}

// Follow reads a recording's ftrace text and fails t where the kernel
// broke a promise: a workload task woken more than 50 ms before the end
// that never ran. A task woken while still on its CPU needs no switch-in,
// and one seen leaving a CPU ran whether or not its switch-in is in the
// trace (this host's tracefs leaves out some switches away from idle).
func Follow(t testing.TB, text []byte, root int, end int64) *Workload {
	t.Helper()
	var evs trace.Recorder
	if _, err := trace.Parse(bytes.NewReader(text), &evs); err != nil {
		t.Fatal(err)
	}
	w := &Workload{Tasks: map[int32]bool{int32(root): true}, Comms: map[string]int{}}
	pending := map[int32]int64{}
	running := map[int32]bool{}
	for _, e := range evs.Events {
		switch e.Kind {
		case trace.Fork:
			if w.Tasks[e.PID] {
				w.Tasks[e.ChildPID] = true
				w.Forks++
			}
		case trace.Waking:
			if w.Tasks[e.PID] && !running[e.PID] {
				if _, ok := pending[e.PID]; !ok {
					pending[e.PID] = e.TS
				}
			}
		case trace.Switch:
			running[e.PID], running[e.NextPID] = false, true
			delete(pending, e.NextPID)
			delete(pending, e.PID)
			if w.Tasks[e.PID] {
				w.Comms[e.Comm]++
			}
		case trace.Mark:
			if !w.Tasks[e.PID] {
				w.ForeignMarks = append(w.ForeignMarks, e)
			}
			w.Marks++
		}
	}
	for pid, ts := range pending {
		if end-ts > 50e6 {
			t.Errorf("task %d woken at %d never ran (recording ends %d)", pid, ts, end)
		}
	}
	return w
}
