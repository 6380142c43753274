package workload

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// wantError parses js and checks that the error names the file and a
// position and says each of want.
func wantError(t *testing.T, js string, want ...string) {
	t.Helper()
	_, err := Parse("w.json", []byte(js))
	if err == nil {
		t.Errorf("%.120s: no error", js)
		return
	}
	if !strings.HasPrefix(err.Error(), "w.json:") {
		t.Errorf("%.120s: error %q does not name the file", js, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%.120s: error %q lacks %q", js, err, w)
		}
	}
}

// A task-group path becomes directories below the run's cgroup on the
// host: a component that is not a plain cgroup name must be refused
// where it is written, whichever key writes it.
func TestGroupPathsArePlainCgroupNames(t *testing.T) {
	for _, bad := range []string{
		"/..", "/a/..", "/../../etc", "/a/../b", "/.", "/a/./b", "/a//b", "/a/", "//a",
		"/.hidden", "/a b", "/a\nb", "/a\\b", "/é", "/a/cgroup.procs", "/cpu.shares", "/tasks",
		"/memory.max", "/" + strings.Repeat("x", 256), "/" + strings.Repeat("a/", MaxGroupDepth) + "a",
	} {
		for _, js := range []string{
			fmt.Sprintf(`{"tasks": {"a": {"taskgroup": %q, "run": 1}}}`, bad),
			fmt.Sprintf(`{"global": {"taskgroups": {%q: {"shares": 2}}}, "tasks": {"a": {"run": 1}}}`, bad),
		} {
			wantError(t, js, "task group path", "w.json:1:")
		}
	}
	s := mustParse(t, `{"global": {"taskgroups": {"/user.slice/x-1_2": {"shares": 2}}},
		"tasks": {"a": {"taskgroup": "/user@1000.service/a:b+c", "run": 1},
		"b": {"taskgroup": "/`+strings.Repeat("a/", MaxGroupDepth-1)+`a", "run": 1}}}`)
	if len(s.Groups) != 4+MaxGroupDepth {
		t.Errorf("%d groups", len(s.Groups))
	}
}

// Every microsecond quantity becomes ns: one whose ns would wrap, or go
// past 10⁷ s, is refused at its line and column, not run as another
// length ({"run": 18446744073709552} used to be 384 ns).
func TestMicrosecondsAreRangeChecked(t *testing.T) {
	over := fmt.Sprint(int64(MaxMicros) + 1)
	for _, c := range []struct{ js, want string }{
		{`{"tasks": {"a": {"run": 18446744073709552}}}`, `w.json:1:25: task "a": run must be a non-negative integer of microseconds up to 10000000000000`},
		{`{"tasks": {"a": {"run": 1e14}}}`, "1:25: task \"a\": run must be"},
		{`{"tasks": {"a": {"runtime0": ` + over + `}}}`, "1:30: task \"a\": runtime0 must be"},
		{`{"tasks": {"a": {"phases": {"p": {"sleep": ` + over + `}}}}}`, `1:44: task "a" phase "p": sleep must be`},
		{`{"tasks": {"a": {"delay": 9223372036854776, "run": 1}}}`, "1:27: task \"a\": delay must be a non-negative integer of microseconds up to"},
		{`{"tasks": {"a": {"delay": -1, "run": 1}}}`, "1:27: task \"a\": delay must be"},
		{`{"tasks": {"a": {"timer": {"ref": "t", "period": 9223372036854775}}}}`, "1:50: task \"a\": timer period must be a positive integer of microseconds up to 10000000000000"},
		{`{"tasks": {"a": {"timer": {"ref": "t", "period": {"dist": "exponential", "mean": ` + over + `}}}}}`, `1:82: task "a": timer period: "mean" must be`},
		{`{"tasks": {"a": {"run": {"dist": "lognormal", "median": ` + over + `, "sigma": 1}}}}`, `"median" must be a non-negative integer of microseconds up to`},
		{`{"tasks": {"a": {"sleep": {"dist": "uniform", "min": 0, "max": ` + over + `}}}}`, `"max" must be`},
		{`{"tasks": {"a": {"sleep": {"dist": "uniform", "min": -5, "max": 1}}}}`, `"min" must be`},
		{`{"global": {"duration": 1e-10}, "tasks": {"a": {"run": 1}}}`, "1:25: global.duration 1e-10 is shorter than a nanosecond"},
		{`{"global": {"duration": 1e7}, "tasks": {"a": {"run": 1}}}`, "1:25: global.duration 1e7 is not a positive number of seconds up to 1e6"},
	} {
		wantError(t, c.js, c.want)
	}
	max := fmt.Sprint(int64(MaxMicros))
	s := mustParse(t, `{"tasks": {"a": {"delay": `+max+`, "run": `+max+`, "sleep": {"dist": "uniform", "min": `+max+`, "max": `+max+`},
		"timer": {"ref": "t", "period": `+max+`}}}}`)
	a := s.Tasks[0]
	ev := a.Phases[0].Events
	if a.Delay != MaxNS || ev[0].Dur.Fixed != MaxNS || ev[1].Dur.Max != MaxNS || ev[2].Period != MaxNS {
		t.Fatalf("at the limit: delay %d, run %d, sleep max %d, period %d", a.Delay, ev[0].Dur.Fixed, ev[1].Dur.Max, ev[2].Period)
	}
}

