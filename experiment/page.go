package experiment

import (
	"errors"
	"fmt"
	"strings"

	"schedlab/report"
)

// Page is the HTML report of results run with Options.Figures: for each
// experiment the table with each figure's range over the runs, the claims
// and their verdicts, bars with every run's figure on them, the tail plot
// and histograms of the pooled samples, and the first run's timelines.
func Page(results []*Result) (*report.Page, error) {
	page := &report.Page{Title: "schedlab reproduce", Subtitle: "The seed experiments: paper beside simulation, with a verdict on every claim"}
	for _, res := range results {
		if len(res.figures) != len(res.Rows) {
			return nil, errors.New("experiment: the results were run without Options.Figures")
		}
		c := report.Comparison{ID: res.ID, Title: res.Title, RefName: "paper", SimName: "sim",
			Paragraphs: []string{fmt.Sprintf("%s. Load: %s.", res.Citation, res.Load)},
			Facts: [][2]string{{"simulated", fmt.Sprintf("%s on %s", res.Scenario, res.Settings)},
				{"runs", fmt.Sprintf("%d × %s per configuration (seeds 1–%d); the table's figures are means over the runs", res.Runs, res.Duration, res.Runs)},
				{"verdicts", fmt.Sprintf("on the 3-run means of every triple of seeds (the mails averaged 3 runs): \"holds\" in at least %.0f %% of them; \"within the mails' own noise\" when missed by at most %.2f×, the source's own spread (%s)", 100*holdsShare, res.Noise, res.NoiseNote)}},
			Samples:      fmt.Sprintf("the samples of all %d runs of each configuration, pooled", res.Runs),
			TimelineNote: "Run 1 (seed 1) of each configuration.",
			Metrics:      []string{"max", "avg"}}
		if len(res.Reconstructions) > 0 {
			c.Facts = append(c.Facts, [2]string{"reconstructions", strings.Join(res.Reconstructions, ", ") + " (not known to match the original patches)"})
		}
		if res.metric == TimerMedian {
			c.Metrics = []string{"median", "max", "avg"}
		}
		for ri, row := range res.Rows {
			cr := report.ComparisonRow{Config: row.Config, Note: row.Note,
				Ref:   map[string]*float64{"max": row.Paper.Max, "avg": row.Paper.Avg, "median": row.Paper.P50},
				Sim:   map[string]*float64{"max": row.Sim.Max, "avg": row.Sim.Avg, "median": row.Sim.P50},
				Ratio: map[string]*float64{"max": row.Ratio.Max, "avg": row.Ratio.Avg, "median": row.Ratio.P50}}
			cr.Figures.Timer = res.figures[ri].timer
			cr.Figures.Timeline = res.figures[ri].timeline
			cr.Runs = res.figures[ri].runs
			c.Rows = append(c.Rows, cr)
		}
		for _, cl := range res.Claims {
			c.Claims = append(c.Claims, report.Claim{Text: cl.Text, Holds: cl.Holds, Verdict: string(cl.Verdict), Detail: cl.Detail})
		}
		sec := report.ComparisonSection(c)
		if res.Kernel != nil {
			sec.Tables = append(sec.Tables, kernelTable(res))
		}
		if len(res.Variants) > 0 {
			sec.Tables = append(sec.Tables, variantTable(res))
			for _, v := range res.Variants {
				for _, cl := range v.Claims {
					sec.Claims = append(sec.Claims, report.Claim{Text: v.Name + ": " + cl.Text, Holds: cl.Holds, Verdict: string(cl.Verdict), Detail: cl.Detail})
				}
			}
		}
		page.Sections = append(page.Sections, sec)
	}
	return page, nil
}

// variantTable lays out the rows under the experiment's other readings:
// each variant's mean and range over the runs, average and maximum.
func variantTable(res *Result) report.Table {
	t := report.Table{Caption: fmt.Sprintf("The same rows under other readings of the unknowns, %d runs each: sim µs, mean (min–max over the runs).", res.Runs),
		Columns: []string{"config", "calibrated avg", "calibrated max"}}
	for _, v := range res.Variants {
		t.Columns = append(t.Columns, v.Name+" avg", v.Name+" max")
	}
	cell := func(m, lo, hi *float64) string {
		if m == nil || lo == nil || hi == nil {
			return "–"
		}
		return fmt.Sprintf("%.0f (%.0f–%.0f)", *m, *lo, *hi)
	}
	for i, row := range res.Rows {
		cells := []string{row.Config, cell(row.Sim.Avg, row.Lo.Avg, row.Hi.Avg), cell(row.Sim.Max, row.Lo.Max, row.Hi.Max)}
		for _, v := range res.Variants {
			vr := v.Rows[i]
			cells = append(cells, cell(vr.Sim.Avg, vr.Lo.Avg, vr.Hi.Avg), cell(vr.Sim.Max, vr.Lo.Max, vr.Hi.Max))
		}
		t.Rows = append(t.Rows, cells)
	}
	for _, v := range res.Variants {
		t.Caption += fmt.Sprintf(" %s: %s (%s on %s).", v.Name, v.Why, v.Scenario, v.Settings)
	}
	return t
}

// kernelTable is the real-kernel column beside paper and simulation.
func kernelTable(res *Result) report.Table {
	k := res.Kernel
	t := report.Table{Caption: fmt.Sprintf("On a real kernel: %s (Linux %s, %s) in a VM, %d runs × %s per expressible row (seeds 1–%d), µs, mean (min–max over the runs).%s",
		k.Name, k.Release, k.Sched, k.Runs, k.Duration, k.Runs, notApplied(k.NotApplied)),
		Columns: []string{"config", "paper avg", "sim avg", "kernel avg", "paper max", "sim max", "kernel max", "on the kernel"}}
	cell := func(m, lo, hi *float64) string {
		if m == nil {
			return "–"
		}
		if lo == nil || hi == nil {
			return fmt.Sprintf("%.0f", *m)
		}
		return fmt.Sprintf("%.0f (%.0f–%.0f)", *m, *lo, *hi)
	}
	for _, row := range res.Rows {
		kr := row.Kernel
		if kr == nil {
			continue
		}
		how := kr.Why
		if kr.Expressible {
			how = strings.TrimSpace(strings.Join(append(append([]string{}, kr.Features...), kr.Set...), " ") + " " + kr.Why)
		}
		t.Rows = append(t.Rows, []string{row.Config, cell(row.Paper.Avg, nil, nil), cell(row.Sim.Avg, row.Lo.Avg, row.Hi.Avg), cell(kr.Avg, kr.Lo.Avg, kr.Hi.Avg),
			cell(row.Paper.Max, nil, nil), cell(row.Sim.Max, row.Lo.Max, row.Hi.Max), cell(kr.Max, kr.Lo.Max, kr.Hi.Max), how})
	}
	return t
}
