// Package rtapp runs schedlab workloads with rt-app 1.0, Debian's rt-app
// package (upstream v1.0, 2017), and reads back the timer wakeup latencies
// it logs, so that a workload can be measured on the host with the tool its
// language comes from.
//
// Check says whether rt-app 1.0 can run a workload as schedlab means it
// (no fork, task groups, random durations, POSIX timers, …); Convert writes
// the rt-app 1.0 JSON; Run runs it and parses every thread's log.
//
// # What rt-app's wu_lat is
//
// At a timer event rt-app 1.0 (src/rt-app.c, run_event) advances the
// timer's expiry by the period, starting from the threads' common start
// time plus the task's delay:
//
//	t_next += period
//	if now < t_next:
//	    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t_next)
//	    wu_lat += clock_gettime(CLOCK_MONOTONIC) - t_next   // rounded to µs
//	else:                                                   // already expired
//	    wu_lat = 0                                          // no sleep; slack < 0
//	    if mode == relative: t_next = now
//
// So wu_lat is the time from the timer's programmed expiry until the thread,
// back in user space after clock_nanosleep returns, reads the clock: the
// hrtimer's expiry, the timer slack (50 µs by default for a SCHED_OTHER
// thread), the wakeup, the wait on the run queue and the return from the
// system call. It is not measured from the moment the thread blocks, and a
// thread that reaches its timer late is not sampled at all. The per-thread
// log has one row per pass over a phase's events, and its wu_lat is the sum
// over that pass's timer events (one timer per pass is the useful case).
// Run keeps, as samples, the wu_lat of every row with a timer (c_period > 0)
// whose timer had not expired (slack >= 0), in ns; the others are counted
// as missed.
//
// Verified with /usr/bin/rt-app 1.0 on the host: see Check for what it
// cannot run and Convert for what the generated file works around.
package rtapp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"schedlab/workload"
)

// Result is one rt-app run.
type Result struct {
	WakeupLatency []int64        // rt-app's wu_lat samples of every thread, ns, in log order (threads in index order)
	Threads       map[string]int // samples per thread (0 for one without a timer), named as schedlab does: the task, or task-i if it has several instances
	Missed        int            // rows whose timer had already expired (rt-app logs wu_lat 0 and does not sleep)
	Version       string         // first line of `rt-app --version`, or the Debian package's version; "" if unknown
	Log           string         // the directory the logs were in (removed after parsing unless Keep)
}

// Run runs rt-app on the converted spec under ctx (killed with its process
// group when ctx is done), parses every thread's log and returns the
// samples. The JSON (workload.json) and the logs go to o.Dir, or to a new
// temporary directory; unless o.Keep, Run removes what it wrote there (the
// temporary directory entirely). With o.NsPerLoop 0 Run first measures
// rt-app's calibration with a short probe run. rt-app output lines marked
// <crit> or <error> make the run fail.
func Run(ctx context.Context, spec *workload.Spec, o Options) (*Result, error) {
	if err := check(spec); err != nil {
		return nil, err
	}
	bin, err := binary(o.Binary)
	if err != nil {
		return nil, err
	}
	dir, cleanup, err := workDir(o)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	o.Dir = dir
	if o.NsPerLoop <= 0 {
		cpu := 0
		if len(o.CPUs) > 0 {
			cpu = o.CPUs[0]
		}
		if o.NsPerLoop, err = calibrate(ctx, bin, dir, cpu); err != nil {
			return nil, err
		}
	}
	data, err := Convert(spec, o)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "workload.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return nil, err
	}
	if err := run(ctx, bin, dir, file); err != nil {
		return nil, err
	}
	res := &Result{Threads: map[string]int{}, Version: version(bin, dir), Log: dir}
	for _, th := range threads(spec) {
		rows, err := readLog(th.log(dir))
		if err != nil {
			return nil, err
		}
		if err := res.add(th.name, rows); err != nil {
			return nil, fmt.Errorf("%s: %w", th.log(dir), err)
		}
	}
	return res, nil
}

// add takes the samples of one thread's log: the wu_lat of every row with
// a timer that had not expired, in ns. wu_lat is the pass's time from each
// timer's programmed expiry to the thread reading CLOCK_MONOTONIC after
// clock_nanosleep returned (see the package doc); a row whose timer had
// expired holds 0 and is counted in Missed instead.
func (res *Result) add(name string, rows []Row) error {
	n := 0
	for _, r := range rows {
		switch {
		case r.CPeriod == 0:
		case r.Missed():
			res.Missed++
		case r.WuLat < 0:
			return fmt.Errorf("negative wu_lat %d µs (a timer shared between threads?)", r.WuLat)
		default:
			res.WakeupLatency = append(res.WakeupLatency, r.WuLat*1000)
			n++
		}
	}
	res.Threads[name] += n
	return nil
}

// thread is one rt-app thread: its index over all tasks, its task, and
// the name schedlab gives it.
type thread struct {
	index int
	task  string
	name  string
}

