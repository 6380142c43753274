package sched

import (
	"testing"
	"unsafe"
)

// Task's layout (see Task): what a task's wakeups, switches and trace
// events read in the first 96 bytes, which the engine's Task places at
// the end of its own hot lines, and 144 bytes in all.
func TestTaskLayout(t *testing.T) {
	var tk Task
	if s := unsafe.Sizeof(tk); s != 144 {
		t.Errorf("Task is %d bytes, want 144", s)
	}
	hot := map[string][2]uintptr{
		"CPU": {unsafe.Offsetof(tk.CPU), unsafe.Sizeof(tk.CPU)}, "Policy": {unsafe.Offsetof(tk.Policy), unsafe.Sizeof(tk.Policy)},
		"Nice": {unsafe.Offsetof(tk.Nice), unsafe.Sizeof(tk.Nice)}, "Group": {unsafe.Offsetof(tk.Group), unsafe.Sizeof(tk.Group)},
		"Wake": {unsafe.Offsetof(tk.Wake), unsafe.Sizeof(tk.Wake)}, "PID": {unsafe.Offsetof(tk.PID), unsafe.Sizeof(tk.PID)},
		"Comm": {unsafe.Offsetof(tk.Comm), unsafe.Sizeof(tk.Comm)}, "Slice": {unsafe.Offsetof(tk.Slice), unsafe.Sizeof(tk.Slice)},
		"Sched": {unsafe.Offsetof(tk.Sched), unsafe.Sizeof(tk.Sched)},
	}
	for name, f := range hot {
		if f[0]+f[1] > HotBytes {
			t.Errorf("Task.%s ends at byte %d, past the first %d", name, f[0]+f[1], HotBytes)
		}
	}
	if o := unsafe.Offsetof(tk.TGID); o < HotBytes {
		t.Errorf("Task.TGID at byte %d, within the first %d", o, HotBytes)
	}
}
