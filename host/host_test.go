package host_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"schedlab/host"
	"schedlab/internal/hosttest"
	"schedlab/lab"
	"schedlab/workload"
)

// hostWorkload exercises every kind of thread the worker makes and every
// code of its program (worker.h): an rt-app timer, a SIGEV_THREAD, a signal
// and an input timer (the last ended by latency_end), a busy loop with
// runtime and yield, thread and process forks, a suspend/resume pair, and
// each distribution of a duration.
const hostWorkload = `{"global": {"duration": 1}, "tasks": {
	"tick": {"timer": {"ref": "t", "period": 10000}, "run": 200},
	"hog": {"run": 5000, "runtime": 500, "yield": 0, "sleep": {"dist": "uniform", "min": 500, "max": 1500}},
	"sig": {"timer": {"ref": "sig", "period": 50000, "notify": "signal"}, "run": {"dist": "exponential", "mean": 50}},
	"kbd": {"timer": {"ref": "kbd", "period": 50000, "notify": "input"}, "run": {"dist": "lognormal", "median": 50, "sigma": 0.5}, "latency_end": 0},
	"spawner": {"loop": 3, "sleep": 100000, "fork": "child", "resume": "waiter"},
	"child": {"instance": 0, "process": true, "loop": 1, "run": 1000},
	"waiter": {"suspend": 0, "run": 50},
	"helper": {"timer": {"ref": "posix", "period": 20000, "mode": "absolute", "notify": "thread"}, "run": 30, "fork": "cb"},
	"cb": {"instance": 0, "loop": 1, "run": 100}
}}`

// measure runs o on the host and analyses the recording as measure does.
func measure(o host.Options, name string) (*host.Recording, *lab.Outcome, error) {
	rec, err := host.Run(context.Background(), o)
	if err != nil {
		return rec, nil, err
	}
	oc, err := lab.AnalyzeRecording(rec, name, lab.Keep{})
	return rec, oc, err
}

func TestRunOnHost(t *testing.T) {
	hosttest.Need(t)
	spec, err := workload.Parse("host.json", []byte(hostWorkload))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	res, m, err := measure(host.Options{Spec: spec, Duration: time.Second, Seed: 1, Log: &log}, "host.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Logf("%s", log.String())
	if len(res.WorkerErrors) > 0 {
		t.Errorf("worker errors: %q", res.WorkerErrors)
	}
	// Cleanup left nothing behind.
	if n := host.SessionPIDs(res.RootPID); len(n) > 0 {
		t.Errorf("processes of session %d left: %v", res.RootPID, n)
	}
	left, _ := filepath.Glob(filepath.Join(host.TracefsDir(), "instances", "schedlab-*"))
	for _, d := range left {
		if strings.HasPrefix(filepath.Base(d), "schedlab-"+strconv.Itoa(os.Getpid())+"-") {
			t.Errorf("tracefs instance %s left", d)
		}
	}
	if res.Facts.Cgroup != "" {
		if _, err := os.Stat(res.Facts.Cgroup); err == nil {
			t.Errorf("cgroup %s left", res.Facts.Cgroup)
		}
	}

	// The workload's tasks, by following forks from the root; every
	// wakeup of one was served, except those the end cut off.
	w := hosttest.Follow(t, res.Trace, res.RootPID, res.End)
	comms, forks := w.Comms, w.Forks
	for _, e := range w.ForeignMarks {
		t.Errorf("mark from a task outside the workload: %+v", e)
	}
	for _, c := range []string{"tick", "hog", "sig", "kbd", "spawner", "child", "waiter", "helper", "cb"} {
		if comms[c] == 0 {
			t.Errorf("no switch-out of a task named %q; seen %v", c, comms)
		}
	}
	r := m.Report
	// 1 s of a 10 ms rt-app timer, a 20 ms SIGEV_THREAD timer and two
	// 50 ms POSIX timers: about 100 + 50 + 20 + 20 expiries, each a sample
	// or a missed event. The bound is loose (a busy host delays the start),
	// never a latency threshold.
	const want = 100 + 50 + 20 + 20
	expiries := r.TimerLatency.Count
	if r.TimerLatency.Missed != nil {
		expiries += *r.TimerLatency.Missed
	}
	t.Logf("timer: %+v; wakeup: %+v; comms %v", r.TimerLatency, r.WakeupLatency, comms)
	if expiries < want*2/3 || expiries > want+4 {
		t.Errorf("%d timer samples + missed, want about %d", expiries, want)
	}
	if r.TimerLatency.Count > 0 && (r.TimerLatency.P50 < 0 || r.TimerLatency.Max < r.TimerLatency.P50) {
		t.Errorf("timer latency inconsistent: %+v", r.TimerLatency)
	}
	if r.WakeupLatency.Count == 0 || r.WakeupLatency.P50 < 0 {
		t.Errorf("wakeup latency: %+v", r.WakeupLatency)
	}
	for _, s := range m.Timer {
		if s < 0 {
			t.Errorf("negative timer sample %d ns", s)
		}
	}
	for _, s := range m.Wakeup {
		if s < 0 {
			t.Errorf("negative wakeup sample %d ns", s)
		}
	}
	// spawner forked 3 children; the helper's timer ~50 callbacks, all
	// forks of workload tasks (glibc's helper thread and the callbacks).
	if comms["child"] < 3 {
		t.Errorf("%d switch-outs of child processes, want >= 3", comms["child"])
	}
	if forks < 3+7+40 {
		t.Errorf("%d forks in the workload, want >= 50", forks)
	}
	if res.Overrun != 0 || res.Dropped != 0 {
		t.Errorf("events lost: overrun %d dropped %d", res.Overrun, res.Dropped)
	}
}

// sessionWatch is a run's Log that finds the workload's session in the
// start line and counts its processes while the run goes on.
type sessionWatch struct {
	mu   sync.Mutex
	log  bytes.Buffer
	sid  int
	peak int
	stop chan struct{}
	done chan struct{}
}

func watchSessions() *sessionWatch {
	w := &sessionWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		re := regexp.MustCompile(`workload session (\d+)`)
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			w.mu.Lock()
			if w.sid == 0 {
				if m := re.FindStringSubmatch(w.log.String()); m != nil {
					w.sid, _ = strconv.Atoi(m[1])
				}
			}
			sid := w.sid
			w.mu.Unlock()
			if sid != 0 {
				w.peak = max(w.peak, len(host.SessionPIDs(sid)))
			}
		}
	}()
	return w
}

