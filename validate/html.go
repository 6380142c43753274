package validate

import (
	"fmt"

	"schedlab/report"
)

// Samples are the latency samples (ns) of all runs of one side, for the
// HTML report's CDFs. They are not part of the JSON.
type Samples struct {
	Timer, Wakeup []int64
}

// Page lays the validation out as an HTML report: the side-by-side table,
// each figure's verdict, a bar chart per latency (host median beside the
// simulation's median, with the host's spread in the table) and the CDFs
// of all samples of each side.
func (r *Result) Page() *report.Page {
	tab := report.Table{
		Caption: "medians over the runs; the host's spread is its minimum to maximum over the runs (µs)",
		Columns: []string{"latency", "stat", "host median", "host min", "host max", "simulation", "verdict"},
	}
	var claims []report.Claim
	for _, f := range r.Figures {
		tab.Rows = append(tab.Rows, []string{f.Latency, f.Stat, us(f.HostMed), us(f.HostMin), us(f.HostMax), us(f.Sim), f.Verdict})
		if !f.Compared {
			continue
		}
		claims = append(claims, report.Claim{Text: fmt.Sprintf("%s latency %s: the simulation lies inside the host's spread", f.Latency, f.Stat),
			Holds: f.Inside, Detail: f.Verdict})
	}
	var figs []report.Figure
	for _, lat := range []string{"timer", "wakeup"} {
		var groups []string
		var host, sim []*float64
		for _, f := range r.Figures {
			if f.Latency != lat {
				continue
			}
			h, s := float64(f.HostMed), float64(f.Sim)
			groups = append(groups, f.Stat)
			host, sim = append(host, &h), append(sim, &s)
		}
		figs = append(figs, report.Figure{Name: lat + "-bars",
			SVG: report.BarChart(lat+" latency: host median beside simulation median", "µs", groups,
				[]report.BarSeries{{Name: "host", Color: report.Palette[0], Values: host}, {Name: "simulation", Color: report.Palette[1], Values: sim}}),
			Caption: lat + " latency, medians over the runs"})
	}
	if r.hostSamples != nil && r.simSamples != nil {
		figs = append(figs,
			report.Figure{Name: "timer-cdf", SVG: report.CDFChart("timer latency, all runs", "µs", []report.Series{
				{Label: "host", Samples: r.hostSamples.Timer}, {Label: "simulation", Samples: r.simSamples.Timer}}),
				Caption: "timer latency: every sample of every run of each side"},
			report.Figure{Name: "wakeup-cdf", SVG: report.CDFChart("wakeup latency, all runs", "µs", []report.Series{
				{Label: "host", Samples: r.hostSamples.Wakeup}, {Label: "simulation", Samples: r.simSamples.Wakeup}}),
				Caption: "wakeup latency of the workload's tasks: every sample of every run of each side"})
	}
	f := r.HostFacts
	sec := report.Section{
		Title:      "host beside simulation",
		Paragraphs: r.Model,
		Facts: [][2]string{{"scenario", r.Scenario}, {"runs", fmt.Sprint(r.Runs)}, {"duration", fmt.Sprintf("%.1f s", float64(r.DurationNS)/1e9)},
			{"CPUs", fmt.Sprint(r.CPUs)}, {"host kernel", f.Kernel}, {"host base slice", f.BaseSlice + " ns"}, {"cgroup", orNone(f.Cgroup)},
			{"load before the last run", f.LoadAvg}},
		Tables:  []report.Table{tab},
		Claims:  claims,
		Figures: figs,
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
