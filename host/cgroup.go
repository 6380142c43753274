package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"schedlab/workload"
)

// CgroupRoot is where cgroup hierarchies are mounted.
var CgroupRoot = "/sys/fs/cgroup"

// controller is a cgroup controller the host offers: on v1 its own hierarchy
// (this host mounts each controller there, docs/host.md §cgroups), on v2 the
// unified hierarchy, where every controller shares the directories.
type controller struct {
	name string // "cpu", "pids", "memory"
	dir  string // hierarchy root
	v2   bool
}

// cpuController is the controller that task groups live in.
type cpuController = controller

// findController looks for a controller, v1 first (docs/host.md §cgroups:
// this host mounts cpu as v1 and leaves v2 almost empty): a cgroup (v1)
// mount whose options name it, else the unified hierarchy listing it.
func findController(name string) (*controller, error) {
	b, _ := os.ReadFile(mountsFile)
	if dir := cgroupV1Mount(string(b), name); dir != "" {
		return &controller{name: name, dir: dir}, nil
	}
	for _, d := range []string{CgroupRoot, filepath.Join(CgroupRoot, "unified")} {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.controllers"))
		if err == nil && slices.Contains(strings.Fields(string(b)), name) {
			return &controller{name: name, dir: d, v2: true}, nil
		}
	}
	return nil, fmt.Errorf("no cgroup %s controller: no cgroup (v1) mount with it in %s and no %q in %s/cgroup.controllers (v2)", name, mountsFile, name, CgroupRoot)
}

// cgroupV1Mount finds the mount point of the v1 hierarchy that has the
// controller in a mount table, "" if none.
func cgroupV1Mount(mounts, name string) string {
	for _, line := range strings.Split(mounts, "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[2] == "cgroup" && slices.Contains(strings.Split(f[3], ","), name) {
			return unescapeMount(f[1])
		}
	}
	return ""
}

func findCPUController() (*cpuController, error) { return findController("cpu") }

// Limits bound what a run's workload may take of the machine, as a
// service manager bounds a service: a workload that forks without end, or
// allocates without end, fails its run instead of the machine.
type Limits struct {
	// Pids bounds the workload's processes and threads together (the pids
	// controller's pids.max). 0: DefaultPidsMax; negative: no limit.
	Pids int64
	// Memory bounds the workload's memory in bytes (memory.max, v1's
	// memory.limit_in_bytes). 0: DefaultMemoryMax; negative: no limit.
	Memory int64
}

// DefaultPidsMax is the workload's default bound on processes and threads:
// an eighth of this host's pid_max (32768), far above any seed workload
// (make -j10 keeps about 40 alive) and far below where the machine suffers.
const DefaultPidsMax = 4096

// DefaultMemoryMax is the workload's default memory bound: half of the
// machine's memory (the workloads themselves need a few MB).
func DefaultMemoryMax() int64 {
	for _, line := range strings.Split(readTrim("/proc/meminfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == "MemTotal" {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb * 1024 / 2
			}
		}
	}
	return 4 << 30
}

func (l Limits) resolved() Limits {
	if l.Pids == 0 {
		l.Pids = DefaultPidsMax
	}
	if l.Memory == 0 {
		l.Memory = DefaultMemoryMax()
	}
	return l
}

// cgroupSet is the cgroups of one run: a container named after the run in
// each hierarchy it uses, that holds the whole workload (so it runs one
// level below the root, as one autogroup would), and, in the cpu
// hierarchy, a child for each of the workload's task groups. The pids and
// memory limits are set on the containers.
type cgroupSet struct {
	ctl     *cpuController // nil: no cpu controller
	top     string         // the cpu container ("" without one)
	tops    []string       // every container, one per hierarchy
	pids    string         // the container that holds pids.max ("" if none)
	memory  *controller    // the memory controller, with memory (nil if none)
	memTop  string
	created []string   // in creation order, parents first
	locks   []*os.File // the owner's locks on the containers (owner.go)
	notes   []string   // limits that could not be set
}

// sharesToWeight converts cpu.shares to cpu.weight as the kernel relates
// them (kernel/sched/core.c, cpu_weight_read_u64: weight = shares × 100 /
// 1024, rounded to the nearest), within cpu.weight's range 1…10000.
func sharesToWeight(shares uint64) uint64 {
	w := (shares*100 + 512) / 1024
	return min(max(w, 1), 10000)
}

