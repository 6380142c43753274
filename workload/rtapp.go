package workload

import (
	"fmt"
	"strings"

	"schedlab/workload/jsonc"
)

// This file reads the parts of rt-app's grammar beyond run, sleep and
// timers: the global keys, and the events on sync objects, memory and I/O
// (doc/tutorial.txt; memrun and sem_* are rt-app HEAD's). rt-app creates a
// resource per name and kind the first time an event names it; so does
// the parser, in Spec.Mutexes, Conds, Barriers and Sems.

// globalIgnored are global keys with no meaning for a scheduler: accepted,
// and ignored with a warning that says why.
var globalIgnored = map[string]string{
	"lock_pages": "mlockall() keeps pages resident; the simulator has no paging",
	"ftrace":     "rt-app's own trace_marker writes; schedlab traces with --trace",
	"gnuplot":    "rt-app's plot scripts",
	"frag":       "the AQuoSA scheduler's reservation fragment, gone from rt-app since AQuoSA was removed",
}

// globalExtra reads a global key other than duration, default_policy and
// taskgroups; ok is false if the key is not one of rt-app's.
func (p *parser) globalExtra(m jsonc.Member) (ok bool, err error) {
	g := &p.spec.Global
	v := m.Value
	boolean := func(dst *bool) error {
		if v.Kind != jsonc.Bool {
			return p.errf(v.Pos, "global.%s must be true or false", m.Key)
		}
		*dst = v.Bool
		return nil
	}
	str := func(dst *string) error {
		if v.Kind != jsonc.String {
			return p.errf(v.Pos, "global.%s must be a string", m.Key)
		}
		*dst = v.Str
		return nil
	}
	if why, ign := globalIgnored[m.Key]; ign {
		p.warnf(m.KeyPos, "global.%s is ignored: %s", m.Key, why)
		return true, nil
	}
	switch m.Key {
	case "pi_enabled":
		return true, boolean(&g.PIEnabled)
	case "cumulative_slack":
		return true, boolean(&g.CumulativeSlack)
	case "calibration":
		// An integer is ns per loop; a string names the CPU rt-app
		// calibrates on. Either way a simulated run is exact: only the
		// log's perf column uses it.
		if n, isInt := v.Int(); isInt {
			if n <= 0 || n > 1e9 {
				return true, p.errf(v.Pos, "global.calibration %d: ns per loop must be 1 to 10⁹", n)
			}
			g.NsPerLoop = n
			return true, nil
		}
		var cpu string
		if err := str(&cpu); err != nil {
			return true, p.errf(v.Pos, "global.calibration must be \"CPUn\" or an integer of ns per loop")
		}
		if !strings.HasPrefix(cpu, "CPU") {
			return true, p.errf(v.Pos, "global.calibration %q: must be \"CPUn\" or an integer of ns per loop", cpu)
		}
		p.warnf(m.KeyPos, "global.calibration %q is ignored: a simulated run's durations are exact (rt-app-log perf counts 1 loop per ns unless calibration is an integer)", cpu)
		return true, nil
	case "mem_buffer_size":
		n, isInt := v.Int()
		if !isInt || n <= 0 || n > 1<<40 {
			return true, p.errf(v.Pos, "global.mem_buffer_size must be a positive integer of bytes up to 2⁴⁰")
		}
		g.MemBufferSize = n
		return true, nil
	case "io_device":
		return true, str(&g.IODevice)
	case "logdir":
		p.warnf(m.KeyPos, "global.logdir is ignored: schedlab writes rt-app's logs where --rtapp-log DIR says")
		return true, str(&g.LogDir)
	case "log_basename":
		if err := str(&g.LogBasename); err != nil {
			return true, err
		}
		if strings.ContainsAny(g.LogBasename, "/\x00") {
			return true, p.errf(v.Pos, "global.log_basename %q: a file name prefix, without '/'", g.LogBasename)
		}
		return true, nil
	case "log_size":
		// A size in MB or "file"/"auto" only say how rt-app buffers its log.
		if _, isInt := v.Int(); isInt {
			return true, nil
		}
		var s string
		if err := str(&s); err != nil {
			return true, p.errf(v.Pos, "global.log_size must be an integer of MB or \"file\", \"auto\", \"disable\"")
		}
		switch strings.ToLower(s) {
		case "disable":
			g.LogDisabled = true
		case "file", "auto":
		default:
			return true, p.errf(v.Pos, "global.log_size %q (valid: an integer of MB, \"file\", \"auto\", \"disable\")", s)
		}
		return true, nil
	}
	return false, nil
}

func (p *parser) warnf(pos jsonc.Pos, format string, args ...any) {
	p.spec.Warnings = append(p.spec.Warnings, fmt.Sprintf("%s:%s: %s", p.file, pos, fmt.Sprintf(format, args...)))
}

// globalKeyList is every global key the parser reads, for error messages.
func globalKeyList() string {
	keys := map[string]bool{"duration": true, "default_policy": true, "taskgroups": true, "pi_enabled": true,
		"cumulative_slack": true, "calibration": true, "mem_buffer_size": true, "io_device": true, "logdir": true,
		"log_basename": true, "log_size": true}
	for k := range globalIgnored {
		keys[k] = true
	}
	return sortedKeys(keys)
}

// resIndex returns the index of name in list, appending it if new.
func resIndex(list *[]string, name string) int {
	for i, n := range *list {
		if n == name {
			return i
		}
	}
	*list = append(*list, name)
	return len(*list) - 1
}

