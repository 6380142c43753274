package perfetto

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"schedlab/trace"
)

// The tests read the written bytes back with protowire alone, as a reader
// that knows only the field numbers would: no schema, no generated code.

// field is one decoded protobuf field: a varint's value or a
// length-delimited field's bytes.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

// fields splits a message into its fields; only the wire types this
// package writes are accepted.
func fields(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			return nil, fmt.Errorf("field %d: wire type %d", num, typ)
		}
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		out = append(out, f)
	}
	return out, nil
}

// msg is a decoded message: its fields by number, in order.
type msg map[protowire.Number][]field

func decode(b []byte) (msg, error) {
	fs, err := fields(b)
	if err != nil {
		return nil, err
	}
	m := msg{}
	for _, f := range fs {
		m[f.num] = append(m[f.num], f)
	}
	return m, nil
}

func (m msg) has(n protowire.Number) bool { return len(m[n]) > 0 }

// u returns varint field n (the last one, as protobuf reads a repeated
// scalar into an optional one).
func (m msg) u(n protowire.Number) uint64 {
	if fs := m[n]; len(fs) > 0 {
		return fs[len(fs)-1].v
	}
	return 0
}

// i32 returns int32 field n.
func (m msg) i32(n protowire.Number) int32 { return int32(int64(m.u(n))) }

func (m msg) s(n protowire.Number) string {
	if fs := m[n]; len(fs) > 0 {
		return string(fs[len(fs)-1].b)
	}
	return ""
}

func (m msg) sub(n protowire.Number) msg {
	if fs := m[n]; len(fs) > 0 {
		d, err := decode(fs[len(fs)-1].b)
		if err == nil {
			return d
		}
	}
	return nil
}

// decoded is a Perfetto trace read back.
type decoded struct {
	packets []msg
	system  msg
	bundles []bundle
	// trees are the ProcessTree packets with their timestamps.
	trees   []msg
	treeTS  []uint64
	procs   map[int32]proc
	threads map[int32]thread
}

type bundle struct {
	cpu      uint32
	lost     bool
	start    uint64
	hasStart bool
	events   []fevent
}

// fevent is one FtraceEvent: its time, common pid, and which event it is.
type fevent struct {
	ts   uint64
	pid  uint32
	kind protowire.Number
	m    msg
}

type proc struct {
	ppid    int32
	hasPPID bool
	cmdline []string
	isComm  bool
}

type thread struct {
	tgid int32
	name string
}

func decodeTrace(b []byte) (*decoded, error) {
	top, err := fields(b)
	if err != nil {
		return nil, err
	}
	d := &decoded{procs: map[int32]proc{}, threads: map[int32]thread{}}
	for _, f := range top {
		if f.num != fTracePacket || f.typ != protowire.BytesType {
			return nil, fmt.Errorf("Trace has field %d type %d", f.num, f.typ)
		}
		p, err := decode(f.b)
		if err != nil {
			return nil, err
		}
		d.packets = append(d.packets, p)
		switch {
		case p.has(fPacketSystemInfo):
			d.system = p.sub(fPacketSystemInfo)
		case p.has(fPacketFtraceEvents):
			bm := p.sub(fPacketFtraceEvents)
			if bm == nil || !bm.has(fBundleCPU) {
				return nil, fmt.Errorf("bundle without cpu")
			}
			bu := bundle{cpu: uint32(bm.u(fBundleCPU)), lost: bm.u(fBundleLostEvents) != 0,
				start: bm.u(fBundlePrevBundleEndTS), hasStart: bm.has(fBundlePrevBundleEndTS)}
			for _, ef := range bm[fBundleEvent] {
				em, err := decode(ef.b)
				if err != nil {
					return nil, err
				}
				ev := fevent{ts: em.u(fFtraceEventTimestamp), pid: uint32(em.u(fFtraceEventPID))}
				for n, fs := range em {
					if n != fFtraceEventTimestamp && n != fFtraceEventPID {
						if ev.kind != 0 || len(fs) != 1 {
							return nil, fmt.Errorf("FtraceEvent with more than one event")
						}
						ev.kind = n
						if ev.m, err = decode(fs[0].b); err != nil {
							return nil, err
						}
					}
				}
				bu.events = append(bu.events, ev)
			}
			d.bundles = append(d.bundles, bu)
		case p.has(fPacketProcessTree):
			t := p.sub(fPacketProcessTree)
			d.trees = append(d.trees, t)
			d.treeTS = append(d.treeTS, p.u(fPacketTimestamp))
			for _, pf := range t[fProcessTreeProcesses] {
				pm, err := decode(pf.b)
				if err != nil {
					return nil, err
				}
				pr := proc{ppid: pm.i32(fProcessPPID), hasPPID: pm.has(fProcessPPID), isComm: pm.u(fProcessCmdlineIsComm) != 0}
				for _, c := range pm[fProcessCmdline] {
					pr.cmdline = append(pr.cmdline, string(c.b))
				}
				d.procs[pm.i32(fProcessPID)] = pr
			}
			for _, tf := range t[fProcessTreeThreads] {
				tm, err := decode(tf.b)
				if err != nil {
					return nil, err
				}
				d.threads[tm.i32(fThreadTID)] = thread{tgid: tm.i32(fThreadTGID), name: tm.s(fThreadName)}
			}
		}
	}
	return d, nil
}

