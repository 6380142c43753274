package host

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"schedlab/workload"
)

// UnsupportedError says which part of a workload the host cannot run.
type UnsupportedError struct{ Msg string }

func (e *UnsupportedError) Error() string { return e.Msg }

func unsupported(format string, a ...any) error {
	return &UnsupportedError{Msg: fmt.Sprintf(format, a...)}
}

// noRunner is what a build without cgo says to a host run.
const noRunner = "this schedlab was built without cgo (CGO_ENABLED=0), so it has no host runner: " +
	"build it with cgo and a C compiler (CGO_ENABLED=1 go build ./cmd/schedlab) to measure on the host"

// PreflightError is a reason the host cannot run a workload, found before
// anything was started.
type PreflightError struct{ Msg string }

func (e *PreflightError) Error() string { return e.Msg }

func preflight(format string, a ...any) error {
	return &PreflightError{Msg: fmt.Sprintf(format, a...)}
}

// OnlineCPUs returns the host's online CPUs.
func OnlineCPUs() ([]int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, err
	}
	return ParseCPUs(string(b))
}

// Setup is what Preflight found for a run.
type Setup struct {
	// Tracefs is where tracefs is mounted.
	Tracefs string
	// Did says what Preflight changed on the machine to get there (it
	// mounts tracefs when it is not mounted).
	Did []string
	ctl *cpuController // nil without one
}

// Preflight checks what a run needs, in the order a user can fix it: root,
// tracefs with instances (mounted if it is not), the CPUs asked for, and a
// cgroup cpu controller when the workload has task groups. Without a
// controller the workload runs in its session's autogroup.
func Preflight(cpus []int, needGroups bool) (*Setup, error) {
	if !HaveRunner {
		return nil, &PreflightError{Msg: noRunner}
	}
	if os.Geteuid() != 0 {
		return nil, preflight("measuring on the host needs root: it creates a tracefs instance and cgroups (run it as root, e.g. with sudo)")
	}
	s := &Setup{}
	dir, did, err := mountTracefs()
	if err != nil {
		return nil, preflight("%v", err)
	}
	s.Tracefs = dir
	if did != "" {
		s.Did = append(s.Did, did)
	}
	for _, e := range schedEvents {
		if _, err := os.Stat(filepath.Join(dir, "events", "sched", e)); err != nil {
			return nil, preflight("tracefs at %s has no event sched/%s: the kernel lacks the scheduler tracepoints", dir, e)
		}
	}
	online, err := OnlineCPUs()
	if err != nil {
		return nil, preflight("cannot read the online CPUs: %v", err)
	}
	for _, c := range cpus {
		if !slices.Contains(online, c) {
			return nil, preflight("--cpus: CPU %d is not online on this host (online: %s)", c, FormatCPUs(online))
		}
	}
	ctl, err := findCPUController()
	if err != nil && needGroups {
		return nil, preflight("the workload has task groups, but %v", err)
	}
	s.ctl = ctl
	return s, nil
}

// checkTaskCPUs refuses a workload whose tasks or phases ask for CPUs the
// host does not have online: sched_setaffinity would fail in the middle of
// the run.
func checkTaskCPUs(spec *workload.Spec) error {
	online, err := OnlineCPUs()
	if err != nil {
		return preflight("cannot read the online CPUs: %v", err)
	}
	for _, t := range spec.Tasks {
		check := func(where string, cpus []int) error {
			for _, c := range cpus {
				if !slices.Contains(online, c) {
					return preflight("task %q%s asks for CPU %d, which is not online on this host (online: %s)", t.Name, where, c, FormatCPUs(online))
				}
			}
			return nil
		}
		if err := check("", t.Props.CPUs); err != nil {
			return err
		}
		for i, ph := range t.Phases {
			if err := check(fmt.Sprintf(", phase %d,", i+1), ph.Props.CPUs); err != nil {
				return err
			}
		}
	}
	return nil
}

// Facts are what a measurement should be stored with (docs/host.md: re-check
// the host's facts with every campaign).
type Facts struct {
	Kernel    string  `json:"kernel"`
	CPUs      string  `json:"cpus_online"`
	Autogroup string  `json:"sched_autogroup_enabled"`
	BaseSlice string  `json:"base_slice_ns,omitempty"`
	LoadAvg   string  `json:"loadavg_before"`
	StealPct  float64 `json:"steal_pct"`
	Cgroup    string  `json:"cgroup"`
	Tracefs   string  `json:"tracefs"`
	// TimerDelivery is the median delay from a timer's expected expiry to
	// its waiter's sched_waking in this run (µs; 0: no such samples). The
	// simulator's counterpart is cost_wakeup_ns + cost_timer_irq_ns.
	TimerDeliveryUS float64  `json:"timer_delivery_p50_us,omitempty"`
	TimerDeliveryN  int      `json:"timer_delivery_samples,omitempty"`
	Notes           []string `json:"notes,omitempty"`
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// baseSlice reads the base slice a new task gets (se.slice in
// /proc/self/sched: debugfs is locked down on this host, docs/host.md
// §Debugfs).
func baseSlice() string {
	for _, line := range strings.Split(readTrim("/proc/self/sched"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "se.slice" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// stealTicks is the machine's total and steal time from /proc/stat.
func stealTicks() (total, steal int64) {
	for _, line := range strings.Split(readTrim("/proc/stat"), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "cpu" {
			continue
		}
		for i, s := range f[1:] {
			var n int64
			fmt.Sscan(s, &n)
			total += n
			if i == 7 {
				steal = n
			}
		}
	}
	return total, steal
}
