package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"schedlab/host"
)

// needHost skips a test that needs root, tracefs and a cgroup cpu
// controller, saying which is missing.
func needHost(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no host runs")
	}
	if _, err := host.Preflight(nil, true); err != nil {
		t.Skipf("host runs impossible here: %v", err)
	}
}

// SIGINT in the middle of a run: every process it started is gone, its
// cgroups and its tracefs instance are removed, and it says so.
func TestMeasureInterrupted(t *testing.T) {
	needHost(t)
	cmd := exec.Command(bin, "measure", "make-j10", "--duration", "60s")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inst := filepath.Join(host.TracefsRoot, "instances", "schedlab-"+strconv.Itoa(cmd.Process.Pid))
	cg := filepath.Join(host.CgroupRoot, "cpu", "schedlab-"+strconv.Itoa(cmd.Process.Pid))
	// Wait until the workload runs: its session has processes.
	session := regexp.MustCompile(`workload session (\d+)`)
	var sid int
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := session.FindStringSubmatch(e.String()); m != nil {
			sid, _ = strconv.Atoi(m[1])
			if len(sessionPIDs(sid)) > 5 { // make and a few jobs
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if sid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the run did not start; stderr:\n%s", e.String())
	}
	for _, p := range []string{inst, cg} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("while running: %v", err)
		}
	}
	running := len(sessionPIDs(sid))
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
		t.Errorf("exit: %v, want a failure", err)
	}
	if left := sessionPIDs(sid); len(left) > 0 {
		t.Errorf("processes of session %d left: %v", sid, left)
	}
	for _, p := range []string{inst, cg} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind (%v)", p, err)
		}
	}
	msg := e.String()
	for _, want := range []string{"interrupted", "killed and reaped", "removed tracefs instance " + inst, "removed cgroup " + cg} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	t.Logf("%d processes were running; stderr:\n%s", running, msg)
}

// What a user can fix is said before anything starts, with exit status 2.
func TestMeasureBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"measure", "two-hogs", "--cpus", "x"}, "--cpus"},
		{[]string{"measure", "no-such-scenario"}, "no-such-scenario"},
		{[]string{"validate", "two-hogs", "--runs", "0"}, "--runs 0"},
	}
	if os.Geteuid() == 0 {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"measure", "two-hogs", "--cpus", "0,99"}, "CPU 99 is not online"})
	}
	for _, c := range cases {
		out, errOut, code := schedlab(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want 2, nothing, and %q", c.args, code, out, errOut, c.want)
		}
	}
}

// sessionPIDs lists the processes of session sid.
func sessionPIDs(sid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 3 && f[3] == strconv.Itoa(sid) {
			out = append(out, pid)
		}
	}
	return out
}
