package validate

import (
	"fmt"

	"schedlab/lab"
	"schedlab/report"
)

// Samples are the latency samples (ns) of all runs of one side, for the
// HTML report's tail plots. They are not part of the JSON.
type Samples struct {
	Timer, Wakeup []int64
}

// Page lays the validation out as an HTML report: the side-by-side table
// with each side's spread over the runs, each figure's verdict, a bar
// chart per latency (host median beside the simulation's median, every
// run a dot on its bar) and the tail plots of all samples of each side.
func (r *Result) Page() *report.Page {
	tab := report.Table{
		Caption: "medians over the runs, and each side's spread: its minimum to maximum over the runs (µs)",
		Columns: []string{"latency", "stat", r.real() + " median", r.real() + " min", r.real() + " max", "simulation", "sim min", "sim max", "verdict"},
	}
	var claims []report.Claim
	for _, f := range r.Figures {
		tab.Rows = append(tab.Rows, []string{f.Latency, f.Stat, us(f.HostMed), us(f.HostMin), us(f.HostMax), us(f.Sim), us(f.SimMin), us(f.SimMax), f.Verdict})
		if !f.Compared {
			continue
		}
		claims = append(claims, report.Claim{Text: fmt.Sprintf("%s latency %s: the simulation lies inside the host's spread", f.Latency, f.Stat),
			Holds: f.Inside, Detail: f.Verdict})
	}
	var figs []report.Figure
	for _, lat := range []string{"timer", "wakeup"} {
		var groups []string
		host := report.BarSeries{Name: r.real(), Color: report.Palette[0]}
		sim := report.BarSeries{Name: "simulation", Color: report.Palette[1]}
		for _, f := range r.Figures {
			if f.Latency != lat {
				continue
			}
			groups = append(groups, f.Stat)
			hr, sr := runValues(r.Host, lat, f.Stat), runValues(r.Sim, lat, f.Stat)
			host.Runs, sim.Runs = append(host.Runs, hr), append(sim.Runs, sr)
			var h, s *float64
			if len(hr) > 0 {
				h = ptr(float64(f.HostMed))
			}
			if len(sr) > 0 {
				s = ptr(float64(f.Sim))
			}
			host.Values, sim.Values = append(host.Values, h), append(sim.Values, s)
		}
		figs = append(figs, report.Figure{Name: lat + "-bars",
			SVG:     report.BarChart(lat+" latency: host median beside simulation median", "µs", groups, []report.BarSeries{host, sim}),
			Caption: lat + " latency: each bar is the median over the runs, each dot one run, the line their spread; the simulation's median is judged against the host's spread."})
	}
	if r.hostSamples != nil && r.simSamples != nil {
		figs = append(figs,
			report.Figure{Name: "timer-tail", SVG: report.TailChart("timer latency, all runs: the tail", "callback start − timer expiry", []report.Series{
				{Label: r.real(), Samples: r.hostSamples.Timer}, {Label: "simulation", Samples: r.simSamples.Timer}}),
				Caption: "timer latency: every sample of every run of each side; at each latency the share of samples that took longer, both axes logarithmic, p50 to p99.9 marked"},
			report.Figure{Name: "wakeup-tail", SVG: report.TailChart("wakeup latency, all runs: the tail", "sched_waking → switch-in", []report.Series{
				{Label: r.real(), Samples: r.hostSamples.Wakeup}, {Label: "simulation", Samples: r.simSamples.Wakeup}}),
				Caption: "wakeup latency of the workload's tasks: every sample of every run of each side, as the timer latency's"})
	}
	f := r.HostFacts
	sec := report.Section{
		Title:      r.real() + " beside simulation",
		Paragraphs: r.Model,
		Facts:      r.htmlFacts(),
		Tables:     []report.Table{tab},
		Claims:     claims,
		Figures:    figs,
	}
	if r.RTApp != nil {
		if r.RTApp.Ran {
			s := r.RTApp.WuLat
			sec.After = append(sec.After, report.Table{Caption: "rt-app " + r.RTApp.Version + " wu_lat, one run (µs)",
				Columns: []string{"count", "p50", "p90", "p99", "max"},
				Rows:    [][]string{{fmt.Sprint(s.Count), us(s.P50), us(s.P90), us(s.P99), us(s.Max)}}})
		} else {
			sec.Paragraphs = append(sec.Paragraphs, "rt-app: not run: "+r.RTApp.Why)
		}
	}
	return &report.Page{Title: "schedlab validate " + r.Scenario,
		Subtitle: fmt.Sprintf("Linux %s beside %s, %d run(s) each", f.Kernel, r.Policy, r.Runs), Sections: []report.Section{sec}}
}

func ptr(v float64) *float64 { return &v }

// runValues are one figure of each run that had samples, as compare
// takes them (µs).
func runValues(runs []RunStats, lat, stat string) []float64 {
	var out []float64
	for _, r := range runs {
		st := r.Timer
		if lat == "wakeup" {
			st = r.Wakeup
		}
		if st.Count == 0 {
			continue
		}
		v := map[string]report.US{"p50": st.P50, "p90": st.P90, "p99": st.P99, "max": st.Max}[stat]
		out = append(out, float64(v))
	}
	return out
}

// htmlFacts are the page's facts about the two sides.
func (r *Result) htmlFacts() [][2]string {
	f := r.HostFacts
	facts := [][2]string{{"scenario", r.Scenario}, {"runs", fmt.Sprint(r.Runs)}, {"duration", fmt.Sprintf("%.1f s", float64(r.DurationNS)/1e9)},
		{"CPUs", fmt.Sprint(r.CPUs)}}
	if v := r.VM; v != nil {
		facts = append(facts, [2]string{"kernel", fmt.Sprintf("%s (Linux %s, %s)", v.Kernel.Name, v.Release, v.Kernel.Sched())},
			[2]string{"VM", fmt.Sprintf("%d vCPU(s), virtual time: %s", v.VCPUs, v.Clock)}, [2]string{"simulated as", r.Policy})
		if v.Costs != nil {
			facts = append(facts, [2]string{"guest costs", lab.CostsLine(v.Costs)})
		}
		return append(facts, [2]string{"cgroup", orNone(f.Cgroup)})
	}
	return append(facts, [2]string{"host kernel", f.Kernel}, [2]string{"host base slice", f.BaseSlice + " ns"}, [2]string{"cgroup", orNone(f.Cgroup)},
		[2]string{"load before the last run", f.LoadAvg})
}
