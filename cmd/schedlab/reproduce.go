package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"schedlab/analyze"
	"schedlab/experiment"
	"schedlab/lab"
	"schedlab/report"
	"schedlab/trace"
)

func reproduceCmd() *cobra.Command {
	var asJSON bool
	var htmlPath, svgDir string
	cmd := &cobra.Command{
		Use:   "reproduce [ID...]",
		Short: "Run the seed experiments and print paper beside simulation, with a verdict on every claim",
		RunE: func(cmd *cobra.Command, ids []string) error {
			exps, err := experiment.Lookup(ids)
			if err != nil {
				return &lab.InputError{Err: err}
			}
			results, err := experiment.Run(exps, 0, progress())
			if err != nil {
				return err
			}
			if htmlPath != "" || svgDir != "" {
				if err := reproduceFigures(exps, results, htmlPath, svgDir); err != nil {
					return err
				}
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"experiments": results})
			}
			return experiment.WriteText(os.Stdout, results)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {\"experiments\": [...]} instead of tables")
	cmd.Flags().StringVar(&htmlPath, "html", "", "also write a self-contained HTML report (tables, claims, bars, CDFs, histograms, timelines) to FILE")
	cmd.Flags().StringVar(&svgDir, "svg", "", "also write each figure as an SVG file into DIR (created if needed)")
	return cmd
}

// progress reports runs done on a terminal's stderr, and nothing when
// stderr is a file or pipe (logs stay clean).
func progress() func(done, total int) {
	fi, err := os.Stderr.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(done, total int) {
		fmt.Fprintf(os.Stderr, "\rreproduce: %d/%d simulations", done, total)
		if done == total {
			fmt.Fprint(os.Stderr, "\r\033[K")
		}
	}
}

// reproduceFigures writes the HTML report and the SVG figures of the
// experiments. The figures need each simulation's samples and a timeline of
// its first moments, which experiment.Run does not keep, so every run is
// simulated again (same options and seeds, so the same events) with an
// analyzer and a timeline recorder attached; the means of the rerun's
// figures must equal the table's, which checks that the options are built
// as experiment builds them.
func reproduceFigures(exps []*experiment.Experiment, results []*experiment.Result, htmlPath, svgDir string) error {
	type job struct {
		exp, row int
		seed     uint64
	}
	var jobs []job
	for ei, e := range exps {
		for ri := range e.Rows {
			for s := 1; s <= e.Runs; s++ {
				jobs = append(jobs, job{ei, ri, uint64(s)})
			}
		}
	}
	type out struct {
		run   *report.Run
		timer []int64
		tl    *analyze.Timeline
		err   error
	}
	outs := make([]out, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				e := exps[j.exp]
				an := analyze.New()
				var sink trace.Sink = an
				var rec *analyze.TimelineRecorder
				if j.seed == 1 {
					rec = analyze.NewTimelineRecorder(int64(100 * time.Millisecond))
					sink = trace.Tee{an, rec}
				}
				o := e.Options(e.Rows[j.row], j.seed)
				o.Sink = sink
				r, err := lab.Simulate(o)
				outs[i] = out{run: r, err: err}
				if err == nil {
					outs[i].timer, _ = an.Samples()
					if rec != nil {
						outs[i].tl = rec.Timeline(r.SimNS)
					}
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()

	page := &report.Page{Title: "schedlab reproduce", Subtitle: "The seed experiments: paper beside simulation, with a verdict on every claim"}
	k := 0
	for ei, e := range exps {
		res := results[ei]
		c := report.Comparison{ID: res.ID, Title: res.Title, RefName: "paper", SimName: "sim",
			Paragraphs: []string{fmt.Sprintf("Seed %s: %s.", res.Source, res.Load)},
			Facts: [][2]string{{"simulated", fmt.Sprintf("%s on %s", res.Scenario, res.Settings)},
				{"runs", fmt.Sprintf("%d × %s per configuration (seeds 1–%d); the table's figures are means over the runs", res.Runs, res.Duration, res.Runs)}},
			Samples:      fmt.Sprintf("the samples of all %d runs of each configuration, pooled", e.Runs),
			TimelineNote: "Run 1 (seed 1) of each configuration.",
			Metrics:      []string{"max", "avg"}}
		if len(res.Reconstructions) > 0 {
			c.Facts = append(c.Facts, [2]string{"reconstructions", strings.Join(res.Reconstructions, ", ") + " (not known to match the original patches)"})
		}
		for _, row := range res.Rows {
			if row.Sim.P50 != nil {
				c.Metrics = []string{"median", "max", "avg"}
			}
		}
		for ri, row := range res.Rows {
			cr := report.ComparisonRow{Config: row.Config, Note: row.Note,
				Ref:   map[string]*float64{"max": row.Paper.Max, "avg": row.Paper.Avg, "median": row.Paper.P50},
				Sim:   map[string]*float64{"max": row.Sim.Max, "avg": row.Sim.Avg, "median": row.Sim.P50},
				Ratio: map[string]*float64{"max": row.Ratio.Max, "avg": row.Ratio.Avg, "median": row.Ratio.P50}}
			var mx, av float64
			for s := 0; s < e.Runs; s++ {
				o := outs[k]
				k++
				if o.err != nil {
					return fmt.Errorf("experiment %s, row %s: %w", e.ID, e.Rows[ri].Config, o.err)
				}
				mx += float64(o.run.TimerLatency.Max)
				av += float64(o.run.TimerLatency.Avg)
				cr.Figures.Timer = append(cr.Figures.Timer, o.timer...)
				if o.tl != nil {
					cr.Figures.Timeline = o.tl
				}
			}
			n := float64(e.Runs)
			if row.Sim.Max != nil && row.Sim.Avg != nil && (math.Round(mx/n*10)/10 != *row.Sim.Max || math.Round(av/n*10)/10 != *row.Sim.Avg) {
				return fmt.Errorf("experiment %s, row %s: the figures' reruns (max %.1f, avg %.1f) differ from the table's (max %.1f, avg %.1f): reproduceFigures no longer builds the runs as experiment does",
					e.ID, row.Config, mx/n, av/n, *row.Sim.Max, *row.Sim.Avg)
			}
			c.Rows = append(c.Rows, cr)
		}
		for _, cl := range res.Claims {
			c.Claims = append(c.Claims, report.Claim{Text: cl.Text, Holds: cl.Holds, Detail: cl.Detail})
		}
		sec := report.ComparisonSection(c)
		page.Sections = append(page.Sections, sec)
		if svgDir != "" {
			if err := os.MkdirAll(svgDir, 0o755); err != nil {
				return &lab.InputError{Err: fmt.Errorf("--svg: %w", err)}
			}
			for _, f := range sec.Figures {
				if err := os.WriteFile(filepath.Join(svgDir, f.Name+".svg"), []byte(f.SVG+"\n"), 0o644); err != nil {
					return &lab.InputError{Err: fmt.Errorf("--svg: %w", err)}
				}
			}
		}
	}
	if htmlPath != "" {
		return writeHTMLFile(htmlPath, page)
	}
	return nil
}
