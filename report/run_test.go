package report

import (
	"encoding/json"
	"strings"
	"testing"

	"schedlab/analyze"
)

func TestMicrosecondsHaveOneDecimal(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{{0, "0.0"}, {26409049, "26409.0"}, {6762150, "6762.2"}, {49, "0.0"}, {50, "0.1"}, {1234567.8, "1234.6"}} {
		b, err := json.Marshal(NsToUS(c.ns))
		if err != nil || string(b) != c.want {
			t.Errorf("%v ns -> %s, want %s", c.ns, b, c.want)
		}
	}
}

func TestTextReport(t *testing.T) {
	samples := []int64{1000, 2000, 26409000}
	r := &Run{Scenario: "s", Policy: "cfs-2.6.35", CPUs: 1, Seed: 1, SimNS: 1e9,
		Features: map[string]bool{"START_DEBIT": false}, DefaultFeatures: map[string]bool{"START_DEBIT": true},
		Tunables: map[string]int64{"HZ": 1000}, DefaultTunables: map[string]int64{"HZ": 250},
		Reconstructions: []string{"START_NICE@R1 (start_nice_delta=3)"}}
	r.FromAnalysis(analyze.Report{TimerLatency: analyze.Summarise(samples), TimerMissed: 2,
		Tasks: []analyze.TaskRow{{Comm: "cb", PID: 7, Runtime: 1500000, Switches: 3, AvgDelay: 2e6, MaxDelay: 4e6, MaxDelayStart: 5e8, MaxDelayEnd: 504e6}}})
	var b strings.Builder
	if err := r.WriteText(&b, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"features changed: NO_START_DEBIT\n",
		"tunables changed: HZ=1000\n",
		"reconstruction (not known to match the original): START_NICE@R1 (start_nice_delta=3)\n",
		"  cb:7                  |      1.500 ms |        3 | avg:   2.000 ms | max:   4.000 ms | max start:     0.500000 s | max end:     0.504000 s\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "maximum latency: 26409.0 µs\naverage latency: 8804.0 µs\nmissed timer events: 2\n") {
		t.Errorf("text does not end with wakeup-latency.c's lines:\n%s", out)
	}
	// 1 µs, 2 µs and 26409 µs fall in runqlat's buckets 0-1, 2-3 and
	// 16384-32767; empty buckets are left out.
	want := []Bucket{{0, 1, 1}, {2, 3, 1}, {16384, 32767, 1}}
	if len(r.TimerLatency.Hist) != len(want) {
		t.Fatalf("histogram %+v, want %+v", r.TimerLatency.Hist, want)
	}
	for i, w := range want {
		if r.TimerLatency.Hist[i] != w {
			t.Errorf("bucket %d: %+v, want %+v", i, r.TimerLatency.Hist[i], w)
		}
	}
}
