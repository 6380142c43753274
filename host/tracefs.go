package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TracefsRoot is where tracefs is mounted (host.md §7).
var TracefsRoot = "/sys/kernel/tracing"

// schedEvents are the design's scheduler events; the marks arrive through
// the instance's trace_marker.
var schedEvents = []string{"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
	"sched_process_fork", "sched_process_exit", "sched_migrate_task"}

// instance is a private tracefs instance: its own ring buffer, clock and
// event switches, so the run never touches the global buffer or another
// user's tracing.
type instance struct {
	dir    string
	marker *os.File
}

// newInstance creates instances/<name> with a buffer of bufKB per CPU, the
// mono clock (so that marks written with CLOCK_MONOTONIC times line up with
// the events' timestamps) and the scheduler events enabled, tracing off.
func newInstance(name string, bufKB int) (*instance, error) {
	dir := filepath.Join(TracefsRoot, "instances", name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating tracefs instance: %w", err)
	}
	in := &instance{dir: dir}
	steps := [][2]string{{"tracing_on", "0"}, {"buffer_size_kb", strconv.Itoa(bufKB)}, {"trace_clock", "mono"}, {"trace", ""}}
	for _, e := range schedEvents {
		steps = append(steps, [2]string{"events/sched/" + e + "/enable", "1"})
	}
	for _, s := range steps {
		if err := in.write(s[0], s[1]); err != nil {
			in.remove()
			return nil, err
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "trace_marker"), os.O_WRONLY, 0)
	if err != nil {
		in.remove()
		return nil, fmt.Errorf("opening trace_marker: %w", err)
	}
	in.marker = f
	return in, nil
}

func (in *instance) write(file, value string) error {
	p := filepath.Join(in.dir, file)
	if err := os.WriteFile(p, []byte(value), 0); err != nil {
		return fmt.Errorf("tracefs: writing %q to %s: %w", value, p, err)
	}
	return nil
}

func (in *instance) on(on bool) error {
	v := "0"
	if on {
		v = "1"
	}
	return in.write("tracing_on", v)
}

// read returns the recorded text.
func (in *instance) read() ([]byte, error) {
	return os.ReadFile(filepath.Join(in.dir, "trace"))
}

// lost sums what the ring buffer overwrote or dropped on every CPU
// (per_cpu/cpuN/stats), the events the trace text cannot show.
func (in *instance) lost() (overrun, dropped int64) {
	cpus, _ := filepath.Glob(filepath.Join(in.dir, "per_cpu", "cpu*", "stats"))
	for _, p := range cpus {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if !ok || err != nil {
				continue
			}
			switch strings.TrimSpace(k) {
			case "overrun":
				overrun += n
			case "dropped events":
				dropped += n
			}
		}
	}
	return overrun, dropped
}

// remove turns tracing off and deletes the instance (which frees its
// buffer). The kernel refuses while a file of it is open, so the marker is
// closed first.
func (in *instance) remove() error {
	if in.marker != nil {
		in.marker.Close()
		in.marker = nil
	}
	in.write("tracing_on", "0")
	err := os.Remove(in.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
