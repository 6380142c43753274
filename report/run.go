// Package report shapes a run's results for people and programs: the JSON
// object whose keys the design fixes, and the text a scheduler developer
// reads, ending with the three lines the seeds' wakeup-latency.c printed.
package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"schedlab/analyze"
)

// US is a duration in microseconds, written with one decimal.
type US float64

// MarshalJSON writes one decimal, so reports are stable byte for byte.
func (u US) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(float64(u), 'f', 1, 64)), nil
}

// NsToUS converts nanoseconds to microseconds rounded to 0.1 µs.
func NsToUS(ns float64) US { return US(math.Round(ns/100) / 10) }

// Latency is one latency statistic (timer or wakeup) in µs.
type Latency struct {
	Count  int      `json:"count"`
	Avg    US       `json:"avg_us"`
	P50    US       `json:"p50_us"`
	P90    US       `json:"p90_us"`
	P99    US       `json:"p99_us"`
	P999   US       `json:"p999_us"`
	Max    US       `json:"max_us"`
	Missed *int     `json:"missed,omitempty"`
	Hist   []Bucket `json:"hist,omitempty"`
}

// Bucket is one log2 histogram bucket: [LoUS, HiUS] µs holds Count samples.
type Bucket struct {
	LoUS  int64 `json:"lo_us"`
	HiUS  int64 `json:"hi_us"`
	Count int64 `json:"count"`
}

// NewLatency converts analysis statistics.
func NewLatency(s analyze.Stats) Latency {
	l := Latency{Count: s.Count, Avg: NsToUS(s.Avg()), P50: NsToUS(float64(s.P50)), P90: NsToUS(float64(s.P90)),
		P99: NsToUS(float64(s.P99)), P999: NsToUS(float64(s.P999)), Max: NsToUS(float64(s.Max))}
	for i, n := range s.Hist.Buckets {
		if n == 0 {
			continue
		}
		lo, hi := int64(0), int64(1)
		if i > 0 {
			lo, hi = 1<<i, 1<<(i+1)-1
		}
		l.Hist = append(l.Hist, Bucket{LoUS: lo, HiUS: hi, Count: n})
	}
	return l
}

// Task is one row of the per-task table (perf sched latency's columns).
type Task struct {
	Comm       string  `json:"comm"`
	PID        int32   `json:"pid"`
	RuntimeMS  float64 `json:"runtime_ms"`
	Switches   int     `json:"switches"`
	AvgDelayUS US      `json:"avg_delay_us"`
	MaxDelayUS US      `json:"max_delay_us"`
	MaxDelayAt int64   `json:"max_delay_at_ns"`
	// Tasks is how many tasks a row of the by-comm table merges (1 in a
	// per-task row).
	Tasks int `json:"nr_tasks"`
	// MaxDelayEnd is when the longest delay ended (text only).
	MaxDelayEnd int64 `json:"-"`
}

// Engine holds the run's cost figures: the only fields that may differ
// between two runs of the same inputs.
type Engine struct {
	Events      uint64  `json:"events"`
	TraceEvents uint64  `json:"trace_events"`
	WallMS      float64 `json:"wall_ms"`
	EventsPerS  float64 `json:"events_per_s"`
}

// Run is the report of one run, simulated or measured.
type Run struct {
	Scenario string           `json:"scenario"`
	Policy   string           `json:"policy"`
	CPUs     int              `json:"cpus"`
	Features map[string]bool  `json:"features"`
	Tunables map[string]int64 `json:"tunables"`
	Seed     uint64           `json:"seed"`
	SimNS    int64            `json:"sim_ns"`
	// WastedCapacityMS is CPU time (ms) during which a CPU was idle while
	// a task waited on another ("a Decade of Wasted Cores").
	WastedCapacityMS float64 `json:"wasted_capacity_ms"`
	TimerLatency     Latency `json:"timer_latency"`
	WakeupLatency    Latency `json:"wakeup_latency"`
	// Tasks is the task table merged by comm, as perf sched latency
	// prints it by default: a row per comm whatever the number of tasks,
	// so a report's size follows the workload, not the run's length.
	Tasks []Task `json:"tasks"`
	// Reconstructions lists the reconstructed features in use, with
	// their parameters (design principle 7).
	Reconstructions []string `json:"reconstructions,omitempty"`
	Warnings        []string `json:"warnings,omitempty"`
	Engine          Engine   `json:"engine"`

	// Text-only details.
	//
	// Headline is the text report's first line: what ran, and where
	// (a simulation, the host kernel, a trace file). Empty: a simulation's.
	Headline string `json:"-"`
	// NoTimer, if set, says why the run cannot have timer latency ("no
	// timer in this workload"); the text prints it in place of
	// wakeup-latency.c's three lines, which would read as a measurement.
	NoTimer         string           `json:"-"`
	DefaultFeatures map[string]bool  `json:"-"`
	DefaultTunables map[string]int64 `json:"-"`
	// PerTask is a row per task, as perf sched latency -p prints it,
	// when the analysis kept them (lab.Keep.PerTask; nil otherwise).
	PerTask    []Task           `json:"-"`
	TimerHist  analyze.Log2Hist `json:"-"`
	WakeupHist analyze.Log2Hist `json:"-"`
}

