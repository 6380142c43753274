package rtapp

import (
	"fmt"
	"math"
	"strings"

	"schedlab/uapi"
	"schedlab/workload"
)

// Check reports whether rt-app 1.0 can run the workload as schedlab means
// it; if not, the reason, one sentence naming the task, event or key, e.g.
// `task "sh" uses fork (event "fork"), which rt-app 1.0 lacks`. The first
// problem in file order is reported.
//
// Refused, each verified with /usr/bin/rt-app 1.0: fork events and
// instance-0 templates (1.0 ignores a fork key and starts no thread for
// instance 0); task groups (ignored); SCHED_BATCH and SCHED_IDLE (fatal
// "Invalid policy"); random durations (1.0 turns a run, runtime or sleep
// whose value is not an integer into "run 0") and timer periods (fatal
// "Invalid type for key period"); timer "notify" and latency_end (ignored:
// a plain rt-app timer runs instead); uid (ignored); dl-runtime on a fair
// task, the custom slice (ignored: se.slice stays the default); priority in
// a phase (read only at the task level); a timer shared by several threads
// (1.0 computes wu_lat after sleeping from the shared expiry, which another
// thread has advanced meanwhile: the log shows negative values wrapped to
// 2^64); a resume that names one instance, or a task with several
// instances (1.0 names every instance after its task and wakes them all);
// a duration that is not a whole number of
// seconds (1.0's global.duration must be an integer).
//
// Accepted, with 1.0's own semantics: run, runtime, sleep, timer (relative
// or absolute, "unique…" or used by one thread), yield, suspend and resume
// (on a thread or a named rendezvous), lock, unlock, wait, signal, broad,
// sync, barrier, mem and iorun, and pi_enabled, cumulative_slack,
// io_device and mem_buffer_size. Refused: rt-app HEAD's memrun, sem_post
// and sem_wait, which 1.0 lacks, and a phase's cpus, policy or taskgroup,
// which Convert does not write.
// One deviation is left: schedlab remembers a resume that finds its target
// not suspended (docs/workload.md), rt-app 1.0's condition variable loses
// it, so a resume that races ahead of its suspend leaves the target
// waiting until the next resume.
func Check(spec *workload.Spec) error {
	if err := check(spec); err != nil {
		return err
	}
	if spec.Duration%1e9 != 0 {
		return fmt.Errorf("global.duration %gs is not a whole number of seconds, which rt-app 1.0 needs", float64(spec.Duration)/1e9)
	}
	return nil
}

// check is Check without the duration, which Options may override.
func check(spec *workload.Spec) error {
	if len(spec.Tasks) == 0 {
		return fmt.Errorf("the workload has no tasks")
	}
	threads := timerThreads(spec)
	for _, t := range spec.Tasks {
		if err := checkTask(spec, t, threads); err != nil {
			return err
		}
	}
	if len(spec.Groups) > 0 {
		return fmt.Errorf("global.taskgroups declares %q, but rt-app 1.0 has no taskgroup", spec.Groups[0].Path)
	}
	return nil
}

// timerThreads counts the threads that use each timer resource (a
// "unique…" timer is one per thread and never shared).
func timerThreads(spec *workload.Spec) []int {
	n := make([]int, len(spec.Timers))
	for _, t := range spec.Tasks {
		used := map[int]bool{}
		for _, ph := range t.Phases {
			for _, ev := range ph.Events {
				if ev.Kind == workload.Timer {
					used[ev.Timer] = true
				}
			}
		}
		for i := range used {
			n[i] += t.Instances
		}
	}
	return n
}

