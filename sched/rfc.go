package sched

// Names of the 2010 RFC features that more than one class models (the
// CFS model has them as the series defined them, EEVDF as what-ifs), and
// of their tunables, so that a row or a --features flag means the same
// switch in either class.
const (
	TimerForkExpedited = "TIMER_FORK_EXPEDITED"
	StartNice          = "START_NICE"

	StartNiceDelta = "start_nice_delta"
	StartNiceEnd   = "start_nice_end"
)

// Values of start_nice_end: the penalty ends at the task's first
// deschedule after running, or once it ran a full slice.
const (
	StartNiceEndDeschedule = 0
	StartNiceEndSlice      = 1
)