// FromAnalysis fills the statistics of r from an analysis report.
func (r *Run) FromAnalysis(a analyze.Report) {
	r.WastedCapacityMS = float64(a.Wasted) / 1e6
	r.TimerLatency = NewLatency(a.TimerLatency)
	missed := a.TimerMissed
	r.TimerLatency.Missed = &missed
	r.WakeupLatency = NewLatency(a.WakeupLatency)
	r.TimerHist, r.WakeupHist = a.TimerLatency.Hist, a.WakeupLatency.Hist
	r.Tasks = Tasks(a.ByComm)
	r.PerTask = nil
	if a.Tasks != nil {
		r.PerTask = Tasks(a.Tasks)
	}
}

// Tasks converts analysis rows to the table's units.
func Tasks(rows []analyze.TaskRow) []Task {
	out := make([]Task, 0, len(rows))
	for _, t := range rows {
		out = append(out, Task{Comm: t.Comm, PID: t.PID, RuntimeMS: math.Round(float64(t.Runtime)/1e3) / 1e3,
			Switches: t.Switches, AvgDelayUS: NsToUS(t.AvgDelay), MaxDelayUS: NsToUS(float64(t.MaxDelay)),
			MaxDelayAt: t.MaxDelayStart, MaxDelayEnd: t.MaxDelayEnd, Tasks: t.Tasks})
	}
	return out
}

// TextOptions select optional parts of the text report.
type TextOptions struct {
	Hist     bool // log2 histograms of both latencies
	MaxTasks int  // rows of the per-task table; 0 means 20
	// PIDs prints a row per task (perf sched latency -p) instead of one
	// per comm, when the run kept them (Run.PerTask).
	PIDs bool
}