// events turns the bundles back into the stream, as trace.Event values
// with the fields a Perfetto trace carries, by CPU: a CPU's events in the
// order of its bundles (the order of events of different CPUs at one time
// is not kept, nor needed). task_newtask is not an event of the stream and
// is left out.
func (d *decoded) events() map[int32][]trace.Event {
	out := map[int32][]trace.Event{}
	for _, b := range d.bundles {
		for _, fe := range b.events {
			e := trace.Event{TS: int64(fe.ts), CPU: int32(b.cpu)}
			m := fe.m
			switch fe.kind {
			case fFtraceEventSchedSwitch:
				e.Kind = trace.Switch
				e.PID, e.Comm, e.Prio = m.i32(fSwitchPrevPID), m.s(fSwitchPrevComm), m.i32(fSwitchPrevPrio)
				switch m.u(fSwitchPrevState) {
				case stateRunning, statePreempted:
					e.PrevState = trace.Running
				case stateInterruptible:
					e.PrevState = trace.Sleeping
				case stateUninterruptible:
					e.PrevState = trace.Uninterruptible
				case stateExitDead:
					e.PrevState = trace.Dead
				default:
					e.PrevState = 99
				}
				e.NextPID, e.NextComm, e.NextPrio = m.i32(fSwitchNextPID), m.s(fSwitchNextComm), m.i32(fSwitchNextPrio)
			case fFtraceEventSchedWaking, fFtraceEventSchedWakeup, fFtraceEventWakeupNew:
				e.Kind = map[protowire.Number]trace.Kind{fFtraceEventSchedWaking: trace.Waking,
					fFtraceEventSchedWakeup: trace.Wakeup, fFtraceEventWakeupNew: trace.WakeupNew}[fe.kind]
				e.PID, e.Comm, e.Prio, e.TargetCPU = m.i32(fWakePID), m.s(fWakeComm), m.i32(fWakePrio), m.i32(fWakeTargetCPU)
			case fFtraceEventFork:
				e.Kind = trace.Fork
				e.PID, e.Comm = m.i32(fForkParentPID), m.s(fForkParentComm)
				e.ChildPID, e.ChildComm = m.i32(fForkChildPID), m.s(fForkChildComm)
			case fFtraceEventExit:
				e.Kind = trace.Exit
				e.PID, e.Comm, e.Prio = m.i32(fExitPID), m.s(fExitComm), m.i32(fExitPrio)
			case fFtraceEventMigrate:
				e.Kind = trace.Migrate
				e.PID, e.Comm, e.Prio = m.i32(fMigratePID), m.s(fMigrateComm), m.i32(fMigratePrio)
				e.OrigCPU, e.DestCPU = m.i32(fMigrateOrigCPU), m.i32(fMigrateDestCPU)
			case fFtraceEventPrint:
				e.Kind = trace.Mark
				e.PID = int32(fe.pid)
				if ok, valid := trace.ParseMark(m.s(fPrintBuf), &e); !ok || !valid {
					e.Mark = 0
				}
			default:
				continue
			}
			out[e.CPU] = append(out[e.CPU], e)
		}
	}
	return out
}
