package sched

// WakeMarks are the wakeup-chain marks of the 2010 RFC series (seed 000),
// reconstruction R1 of docs/reconstructions.md: direct marks say the task's
// own last wakeup came from the timer or input subsystem, chain marks that
// a marked task woke it. They are the classes' per-entity state (CFS's
// INTERACTIVE/TIMER and their fork-expedited features, EEVDF's
// TIMER_FORK_EXPEDITED what-if); the rules are kept here so that both
// classes mark the same chains.
type WakeMarks struct {
	WakeTimer, WakeInteractive bool // direct (the task's sched_wake_*)
	SETimer, SEInteractive     bool // chain (se.timer, se.interactive)
	// ForkExpedited says the task's first placement is a wakeup's: it
	// was forked by a marked task with a fork-expedited feature on.
	ForkExpedited bool
}

// Timer reports a timer mark, direct or chain.
func (m *WakeMarks) Timer() bool { return m.WakeTimer || m.SETimer }

// Interactive reports an input mark, direct or chain.
func (m *WakeMarks) Interactive() bool { return m.WakeInteractive || m.SEInteractive }

// Wakeup sets the marks for a wakeup w (R1, direct and chain marks): the
// source marks the wakee directly; a marked waker (whose marks are waker,
// nil for none) passes its mark along the chain when timerChain or
// interactiveChain allows. New-task wakeups never propagate.
func (m *WakeMarks) Wakeup(w WakeInfo, waker *WakeMarks, timerChain, interactiveChain bool) {
	switch w.Source {
	case WakeTimer:
		m.WakeTimer = true
	case WakeInput:
		m.WakeInteractive = true
	case WakeTask:
		if waker == nil {
			return
		}
		if timerChain && waker.Timer() {
			m.SETimer = true
		}
		if interactiveChain && waker.Interactive() {
			m.SEInteractive = true
		}
	}
}

// Clear forgets the marks when the task blocks (R1, clearing); being
// preempted keeps them, and the fork-expedited bit stays.
func (m *WakeMarks) Clear() { *m = WakeMarks{ForkExpedited: m.ForkExpedited} }