// WriteText prints the run for a reader.
func (r *Run) WriteText(w io.Writer, o TextOptions) error {
	b := &strings.Builder{}
	head := r.Headline
	if head == "" {
		head = fmt.Sprintf("scenario %s, policy %s, %d CPU(s), seed %d, %.3f s simulated", r.Scenario, r.Policy, r.CPUs, r.Seed, float64(r.SimNS)/1e9)
	}
	for _, line := range strings.Split(head, "\n") { // a headline may have several lines
		b.WriteString(Printable(line) + "\n")
	}
	if d := diffFeatures(r.Features, r.DefaultFeatures); d != "" {
		fmt.Fprintf(b, "features changed: %s\n", d)
	}
	if d := diffTunables(r.Tunables, r.DefaultTunables); d != "" {
		fmt.Fprintf(b, "tunables changed: %s\n", d)
	}
	for _, rc := range r.Reconstructions {
		fmt.Fprintf(b, "reconstruction (not known to match the original): %s\n", Printable(rc))
	}
	for _, wmsg := range r.Warnings {
		fmt.Fprintf(b, "warning: %s\n", Printable(wmsg))
	}
	b.WriteString("\n")
	writeLatency(b, "timer latency (callback start - timer expiry)", r.TimerLatency)
	writeLatency(b, "wakeup latency (sched_waking - switch-in)", r.WakeupLatency)
	if r.CPUs > 1 {
		fmt.Fprintf(b, "%-47s %.3f ms (%.2f%% of CPU time)\n", "wasted capacity (idle while a task waited):",
			r.WastedCapacityMS, 100*r.WastedCapacityMS*1e6/(float64(r.SimNS)*float64(r.CPUs)))
	}
	if o.Hist {
		for _, h := range []struct {
			name string
			hist analyze.Log2Hist
		}{{"timer latency", r.TimerHist}, {"wakeup latency", r.WakeupHist}} {
			if len(h.hist.Buckets) == 0 {
				continue
			}
			fmt.Fprintf(b, "\n%s histogram:\n", h.name)
			if err := h.hist.Write(b, "usecs"); err != nil {
				return err
			}
		}
	}
	b.WriteString("\n")
	tasks := r.Tasks
	if o.PIDs && r.PerTask != nil {
		tasks = r.PerTask
	}
	writeTasks(b, tasks, o.MaxTasks)
	b.WriteString("\n")
	if r.NoTimer != "" && r.TimerLatency.Count == 0 {
		fmt.Fprintf(b, "%s: no timer latency\n", Printable(r.NoTimer))
		_, err := io.WriteString(w, b.String())
		return err
	}
	// The three lines of wakeup-latency.c, so a reader of the seeds
	// recognises the figures.
	fmt.Fprintf(b, "maximum latency: %.1f µs\n", float64(r.TimerLatency.Max))
	fmt.Fprintf(b, "average latency: %.1f µs\n", float64(r.TimerLatency.Avg))
	missed := 0
	if r.TimerLatency.Missed != nil {
		missed = *r.TimerLatency.Missed
	}
	fmt.Fprintf(b, "missed timer events: %d\n", missed)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeLatency(b *strings.Builder, name string, l Latency) {
	if l.Count == 0 {
		fmt.Fprintf(b, "%-47s no samples\n", name+":")
		return
	}
	fmt.Fprintf(b, "%-47s n=%d avg %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f µs\n",
		name+":", l.Count, float64(l.Avg), float64(l.P50), float64(l.P90), float64(l.P99), float64(l.P999), float64(l.Max))
}

// writeTasks prints the first rows of the per-task table in the layout of
// perf sched latency (6.x): a task as comm:pid, a merged row as
// comm:(tasks); delays in ms, the longest's start and end in s.
func writeTasks(b *strings.Builder, tasks []Task, maxRows int) {
	if maxRows <= 0 {
		maxRows = 20
	}
	rule := func(n int) { b.WriteString(" " + strings.Repeat("-", n) + "\n") }
	rule(139)
	b.WriteString("  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |\n")
	rule(139)
	var total float64
	var switches int
	for i, t := range tasks {
		total += t.RuntimeMS
		switches += t.Switches
		if i >= maxRows {
			continue
		}
		name := fmt.Sprintf("%s:%d", Printable(t.Comm), t.PID)
		if t.Tasks > 1 {
			name = fmt.Sprintf("%s:(%d)", Printable(t.Comm), t.Tasks)
		}
		fmt.Fprintf(b, "  %-22s|%11.3f ms |%9d | avg:%8.3f ms | max:%8.3f ms | max start: %12.6f s | max end: %12.6f s\n",
			name, t.RuntimeMS, t.Switches, float64(t.AvgDelayUS)/1000, float64(t.MaxDelayUS)/1000, float64(t.MaxDelayAt)/1e9, float64(t.MaxDelayEnd)/1e9)
	}
	rule(115)
	fmt.Fprintf(b, "  %-22s|%11.3f ms |%9d |\n", "TOTAL:", total, switches)
	rule(51)
	if len(tasks) > maxRows {
		fmt.Fprintf(b, "  (%d more rows not shown; --tasks N shows more, --pids a row per task)\n", len(tasks)-maxRows)
	}
}

// Printable returns s as a terminal shows it harmlessly: a comm, a file
// name or a line of a trace can hold escape sequences that would move the
// cursor, retitle the window or hide the text after them. As ps and perf
// do, what is not printable becomes visible instead: a control character
// (C0 with tab and newline, DEL, C1) is written \xNN (C1 as \u00NN), and
// so is a byte that is not UTF-8: the result is one line of printable
// text. JSON needs none of this: its encoder escapes control characters
// itself.
func Printable(s string) string {
	clean := utf8.ValidString(s)
	for i := 0; clean && i < len(s); i++ {
		clean = s[i] >= 0x20 && s[i] != 0x7f && (s[i] != 0xc2 || i+1 >= len(s) || s[i+1] >= 0xa0) // C1 is \xc2\x80 to \xc2\x9f
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r < 0x80 && unprintable(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		case unprintable(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unprintable says whether a terminal may take r for part of a control
// sequence.
func unprintable(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }

func diffFeatures(cur, def map[string]bool) string {
	var out []string
	for _, k := range sortedKeys(cur) {
		if d, ok := def[k]; ok && d == cur[k] {
			continue
		}
		if cur[k] {
			out = append(out, k)
		} else {
			out = append(out, "NO_"+k)
		}
	}
	return strings.Join(out, ",")
}

func diffTunables(cur, def map[string]int64) string {
	var out []string
	for _, k := range sortedKeys(cur) {
		if d, ok := def[k]; ok && d == cur[k] {
			continue
		}
		out = append(out, fmt.Sprintf("%s=%d", k, cur[k]))
	}
	return strings.Join(out, " ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
