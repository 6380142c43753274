//go:build cgo

package host

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"schedlab/workload"
)

// workerEnums reads the enumerators of worker.h as C numbers them: from 0,
// or the value written, then one more than the one before.
func workerEnums(t *testing.T) map[string]int {
	t.Helper()
	src, err := os.ReadFile("worker.h")
	if err != nil {
		t.Fatal(err)
	}
	src = regexp.MustCompile(`//.*`).ReplaceAll(src, nil)
	enums := map[string]int{}
	for _, body := range regexp.MustCompile(`(?s)enum\s+\w+\s*\{(.*?)\}`).FindAllSubmatch(src, -1) {
		next := 0
		for _, item := range strings.Split(string(body[1]), ",") {
			name, value, explicit := strings.Cut(strings.TrimSpace(item), "=")
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if explicit {
				if next, err = strconv.Atoi(strings.TrimSpace(value)); err != nil {
					t.Fatalf("worker.h: enumerator %s = %q: %v", name, value, err)
				}
			}
			enums[name] = next
			next++
		}
	}
	return enums
}

// checkCodes holds a table of worker.go to worker.h: the code of each kind
// the workload language has is the enumerator named after the kind, and
// every enumerator of the family is some kind's code, so that C and Go
// know the same kinds and mean the same by each.
func checkCodes[K comparable](t *testing.T, enums map[string]int, family string, kinds []K, name func(K) string, table map[K]int) {
	t.Helper()
	used := map[string]bool{}
	for _, k := range kinds {
		want := family + strings.ToUpper(name(k))
		c, ok := enums[want]
		switch {
		case !ok:
			t.Errorf("%q: worker.h has no %s", name(k), want)
		case table[k] != c:
			t.Errorf("%q: worker.go writes %d, but %s is %d", name(k), table[k], want, c)
		}
		used[want] = true
	}
	if len(table) != len(kinds) {
		t.Errorf("worker.go has %d codes for the %d kinds of %s", len(table), len(kinds), family)
	}
	for e := range enums {
		if strings.HasPrefix(e, family) && !used[e] {
			t.Errorf("worker.h has %s, which no kind of the workload language is", e)
		}
	}
}

// every lists the values of a workload enum: those it has a name for.
func every[K ~uint8](name func(K) string) []K {
	var out []K
	for k := range K(255) {
		if s := name(k); s != "" && s != "?" {
			out = append(out, k)
		}
	}
	return out
}

func TestWorkerCodes(t *testing.T) {
	enums := workerEnums(t)
	var kinds []workload.EventKind
	for _, k := range every(workload.EventKind.String) {
		if !hostRefused[k] { // checkHostEvents refuses them before compiling
			kinds = append(kinds, k)
		}
	}
	checkCodes(t, enums, "SL_EV_", kinds, workload.EventKind.String, eventCode)
	checkCodes(t, enums, "SL_DIST_", every(workload.DistKind.String), workload.DistKind.String, distCode)
	// The notify values are strings in a workload.Spec; each must be one
	// the language takes.
	notifies := []string{"", "signal", "thread", "input"}
	for _, n := range notifies[1:] {
		if _, err := workload.Parse("n.json", []byte(`{"tasks": {"w": {"timer": {"ref": "t", "period": 1000, "notify": "`+n+`"}, "run": 1}}}`)); err != nil {
			t.Errorf("notify %q: %v", n, err)
		}
	}
	checkCodes(t, enums, "SL_NOTIFY_", notifies, func(n string) string { return cmp.Or(n, "none") }, notifyCode)
}

// A loop count that does not fit the worker's int stops the worker before
// anything runs: a cast would make 4294967296 repetitions none. The
// workload language refuses such a count first, so the program is edited
// by hand here.
func TestWorkerRefusesLoopsOutsideAnInt(t *testing.T) {
	prog, err := compile(parse(t, `{"tasks": {"a": {"loop": 7, "phases": {"p": {"loop": 9, "run": 1}}}}}`), nil, nil, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, loop string }{
		{"\ntask 61 1 0 7 0\n", "\ntask 61 1 0 4294967296 0\n", "4294967296"},
		{"\nphase 9\n", "\nphase 2147483648\n", "2147483648"},
		{"\nphase 9\n", "\nphase 0\n", "0"},
		{"\ntask 61 1 0 7 0\n", "\ntask 61 1 0 -2 0\n", "-2"},
	} {
		if !bytes.Contains(prog, []byte(c.from)) {
			t.Fatalf("program has no %q:\n%s", c.from, prog)
		}
		bad := bytes.Replace(prog, []byte(c.from), []byte(c.to), 1)
		stderr, code := runWorkerProgram(t, bad)
		want := "program: loop " + c.loop + "\n"
		if code != exitSetup || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", strings.TrimSpace(c.to), code, stderr, exitSetup, want)
		}
	}
}

// runWorkerProgram starts this test binary as a root worker reading prog,
// and returns its standard error and exit status. The worker's go pipe is
// held and never written, so a program the worker accepts leaves it
// waiting before it starts anything; it is killed, with its process group,
// after a few seconds.
func runWorkerProgram(t *testing.T, prog []byte) (string, int) {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "program")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(prog); err != nil {
		t.Fatal(err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	goR, goW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer goR.Close()
	defer goW.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+jobRoot+" 3 4 5 6")
	cmd.ExtraFiles = []*os.File{f, null, goR, null}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return stderr.String() + " (still running after 10 s: the program was accepted)", -1
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stderr.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return stderr.String(), 0
}
