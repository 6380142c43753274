package perfetto

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"schedlab/internal/simtest"
	_ "schedlab/sched/cfs"
	"schedlab/sim"
	"schedlab/trace"
)

// sample has every kind of event, the thread groups of two forks (a
// thread and a process), a loss and a CPU whose buffer starts late.
func sample() []trace.Event {
	return []trace.Event{
		{Kind: trace.Begin, CPUs: 3},
		{TS: 0, CPU: 0, Kind: trace.Fork, PID: 1000, Comm: "rt-app", TGID: 1000, ChildPID: 1001, ChildComm: "make", ChildTGID: 1000},
		{TS: 0, CPU: 0, Kind: trace.WakeupNew, PID: 1001, Comm: "make", Prio: 120, TargetCPU: 0},
		{TS: 5, CPU: 0, Kind: trace.Switch, PID: 0, Comm: "swapper", Prio: 120, NextPID: 1001, NextComm: "make", NextPrio: 120},
		{TS: 10, CPU: 0, Kind: trace.Fork, PID: 1001, Comm: "make", TGID: 1000, ChildPID: 1003, ChildComm: "make", ChildTGID: 1003},
		{TS: 1_000_123, CPU: 0, Kind: trace.Waking, PID: 1003, Comm: "make", Prio: 139, TargetCPU: 1},
		{TS: 1_000_200, CPU: 0, Kind: trace.Wakeup, PID: 1003, Comm: "make", Prio: 139, TargetCPU: 1},
		// exec renamed the child: the tree names it by its latest comm.
		{TS: 1_000_300, CPU: 1, Kind: trace.Switch, PID: 0, Comm: "swapper", Prio: 120, NextPID: 1003, NextComm: "sh", NextPrio: 139},
		{TS: 2_500_000, CPU: 1, Kind: trace.Mark, PID: 1003, Comm: "sh", Mark: trace.TimerExpiry, Timer: 3, Seq: 17, Expected: 2_400_000},
		{TS: 2_600_000, CPU: 0, Kind: trace.Mark, PID: 1001, Comm: "make", Mark: trace.CallbackStart, Timer: 3, Seq: 17},
		{TS: 2_700_000, CPU: 1, Kind: trace.Mark, PID: 4242, Comm: "stranger", Mark: trace.TimerMissed, Timer: 3, Seq: 18},
		{TS: 4_000_000, CPU: 0, Kind: trace.Switch, PID: 1001, Comm: "make", Prio: 120, PrevState: trace.Running, NextPID: 0, NextComm: "swapper", NextPrio: 120},
		{TS: 4_000_001, CPU: 0, Kind: trace.Migrate, PID: 1001, Comm: "make", Prio: 120, OrigCPU: 0, DestCPU: 1},
		{TS: 5_000_000, CPU: 1, Kind: trace.Exit, PID: 1003, Comm: "sh", Prio: 139},
		{TS: 5_000_010, CPU: 1, Kind: trace.Switch, PID: 1003, Comm: "sh", Prio: 139, PrevState: trace.Dead, NextPID: 1001, NextComm: "make", NextPrio: 120},
		{TS: 6_000_000, CPU: 1, Kind: trace.Switch, PID: 1001, Comm: "make", Prio: 120, PrevState: trace.Uninterruptible, NextPID: 0, NextComm: "swapper", NextPrio: 120},
		{TS: 6_000_000, CPU: 1, Kind: trace.Lost, Seq: 42},
		{TS: 7_000_000, CPU: 2, Kind: trace.BufferStart},
		{TS: 7_000_001, CPU: 2, Kind: trace.Waking, PID: 1001, Comm: "make", Prio: 120, TargetCPU: 2},
		{TS: 61_000_000_000, CPU: 1, Kind: trace.Switch, PID: 0, Comm: "swapper", Prio: 120, NextPID: 1001, NextComm: "make", NextPrio: 120},
		{TS: 61_000_000_100, CPU: 1, Kind: trace.Switch, PID: 1001, Comm: "make", Prio: 120, PrevState: trace.Sleeping, NextPID: 0, NextComm: "swapper", NextPrio: 120},
	}
}

