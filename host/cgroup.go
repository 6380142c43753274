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

// cpuController is the cpu controller the host offers: v1 (its own
// hierarchy, cpu.shares) or v2 (the unified hierarchy, cpu.weight).
type cpuController struct {
	dir string // hierarchy root
	v2  bool
}

// findCPUController looks for the cpu controller, v1 first (host.md §6:
// this host mounts cpu as v1 and leaves v2 almost empty).
func findCPUController() (*cpuController, error) {
	v1 := filepath.Join(CgroupRoot, "cpu")
	if _, err := os.Stat(filepath.Join(v1, "cpu.shares")); err == nil {
		return &cpuController{dir: v1}, nil
	}
	for _, d := range []string{CgroupRoot, filepath.Join(CgroupRoot, "unified")} {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.controllers"))
		if err == nil && slices.Contains(strings.Fields(string(b)), "cpu") {
			return &cpuController{dir: d, v2: true}, nil
		}
	}
	return nil, fmt.Errorf("no cgroup cpu controller: neither %s/cpu.shares (v1) nor \"cpu\" in %s/cgroup.controllers (v2)", v1, CgroupRoot)
}

// cgroupSet is the cgroups of one run: a container, schedlab-<id>, that
// holds the whole workload (so it runs one level below the root, as one
// autogroup would), and a child for each of the workload's task groups.
type cgroupSet struct {
	ctl     *cpuController
	top     string
	created []string // in creation order, parents first
}

// sharesToWeight converts cpu.shares to cpu.weight as the kernel relates
// them (kernel/sched/core.c, cpu_weight_read_u64: weight = shares × 100 /
// 1024, rounded to the nearest), within cpu.weight's range 1…10000.
func sharesToWeight(shares uint64) uint64 {
	w := (shares*100 + 512) / 1024
	return min(max(w, 1), 10000)
}

func (c *cgroupSet) mkdir(dir string, shares uint64) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("creating cgroup: %w", err)
	}
	c.created = append(c.created, dir)
	file, val := "cpu.shares", shares
	if c.ctl.v2 {
		file, val = "cpu.weight", sharesToWeight(shares)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatUint(val, 10)), 0); err != nil {
		return fmt.Errorf("cgroup %s: writing %s: %w", dir, file, err)
	}
	return nil
}

// newCgroupSet creates the container and the workload's groups.
func newCgroupSet(ctl *cpuController, name string, groups []*workload.Group) (*cgroupSet, error) {
	c := &cgroupSet{ctl: ctl, top: filepath.Join(ctl.dir, name)}
	if ctl.v2 {
		// Children of a v2 group get the cpu controller only if enabled.
		os.WriteFile(filepath.Join(ctl.dir, "cgroup.subtree_control"), []byte("+cpu"), 0)
	}
	if err := c.mkdir(c.top, 1024); err != nil {
		c.remove()
		return nil, err
	}
	if ctl.v2 && len(groups) > 0 {
		if err := os.WriteFile(filepath.Join(c.top, "cgroup.subtree_control"), []byte("+cpu"), 0); err != nil {
			c.remove()
			return nil, fmt.Errorf("cgroup %s: enabling cpu for children: %w", c.top, err)
		}
	}
	for _, g := range groups {
		if err := c.mkdir(c.dir(g.Path), g.Shares); err != nil {
			c.remove()
			return nil, err
		}
	}
	return c, nil
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

// add moves a process into the container.
func (c *cgroupSet) add(pid int) error {
	return os.WriteFile(filepath.Join(c.top, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
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
	return errs
}