// log is the thread's log file as rt-app 1.0 names it.
func (t thread) log(dir string) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%s-%d.log", LogBasename, t.task, t.index))
}

// threads lists the threads rt-app creates, in its order: tasks in file
// order, each task's instances in a row.
func threads(spec *workload.Spec) []thread {
	var out []thread
	for _, t := range spec.Tasks {
		for i := 0; i < t.Instances; i++ {
			name := t.Name
			if t.Instances > 1 {
				name = fmt.Sprintf("%s-%d", t.Name, i)
			}
			out = append(out, thread{index: len(out), task: t.Name, name: name})
		}
	}
	return out
}

func readLog(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rt-app wrote no log: %w", err)
	}
	defer f.Close()
	rows, err := ParseLog(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// binary finds rt-app.
func binary(name string) (string, error) {
	if name == "" {
		name = "rt-app"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("rt-app not found (%v): install it with `apt-get install rt-app` (the project's .ci/setup does)", err)
	}
	return filepath.Abs(path)
}

// workDir returns the absolute work directory and what removes Run's files
// from it.
func workDir(o Options) (dir string, cleanup func(), err error) {
	if o.Dir == "" {
		dir, err = os.MkdirTemp("", "rtapp-")
		if err != nil {
			return "", nil, err
		}
		if o.Keep {
			return dir, func() {}, nil
		}
		return dir, func() { os.RemoveAll(dir) }, nil
	}
	if dir, err = filepath.Abs(o.Dir); err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	if o.Keep {
		return dir, func() {}, nil
	}
	return dir, func() {
		for _, pattern := range []string{"workload.json", calibBase + "*", LogBasename + "-*.log"} {
			files, _ := filepath.Glob(filepath.Join(dir, pattern))
			for _, f := range files {
				os.Remove(f)
			}
		}
	}, nil
}

// run runs rt-app on file in dir, in its own process group, which is
// killed when ctx is done.
func run(ctx context.Context, bin, dir, file string) error {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, file)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("rt-app stopped: %w", ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("rt-app %s: %v\n%s", file, err, tail(out.String(), 20))
	}
	var bad []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "<crit>") || strings.Contains(l, "<error>") {
			bad = append(bad, l)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("rt-app %s reported:\n%s", file, strings.Join(bad, "\n"))
	}
	return nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// version is the first line of `rt-app --version` (rt-app HEAD), else the
// version of the Debian package that holds the binary (1.0 has no
// --version: it prints its usage).
func version(bin, dir string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Dir = dir // 1.0 would read a file named --version as a workload
	if out, err := cmd.Output(); err == nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		if first != "" && !strings.HasPrefix(strings.ToLower(first), "usage") {
			return first
		}
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return ""
	}
	owner, err := exec.CommandContext(ctx, "dpkg-query", "-S", real).Output()
	if err != nil {
		return ""
	}
	pkg, _, ok := strings.Cut(strings.TrimSpace(string(owner)), ":")
	if !ok || strings.ContainsAny(pkg, ", ") {
		return ""
	}
	v, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f", "${Version}", pkg).Output()
	if err != nil || len(v) == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s (Debian package)", pkg, strings.TrimSpace(string(v)))
}

// calibBase is the log_basename of the calibration probe.
const calibBase = "calib"

// calibrate measures rt-app's ns per loop on cpu without root and without
// rt-app's own calibration, which sleeps 1 s per trial: a probe thread
// pinned to cpu runs a fixed number of loops (run events under a guessed
// calibration) several times, and the fastest pass's measured time over
// its loop count is the answer, rounded to rt-app's integer ns.
func calibrate(ctx context.Context, bin, dir string, cpu int) (int, error) {
	const guess, passes, runUS = 100, 8, 20000 // 200000 loops a pass
	probe := fmt.Sprintf(`{
  "global": {"duration": -1, "calibration": %d, "lock_pages": false, "ftrace": false,
             "logdir": %q, "log_basename": %q},
  "tasks": {"probe": {"cpus": [%d], "loop": 1, "phases": {"p": {"loop": %d, "run": %d}}}}
}
`, guess, dir, calibBase, cpu, passes, runUS)
	file := filepath.Join(dir, calibBase+".json")
	if err := os.WriteFile(file, []byte(probe), 0o644); err != nil {
		return 0, err
	}
	if err := run(ctx, bin, dir, file); err != nil {
		return 0, fmt.Errorf("calibration: %w", err)
	}
	rows, err := readLog(filepath.Join(dir, calibBase+"-probe-0.log"))
	if err != nil {
		return 0, fmt.Errorf("calibration: %w", err)
	}
	best := 0.0
	for _, r := range rows {
		if r.Perf == 0 || r.Run == 0 {
			continue
		}
		if ns := float64(r.Run) * 1000 / float64(r.Perf); best == 0 || ns < best {
			best = ns
		}
	}
	if best == 0 {
		return 0, errors.New("calibration: the probe logged no run")
	}
	return max(1, int(best+0.5)), nil
}