func writeAll(t *testing.T, events []trace.Event, o Options, end int64) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b, o)
	for i := range events {
		w.Event(&events[i])
	}
	if err := w.Close(end); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestStructure(t *testing.T) {
	d, err := decodeTrace(writeAll(t, sample(), Options{Version: "schedlab test"}, 62_000_000_000))
	if err != nil {
		t.Fatal(err)
	}
	// SystemInfo, the bundles of CPU 1 before and after the loss, then one
	// per CPU at the end, and the tree.
	if len(d.packets) != 1+4+1 || len(d.bundles) != 4 || len(d.trees) != 1 {
		t.Fatalf("%d packets, %d bundles, %d trees", len(d.packets), len(d.bundles), len(d.trees))
	}
	for i, p := range d.packets {
		if p.u(fPacketTrustedSeqID) != seqID {
			t.Errorf("packet %d: trusted_packet_sequence_id %d", i, p.u(fPacketTrustedSeqID))
		}
	}
	if !d.packets[0].has(fPacketSystemInfo) {
		t.Fatal("the first packet is not SystemInfo")
	}
	uts := d.system.sub(fSystemInfoUtsname)
	if uts.s(fUtsnameSysname) != "Linux" || uts.s(fUtsnameRelease) != DefaultRelease || uts.s(fUtsnameVersion) != "schedlab test" || d.system.u(fSystemInfoNumCPUs) != 3 {
		t.Errorf("system info: %q %q %q cpus %d", uts.s(fUtsnameSysname), uts.s(fUtsnameRelease), uts.s(fUtsnameVersion), d.system.u(fSystemInfoNumCPUs))
	}

	type bundleShape struct {
		cpu      uint32
		lost     bool
		start    uint64
		hasStart bool
		kinds    []protowire.Number
	}
	var got []bundleShape
	for _, b := range d.bundles {
		s := bundleShape{cpu: b.cpu, lost: b.lost, start: b.start, hasStart: b.hasStart}
		for _, e := range b.events {
			s.kinds = append(s.kinds, e.kind)
		}
		got = append(got, s)
	}
	sw, wk, wu, wn, nt, fk, ex, mg, pr := fFtraceEventSchedSwitch, fFtraceEventSchedWaking, fFtraceEventSchedWakeup, fFtraceEventWakeupNew,
		fFtraceEventTaskNewtask, fFtraceEventFork, fFtraceEventExit, fFtraceEventMigrate, fFtraceEventPrint
	want := []bundleShape{
		{cpu: 1, kinds: []protowire.Number{sw, pr, pr, ex, sw, sw}},
		{cpu: 0, kinds: []protowire.Number{nt, fk, wn, sw, nt, fk, wk, wu, pr, sw, mg}},
		{cpu: 1, lost: true, kinds: []protowire.Number{sw, sw}},
		{cpu: 2, start: 7_000_000, hasStart: true, kinds: []protowire.Number{wk}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bundles:\n got %+v\nwant %+v", got, want)
	}

	// Each event's fields, and the pid of its context.
	byKind := map[protowire.Number][]fevent{}
	for _, b := range d.bundles {
		for i, e := range b.events {
			if i > 0 && e.ts < b.events[i-1].ts {
				t.Errorf("CPU %d: event at %d after %d", b.cpu, e.ts, b.events[i-1].ts)
			}
			byKind[e.kind] = append(byKind[e.kind], e)
		}
	}
	check := func(what string, e fevent, ts uint64, pid uint32, ints map[protowire.Number]int64, strs map[protowire.Number]string) {
		t.Helper()
		if e.ts != ts || e.pid != pid {
			t.Errorf("%s: ts %d pid %d, want %d %d", what, e.ts, e.pid, ts, pid)
		}
		for f, v := range ints {
			if !e.m.has(f) || int64(e.m.u(f)) != v {
				t.Errorf("%s: field %d = %d (present %v), want %d", what, f, int64(e.m.u(f)), e.m.has(f), v)
			}
		}
		for f, v := range strs {
			if e.m.s(f) != v {
				t.Errorf("%s: field %d = %q, want %q", what, f, e.m.s(f), v)
			}
		}
	}
	S := func(kv ...any) map[protowire.Number]string {
		m := map[protowire.Number]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(protowire.Number)] = kv[i+1].(string)
		}
		return m
	}
	I := func(kv ...any) map[protowire.Number]int64 {
		m := map[protowire.Number]int64{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(protowire.Number)] = int64(kv[i+1].(int))
		}
		return m
	}
	switches := byKind[sw]
	if len(switches) != 7 {
		t.Fatalf("%d switches", len(switches))
	}
	// Bundle order: CPU 1's first bundle comes first.
	check("switch idle→sh", switches[0], 1_000_300, 0,
		I(fSwitchPrevPID, 0, fSwitchPrevPrio, 120, fSwitchPrevState, stateRunning, fSwitchNextPID, 1003, fSwitchNextPrio, 139),
		S(fSwitchPrevComm, "swapper/1", fSwitchNextComm, "sh"))
	check("switch sh→make (dead)", switches[1], 5_000_010, 1003, I(fSwitchPrevState, 0x10), S(fSwitchPrevComm, "sh", fSwitchNextComm, "make"))
	check("switch make→idle (D)", switches[2], 6_000_000, 1001, I(fSwitchPrevState, 0x2), S(fSwitchNextComm, "swapper/1"))
	check("switch make→idle (R+)", switches[4], 4_000_000, 1001, I(fSwitchPrevState, 0x100, fSwitchPrevPrio, 120), nil)
	check("switch make→idle (S)", switches[6], 61_000_000_100, 1001, I(fSwitchPrevState, 0x1), nil)
	check("waking", byKind[wk][0], 1_000_123, 1001, I(fWakePID, 1003, fWakePrio, 139, fWakeSuccess, 1, fWakeTargetCPU, 1), S(fWakeComm, "make"))
	check("waking on a CPU not yet switched", byKind[wk][1], 7_000_001, 0, I(fWakePID, 1001, fWakeTargetCPU, 2), nil)
	check("wakeup", byKind[wu][0], 1_000_200, 1001, I(fWakePID, 1003, fWakePrio, 139, fWakeSuccess, 1, fWakeTargetCPU, 1), S(fWakeComm, "make"))
	check("wakeup_new", byKind[wn][0], 0, 0, I(fWakePID, 1001, fWakePrio, 120, fWakeSuccess, 1, fWakeTargetCPU, 0), S(fWakeComm, "make"))
	check("newtask thread", byKind[nt][0], 0, 1000, I(fNewtaskPID, 1001, fNewtaskCloneFlags, clonePthread), S(fNewtaskComm, "make"))
	check("newtask process", byKind[nt][1], 10, 1001, I(fNewtaskPID, 1003, fNewtaskCloneFlags, cloneFork), S(fNewtaskComm, "make"))
	if byKind[nt][0].m.u(fNewtaskCloneFlags)&cloneThread == 0 || byKind[nt][1].m.u(fNewtaskCloneFlags)&cloneThread != 0 {
		t.Error("CLONE_THREAD does not tell the thread from the process")
	}
	check("fork", byKind[fk][1], 10, 1001, I(fForkParentPID, 1001, fForkChildPID, 1003), S(fForkParentComm, "make", fForkChildComm, "make"))
	check("exit", byKind[ex][0], 5_000_000, 1003, I(fExitPID, 1003, fExitTGID, 1003, fExitPrio, 139), S(fExitComm, "sh"))
	check("migrate", byKind[mg][0], 4_000_001, 0, I(fMigratePID, 1001, fMigratePrio, 120, fMigrateOrigCPU, 0, fMigrateDestCPU, 1), S(fMigrateComm, "make"))
	// Marks: tracing_mark_write's text with the writer's process.
	check("mark of a process", byKind[pr][0], 2_500_000, 1003, nil, S(fPrintBuf, "I|1003|timer_expiry timer=3 seq=17 expected_ns=2400000"))
	check("mark of an unknown task", byKind[pr][1], 2_700_000, 4242, nil, S(fPrintBuf, "I|0|timer_missed timer=3 seq=18"))
	check("mark of a thread", byKind[pr][2], 2_600_000, 1001, nil, S(fPrintBuf, "I|1000|callback_start timer=3 seq=17"))

	// The process tree, at the end.
	if d.treeTS[0] != 62_000_000_000 {
		t.Errorf("process tree at %d", d.treeTS[0])
	}
	wantProcs := map[int32]proc{
		1000: {cmdline: []string{"rt-app"}, isComm: true},
		1003: {ppid: 1000, hasPPID: true, cmdline: []string{"sh"}, isComm: true},
	}
	wantThreads := map[int32]thread{1000: {1000, "rt-app"}, 1001: {1000, "make"}, 1003: {1003, "sh"}}
	if !reflect.DeepEqual(d.procs, wantProcs) || !reflect.DeepEqual(d.threads, wantThreads) {
		t.Errorf("tree:\n got %+v %+v\nwant %+v %+v", d.procs, d.threads, wantProcs, wantThreads)
	}
}

