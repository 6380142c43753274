package host

// #include "probe.h"
import "C"

import (
	"fmt"
	"runtime"
	"syscall"
)

// Probe measures what this machine's kernel paths cost (probe.c) on one
// CPU. It locks its goroutine to a thread for the while, and pins that
// thread, so the Go runtime's other threads only disturb it as any other
// process would.
func Probe(cpu int) (*Costs, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var p C.struct_sl_probe
	if e := C.sl_probe(C.int(cpu), &p); e != 0 {
		return nil, fmt.Errorf("the cost probe: pinning to CPU %d: %v", cpu, syscall.Errno(e))
	}
	c := &Costs{CPU: cpu, ContextSwitchNS: int64(p.ctxsw_ns), PipeNS: int64(p.pipe_ns), CloneNS: int64(p.clone_ns),
		ForkExecNS: int64(p.forkexec_ns), TimerNS: int64(p.timer_ns)}
	for name, v := range map[string]int64{"context switch": c.ContextSwitchNS, "thread creation": c.CloneNS, "fork + exec": c.ForkExecNS, "timer": c.TimerNS} {
		if v < 0 {
			return nil, fmt.Errorf("the cost probe: its %s step failed", name)
		}
	}
	return c, nil
}
