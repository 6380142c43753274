package sim_test

import (
	"strings"
	"testing"

	"schedlab/host/rtapp"
	"schedlab/sim"
)

func TestRtappLog(t *testing.T) {
	// rt-app's tutorial example2: run 10 ms, timer of 100 ms. Loop one
	// starts after the first switch-in (3 µs), which also anchors the
	// timer grid (the thread's first step), and runs to 10.003 ms: slack
	// 100.003 ms − 10.003 ms; the expiry's wakeup path (2 µs) and
	// switch-in (3 µs) are wu_lat 5 µs, and the loop ends when the task
	// runs again, at 100.008 ms.
	e, err := sim.New(sim.Config{Spec: spec(t, `{"global": {"calibration": 10}, "tasks": {"thread0": {"run": 10000,
		"timer": {"ref": "unique", "period": 100000}}}}`), Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil),
		Params: sim.DefaultParams(), Duration: 250e6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	e.RecordRtappLog()
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	logs := e.RtappLogs()
	if len(logs) != 1 || logs[0].Name != "thread0-0" {
		t.Fatalf("logs %+v", logs)
	}
	var b strings.Builder
	logs[0].WriteTo(&b)
	want := `# Policy : SCHED_OTHER priority : 0
#idx     perf      run   period           start             end          rel_st      slack c_duration   c_period     wu_lat
   0     1000    10000   100005               3          100008               3      90000      10000     100000          5
   0     1000    10000   100000          100008          200008          100008      89995      10000     100000          5
`
	// The third loop is cut by the end of the run at 250 ms: not logged.
	if b.String() != want {
		t.Fatalf("log:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestRtappLogReadsAsRtapps: the parser of rt-app 1.0's own logs (which
// reads what /usr/bin/rt-app writes) reads the simulator's.
func TestRtappLogReadsAsRtapps(t *testing.T) {
	e, err := sim.New(sim.Config{Spec: spec(t, `{"global": {"cumulative_slack": true}, "tasks": {"a": {"instance": 2, "run": 3000,
		"timer": {"ref": "unique", "period": 10000}, "run1": 1000, "timer1": {"ref": "unique", "period": 10000}}}}`),
		Sched: schedConfig(t, "cfs-2.6.35", 1, nil, nil), Params: sim.DefaultParams(), Duration: 1e9, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	e.RecordRtappLog()
	if _, err := e.Run(); err != nil {
		t.Fatal(err)
	}
	for i, l := range e.RtappLogs() {
		var b strings.Builder
		l.WriteTo(&b)
		rows, err := rtapp.ParseLog(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		// A loop of 20 ms on a grid of 10 ms timers: 49 whole loops in 1 s
		// (the first starts 3 µs or one run later, the last is cut).
		if len(rows) < 48 || len(rows) > 50 {
			t.Fatalf("thread %d: %d rows", i, len(rows))
		}
		for _, r := range rows[1:] {
			if r.Thread != i || r.CDuration != 4000 || r.CPeriod != 20000 || r.Period < 19990 || r.Period > 20010 || r.Missed() {
				t.Fatalf("thread %d row %+v", i, r)
			}
		}
	}
}