// A loop means the same count in the simulator and on the host, whose
// worker reads it as a C int: 4294967296 used to run until the end of a
// simulation and not once on the host.
func TestLoopsFitACInt(t *testing.T) {
	for _, js := range []string{
		`{"tasks": {"a": {"loop": 4294967296, "run": 1}}}`,
		`{"tasks": {"a": {"loop": 2147483648, "run": 1}}}`,
		`{"tasks": {"a": {"phases": {"p": {"loop": 4294967297, "run": 1}}}}}`,
		`{"tasks": {"a": {"loop": -2, "run": 1}}}`,
		`{"tasks": {"a": {"loop": 1.5, "run": 1}}}`,
	} {
		wantError(t, js, "loop must be -1 (forever) or a positive integer up to 2147483647", "C int", "w.json:1:")
	}
	s := mustParse(t, `{"tasks": {"a": {"loop": 2147483647, "phases": {"p": {"loop": 2147483647, "run": 1}}}}}`)
	if a := s.Tasks[0]; a.Loop != MaxLoop || a.Phases[0].Loop != MaxLoop {
		t.Fatalf("loops %d, %d", a.Loop, a.Phases[0].Loop)
	}
}

// What a file can make the parser and the engine hold is bounded: its
// size, its events, the threads it starts and its CPU lists, each refused
// with a message that names the limit.
func TestWorkloadSizeIsBounded(t *testing.T) {
	small := `{"tasks": {"a": {"run": 1}}}`
	padded := small + strings.Repeat(" ", MaxFileSize)
	wantParse := func(js string, want ...string) {
		t.Helper()
		_, err := Parse("w.json", []byte(js))
		if err == nil {
			t.Errorf("%.80s… (%d bytes): no error", js, len(js))
			return
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%.80s…: error %q lacks %q", js, err, w)
			}
		}
	}
	wantParse(padded, fmt.Sprintf("w.json: %d bytes: a workload file is at most 4194304 bytes (4 MiB)", len(padded)))
	mustParse(t, small+strings.Repeat(" ", MaxFileSize-len(small)))

	dir := t.TempDir()
	file := dir + "/big.json"
	if err := os.WriteFile(file, []byte(padded), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(file, nil); err == nil || !strings.Contains(err.Error(), file+": "+fmt.Sprint(len(padded))+" bytes: a workload file is at most") {
		t.Errorf("Load of a %d-byte file: %v", len(padded), err)
	}
	// A file that is not regular has no size to check first: Load reads
	// no more than the limit and a byte of it.
	fifo := dir + "/fifo.json"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write([]byte(padded)) // stops with EPIPE once Load has closed it
	}()
	if _, _, err := Load(fifo, nil); err == nil || !strings.Contains(err.Error(), fifo+": more than 4194304 bytes") {
		t.Errorf("Load of an endless file: %v", err)
	}

	// A million threads from one definition parse; an absurd count is
	// refused at its position, with the bound.
	wantError(t, `{"tasks": {"a": {"instance": 1000000, "run": 1},
		"c": {"run": 1, "instance": 48577}}}`, `w.json:2:31: task "c": the tasks so far start 1048577 threads: a workload starts at most 1048576`)
	wantError(t, `{"tasks": {"a": {"instance": 1000001, "run": 1}}}`, `w.json:1:30: task "a": instance must be an integer from 0 to 1000000 (0: a template for fork)`)
	wantError(t, `{"tasks": {"a": {"instance": 10000000000000000000000, "run": 1}}}`, "instance must be an integer from 0 to 1000000")
	mustParse(t, `{"tasks": {"a": {"instance": 1000000, "run": 1}, "c": {"instance": 48576, "run": 1}}}`)
	cpus := strings.Repeat("0, ", MaxCPUList)
	wantError(t, `{"tasks": {"a": {"cpus": [`+cpus+`0], "run": 1}}}`, `w.json:1:26: task "a": cpus lists 4097 CPUs: at most 4096`)
	mustParse(t, `{"tasks": {"a": {"cpus": [`+cpus[:len(cpus)-2]+`], "run": 1}}}`)

	if testing.Short() {
		t.Skip("the events bound needs a 3 MB file")
	}
	var b strings.Builder
	b.WriteString(`{"tasks": {"a": {"loop": 1, "phases": {"p": {`)
	for i := range MaxEvents {
		fmt.Fprintf(&b, `"run%d": 1, `, i)
	}
	b.WriteString(`}}}, "b": {"sleep": 1}}}`)
	wantError(t, b.String(), `task "b": event "sleep" is the file's 262145th: a workload has at most 262144 events`)
}