func (w *sessionWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.Write(b)
}

// Peak stops watching and returns the most processes seen at once.
func (w *sessionWatch) Peak() int {
	close(w.stop)
	<-w.done
	return w.peak
}

// A workload that forks a short process every 2 ms: the exited ones are
// reaped as they go, not kept as zombies until the run ends (about 400 of
// them in 1 s otherwise).
func TestForkedProcessesReaped(t *testing.T) {
	hosttest.Need(t)
	spec, err := workload.Parse("forker.json", []byte(`{"tasks": {
		"forker": {"sleep": 2000, "fork": "short"},
		"short": {"instance": 0, "process": true, "loop": 1, "run": 100}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w := watchSessions()
	_, m, err := measure(host.Options{Spec: spec, Duration: time.Second, Seed: 1, Log: w}, "forker.json")
	peak := w.Peak()
	if err != nil {
		t.Fatalf("%v\n%s", err, w.log.String())
	}
	forks := 0
	for _, tk := range m.Report.PerTask { // a recording keeps a row per task
		if strings.HasPrefix(tk.Comm, "short") {
			forks++
		}
	}
	t.Logf("%d short processes, at most %d processes in the session at once", forks, peak)
	if forks < 100 {
		t.Errorf("only %d short processes ran, want hundreds", forks)
	}
	if peak > 50 {
		t.Errorf("%d processes in the session at once: exited forks are not reaped", peak)
	}
}

// A workload that forks long-lived processes without end reaches the
// run's pids.max: the kernel refuses the forks beyond it, the run fails and
// says which limit to raise, and nothing is left behind.
func TestPidsLimit(t *testing.T) {
	hosttest.Need(t)
	spec, err := workload.Parse("bomb.json", []byte(`{"tasks": {
		"bomb": {"sleep": 1000, "fork": "stay"},
		"stay": {"instance": 0, "process": true, "loop": 1, "sleep": 60000000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w := watchSessions()
	_, _, err = measure(host.Options{Spec: spec, Duration: time.Second, Seed: 1, Log: w, Limits: host.Limits{Pids: 40}}, "bomb.json")
	peak := w.Peak()
	var le *host.LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "--pids-max") || !strings.Contains(err.Error(), "40 processes and threads") {
		t.Fatalf("got %v, want a LimitError naming pids.max 40 and --pids-max\n%s", err, w.log.String())
	}
	t.Logf("%v; at most %d processes at once", err, peak)
	if peak > 40 {
		t.Errorf("%d processes at once, above pids.max 40", peak)
	}
	if !strings.Contains(w.log.String(), "killed and reaped") || !strings.Contains(w.log.String(), "removed cgroup") {
		t.Errorf("cleanup not reported:\n%s", w.log.String())
	}
}

// A process forked by a thread that runs as another uid starts as that
// uid and still counts its busy work (the task clock without the kernel).
func TestProcessForkAsAnotherUID(t *testing.T) {
	hosttest.Need(t)
	spec, err := workload.Parse("uid.json", []byte(`{"tasks": {
		"parent": {"uid": 65534, "loop": 3, "sleep": 100000, "fork": "kid"},
		"kid": {"instance": 0, "process": true, "loop": 1, "run": 1000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	_, m, err := measure(host.Options{Spec: spec, Duration: 500 * time.Millisecond, Seed: 1, Log: &log}, "uid.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	// The run succeeding says each kid opened its task clock (a worker
	// error fails the run); the kids are in the table. Their runtimes are
	// not checked: this host's trace lacks some switch-ins (a switch away
	// from idle on CPU 1), and a slice without one counts no runtime.
	kids := 0
	for _, tk := range m.Report.PerTask { // a recording keeps a row per task
		if tk.Comm == "kid" {
			kids++
		}
	}
	if kids < 3 {
		t.Errorf("%d kid processes in the table, want 3; tasks %+v", kids, m.Report.PerTask)
	}
}

// A thread that cannot do what the file says fails the run, saying what
// and how often, instead of a plausible report of another workload.
func TestWorkerErrorFailsRun(t *testing.T) {
	hosttest.Need(t)
	spec, err := workload.Parse("nice.json", []byte(`{"tasks": {"a": {"uid": 65534, "phases": {
		"p0": {"run": 100, "sleep": 1000}, "p1": {"priority": -10, "run": 100, "sleep": 1000}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = measure(host.Options{Spec: spec, Duration: 300 * time.Millisecond, Seed: 1}, "nice.json")
	if err == nil || !strings.Contains(err.Error(), "did not run as written: nice -10: Permission denied (") {
		t.Errorf("got %v, want the run to fail on the refused nice", err)
	}
}

// A task pinned to a CPU the host lacks is refused before anything starts.
func TestTaskCPUsCheckedFirst(t *testing.T) {
	hosttest.Need(t)
	spec, err := workload.Parse("pin.json", []byte(`{"tasks": {"a": {"cpus": [4095], "run": 1000, "sleep": 1000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	_, err = host.Run(context.Background(), host.Options{Spec: spec, Duration: time.Second, Log: &log})
	var pe *host.PreflightError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `task "a" asks for CPU 4095`) || strings.Contains(log.String(), "measuring") {
		t.Errorf("got %v (log %q), want a preflight error naming the task and the CPU", err, log.String())
	}
}

// A SCHED_FIFO task runs under the kernel's real-time class, at its
// priority: the kernel's own sched_switch prints its prio as 99 − 42 = 57
// (a fair task's is 100 to 139), and a SCHED_DEADLINE task's as −1. The
// tasks are periodic, 1 ms in 10 at most, so the test takes no CPU from
// anything else for long.
func TestRealTimeOnHost(t *testing.T) {
	hosttest.Need(t)
	spec, err := workload.Parse("fifo.json", []byte(`{"tasks": {
		"fifo": {"policy": "SCHED_FIFO", "priority": 42, "timer": {"ref": "t", "period": 10000}, "run": 1000},
		"rr": {"policy": "SCHED_RR", "priority": 7, "timer": {"ref": "r", "period": 10000}, "run": 500},
		"dl": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000, "dl-period": 10000, "timer": {"ref": "d", "period": 10000}, "run": 300}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	rec, err := host.Run(context.Background(), host.Options{Spec: spec, Duration: 300 * time.Millisecond, Seed: 1, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for comm, want := range map[string]string{"fifo": "57", "rr": "92", "dl": "-1"} {
		re := regexp.MustCompile(`(?:prev|next)_comm=` + comm + ` (?:prev|next)_pid=\d+ (?:prev|next)_prio=(-?\d+)`)
		// The thread starts fair, as rt-app's do, and sets its policy
		// first thing: from then on it is real-time.
		ms := re.FindAllSubmatch(rec.Trace, -1)
		for len(ms) > 0 && string(ms[0][1]) != want {
			ms = ms[1:]
		}
		if len(ms) < 20 {
			t.Errorf("%s: %d sched_switch lines name it at prio %s in 300 ms, want some 60", comm, len(ms), want)
		}
		for _, m := range ms {
			if string(m[1]) != want {
				t.Fatalf("%s: sched_switch prio %s after it was %s: %s", comm, m[1], want, m[0])
			}
		}
	}
}
