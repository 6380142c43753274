package rtapp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string) []Row {
	t.Helper()
	rows, err := readLog(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestParseLogPeriodic(t *testing.T) {
	rows := readFixture(t, "periodic.log")
	if len(rows) != 99 {
		t.Fatalf("%d rows, want 99", len(rows))
	}
	first := Row{Thread: 1, Perf: 90909, Run: 1310, Period: 7636, Start: 8290420104, End: 8290427740,
		RelStart: 4889, Slack: 6217, CDuration: 1000, CPeriod: 10000, WuLat: 105}
	if rows[0] != first {
		t.Errorf("first row %+v, want %+v", rows[0], first)
	}
	res := &Result{Threads: map[string]int{}}
	if err := res.add("periodic", rows); err != nil {
		t.Fatal(err)
	}
	if res.Threads["periodic"] != 99 || len(res.WakeupLatency) != 99 || res.Missed != 0 {
		t.Errorf("samples %d (%v), missed %d; want 99, 0", len(res.WakeupLatency), res.Threads, res.Missed)
	}
	var sum int64
	for _, ns := range res.WakeupLatency {
		if ns < 0 || ns%1000 != 0 {
			t.Errorf("sample %d ns: want a non-negative whole µs", ns)
		}
		sum += ns
	}
	if sum != 55046*1000 {
		t.Errorf("sum of samples %d ns, want the log's 55046 µs", sum)
	}
}

func TestParseLogNoTimer(t *testing.T) {
	rows := readFixture(t, "hog.log")
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	res := &Result{Threads: map[string]int{}}
	if err := res.add("hog", rows); err != nil {
		t.Fatal(err)
	}
	if n, ok := res.Threads["hog"]; !ok || n != 0 || len(res.WakeupLatency) != 0 || res.Missed != 0 {
		t.Errorf("a thread without a timer gave %v, %d samples, %d missed", res.Threads, len(res.WakeupLatency), res.Missed)
	}
}

func TestParseLogMissed(t *testing.T) {
	rows := readFixture(t, "missed.log")
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10", len(rows))
	}
	if rows[0].Missed() || rows[0].WuLat != 115 {
		t.Errorf("first pass %+v: want a sample of 115 µs", rows[0])
	}
	for _, r := range rows[1:] {
		if !r.Missed() || r.WuLat != 0 || r.Slack >= 0 {
			t.Errorf("pass %+v: want missed (slack < 0, wu_lat 0)", r)
		}
	}
	res := &Result{Threads: map[string]int{}}
	if err := res.add("a", rows); err != nil {
		t.Fatal(err)
	}
	if len(res.WakeupLatency) != 1 || res.WakeupLatency[0] != 115000 || res.Missed != 9 {
		t.Errorf("samples %v, missed %d; want [115000], 9", res.WakeupLatency, res.Missed)
	}
}

func TestParseLogSharedTimer(t *testing.T) {
	rows := readFixture(t, "shared-timer.log")
	if rows[0].WuLat != -49832 {
		t.Errorf("wu_lat %d, want -49832 (printed as 2^64 - 49832)", rows[0].WuLat)
	}
	res := &Result{Threads: map[string]int{}}
	if err := res.add("a-0", rows); err == nil || !strings.Contains(err.Error(), "negative wu_lat") {
		t.Errorf("got %v, want a negative wu_lat error", err)
	}
}

func TestParseLogErrors(t *testing.T) {
	data, err := os.ReadFile("testdata/periodic.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for _, c := range []struct{ name, text, want string }{
		{"columns", strings.Replace(string(data), "wu_lat", "wakeup", 1), "columns"},
		{"short row", lines[0] + "\n" + lines[1] + "\n   1    90909     1310\n", "3 fields"},
		{"not a number", lines[0] + "\n" + strings.Replace(lines[2], "90909", "9x909", 1) + "\n", "column perf"},
	} {
		if _, err := ParseLog(strings.NewReader(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}