func (c *cgroupSet) mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("creating cgroup: %w", err)
	}
	c.created = append(c.created, dir)
	return nil
}

func writeCgroup(dir, file, val string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(val), 0); err != nil {
		return fmt.Errorf("cgroup %s: writing %s to %s: %w", dir, val, file, err)
	}
	return nil
}

func (c *cgroupSet) setShares(dir string, shares uint64) error {
	if c.ctl.v2 {
		return writeCgroup(dir, "cpu.weight", strconv.FormatUint(sharesToWeight(shares), 10))
	}
	return writeCgroup(dir, "cpu.shares", strconv.FormatUint(shares, 10))
}

// container returns the run's container in the hierarchy at root, making
// it (and enabling the controller for it, on v2) the first time.
func (c *cgroupSet) container(ctl *controller, name string) (string, error) {
	top := filepath.Join(ctl.dir, name)
	if ctl.v2 {
		// Children of a v2 group get a controller only if it is enabled;
		// on v2 the containers of all controllers are one directory.
		os.WriteFile(filepath.Join(ctl.dir, "cgroup.subtree_control"), []byte("+"+ctl.name), 0)
	}
	if slices.Contains(c.tops, top) {
		return top, nil
	}
	if err := c.mkdir(top); err != nil {
		return "", err
	}
	c.tops = append(c.tops, top)
	lock, err := ownerLock(top)
	if err != nil {
		return "", err
	}
	c.locks = append(c.locks, lock)
	return top, nil
}

// newCgroupSet creates the containers and the workload's groups. ctl may
// be nil (no cpu controller: the workload then runs in its session's
// autogroup); a missing pids or memory controller leaves that limit unset,
// with a note.
func newCgroupSet(ctl *cpuController, name string, groups []*workload.Group, lim Limits, realTime bool) (c *cgroupSet, err error) {
	c = &cgroupSet{ctl: ctl}
	defer func() {
		if err != nil {
			c.remove()
		}
	}()
	lim = lim.resolved()
	if ctl != nil {
		if c.top, err = c.container(ctl, name); err != nil {
			return nil, err
		}
		if err := c.setShares(c.top, 1024); err != nil {
			return nil, err
		}
		if realTime {
			if err := c.grantRTRuntime(ctl); err != nil {
				return nil, err
			}
		}
		if ctl.v2 && len(groups) > 0 {
			if err := writeCgroup(c.top, "cgroup.subtree_control", "+cpu"); err != nil {
				return nil, err
			}
		}
		for _, g := range groups {
			d := c.dir(g.Path)
			if err := c.mkdir(d); err != nil {
				return nil, err
			}
			if err := c.setShares(d, g.Shares); err != nil {
				return nil, err
			}
		}
	}
	if lim.Pids > 0 {
		if pc, ferr := findController("pids"); ferr != nil {
			c.notes = append(c.notes, fmt.Sprintf("the workload's processes are not limited: %v", ferr))
		} else {
			top, err := c.container(pc, name)
			if err != nil {
				return nil, err
			}
			if err := writeCgroup(top, "pids.max", strconv.FormatInt(lim.Pids, 10)); err != nil {
				return nil, err
			}
			c.pids = top
		}
	}
	if lim.Memory > 0 {
		if mc, ferr := findController("memory"); ferr != nil {
			c.notes = append(c.notes, fmt.Sprintf("the workload's memory is not limited: %v", ferr))
		} else {
			top, err := c.container(mc, name)
			if err != nil {
				return nil, err
			}
			file := "memory.limit_in_bytes"
			if mc.v2 {
				file = "memory.max"
			}
			if err := writeCgroup(top, file, strconv.FormatInt(lim.Memory, 10)); err != nil {
				return nil, err
			}
			c.memory, c.memTop = mc, top
		}
	}
	return c, nil
}

