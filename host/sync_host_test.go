package host_test

import (
	"bytes"
	"testing"
	"time"

	"schedlab/host"
	"schedlab/internal/hosttest"
	"schedlab/workload"
)

// syncWorkload uses every sync object, mem and iorun on the host, across
// threads and processes: a waiter woken by a signaller every 2 ms, a PI
// mutex two lockers fight over, a barrier of a thread and a process, and a
// semaphore pair.
const syncWorkload = `{"global": {"duration": 1, "pi_enabled": true, "mem_buffer_size": 65536}, "tasks": {
	"locker": {"instance": 2, "lock": "m", "run": 300, "unlock": "m", "mem": 100000, "sleep": 300},
	"waiter": {"lock": "cm", "wait": {"ref": "c", "mutex": "cm"}, "unlock": "cm", "run": 50},
	"signaller": {"sleep": 2000, "lock": "cm", "signal": "c", "unlock": "cm", "iorun": 200000},
	"bthread": {"run": 1000, "barrier": "B"},
	"bproc": {"process": true, "sleep": 3000, "barrier": "B"},
	"poster": {"sleep": 5000, "sem_post": "s", "resume": "Display"},
	"taker": {"sem_wait": "s", "run": 100, "suspend": "Display"}
}}`

func TestSyncOnHost(t *testing.T) {
	hosttest.Need(t)
	spec, err := workload.Parse("sync.json", []byte(syncWorkload))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	res, m, err := measure(host.Options{Spec: spec, Duration: time.Second, Seed: 1, Log: &log}, "sync.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(res.WorkerErrors) > 0 {
		t.Errorf("worker errors: %q", res.WorkerErrors)
	}
	w := hosttest.Follow(t, res.Trace, res.RootPID, res.End)
	// Each blocking task is woken, and switches out, about once a period:
	// the waiter every 2 ms (~500), the barrier's thread every 3 ms (~330),
	// the taker every 5 ms (~200, at the semaphore and the rendezvous).
	// The bounds are loose (a busy host), a third of those.
	for comm, least := range map[string]int{"waiter": 160, "bthread": 110, "taker": 60, "locker-0": 50, "locker-1": 50} {
		if w.Comms[comm] < least {
			t.Errorf("%s switched out %d times, want >= %d; all: %v", comm, w.Comms[comm], least, w.Comms)
		}
	}
	t.Logf("switch-outs: %v", w.Comms)
	if m.Report.WakeupLatency.Count == 0 {
		t.Errorf("no wakeups: %+v", m.Report.WakeupLatency)
	}
}