// refName reads an event's value that names a resource.
func (p *parser) refName(v *jsonc.Value, where, key, what string) (string, error) {
	if v.Kind != jsonc.String || v.Str == "" {
		return "", p.errf(v.Pos, "%s: %s must name a %s (a string)", where, key, what)
	}
	return v.Str, nil
}

// syncEvent reads the events on mutexes, conditions, barriers and
// semaphores, and mem, iorun and memrun.
func (p *parser) syncEvent(typ string, m jsonc.Member, ev *Event, where string, instances int) error {
	v := m.Value
	s := p.spec
	switch typ {
	case "lock", "unlock":
		name, err := p.refName(v, where, m.Key, "mutex")
		if err != nil {
			return err
		}
		ev.Kind, ev.Res = Lock, resIndex(&s.Mutexes, name)
		if typ == "unlock" {
			ev.Kind = Unlock
		}
	case "signal", "broad":
		name, err := p.refName(v, where, m.Key, "condition")
		if err != nil {
			return err
		}
		ev.Kind, ev.Res = Signal, resIndex(&s.Conds, name)
		if typ == "broad" {
			ev.Kind = Broadcast
		}
	case "wait", "sync":
		if v.Kind != jsonc.Object {
			return p.errf(v.Pos, "%s: %s must be an object {\"ref\": condition, \"mutex\": mutex}", where, m.Key)
		}
		// rt-app's defaults: both name "unknown" when left out.
		ref, mutex := "unknown", "unknown"
		for _, km := range v.Members {
			switch km.Key {
			case "ref", "mutex":
				name, err := p.refName(km.Value, where, m.Key+"."+km.Key, km.Key)
				if err != nil {
					return err
				}
				if km.Key == "ref" {
					ref = name
				} else {
					mutex = name
				}
			default:
				return p.errf(km.KeyPos, "%s: unknown key %q in %s (valid: ref, mutex)", where, km.Key, m.Key)
			}
		}
		ev.Kind, ev.Res, ev.Mutex = Wait, resIndex(&s.Conds, ref), resIndex(&s.Mutexes, mutex)
		if typ == "sync" {
			ev.Kind = SigAndWait
		}
	case "barrier":
		name, err := p.refName(v, where, m.Key, "barrier")
		if err != nil {
			return err
		}
		i := -1
		for j, b := range s.Barriers {
			if b.Name == name {
				i = j
			}
		}
		if i < 0 {
			i = len(s.Barriers)
			s.Barriers = append(s.Barriers, &BarrierRes{Name: name})
		}
		s.Barriers[i].Users += instances
		ev.Kind, ev.Res = Barrier, i
	case "sem_post", "sem_wait":
		name, err := p.refName(v, where, m.Key, "semaphore")
		if err != nil {
			return err
		}
		ev.Kind, ev.Res = SemPost, resIndex(&s.Sems, name)
		if typ == "sem_wait" {
			ev.Kind = SemWait
		}
	case "mem", "iorun":
		n, ok := v.Int()
		if !ok || n < 0 || n > MaxBytes {
			return p.errf(v.Pos, "%s: %s must be an integer of bytes from 0 to %d (1 TiB)", where, m.Key, int64(MaxBytes))
		}
		ev.Kind, ev.Bytes = Mem, n
		if typ == "iorun" {
			ev.Kind = IORun
		}
	case "memrun":
		return p.memrun(m, ev, where)
	default:
		return p.errf(m.KeyPos, "%s: event %q (%s) is not an rt-app event", where, m.Key, typ)
	}
	return nil
}

// MaxBytes bounds a mem, iorun or memrun size: at the slowest stated rate
// it stays far below MaxNS of simulated time.
const MaxBytes = 1 << 40

// memrun is rt-app HEAD's {"type": "read"|"write"|"chase", "size", "count",
// "stride", "pattern", "ref"}. Only count and type change the CPU time the
// simulator charges; size, stride, pattern and ref shape the caches, which
// it does not model.
func (p *parser) memrun(m jsonc.Member, ev *Event, where string) error {
	v := m.Value
	if v.Kind != jsonc.Object {
		return p.errf(v.Pos, "%s: %s must be an object {\"type\": \"read\"|\"write\"|\"chase\", \"size\": bytes, \"count\": n}", where, m.Key)
	}
	typ := ""
	for _, km := range v.Members {
		switch km.Key {
		case "type":
			if km.Value.Kind != jsonc.String {
				return p.errf(km.Value.Pos, "%s: %s.type must be \"read\", \"write\" or \"chase\"", where, m.Key)
			}
			typ = km.Value.Str
		case "count", "size", "stride":
			n, ok := km.Value.Int()
			if !ok || n < 0 || n > MaxBytes {
				return p.errf(km.Value.Pos, "%s: %s.%s must be an integer from 0 to %d", where, m.Key, km.Key, int64(MaxBytes))
			}
			if km.Key == "count" {
				ev.Bytes = n
			}
		case "pattern", "ref":
			if km.Value.Kind != jsonc.String {
				return p.errf(km.Value.Pos, "%s: %s.%s must be a string", where, m.Key, km.Key)
			}
		default:
			return p.errf(km.KeyPos, "%s: unknown key %q in %s (valid: type, size, count, stride, pattern, ref)", where, km.Key, m.Key)
		}
	}
	switch typ {
	case "read":
		ev.Mem = MemRead
	case "write":
		ev.Mem = MemWrite
	case "chase":
		ev.Mem = MemChase
	default:
		return p.errf(v.Pos, "%s: %s needs \"type\": \"read\", \"write\" or \"chase\"", where, m.Key)
	}
	ev.Kind = MemRun
	return nil
}