func checkTask(spec *workload.Spec, t *workload.Task, timerThreads []int) error {
	task := fmt.Sprintf("task %q", t.Name)
	if t.Instances == 0 {
		return fmt.Errorf("%s has instance 0, a template only fork starts, and rt-app 1.0 has no fork", task)
	}
	if strings.Contains(t.Name, "/") {
		return fmt.Errorf("%s has a \"/\" in its name, which rt-app 1.0 puts in its log file's name", task)
	}
	pol, from := spec.DefaultPolicy, " (global.default_policy)"
	if t.Props.Policy != nil {
		pol, from = *t.Props.Policy, ""
	}
	switch pol {
	case uapi.SchedNormal:
	case uapi.SchedFIFO, uapi.SchedRR:
		// The language checks the real-time priority (1…99) itself.
	default:
		return fmt.Errorf("%s has policy %v%s, which rt-app 1.0 lacks (it has SCHED_OTHER, SCHED_FIFO and SCHED_RR)", task, pol, from)
	}
	if t.Props.TaskGroup != nil {
		return fmt.Errorf("%s uses taskgroup %q, which rt-app 1.0 lacks", task, *t.Props.TaskGroup)
	}
	if t.Props.UID != nil {
		return fmt.Errorf("%s sets uid %d (a schedlab extension), which rt-app 1.0 ignores: its threads run as the user running rt-app", task, *t.Props.UID)
	}
	if t.Props.Slice != 0 {
		return fmt.Errorf("%s sets dl-runtime on a fair task (the EEVDF custom slice), which rt-app 1.0 ignores", task)
	}
	if us := t.Delay / 1000; us > math.MaxInt32 {
		return fmt.Errorf("%s has a delay of %d µs, beyond rt-app 1.0's 32-bit integers", task, us)
	}
	for _, ph := range t.Phases {
		if ph.Props.Nice != nil {
			return fmt.Errorf("%s phase %q sets priority, which rt-app 1.0 reads only at the task level", task, ph.Name)
		}
		if ph.Props.CPUs != nil || ph.Props.Policy != nil || ph.Props.TaskGroup != nil {
			return fmt.Errorf("%s phase %q sets cpus, policy or taskgroup, which schedlab does not convert for rt-app 1.0", task, ph.Name)
		}
		for _, ev := range ph.Events {
			if err := checkEvent(spec, task, ev, timerThreads); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkEvent(spec *workload.Spec, task string, ev workload.Event, timerThreads []int) error {
	event := fmt.Sprintf("%s event %q", task, ev.Key)
	switch ev.Kind {
	case workload.Run, workload.Runtime, workload.Sleep:
		if ev.Dur.Dist != workload.Fixed {
			return fmt.Errorf("%s has a random duration (%s), but rt-app 1.0 needs an integer of µs", event, ev.Dur.Dist)
		}
		return checkInt32(event, ev.Dur.Fixed)
	case workload.Timer:
		tr := spec.Timers[ev.Timer]
		switch {
		case tr.Notify != "":
			return fmt.Errorf("%s: timer %q has \"notify\": %q (a POSIX timer, a schedlab extension), which rt-app 1.0 lacks", event, tr.Name, tr.Notify)
		case ev.PeriodDur.Dist != workload.Fixed:
			return fmt.Errorf("%s: timer %q has a random period (%s), but rt-app 1.0 needs an integer of µs", event, tr.Name, ev.PeriodDur.Dist)
		case !tr.PerThread && timerThreads[ev.Timer] > 1:
			return fmt.Errorf("%s: timer %q is shared by %d threads, and rt-app 1.0 measures wu_lat against the shared expiry after another thread has advanced it", event, tr.Name, timerThreads[ev.Timer])
		}
		return checkInt32(event, ev.Period)
	case workload.Fork:
		return fmt.Errorf("%s uses fork (event %q), which rt-app 1.0 lacks", task, ev.Key)
	case workload.LatencyEnd:
		return fmt.Errorf("%s uses latency_end (event %q, a schedlab extension), which rt-app 1.0 ignores", task, ev.Key)
	case workload.Resume:
		if ev.TargetDef < 0 {
			return nil // a rendezvous: 1.0 broadcasts the condition of that name
		}
		def := spec.Tasks[ev.TargetDef]
		if ev.Target != def.Name {
			return fmt.Errorf("%s resumes %q, one instance of task %q, but rt-app 1.0 names every instance %q", event, ev.Target, def.Name, def.Name)
		}
		if def.Instances != 1 {
			return fmt.Errorf("%s resumes %q, which has %d instances: rt-app 1.0 would wake all of them, schedlab one", event, ev.Target, def.Instances)
		}
	case workload.Yield, workload.Suspend, workload.Lock, workload.Unlock, workload.Wait, workload.Signal,
		workload.Broadcast, workload.SigAndWait, workload.Barrier:
	case workload.Mem, workload.IORun:
		if ev.Bytes > math.MaxInt32 {
			return fmt.Errorf("%s is %d bytes, beyond rt-app 1.0's 32-bit integers", event, ev.Bytes)
		}
	case workload.MemRun, workload.SemPost, workload.SemWait:
		return fmt.Errorf("%s is rt-app HEAD's %v, which rt-app 1.0 lacks", event, ev.Kind)
	default:
		return fmt.Errorf("%s is a %v, which rt-app 1.0 cannot run", event, ev.Kind)
	}
	return nil
}

func checkInt32(event string, ns int64) error {
	if us := ns / 1000; us > math.MaxInt32 {
		return fmt.Errorf("%s is %d µs, beyond rt-app 1.0's 32-bit integers", event, us)
	}
	return nil
}
