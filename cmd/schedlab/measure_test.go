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
	"schedlab/internal/hosttest"
	"schedlab/internal/testskip"
)

// startMeasure starts measure make-j10 and waits until its workload runs;
// it returns the command, its stderr and the workload's session.
func startMeasure(t *testing.T, extra ...string) (*exec.Cmd, *bytes.Buffer, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"measure", "make-j10", "--duration", "60s"}, extra...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	session := regexp.MustCompile(`workload session (\d+)`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := session.FindStringSubmatch(e.String()); m != nil {
			sid, _ := strconv.Atoi(m[1])
			if len(host.SessionPIDs(sid)) > 5 { // make and a few jobs
				return cmd, &e, sid
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("the run did not start; stderr:\n%s", e.String())
	return nil, nil, 0
}

// A signal or the timeout in the middle of a run: every process it
// started is gone, its cgroups and its tracefs instance are removed, and
// it says so.
func TestMeasureInterrupted(t *testing.T) {
	hosttest.Need(t)
	for _, c := range []struct {
		name  string
		sig   os.Signal
		extra []string
		cause string
	}{
		{"SIGINT", syscall.SIGINT, nil, "interrupt"},
		{"SIGTERM", syscall.SIGTERM, nil, "terminated"},
		{"timeout", nil, []string{"--timeout", "3s"}, "timeout after 3s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, e, sid := startMeasure(t, c.extra...)
			pid := strconv.Itoa(cmd.Process.Pid)
			inst := filepath.Join(host.TracefsDir(), "instances", "schedlab-"+pid)
			cg := filepath.Join(host.CgroupRoot, "cpu", "schedlab-"+pid)
			for _, p := range []string{inst, cg} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("while running: %v", err)
				}
			}
			if c.sig != nil {
				cmd.Process.Signal(c.sig)
			}
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
				t.Errorf("exit: %v, want a failure", err)
			}
			if left := host.SessionPIDs(sid); len(left) > 0 {
				t.Errorf("processes of session %d left: %v", sid, left)
			}
			for _, p := range []string{inst, cg} {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("%s left behind (%v)", p, err)
				}
			}
			msg := e.String()
			for _, want := range []string{"interrupted (" + c.cause, "killed and reaped", "removed tracefs instance " + inst, "removed cgroup " + cg} {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr lacks %q:\n%s", want, msg)
				}
			}
		})
	}
}

// A runner killed outright cannot clean up: its workload ends by itself
// (it watches the runner), and the next run removes what was left.
func TestMeasureKilled(t *testing.T) {
	hosttest.Need(t)
	cmd, _, sid := startMeasure(t)
	pid := strconv.Itoa(cmd.Process.Pid)
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for len(host.SessionPIDs(sid)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := host.SessionPIDs(sid); len(left) > 0 {
		t.Errorf("processes of session %d outlived their runner: %v", sid, left)
	}
	_, errOut, code := schedlab(t, "measure", "two-hogs", "--duration", "200ms")
	if code != 0 {
		t.Fatalf("next run: %d\n%s", code, errOut)
	}
	// The next run removes what was left (or another run on this machine,
	// such as a host test of another package, did it first).
	for _, p := range []string{filepath.Join(host.TracefsDir(), "instances", "schedlab-"+pid), filepath.Join(host.CgroupRoot, "cpu", "schedlab-"+pid)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind (%v)", p, err)
		}
	}
}

// What a user can fix is said before anything starts, with exit status 2.
func TestMeasureBadInput(t *testing.T) {
	testskip.Uncached() // the CPU check needs tracefs, which the run may mount
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

// On a machine where tracefs is not mounted, measure mounts it, says so and
// runs. The test unmounts tracefs and debugfs only in a private mount
// namespace of the child (Go makes its mounts private first), never for
// the machine.
func TestMeasureMountsTracefs(t *testing.T) {
	hosttest.Need(t)
	script := `set -e
for m in $(awk '$3 == "tracefs" || $3 == "debugfs" { print $2 }' /proc/mounts | sort -r); do umount "$m"; done
if awk '$3 == "tracefs" || $3 == "debugfs"' /proc/mounts | grep -q .; then echo "still mounted" >&2; exit 3; fi
exec "$@"`
	cmd := exec.Command("sh", "-c", script, "sh", bin, "measure", "two-hogs", "--duration", "200ms")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, e.String())
	}
	if !strings.Contains(e.String(), "mounted tracefs at /sys/kernel/tracing (it was not mounted)") {
		t.Errorf("stderr does not say it mounted tracefs:\n%s", e.String())
	}
	if !strings.Contains(o.String(), "measured two-hogs on the host") {
		t.Errorf("stdout:\n%s", o.String())
	}
	// The machine's own tracefs is still where it was.
	if host.TracefsDir() == "" {
		t.Errorf("tracefs is no longer mounted outside the namespace")
	}
}

// Not root: a clear error before anything starts.
func TestMeasureNotRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		_, errOut, code := schedlab(t, "measure", "two-hogs")
		if code != 2 || !strings.Contains(errOut, "needs root") {
			t.Errorf("code %d, stderr %q", code, errOut)
		}
		return
	}
	// As root, run the binary as nobody.
	if err := os.Chmod(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "measure", "two-hogs", "--duration", "1s")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 || o.Len() != 0 || !strings.Contains(e.String(), "needs root") {
		t.Errorf("as nobody: %v, stdout %q, stderr %q; want exit 2 and the reason", err, o.String(), e.String())
	}
}
