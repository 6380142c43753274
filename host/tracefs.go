package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// The places the kernel offers for tracefs: its own mount point (4.1 and
// later) and, older and still automounted, tracing/ inside debugfs.
const (
	tracefsMountPoint = "/sys/kernel/tracing"
	debugfsMountPoint = "/sys/kernel/debug"
)

// mountsFile is the mount table read to find tracefs (a variable for the
// tests).
var mountsFile = "/proc/mounts"

// tracefsIn finds tracefs in a mount table (/proc/mounts' format): a
// tracefs mount, preferring the standard point, else tracing/ under a
// debugfs mount. Either may be "".
func tracefsIn(mounts string) (tracefs, debugfs string) {
	for _, line := range strings.Split(mounts, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		dir := unescapeMount(f[1])
		switch f[2] {
		case "tracefs":
			if tracefs == "" || dir == tracefsMountPoint {
				tracefs = dir
			}
		case "debugfs":
			if debugfs == "" || dir == debugfsMountPoint {
				debugfs = dir
			}
		}
	}
	return tracefs, debugfs
}

// unescapeMount undoes /proc/mounts' octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isTracefs says whether dir is a usable tracefs: it has instances/.
// Under debugfs, the stat is what automounts tracing/.
func isTracefs(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "instances"))
	return err == nil && fi.IsDir()
}

// TracefsDir is where tracefs is mounted now, "" if nowhere: a tracefs
// mount, else tracing/ in a mounted debugfs. It mounts nothing.
func TracefsDir() string {
	b, _ := os.ReadFile(mountsFile)
	tfs, dfs := tracefsIn(string(b))
	if tfs != "" && isTracefs(tfs) {
		return tfs
	}
	if dfs != "" && isTracefs(filepath.Join(dfs, "tracing")) {
		return filepath.Join(dfs, "tracing")
	}
	return ""
}

// mountMu serialises finding and mounting, so that two runs in one process
// do not both mount.
var mountMu sync.Mutex

// mountTracefs returns where tracefs is, mounting it first when it is
// nowhere, as libtracefs does (tracefs_tracing_dir): tracefs at
// /sys/kernel/tracing, else debugfs at /sys/kernel/debug, whose tracing/
// the kernel then mounts by itself. did says what it mounted ("" if
// nothing); the mount stays, as libtracefs leaves it, since it changes
// nothing until an instance is made. Mounting needs root.
func mountTracefs() (dir, did string, err error) {
	mountMu.Lock()
	defer mountMu.Unlock()
	if d := TracefsDir(); d != "" {
		return d, "", nil
	}
	errT := syscall.Mount("nodev", tracefsMountPoint, "tracefs", 0, "")
	if errT == nil && isTracefs(tracefsMountPoint) {
		return tracefsMountPoint, "mounted tracefs at " + tracefsMountPoint + " (it was not mounted)", nil
	}
	errD := syscall.Mount("nodev", debugfsMountPoint, "debugfs", 0, "")
	if d := filepath.Join(debugfsMountPoint, "tracing"); errD == nil && isTracefs(d) {
		return d, "mounted debugfs at " + debugfsMountPoint + " for tracefs at " + d + " (neither was mounted)", nil
	}
	return "", "", fmt.Errorf("tracefs is not mounted and mounting it failed (tracefs at %s: %v; debugfs at %s: %v); mount it with `mount -t tracefs nodev %s`",
		tracefsMountPoint, orOK(errT), debugfsMountPoint, orOK(errD), tracefsMountPoint)
}

func orOK(err error) string {
	if err == nil {
		return "mounted, but no instances/ in it"
	}
	return err.Error()
}

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
	lock   *os.File // the owner's lock (owner.go)
}

// newInstance creates instances/<name> in the tracefs at root, with a buffer of bufKB per CPU, the
// mono clock (so that marks written with CLOCK_MONOTONIC times line up with
// the events' timestamps) and the scheduler events enabled, tracing off.
func newInstance(root, name string, bufKB int) (*instance, error) {
	dir := filepath.Join(root, "instances", name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating tracefs instance: %w", err)
	}
	in := &instance{dir: dir}
	lock, err := ownerLock(dir)
	if err != nil {
		in.remove()
		return nil, err
	}
	in.lock = lock
	steps := [][2]string{{"tracing_on", "0"}, {"buffer_size_kb", strconv.Itoa(bufKB)}, {"trace_clock", "mono"}, {"trace", ""}}
	for _, e := range schedEvents {
		steps = append(steps, [2]string{"events/sched/" + e + "/enable", "1"})
	}
	// A POSIX timer's signals (si_code SI_TIMER), so that the analysis
	// can tell which expiry each SIGEV_THREAD callback serves
	// (analyze.SigevNumbering); the filter keeps every other signal out.
	steps = append(steps, [2]string{"events/signal/signal_generate/filter", "code == -2"},
		[2]string{"events/signal/signal_generate/enable", "1"})
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
	if in.lock != nil {
		in.lock.Close()
		in.lock = nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
