package trace

import (
	"reflect"
	"testing"
)

// fastOnly is a FastSink whose methods do nothing.
type fastOnly struct{ Recorder }

func (*fastOnly) Switch(int64, int32, int32, string, int32, TaskState, int32, string, int32) {}
func (*fastOnly) Wake(Kind, int64, int32, int32, string, int32, int32)                       {}
func (*fastOnly) Fork(int64, int32, int32, int32, string, int32, int32, string)              {}
func (*fastOnly) Exit(int64, int32, int32, string, int32)                                    {}
func (*fastOnly) Migrate(int64, int32, int32, string, int32, int32, int32)                   {}
func (*fastOnly) Mark(int64, int32, int32, string, MarkKind, int32, int64, int64)            {}

// TestAsFast checks that a Sink without the methods gets each event as the
// Event FastSink says a call stands for, every other field zero (the
// builder reuses one Event, so a field one kind left behind would show
// in the next), and that a FastSink is its own.
func TestAsFast(t *testing.T) {
	if AsFast(nil) != nil {
		t.Error("AsFast(nil) is not nil")
	}
	f := &fastOnly{}
	if AsFast(f) != FastSink(f) {
		t.Error("AsFast of a FastSink is not the sink itself")
	}
	var rec Recorder
	s := AsFast(&rec)
	s.Fork(1, 2, 3, 4, "parent", 5, 6, "child")
	s.Switch(10, 1, 3, "parent", 120, Dead, 5, "child", 119)
	s.Mark(20, 3, 5, "child", CallbackStart, 7, 8, 9)
	s.Wake(WakeupNew, 30, 2, 5, "child", 121, 3)
	s.Migrate(33, 3, 5, "child", 121, 2, 3)
	s.Exit(35, 1, 5, "child", 121)
	s.Event(&Event{TS: 40, Kind: Exit, PID: 5, Comm: "child"})
	want := []Event{
		{TS: 1, CPU: 2, Kind: Fork, PID: 3, TGID: 4, Comm: "parent", ChildPID: 5, ChildTGID: 6, ChildComm: "child"},
		{TS: 10, CPU: 1, Kind: Switch, PID: 3, Comm: "parent", Prio: 120, PrevState: Dead, NextPID: 5, NextComm: "child", NextPrio: 119},
		{TS: 20, CPU: 3, Kind: Mark, PID: 5, Comm: "child", Mark: CallbackStart, Timer: 7, Seq: 8, Expected: 9},
		{TS: 30, CPU: 2, Kind: WakeupNew, PID: 5, Comm: "child", Prio: 121, TargetCPU: 3},
		{TS: 33, CPU: 3, Kind: Migrate, PID: 5, Comm: "child", Prio: 121, OrigCPU: 2, DestCPU: 3},
		{TS: 35, CPU: 1, Kind: Exit, PID: 5, Comm: "child", Prio: 121},
		{TS: 40, Kind: Exit, PID: 5, Comm: "child"},
	}
	if !reflect.DeepEqual(rec.Events, want) {
		t.Errorf("got\n%+v\nwant\n%+v", rec.Events, want)
	}
}
