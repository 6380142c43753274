//go:build cgo

package host

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"schedlab/workload"
)

// The worker runs a program, a flat text form of a workload.Spec that C
// reads with strtoll: whitespace-separated integers, strings in hex. The
// form is private to this package (compile writes it, worker.c reads it),
// and its codes and limits are worker.h's (worker.go).

// workerCode is k's code in table. A kind without one is a table that has
// fallen behind the workload language, which worker_test.go catches; a
// program with a wrong code would run another workload than the one asked.
func workerCode[K comparable](table map[K]int, k K) int {
	c, ok := table[k]
	if !ok {
		panic(fmt.Sprintf("host: %T %v has no worker code (worker.h)", k, k))
	}
	return c
}

// compile turns spec into the worker's program. cpus is the affinity of
// every thread that sets none (nil: all CPUs); a thread's own "cpus" must
// lie within it. groupTasks maps a task-group path to the absolute path of
// its cgroup's tasks file.
func compile(spec *workload.Spec, cpus []int, groupTasks map[string]string, seed uint64, logDir string) ([]byte, error) {
	if err := checkHost(spec); err != nil {
		return nil, err
	}
	var b strings.Builder
	w := func(a ...any) {
		for i, v := range a {
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprint(&b, v)
		}
		b.WriteByte('\n')
	}
	hexs := func(s string) string {
		if s == "" {
			return "-"
		}
		return hex.EncodeToString([]byte(s))
	}
	w(programMagic, programVersion)
	w("seed", seed)
	// The worker hands policies to sched_setattr as they are: uapi numbers
	// them as the kernel does. Real-time and deadline tasks run under the
	// kernel's own classes, throttling (sched_rt_runtime_us) and admission
	// control included; a policy the kernel refuses stops the run.
	w("policy", uint32(spec.DefaultPolicy))
	w("timers", len(spec.Timers))
	for _, t := range spec.Timers {
		w(b2i(t.Absolute), b2i(t.PerThread), workerCode(notifyCode, t.Notify))
	}
	groups := make([]string, 0, len(spec.Groups))
	groupIndex := map[string]int{}
	for _, g := range spec.Groups {
		p, ok := groupTasks[g.Path]
		if !ok {
			return nil, fmt.Errorf("host: no cgroup for task group %s", g.Path)
		}
		groupIndex[g.Path] = len(groups)
		groups = append(groups, p)
	}
	w("groups", len(groups))
	for _, g := range groups {
		w(hexs(g))
	}
	g := spec.Global
	w("sync", b2i(g.PIEnabled), len(spec.Mutexes), len(spec.Conds), len(spec.Barriers), len(spec.Sems))
	users := []any{"users"}
	for _, br := range spec.Barriers {
		users = append(users, br.Users)
	}
	w(users...)
	w("io", g.MemBufferSize, hexs(g.IODevice))
	w("log", b2i(g.CumulativeSlack), g.NsPerLoop, hexs(logDir), hexs(g.LogBasename))
	props := func(where string, p workload.Props, top bool) (string, error) {
		nice, hasNice := 0, 0
		if p.Nice != nil {
			nice, hasNice = *p.Nice, 1
		}
		policy := unset
		if p.Policy != nil {
			policy = int(*p.Policy)
		}
		group := unset
		if p.TaskGroup != nil {
			group = groupIndex[*p.TaskGroup]
		}
		uid := unset
		if p.UID != nil {
			uid = *p.UID
		}
		set := p.CPUs
		if top && len(set) == 0 {
			set = cpus
		}
		if len(p.CPUs) > 0 && cpus != nil {
			for _, c := range p.CPUs {
				if !slices.Contains(cpus, c) {
					return "", unsupported("%s: \"cpus\" has CPU %d, outside --cpus %s", where, c, FormatCPUs(cpus))
				}
			}
		}
		for _, c := range set {
			if c >= maxCPU {
				return "", unsupported("%s: CPU %d: the host runner sets affinity for CPUs 0 to %d", where, c, maxCPU-1)
			}
		}
		s := fmt.Sprintf("props %d %d %d %d %d %d %d %d %d %d %d", hasNice, nice, policy, group, uid, p.Slice,
			p.RTPrio, p.DL.Runtime, p.DL.Deadline, p.DL.Period, len(set))
		for _, c := range set {
			s += " " + strconv.Itoa(c)
		}
		return s, nil
	}
	dur := func(d workload.Duration) string {
		return fmt.Sprintf("%d %d %d %d %d %d %s", workerCode(distCode, d.Dist), d.Fixed, d.Median, d.Mean, d.Min, d.Max,
			strconv.FormatFloat(d.Sigma, 'g', -1, 64))
	}
	w("tasks", len(spec.Tasks))
	for _, t := range spec.Tasks {
		tp, err := props(fmt.Sprintf("task %q", t.Name), t.Props, true)
		if err != nil {
			return nil, err
		}
		w("task", hexs(t.Name), t.Instances, t.Delay, t.Loop, b2i(t.Process))
		w(tp)
		w(len(t.Phases))
		for _, ph := range t.Phases {
			pp, err := props(fmt.Sprintf("task %q phase %q", t.Name, ph.Name), ph.Props, false)
			if err != nil {
				return nil, err
			}
			w("phase", ph.Loop)
			w(pp)
			w(len(ph.Events))
			for _, e := range ph.Events {
				w("event", workerCode(eventCode, e.Kind), dur(e.Dur), e.Timer, dur(e.PeriodDur), e.Fork, e.TargetDef, hexs(e.Target),
					e.Res, e.Mutex, e.Cond, e.Bytes)
			}
		}
	}
	w("end")
	return []byte(b.String()), nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkHost refuses what the worker cannot run as the simulator means it,
// naming the task and the event.
func checkHost(spec *workload.Spec) error {
	if len(spec.Timers) > maxTimers {
		return unsupported("%d timers: the host runner handles at most %d", len(spec.Timers), maxTimers)
	}
	// Which threads wait on each timer: a POSIX timer signals one thread.
	waiters := make([]int, len(spec.Timers))
	forked := make([]bool, len(spec.Tasks))
	for _, t := range spec.Tasks {
		for _, ph := range t.Phases {
			for _, e := range ph.Events {
				if e.Kind == workload.Fork {
					forked[e.Fork] = true
				}
			}
		}
	}
	if err := checkHostEvents(spec); err != nil {
		return err
	}
	for ti, t := range spec.Tasks {
		// Threads that may wait on this task's timers: its copies, and any
		// number of forked ones (counted as two: more than one).
		threads := t.Instances
		if forked[ti] {
			threads += 2
		}
		for _, ph := range t.Phases {
			for i, e := range ph.Events {
				if e.Kind != workload.Timer {
					continue
				}
				res := spec.Timers[e.Timer]
				if res.Notify == "" {
					continue
				}
				where := fmt.Sprintf("task %q event %q", t.Name, e.Key)
				if e.PeriodDur.Dist != workload.Fixed {
					return unsupported("%s: a random period for a \"notify\" timer (the host arms a periodic POSIX timer)", where)
				}
				if !res.PerThread {
					waiters[e.Timer] += threads
				}
				switch res.Notify {
				case "thread":
					if err := checkSigevHelper(spec, t, ph, i, where); err != nil {
						return err
					}
				default:
					if e.Timer > maxSignalTimer {
						return unsupported("%s: more than %d signal timers", where, maxSignalTimer+1)
					}
				}
			}
		}
	}
	for i, n := range waiters {
		if n > 1 && spec.Timers[i].Notify != "" {
			return unsupported("timer %q: a POSIX timer (\"notify\") waited on by %d threads; the host signals one thread (name it \"unique…\" to give each thread its own)", spec.Timers[i].Name, n)
		}
	}
	return nil
}

// checkSigevHelper checks the shape glibc's SIGEV_THREAD helper has in a
// workload (docs/workload.md): the timer, the helper's own work, then a fork
// of the callback, whose program runs in glibc's new thread and may only
// run and sleep.
func checkSigevHelper(spec *workload.Spec, t *workload.Task, ph *workload.Phase, at int, where string) error {
	fork := -1
	for _, e := range ph.Events[at+1:] {
		switch e.Kind {
		case workload.Run, workload.Runtime:
		case workload.Fork:
			if fork >= 0 {
				return unsupported("%s: a SIGEV_THREAD helper forks once per expiry", where)
			}
			fork = e.Fork
		default:
			return unsupported("%s: after a \"notify\": \"thread\" timer the host runs glibc's helper, which only runs and forks the callback (found %s)", where, e.Kind)
		}
	}
	if at != 0 || fork < 0 || len(t.Phases) != 1 {
		return unsupported("%s: a SIGEV_THREAD helper must be one phase: the timer, runs, and one fork of the callback", where)
	}
	cb := spec.Tasks[fork]
	for _, cph := range cb.Phases {
		for _, e := range cph.Events {
			switch e.Kind {
			case workload.Run, workload.Runtime, workload.Sleep:
			default:
				return unsupported("task %q: a SIGEV_THREAD callback on the host may only run and sleep (found %s %q)", cb.Name, e.Kind, e.Key)
			}
		}
	}
	if cb.Process {
		return unsupported("task %q: a SIGEV_THREAD callback is a thread, not a process", cb.Name)
	}
	return nil
}