// TestPending: no more than Options.Pending events wait, and every flush
// writes one bundle per CPU, each after the previous one's.
func TestPending(t *testing.T) {
	var events []trace.Event
	for i := range 1000 {
		events = append(events, trace.Event{TS: int64(i) * 10, CPU: int32(i % 3), Kind: trace.Waking, PID: 7, Comm: "w", Prio: 120})
	}
	d, err := decodeTrace(writeAll(t, events, Options{Pending: 64}, 0))
	if err != nil {
		t.Fatal(err)
	}
	last := map[uint32]uint64{}
	n := 0
	for _, b := range d.bundles {
		if len(b.events) > 64 {
			t.Errorf("bundle of %d events", len(b.events))
		}
		for _, e := range b.events {
			if e.ts < last[b.cpu] {
				t.Errorf("CPU %d: %d after %d", b.cpu, e.ts, last[b.cpu])
			}
			last[b.cpu] = e.ts
			n++
		}
	}
	if n != 1000 || len(d.bundles) != 3*(1000/64+1) {
		t.Errorf("%d events in %d bundles", n, len(d.bundles))
	}
	if len(d.trees) != 0 {
		t.Errorf("%d process trees without a thread group", len(d.trees))
	}
}

func TestOptions(t *testing.T) {
	for release, ok := range map[string]bool{"6.18.44-1-amd64": true, "4.14.0": true, "4.9.337": false, "2.6.35": false, "": false, "x.y": false, "10.0": true} {
		if releaseOK(release) != ok {
			t.Errorf("releaseOK(%q) = %v", release, !ok)
		}
	}
	d, err := decodeTrace(writeAll(t, nil, Options{Release: "3.10.0", CPUs: 4}, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.packets) != 1 || d.system.sub(fSystemInfoUtsname).s(fUtsnameRelease) != DefaultRelease || d.system.u(fSystemInfoNumCPUs) != 4 {
		t.Errorf("an empty stream: %d packets, system info %v", len(d.packets), d.system)
	}
	for _, p := range []string{"t.perfetto-trace", "/tmp/x.pftrace"} {
		if !IsPath(p) {
			t.Errorf("IsPath(%q) = false", p)
		}
	}
	for _, p := range []string{"t.txt", "-", "perfetto-trace", "t.pftrace.txt"} {
		if IsPath(p) {
			t.Errorf("IsPath(%q) = true", p)
		}
	}
	var b bytes.Buffer
	w := NewWriter(&b, Options{})
	w.Event(&trace.Event{CPU: MaxCPUs, Kind: trace.Waking})
	if err := w.Close(0); err == nil || !strings.Contains(err.Error(), "CPU 1024") {
		t.Errorf("an event on CPU %d: %v", MaxCPUs, err)
	}
}

// TestMakeJ5 writes a simulation of wakeup-latency-calibrated-make-j5 on two CPUs and
// reads it back: every event of the stream is there, with its fields, in
// its CPU's order; each event's context is the task then running; and the
// process tree puts rt-app's threads in rt-app and each step of make's
// jobs (sh, gcc, cc1, as; each as starts the next job's sh) in a process of
// its own under its parent.
func TestMakeJ5(t *testing.T) {
	spec := simtest.Scenario(t, "wakeup-latency-calibrated-make-j5")
	rec := &trace.Recorder{}
	var b bytes.Buffer
	const pending = 100
	w := NewWriter(&b, Options{Pending: pending})
	const end = 3_000_000_000
	simtest.Run(t, sim.Config{Spec: spec, Sched: simtest.Config(t, "cfs-2.6.35", 2, nil, nil), Duration: end, Sink: trace.Tee{rec, w}})
	if err := w.Close(end); err != nil {
		t.Fatal(err)
	}
	d, err := decodeTrace(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := 1 + len(d.bundles) + len(d.trees); got != len(d.packets) {
		t.Errorf("%d packets, %d of them known", len(d.packets), got)
	}

	// The stream as the trace carries it, by CPU.
	want := map[int32][]trace.Event{}
	kinds := map[trace.Kind]int{}
	groups := map[int32]int32{} // pid → tgid, from the forks
	comms := map[int32]string{}
	for _, e := range rec.Events {
		if e.Kind == trace.Begin {
			continue
		}
		kinds[e.Kind]++
		if e.Kind == trace.Fork {
			groups[e.PID], groups[e.ChildPID] = e.TGID, e.ChildTGID
			comms[e.PID], comms[e.ChildPID] = e.Comm, e.ChildComm
		}
		e.TGID, e.ChildTGID = 0, 0
		switch e.Kind {
		case trace.Switch:
			e.Comm, e.NextComm = normComm(e.Comm, e.PID, e.CPU), normComm(e.NextComm, e.NextPID, e.CPU)
			if e.PID == 0 {
				e.PrevState = trace.Running
			}
		case trace.Mark:
			e.Comm = ""
		default:
			e.Comm, e.ChildComm = normComm(e.Comm, e.PID, e.CPU), normComm(e.ChildComm, e.ChildPID, e.CPU)
			if e.Kind != trace.Fork {
				e.ChildComm = ""
			}
		}
		want[e.CPU] = append(want[e.CPU], e)
	}
	for _, k := range []trace.Kind{trace.Switch, trace.Waking, trace.Wakeup, trace.WakeupNew, trace.Fork, trace.Exit, trace.Migrate, trace.Mark} {
		if kinds[k] == 0 {
			t.Errorf("the simulation has no %v: the test proves less than it says", k)
		}
	}
	t.Logf("%d packets, %d bundles; events by kind %v", len(d.packets), len(d.bundles), kinds)
	got := d.events()
	if len(got) != len(want) {
		t.Errorf("events on %d CPUs, want %d", len(got), len(want))
	}
	for cpu, es := range want {
		g := got[cpu]
		if len(g) != len(es) {
			t.Errorf("CPU %d: %d events, want %d", cpu, len(g), len(es))
		}
		for i := range min(len(g), len(es)) {
			if g[i] != es[i] {
				t.Fatalf("CPU %d event %d:\n got %+v\nwant %+v", cpu, i, g[i], es[i])
			}
		}
	}

	// Bundles: bounded, per CPU in time order; the context of each event.
	cur := map[uint32]uint32{}
	last := map[uint32]uint64{}
	for _, bu := range d.bundles {
		if len(bu.events) > pending+1 { // a fork's two events go together
			t.Errorf("a bundle of %d events", len(bu.events))
		}
		for i, e := range bu.events {
			if e.ts < last[bu.cpu] {
				t.Fatalf("CPU %d: %d after %d", bu.cpu, e.ts, last[bu.cpu])
			}
			last[bu.cpu] = e.ts
			switch e.kind {
			case fFtraceEventSchedSwitch:
				if uint32(e.m.i32(fSwitchPrevPID)) != e.pid || e.pid != cur[bu.cpu] {
					t.Fatalf("CPU %d: switch from %d in the context of %d, %d running", bu.cpu, e.m.i32(fSwitchPrevPID), e.pid, cur[bu.cpu])
				}
				cur[bu.cpu] = uint32(e.m.i32(fSwitchNextPID))
			case fFtraceEventSchedWaking, fFtraceEventSchedWakeup, fFtraceEventWakeupNew, fFtraceEventMigrate:
				if e.pid != cur[bu.cpu] {
					t.Fatalf("CPU %d: event %d in the context of %d, %d running", bu.cpu, e.kind, e.pid, cur[bu.cpu])
				}
			case fFtraceEventTaskNewtask:
				next := bu.events[i+1]
				child := e.m.i32(fNewtaskPID)
				thread := e.m.u(fNewtaskCloneFlags)&cloneThread != 0
				if next.kind != fFtraceEventFork || next.m.i32(fForkChildPID) != child || next.ts != e.ts || next.pid != e.pid {
					t.Fatalf("task_newtask of %d not followed by its fork: %+v", child, next)
				}
				if thread != (groups[child] != child) {
					t.Errorf("task_newtask of %d (group %d): thread %v", child, groups[child], thread)
				}
			case fFtraceEventFork:
				if i == 0 || bu.events[i-1].kind != fFtraceEventTaskNewtask {
					t.Errorf("a fork of %d without its task_newtask", e.m.i32(fForkChildPID))
				}
			}
		}
	}

	// The process tree: every task, in its group, under its name.
	for pid, g := range groups {
		th, ok := d.threads[pid]
		if !ok || th.tgid != g || th.name != comms[pid] {
			t.Errorf("thread %d: %+v, want group %d name %q", pid, th, g, comms[pid])
		}
	}
	if len(d.threads) != len(groups) {
		t.Errorf("%d threads in the tree, %d tasks", len(d.threads), len(groups))
	}
	if p := d.procs[1000]; !reflect.DeepEqual(p, proc{cmdline: []string{"rt-app"}, isComm: true}) {
		t.Errorf("rt-app: %+v", p)
	}
	parentOf := map[string][]string{"sh": {"rt-app", "as"}, "gcc": {"sh"}, "cc1": {"gcc"}, "as": {"cc1"}}
	byComm := map[string]int{}
	for pid, th := range d.threads {
		byComm[th.name]++
		switch th.name {
		case "rt-app", "make", "sigev-helper", "callback":
			if th.tgid != 1000 {
				t.Errorf("%s-%d in group %d, not rt-app's", th.name, pid, th.tgid)
			}
		case "sh", "gcc", "cc1", "as":
			p, ok := d.procs[pid]
			if th.tgid != pid || !ok || !p.hasPPID || !slices.Equal(p.cmdline, []string{th.name}) {
				t.Errorf("%s-%d: group %d, process %+v", th.name, pid, th.tgid, p)
				continue
			}
			if parent := d.threads[p.ppid]; !slices.Contains(parentOf[th.name], parent.name) || parent.tgid != p.ppid {
				t.Errorf("%s-%d's parent %d is %+v, want a process of %v", th.name, pid, p.ppid, parent, parentOf[th.name])
			}
		default:
			t.Errorf("unexpected task %s-%d", th.name, pid)
		}
	}
	if len(d.procs) != 1+byComm["sh"]+byComm["gcc"]+byComm["cc1"]+byComm["as"] || byComm["make"] != 1 || byComm["as"] < 5 || byComm["callback"] < 5 {
		t.Errorf("%d processes; tasks by comm %v", len(d.procs), byComm)
	}
}

func normComm(c string, pid, cpu int32) string {
	var w Writer
	return w.comm(c, pid, cpu)
}

// TestConvert converts recorded ftrace text: every event the parser reads
// is written, losses mark their CPU's next bundle, and without thread
// groups in the text nothing is claimed about processes.
func TestConvert(t *testing.T) {
	for _, name := range []string{"host-6.18-trace.txt", "host-6.18-trace_pipe.txt", "trace-cmd-report.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		rec := &trace.Recorder{}
		if _, err := trace.Parse(bytes.NewReader(data), rec); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := Convert(&b, bytes.NewReader(data), Options{Release: "6.18.44"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d, err := decodeTrace(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		n, lost := 0, 0
		for _, e := range rec.Events {
			switch e.Kind {
			case trace.Lost:
				lost++
			case trace.Begin, trace.BufferStart:
			default:
				n++
			}
		}
		got, lostBundles := 0, 0
		for _, es := range d.events() {
			got += len(es)
		}
		for _, bu := range d.bundles {
			if bu.lost {
				lostBundles++
			}
		}
		if got != n || lostBundles == 0 != (lost == 0) {
			t.Errorf("%s: %d events of %d, %d bundles after losses (%d losses)", name, got, n, lostBundles, lost)
		}
		if d.system.sub(fSystemInfoUtsname).s(fUtsnameRelease) != "6.18.44" {
			t.Errorf("%s: release %q", name, d.system.sub(fSystemInfoUtsname).s(fUtsnameRelease))
		}
		if len(d.trees) != 0 || d.bundles[0].events[0].kind == fFtraceEventTaskNewtask {
			t.Errorf("%s: thread groups claimed from text that has none", name)
		}
	}
}
