package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"schedlab/host"
	"schedlab/internal/hosttest"
	"schedlab/internal/testskip"
)

// startMeasure starts measure calibrated-make-j10 and waits until its workload runs;
// it returns the command, its stderr and the workload's session.
func startMeasure(t *testing.T, extra ...string) (*exec.Cmd, *bytes.Buffer, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"measure", "calibrated-make-j10", "--duration", "60s"}, extra...)...)
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

// runPaths are the tracefs instance and the cgroups of the run of the
// runner pid that exist now, in every hierarchy (cpu, pids, memory; v1 or
// v2): schedlab-<pid>-<random>.
func runPaths(pid string) []string {
	name := "schedlab-" + pid + "-*"
	paths, _ := filepath.Glob(filepath.Join(host.CgroupRoot, "*", name))
	top, _ := filepath.Glob(filepath.Join(host.CgroupRoot, name))
	paths = append(paths, top...)
	if d := host.TracefsDir(); d != "" {
		inst, _ := filepath.Glob(filepath.Join(d, "instances", name))
		paths = append(paths, inst...)
	}
	return paths
}

// runName is the name of a run's instance and cgroups, from its start line.
func runName(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`tracefs instance \S+/(schedlab-\d+-[0-9a-f]+)\)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no instance name in stderr:\n%s", stderr)
	}
	return m[1]
}

// A signal or the timeout in the middle of a run: every process it
// started is gone, its cgroups and its tracefs instance are removed, and
// it says so. SIGHUP is an ssh session or a terminal going away.
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
		{"SIGHUP", syscall.SIGHUP, nil, "hangup"},
		{"SIGQUIT", syscall.SIGQUIT, nil, "quit"},
		{"timeout", nil, []string{"--timeout", "3s"}, "timeout after 3s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, e, sid := startMeasure(t, c.extra...)
			pid := strconv.Itoa(cmd.Process.Pid)
			during := runPaths(pid)
			name := runName(t, e.String())
			inst := filepath.Join(host.TracefsDir(), "instances", name)
			cg := filepath.Join(host.CgroupRoot, "cpu", name)
			for _, p := range []string{inst, cg} {
				if !slices.Contains(during, p) {
					t.Errorf("while running, %s is missing (the run has %v)", p, during)
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
			if left := runPaths(pid); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			// What was recorded until then is reported, marked.
			if out := cmd.Stdout.(*bytes.Buffer).String(); !strings.Contains(out, "measured calibrated-make-j10 on the host") || !strings.Contains(out, "warning: interrupted (") {
				t.Errorf("stdout lacks the report of what was recorded:\n%s", out)
			}
			msg := e.String()
			want := []string{"interrupted (" + c.cause, "killed and reaped", "removed tracefs instance " + inst}
			for _, p := range during {
				if p != inst {
					want = append(want, p)
				}
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr lacks %q:\n%s", w, msg)
				}
			}
		})
	}
}

// A runner killed outright cannot clean up: its workload stops tracing at
// once, ends by itself (it watches the runner), and its janitor removes
// the instance and the cgroups, without waiting for a next run.
func TestMeasureKilled(t *testing.T) {
	hosttest.Need(t)
	cmd, e, sid := startMeasure(t)
	pid := strconv.Itoa(cmd.Process.Pid)
	inst := filepath.Join(host.TracefsDir(), "instances", runName(t, e.String()))
	during := runPaths(pid)
	if len(during) < 2 {
		t.Fatalf("while running: %v, want the instance and the cgroups", during)
	}
	cmd.Process.Kill()
	cmd.Wait()
	killed := time.Now()
	traced := false
	for time.Since(killed) < 15*time.Second {
		// Tracing stops first, before the instance can go.
		b, err := os.ReadFile(filepath.Join(inst, "tracing_on"))
		if err == nil && strings.TrimSpace(string(b)) == "1" && time.Since(killed) > time.Second {
			traced = true
		}
		if len(host.SessionPIDs(sid)) == 0 && len(runPaths(pid)) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if traced {
		t.Errorf("%s still traced 1 s after its runner was killed", inst)
	}
	if left := host.SessionPIDs(sid); len(left) > 0 {
		t.Errorf("processes of session %d outlived their runner: %v", sid, left)
	}
	if left := runPaths(pid); len(left) > 0 {
		t.Errorf("left behind after the runner was killed: %v", left)
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
	type c = struct {
		args []string
		want string
	}
	switch {
	case !host.HaveRunner: // built without cgo: measure and validate say so
		cases = append(cases, c{[]string{"measure", "two-hogs"}, "built without cgo"}, c{[]string{"validate", "two-hogs", "--runs", "1"}, "built without cgo"})
	case os.Geteuid() == 0:
		cases = append(cases, c{[]string{"measure", "two-hogs", "--cpus", "0,99"}, "CPU 99 is not online"})
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

// Two runs in PID namespaces of their own, where both runners are PID 1,
// at the same time: their instances and cgroups have different names,
// neither takes the other's for stale, both end well, nothing is left.
func TestMeasureInPIDNamespaces(t *testing.T) {
	hosttest.Need(t)
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		testskip.Skip(t, "no unshare(1) (util-linux): cannot make PID namespaces")
	}
	type result struct {
		err            error
		stdout, stderr string
	}
	results := make(chan result, 2)
	for i := 0; i < 2; i++ {
		go func() {
			cmd := exec.Command(unshare, "--pid", "--fork", "--mount-proc", bin, "measure", "two-hogs", "--duration", "1s")
			var o, e bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &e
			err := cmd.Run()
			results <- result{err, o.String(), e.String()}
		}()
	}
	for i := 0; i < 2; i++ {
		r := <-results
		if r.err != nil || !strings.Contains(r.stdout, "measured two-hogs") {
			t.Errorf("run in a PID namespace: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
		}
		if strings.Contains(r.stderr, "/schedlab-1-") && strings.Contains(r.stderr, "removed stale") {
			t.Errorf("a run took the other's for stale:\n%s", r.stderr)
		}
	}
	if left := runPaths("1"); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// Not root: a clear error before anything starts.
func TestMeasureNotRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		_, errOut, code := schedlab(t, "measure", "two-hogs")
		if code != 2 || !strings.Contains(errOut, "needs root") && !strings.Contains(errOut, "built without cgo") {
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
	want := "needs root"
	if !host.HaveRunner {
		want = "built without cgo"
	}
	if !ok || ee.ExitCode() != 2 || o.Len() != 0 || !strings.Contains(e.String(), want) {
		t.Errorf("as nobody: %v, stdout %q, stderr %q; want exit 2 and the reason", err, o.String(), e.String())
	}
}

// An output path that cannot be written is refused before the run starts,
// so a typo does not cost a measurement; a symbolic link planted by another
// user is not followed (as root it would overwrite what it points at).
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "out")
	for _, c := range [][]string{
		{"measure", "two-hogs", "--duration", "1s", "--trace", missing},
		{"measure", "two-hogs", "--duration", "1s", "--html", missing},
		{"validate", "two-hogs", "--runs", "1", "--duration", "1s", "--markdown", missing},
		{"run", "two-hogs", "--html", missing},
		{"run", "two-hogs", "--trace", missing},
	} {
		out, errOut, code := schedlab(t, c...)
		if code != 2 || out != "" || !strings.Contains(errOut, "no-such-dir") || strings.Contains(errOut, "measuring") {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want exit 2 before the run, naming the path", c, code, out, errOut)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("root's"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "trace.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := schedlab(t, "run", "two-hogs", "--duration", "100ms", "--trace", link)
	if code != 2 || !strings.Contains(errOut, "owned by uid 65534") {
		t.Errorf("run --trace through nobody's link: code %d, stderr %q", code, errOut)
	}
	if b, _ := os.ReadFile(secret); string(b) != "root's" {
		t.Errorf("the link's target was overwritten: %q", b)
	}
}
