package rtapp

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Row is one line of an rt-app per-thread log: one pass over a phase's
// events (a "loop"). Times are µs, as rt-app writes them.
type Row struct {
	Thread    int    // #idx: the thread's index over all tasks (not a loop number)
	Perf      uint64 // busy-loop iterations of the run events
	Run       uint64 // measured time of the run and runtime events
	Period    uint64 // duration of the pass
	Start     uint64 // CLOCK_MONOTONIC at the start of the pass
	End       uint64 // ... and at its end
	RelStart  uint64 // start relative to rt-app's start
	Slack     int64  // expiry of the pass's last timer minus the time it was reached; negative: already expired
	CDuration uint64 // configured run/runtime µs of the pass
	CPeriod   uint64 // configured timer periods of the pass; 0: no timer
	// WuLat is the pass's summed timer wakeup latency (see the package
	// doc). rt-app prints it unsigned: a negative value (only a timer
	// shared between threads gives one) appears near 2^64 and is read
	// back as negative here.
	WuLat int64
}

// Missed reports whether the pass reached its timer after the expiry:
// rt-app then does not sleep, logs wu_lat 0 and a negative slack.
func (r Row) Missed() bool { return r.CPeriod > 0 && r.Slack < 0 }

// logColumns is the column header of rt-app 1.0's per-thread log.
var logColumns = [...]string{"#idx", "perf", "run", "period", "start", "end", "rel_st", "slack", "c_duration", "c_period", "wu_lat"}

// ParseLog reads a per-thread log of rt-app 1.0 (rt-app-TASK-N.log):
// "# Policy : …", the column header, then one row per pass. A header
// other than logColumns is an error, so a format change is not misread.
func ParseLog(r io.Reader) ([]Row, error) {
	var rows []Row
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(line, "# Policy"):
			continue
		case f[0] == "#idx":
			if strings.Join(f, " ") != strings.Join(logColumns[:], " ") {
				return nil, fmt.Errorf("line %d: columns %q, want %q", n, line, strings.Join(logColumns[:], " "))
			}
			continue
		case strings.HasPrefix(line, "#"):
			continue
		}
		row, err := parseRow(f)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v: %q", n, err, line)
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

func parseRow(f []string) (Row, error) {
	if len(f) != len(logColumns) {
		return Row{}, fmt.Errorf("%d fields, want %d", len(f), len(logColumns))
	}
	var u [len(logColumns)]uint64
	var slack int64
	for i, s := range f {
		var err error
		if i == 7 {
			slack, err = strconv.ParseInt(s, 10, 64)
		} else {
			u[i], err = strconv.ParseUint(s, 10, 64)
		}
		if err != nil {
			return Row{}, fmt.Errorf("column %s: %v", logColumns[i], err)
		}
	}
	return Row{
		Thread: int(u[0]), Perf: u[1], Run: u[2], Period: u[3], Start: u[4], End: u[5], RelStart: u[6],
		Slack: slack, CDuration: u[8], CPeriod: u[9], WuLat: int64(u[10]),
	}, nil
}
