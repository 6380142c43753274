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
		ByComm: []analyze.TaskRow{{Comm: "cb", PID: 7, Tasks: 1, Runtime: 1500000, Switches: 3, AvgDelay: 2e6, MaxDelay: 4e6, MaxDelayStart: 5e8, MaxDelayEnd: 504e6}}})
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

// TestTextEscapesControls: what came from a trace or a workload (a comm, a
// file name, a trace's header) reaches a terminal as visible text, never
// as an escape sequence or an extra line; the JSON keeps it as it was.
func TestTextEscapesControls(t *testing.T) {
	r := &Run{Scenario: "s", Policy: "recorded", CPUs: 1, SimNS: 1e9,
		Headline: "trace evil\x1b]0;owned\x07.txt: tracefs text (tracer nop\x1b[2J)\nwritten by schedlab run: scenario \u009b31m",
		Warnings: []string{"other events ignored: irq\x1b[8m 3"}, NoTimer: "no timer marks in \x1bc"}
	r.FromAnalysis(analyze.Report{ByComm: []analyze.TaskRow{
		{Comm: "\x1b[2Jevil", PID: 7, Tasks: 1, Switches: 1},
		{Comm: "a\nmaximum latency: 0.0 µs", PID: 8, Tasks: 1, Switches: 1},
		{Comm: "bad\xffutf8", PID: 9, Tasks: 1, Switches: 1},
	}})
	var b strings.Builder
	if err := r.WriteText(&b, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, c := range out {
		if (c < 0x20 && c != '\n') || (c >= 0x7f && c < 0xa0) || c == 0xfffd {
			t.Fatalf("text has %U at byte %d:\n%q", c, i, out)
		}
	}
	for _, want := range []string{
		"trace evil\\x1b]0;owned\\x07.txt: tracefs text (tracer nop\\x1b[2J)\n",
		"written by schedlab run: scenario \\u009b31m\n",
		"warning: other events ignored: irq\\x1b[8m 3\n",
		"  \\x1b[2Jevil:7 ",
		"  a\\x0amaximum latency: 0.0 µs:8",
		"  bad\\xffutf8:9 ",
		"no timer marks in \\x1bc: no timer latency\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\nmaximum latency: 0.0") {
		t.Errorf("a comm made a line of its own:\n%s", out)
	}
	js, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(js), `"comm":"\u001b[2Jevil"`) {
		t.Errorf("JSON %s, %v: want the comm as it was", js, err)
	}
	if s := "plain µs text, no escapes"; Printable(s) != s {
		t.Errorf("Printable changed %q", s)
	}
}