// grantRTRuntime gives the run's container the real-time runtime its
// parent has free, when the kernel schedules real-time tasks by group
// (CONFIG_RT_GROUP_SCHED, cgroup v1's cpu.rt_runtime_us): a new group has
// none, and the kernel refuses SCHED_FIFO and SCHED_RR in it with EPERM.
// The runs' real-time tasks are then throttled by this group's runtime
// (the parent's free share of each cpu.rt_period_us), not the global
// sched_rt_runtime_us alone. Without the file there is nothing to do.
func (c *cgroupSet) grantRTRuntime(ctl *cpuController) error {
	const file = "cpu.rt_runtime_us"
	parent, err := os.ReadFile(filepath.Join(ctl.dir, file))
	if err != nil {
		return nil
	}
	free, err := strconv.ParseInt(strings.TrimSpace(string(parent)), 10, 64)
	if err != nil {
		return fmt.Errorf("cgroup %s: %s: %w", ctl.dir, file, err)
	}
	siblings, _ := filepath.Glob(filepath.Join(ctl.dir, "*", file))
	for _, f := range siblings {
		if filepath.Dir(f) == c.top {
			continue
		}
		if b, err := os.ReadFile(f); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
				free -= n
			}
		}
	}
	if free <= 0 {
		return fmt.Errorf("cgroup %s: no real-time runtime is free for the workload's SCHED_FIFO/SCHED_RR tasks (the other groups hold all of %s)", ctl.dir, file)
	}
	if err := writeCgroup(c.top, file, strconv.FormatInt(free, 10)); err != nil {
		return err
	}
	c.notes = append(c.notes, fmt.Sprintf("real-time group scheduling: the workload's cgroup has cpu.rt_runtime_us %d", free))
	return nil
}

// dir is the cgroup directory of a task-group path ("/a/b").
func (c *cgroupSet) dir(path string) string {
	return filepath.Join(c.top, filepath.FromSlash(strings.TrimPrefix(path, "/")))
}

// tasksFile is where a thread writes its TID to join a group: v1's
// "tasks", v2's "cgroup.threads" (which needs a threaded group; v2 moves
// whole processes through cgroup.procs otherwise).
func (c *cgroupSet) tasksFile(path string) string {
	if c.ctl.v2 {
		return filepath.Join(c.dir(path), "cgroup.procs")
	}
	return filepath.Join(c.dir(path), "tasks")
}

// add moves a process into every container.
func (c *cgroupSet) add(pid int) error {
	for _, top := range c.tops {
		if err := writeCgroup(top, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// eventCount reads "key N" from a flat-keyed cgroup file (pids.events,
// memory.events, memory.oom_control).
func eventCount(path, key string) int64 {
	for _, line := range strings.Split(readTrim(path), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// LimitError is a run whose workload reached one of its limits: the
// kernel refused it processes or killed it for memory, so its recording
// is not the workload's.
type LimitError struct {
	Msg string
}

func (e *LimitError) Error() string { return e.Msg }

// limitsReached says which limit the workload reached during the run, if
// any. It must be called before the containers are removed.
func (c *cgroupSet) limitsReached(lim Limits) error {
	lim = lim.resolved()
	var msgs []string
	if c.pids != "" {
		if n := eventCount(filepath.Join(c.pids, "pids.events"), "max"); n > 0 {
			msgs = append(msgs, fmt.Sprintf("it reached its limit of %d processes and threads (pids.max; %d forks refused): raise it with --pids-max", lim.Pids, n))
		}
	}
	if c.memory != nil {
		file := "memory.oom_control"
		if c.memory.v2 {
			file = "memory.events"
		}
		if n := eventCount(filepath.Join(c.memTop, file), "oom_kill"); n > 0 {
			msgs = append(msgs, fmt.Sprintf("it reached its memory limit of %d bytes (%d processes killed by the OOM killer): raise it with --memory-max", lim.Memory, n))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return &LimitError{Msg: "the workload failed: " + strings.Join(msgs, "; ")}
}

// undo is what the workload itself must undo when its runner dies without
// doing so (worker.c's janitor): the processes files of the hierarchies'
// roots to leave the containers by, and the directories to remove, in
// order.
func (c *cgroupSet) undo() (leave, rmdirs []string) {
	for _, top := range c.tops {
		leave = append(leave, filepath.Join(filepath.Dir(top), "cgroup.procs"))
	}
	for i := len(c.created) - 1; i >= 0; i-- {
		rmdirs = append(rmdirs, c.created[i])
	}
	return leave, rmdirs
}

// remove deletes the groups, children first. A group whose last task has
// just exited can be busy for a moment, so each removal is retried briefly.
func (c *cgroupSet) remove() []error {
	var errs []error
	for i := len(c.created) - 1; i >= 0; i-- {
		d := c.created[i]
		var err error
		for try := 0; try < 50; try++ {
			if err = os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	c.created = nil
	for _, l := range c.locks {
		l.Close()
	}
	c.locks = nil
	return errs
}
