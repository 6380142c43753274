package rtapp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"schedlab/uapi"
	"schedlab/workload"
)

// LogBasename is the log_basename Convert writes: thread i of task T logs
// to <logdir>/rt-app-T-i.log (rt-app 1.0 numbers threads across all tasks
// in file order).
const LogBasename = "rt-app"

// Options tune a conversion and a run.
type Options struct {
	Duration time.Duration // overrides global.duration; whole seconds
	CPUs     []int         // affinity for every thread, replacing the tasks' own cpus (nil: none)
	Binary   string        // default "rt-app" from PATH
	Dir      string        // work dir for the generated JSON and logs (default: os.MkdirTemp)
	Keep     bool          // keep the JSON and the logs

	// NsPerLoop is rt-app's calibration: the ns one iteration of its busy
	// loop takes, which turns a run event's µs into a fixed amount of
	// work. 0: Convert writes "CPU<n>" (n the first of CPUs, or 0), which
	// makes rt-app 1.0 calibrate itself, pinned to CPU n (it needs no
	// root, but sleeps 1 s per trial: 3 to 7 s on the host); Run instead
	// measures it first with a probe run of rt-app of a few tens of ms.
	NsPerLoop int
}

// Convert writes the rt-app 1.0 JSON for spec, which is what Run feeds
// rt-app: only what rt-app 1.0 understands (Check's refusals are errors),
// with logging on (global logdir, the directory o.Dir or "." by default,
// and log_basename LogBasename; log_size is left out, because 1.0 turns
// logging off for any string but "disable"), "lock_pages": false,
// "ftrace": false (1.0 takes only a boolean) and the calibration of
// o.NsPerLoop. Durations are integers of µs, global.duration whole seconds
// (-1 if neither spec nor o sets one: until every thread ends).
//
// Every task is written with "phases", its "loop" the number of passes over
// them: rt-app 1.0 loops a task without phases forever whatever its loop
// says, whereas schedlab (like rt-app HEAD) counts loop passes. Each task
// states its policy (the global default folded in), suspend events name
// their own task (the condition a resume of that name signals), and events
// keep their keys and order.
func Convert(spec *workload.Spec, o Options) ([]byte, error) {
	if err := check(spec); err != nil {
		return nil, err
	}
	dur := spec.Duration
	if o.Duration > 0 {
		dur = int64(o.Duration)
	}
	if dur%1e9 != 0 {
		return nil, fmt.Errorf("duration %v is not a whole number of seconds, which rt-app 1.0's global.duration needs", time.Duration(dur))
	}
	seconds := int64(-1)
	if dur > 0 {
		seconds = dur / 1e9
	}
	for _, c := range o.CPUs {
		if c < 0 {
			return nil, fmt.Errorf("CPU %d in Options.CPUs is negative", c)
		}
	}
	var calibration any = o.NsPerLoop
	if o.NsPerLoop <= 0 {
		cpu := 0
		if len(o.CPUs) > 0 {
			cpu = o.CPUs[0]
		}
		calibration = fmt.Sprintf("CPU%d", cpu)
	}
	logdir := o.Dir
	if logdir == "" {
		logdir = "."
	}
	global := object{
		{"duration", seconds},
		{"calibration", calibration},
		{"default_policy", "SCHED_OTHER"},
		{"lock_pages", false},
		{"ftrace", false},
		{"logdir", logdir},
		{"log_basename", LogBasename},
	}
	// The sync and I/O keys, where they differ from 1.0's defaults.
	g := spec.Global
	if g.PIEnabled {
		global = append(global, member{"pi_enabled", true})
	}
	if g.CumulativeSlack {
		global = append(global, member{"cumulative_slack", true})
	}
	if def := workload.DefaultGlobal(); g.IODevice != def.IODevice || g.MemBufferSize != def.MemBufferSize {
		global = append(global, member{"io_device", g.IODevice}, member{"mem_buffer_size", g.MemBufferSize})
	}
	var tasks object
	for _, t := range spec.Tasks {
		tasks = append(tasks, member{t.Name, convertTask(spec, t, o)})
	}
	out, err := json.MarshalIndent(object{{"global", global}, {"tasks", tasks}}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func convertTask(spec *workload.Spec, t *workload.Task, o Options) object {
	pol := spec.DefaultPolicy
	if t.Props.Policy != nil {
		pol = *t.Props.Policy
	}
	obj := object{{"instance", t.Instances}, {"policy", policyName(pol)}}
	switch {
	case pol.RealTime():
		obj = append(obj, member{"priority", t.Props.RTPrio})
	case t.Props.Nice != nil:
		obj = append(obj, member{"priority", *t.Props.Nice})
	}
	cpus := t.Props.CPUs
	if o.CPUs != nil {
		cpus = o.CPUs
	}
	if len(cpus) > 0 {
		obj = append(obj, member{"cpus", cpus})
	}
	if t.Delay > 0 {
		obj = append(obj, member{"delay", t.Delay / 1000})
	}
	var phases object
	for _, ph := range t.Phases {
		p := object{{"loop", ph.Loop}}
		for _, ev := range ph.Events {
			p = append(p, member{ev.Key, eventValue(spec, t, ev)})
		}
		phases = append(phases, member{ph.Name, p})
	}
	return append(obj, member{"loop", t.Loop}, member{"phases", phases})
}

// eventValue is an event's rt-app 1.0 value; check has refused what has
// none.
func eventValue(spec *workload.Spec, t *workload.Task, ev workload.Event) any {
	switch ev.Kind {
	case workload.Run, workload.Runtime, workload.Sleep:
		return ev.Dur.Fixed / 1000
	case workload.Timer:
		tr := spec.Timers[ev.Timer]
		mode := "relative"
		if tr.Absolute {
			mode = "absolute"
		}
		return object{{"ref", tr.Name}, {"period", ev.Period / 1000}, {"mode", mode}}
	case workload.Suspend:
		// 1.0 waits on the condition the value names (a non-string
		// turns the event into "run 0"); a resume signals its target's.
		if ev.Cond >= 0 {
			return spec.Conds[ev.Cond]
		}
		return t.Name
	case workload.Resume:
		return ev.Target
	case workload.Lock, workload.Unlock:
		return spec.Mutexes[ev.Res]
	case workload.Signal, workload.Broadcast:
		return spec.Conds[ev.Res]
	case workload.Wait, workload.SigAndWait:
		return object{{"ref", spec.Conds[ev.Res]}, {"mutex", spec.Mutexes[ev.Mutex]}}
	case workload.Barrier:
		return spec.Barriers[ev.Res].Name
	case workload.Mem, workload.IORun:
		return ev.Bytes
	}
	return "" // yield: 1.0 ignores the value
}

// policyName is rt-app's spelling (1.0 knows no SCHED_NORMAL).
func policyName(p uapi.Policy) string {
	if p == uapi.SchedNormal {
		return "SCHED_OTHER"
	}
	return p.String()
}

// object is a JSON object that keeps its keys in order: rt-app runs a
// phase's events in the order of their keys.
type object []member

type member struct {
	key string
	val any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
