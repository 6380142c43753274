package sched

import (
	"testing"
	"unsafe"
)

// Task's layout (see Task): what a wakeup touches in the first cache line,
// the class's and the engine's records in the third, which the engine's
// Task continues, and 160 bytes in all.
func TestTaskLayout(t *testing.T) {
	var tk Task
	if s := unsafe.Sizeof(tk); s != 160 {
		t.Errorf("Task is %d bytes, want 160", s)
	}
	first := map[string][2]uintptr{
		"CPU": {unsafe.Offsetof(tk.CPU), unsafe.Sizeof(tk.CPU)}, "Policy": {unsafe.Offsetof(tk.Policy), unsafe.Sizeof(tk.Policy)},
		"Nice": {unsafe.Offsetof(tk.Nice), unsafe.Sizeof(tk.Nice)}, "Group": {unsafe.Offsetof(tk.Group), unsafe.Sizeof(tk.Group)},
		"Wake": {unsafe.Offsetof(tk.Wake), unsafe.Sizeof(tk.Wake)},
	}
	for name, f := range first {
		if f[0]+f[1] > 64 {
			t.Errorf("Task.%s ends at byte %d, past the first cache line", name, f[0]+f[1])
		}
	}
	if o := unsafe.Offsetof(tk.Sched); o < 128 {
		t.Errorf("Task.Sched at byte %d, before the third cache line", o)
	}
}
