package sim_test

import (
	"strings"
	"testing"

	"schedlab/sim"
)

func TestRtappLog(t *testing.T) {
	// rt-app's tutorial example2: run 10 ms, timer of 100 ms. Loop one
	// starts after the first switch-in (3 µs), runs to 10.003 ms: slack
	// 100 ms − 10.003 ms; the expiry's wakeup path (2 µs) and switch-in
	// (3 µs) are wu_lat 5 µs, and the loop ends when the task runs again.
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
   0     1000    10000   100002               3          100005               3      89997      10000     100000          5
   0     1000    10000   100000          100005          200005          100005      89995      10000     100000          5
`
	// The third loop is cut by the end of the run at 250 ms: not logged.
	if b.String() != want {
		t.Fatalf("log:\n%s\nwant:\n%s", b.String(), want)
	}
}
