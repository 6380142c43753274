package validate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"schedlab/report"
)

// WriteText prints the side-by-side table.
func (r *Result) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "validate %s: %d run(s) of %.1f s on each side, %d CPU(s)\n", r.Scenario, r.Runs, float64(r.DurationNS)/1e9, r.CPUs)
	for _, m := range r.Machine {
		fmt.Fprintln(w, m)
	}
	for i, m := range r.Model {
		lead := "simulation:"
		if i > 0 {
			lead = "           "
		}
		fmt.Fprintf(w, "%s %s\n", lead, m)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "latency\tstat\t%[1]s median\t  %[1]s min\t  %[1]s max\tsimulation\tverdict\n", r.real())
	for _, fg := range r.Figures {
		if !fg.Compared {
			fmt.Fprintf(tw, "%s\t%s\t%11s\t%10s\t%10s\t%10s\t%s\n", fg.Latency, fg.Stat, "-", "-", "-", "-", fg.Verdict)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%11s\t%10s\t%10s\t%10s\t%s\n", fg.Latency, fg.Stat, us(fg.HostMed), us(fg.HostMin), us(fg.HostMax), us(fg.Sim), fg.Verdict)
	}
	tw.Flush()
	inside, compared := tally(r.Figures)
	fmt.Fprintf(w, "\n%d of %d compared figures inside the %[3]s's run-to-run spread (µs; spread = minimum to maximum over the %[3]s runs)\n", inside, compared, r.real())
	fmt.Fprintf(w, "samples per run: %s timer %s, wakeup %s; simulation timer %s, wakeup %s\n", r.real(),
		counts(r.Host, true), counts(r.Host, false), counts(r.Sim, true), counts(r.Sim, false))
	for _, f := range r.facts() {
		fmt.Fprintln(w, f)
	}
	seen := map[string]bool{}
	for _, run := range r.Host {
		for _, n := range run.Notes {
			if strings.HasPrefix(n, "the ring buffer lost") || strings.HasPrefix(n, "steal time") || strings.HasPrefix(n, "worker:") {
				if !seen[n] {
					seen[n] = true
					fmt.Fprintf(w, "host note: %s\n", n)
				}
			}
		}
	}
	return nil
}

// facts are the sentences that follow the table in text and Markdown:
// missed timer events, missing switch-ins, timer delivery and rt-app's
// opinion, each only where there is something to say.
func (r *Result) facts() []string {
	var out []string
	if m := missed(r.Host); m != "" {
		out = append(out, fmt.Sprintf("Missed timer events: %s %s; simulation %s", r.real(), m, orZero(missed(r.Sim))))
	}
	if m := missedIn(r.Host); m != "" {
		out = append(out, fmt.Sprintf("Switch-ins missing from the %s's trace (their wakeups are not samples): %s", r.real(), m))
	}
	if d := delivery(r.Host); d != "" {
		out = append(out, fmt.Sprintf("%s timer delivery (expiry to the waiter's sched_waking), median per run: %s µs (model: cost_wakeup_ns + cost_timer_irq_ns)", capital(r.real()), d))
	}
	if a := r.RTApp; a != nil {
		if a.Ran {
			out = append(out, a.line())
		} else {
			out = append(out, "rt-app: not run: "+strings.TrimSuffix(a.Why, "."))
		}
	}
	return out
}

func us(v report.US) string { return fmt.Sprintf("%.1f", float64(v)) }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// perRun lists one number per run, "a/b/c"; with skipZero, "" when all
// are zero.
func perRun(runs []RunStats, get func(RunStats) int, skipZero bool) string {
	var parts []string
	any := false
	for _, r := range runs {
		parts = append(parts, fmt.Sprint(get(r)))
		any = any || get(r) != 0
	}
	if skipZero && !any {
		return ""
	}
	return strings.Join(parts, "/")
}

func counts(runs []RunStats, timer bool) string {
	if timer {
		return perRun(runs, func(r RunStats) int { return r.Timer.Count }, false)
	}
	return perRun(runs, func(r RunStats) int { return r.Wakeup.Count }, false)
}

func missed(runs []RunStats) string {
	return perRun(runs, func(r RunStats) int { return r.Missed }, true)
}

func missedIn(runs []RunStats) string {
	return perRun(runs, func(r RunStats) int { return r.MissedSwitchIns }, true)
}

func delivery(runs []RunStats) string {
	var parts []string
	for _, r := range runs {
		if r.TimerDeliveryUS > 0 {
			parts = append(parts, fmt.Sprintf("%.0f", r.TimerDeliveryUS))
		}
	}
	return strings.Join(parts, "/")
}

func orZero(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// line is rt-app's result in one line.
func (a *RTAppStats) line() string {
	s := a.WuLat
	if s.Count == 0 {
		return fmt.Sprintf("rt-app (%s) ran the file: no wu_lat samples (no timer in it)", a.Version)
	}
	return fmt.Sprintf("rt-app (%s) wu_lat, one run: n=%d p50 %s p90 %s p99 %s max %s µs", a.Version, s.Count, us(s.P50), us(s.P90), us(s.P99), us(s.Max))
}

// WriteMarkdown prints the result as a Markdown section (VALIDATION.md's
// tables): a heading, the sample counts, the table and rt-app's line.
func (r *Result) WriteMarkdown(w io.Writer, title string) error {
	fmt.Fprintf(w, "### %s\n\n", title)
	fmt.Fprintf(w, "%d run(s) of %.0f s on each side, %d CPU(s); samples per run: %s timer %s, wakeup %s; simulation timer %s, wakeup %s.\n\n",
		r.Runs, float64(r.DurationNS)/1e9, r.CPUs, r.real(), counts(r.Host, true), counts(r.Host, false), counts(r.Sim, true), counts(r.Sim, false))
	fmt.Fprintf(w, "| latency | stat | %[1]s median | %[1]s min | %[1]s max | simulation | verdict |\n", r.real())
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---|")
	for _, f := range r.Figures {
		if !f.Compared {
			fmt.Fprintf(w, "| %s | %s | – | – | – | – | %s |\n", f.Latency, f.Stat, f.Verdict)
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", f.Latency, f.Stat, us(f.HostMed), us(f.HostMin), us(f.HostMax), us(f.Sim), f.Verdict)
	}
	inside, compared := tally(r.Figures)
	fmt.Fprintf(w, "\n%d of %d compared figures inside the %s's spread.", inside, compared, r.real())
	for _, f := range r.facts() {
		fmt.Fprintf(w, " %s.", f)
	}
	_, err := fmt.Fprintln(w)
	return err
}

// real names the measured side: the host, or the kernel in a VM.
func (r *Result) real() string {
	if r.VM != nil {
		return "kernel"
	}
	return "host"
}

func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
