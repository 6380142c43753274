package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"schedlab/lab"
	"schedlab/report"
	"schedlab/sched"
)

// Result is an experiment's outcome, with the design's JSON keys.
type Result struct {
	ID              string        `json:"id"`
	Source          string        `json:"source"`
	Title           string        `json:"title"`
	Load            string        `json:"load"`
	Scenario        string        `json:"scenario"`
	Policy          string        `json:"policy"`
	Settings        string        `json:"settings"`
	Runs            int           `json:"runs"`
	Duration        string        `json:"duration"`
	Reconstructions []string      `json:"reconstructions,omitempty"`
	Rows            []RowResult   `json:"rows"`
	Claims          []ClaimResult `json:"claims"`
	metric          string
}

// RowResult is one configuration, paper beside simulation.
type RowResult struct {
	Config string  `json:"config"`
	Paper  Figures `json:"paper"`
	Sim    Figures `json:"sim"`
	Ratio  Figures `json:"ratio"` // sim/paper where both exist
	Note   string  `json:"note,omitempty"`
	median bool    // the experiment compares medians: p50_us is always present
}

// MarshalJSON writes p50_us (null where unknown) in every figure of an
// experiment that compares medians, and never in the others.
func (r RowResult) MarshalJSON() ([]byte, error) {
	fig := func(f Figures) map[string]*float64 {
		m := map[string]*float64{"max_us": f.Max, "avg_us": f.Avg}
		if r.median {
			m["p50_us"] = f.P50
		}
		return m
	}
	return json.Marshal(struct {
		Config string              `json:"config"`
		Paper  map[string]*float64 `json:"paper"`
		Sim    map[string]*float64 `json:"sim"`
		Ratio  map[string]*float64 `json:"ratio"`
		Note   string              `json:"note,omitempty"`
	}{r.Config, fig(r.Paper), fig(r.Sim), fig(r.Ratio), r.Note})
}

// ClaimResult is a claim with its verdict.
type ClaimResult struct {
	Text   string `json:"text"`
	Holds  bool   `json:"holds"`
	Detail string `json:"detail"`
}

// job is one simulation: a row of an experiment with one seed.
type job struct {
	exp  int
	row  int
	seed uint64
	opts lab.Options
}

// Options builds the lab options of one run of a row: the experiment's
// settings with the row's switch added, nothing else.
func (e *Experiment) Options(r Row, seed uint64) lab.Options {
	params := maps.Clone(e.Params)
	if params == nil {
		params = map[string]string{}
	}
	maps.Copy(params, r.Params)
	feats := strings.Trim(e.Features+","+r.Features, ",")
	return lab.Options{Workload: e.Scenario, Params: params, Policy: e.Policy, Features: feats,
		Set: append(append([]string{}, e.Set...), r.Set...), Duration: e.Duration, Seed: seed}
}

// Run simulates the experiments on workers goroutines (0: one per CPU) and
// computes their rows and verdicts. progress, if set, is called after each
// simulation with the number done and the total.
func Run(exps []*Experiment, workers int, progress func(done, total int)) ([]*Result, error) {
	var jobs []job
	for ei, e := range exps {
		for ri, r := range e.Rows {
			for s := 1; s <= e.Runs; s++ {
				jobs = append(jobs, job{exp: ei, row: ri, seed: uint64(s), opts: e.Options(r, uint64(s))})
			}
		}
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	out := make([]*report.Run, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = lab.Simulate(jobs[i].opts)
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(jobs))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			e := exps[jobs[i].exp]
			return nil, fmt.Errorf("experiment %s, row %s: %w", e.ID, e.Rows[jobs[i].row].Config, err)
		}
	}

	var results []*Result
	k := 0
	for _, e := range exps {
		res := &Result{ID: e.ID, Source: e.Source, Title: e.Title, Load: e.Load, Scenario: e.Scenario, Policy: e.Policy,
			Settings: e.settings(), Runs: e.Runs, Duration: e.Duration, metric: e.Metric, Reconstructions: e.reconstructions()}
		sims := map[string]Figures{}
		for _, r := range e.Rows {
			var mx, av, md float64
			for s := 0; s < e.Runs; s++ {
				tl := out[k].TimerLatency
				mx += float64(tl.Max)
				av += float64(tl.Avg)
				md += float64(tl.P50)
				k++
			}
			n := float64(e.Runs)
			sim := Figures{Max: f(round1(mx / n)), Avg: f(round1(av / n))}
			if e.Metric == "timer-p50" {
				sim.P50 = f(round1(md / n))
			}
			sims[r.Config] = sim
			res.Rows = append(res.Rows, RowResult{Config: r.Config, Paper: r.Paper, Sim: sim, Ratio: ratios(sim, r.Paper), Note: r.Note,
				median: e.Metric == "timer-p50"})
		}
		for _, c := range e.Claims {
			holds, detail := c.Check(sims)
			res.Claims = append(res.Claims, ClaimResult{Text: c.Text, Holds: holds, Detail: detail})
		}
		results = append(results, res)
	}
	return results, nil
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

func ratios(sim, paper Figures) Figures {
	var r Figures
	for _, p := range []struct{ s, p, out **float64 }{{&sim.Max, &paper.Max, &r.Max}, {&sim.Avg, &paper.Avg, &r.Avg}, {&sim.P50, &paper.P50, &r.P50}} {
		if v := ratio(*p.s, *p.p); !math.IsNaN(v) {
			*p.out = f(math.Round(v*100) / 100)
		}
	}
	return r
}

// settings describes what every row shares.
func (e *Experiment) settings() string {
	parts := []string{e.Policy}
	if e.Features != "" {
		parts = append(parts, "features "+e.Features)
	}
	if len(e.Set) > 0 {
		parts = append(parts, strings.Join(e.Set, " "))
	}
	keys := make([]string, 0, len(e.Params))
	for k := range e.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+e.Params[k])
	}
	return strings.Join(parts, ", ")
}

// reconstructions lists the reconstructions any row uses, with their
// parameters, so every report that uses one says so.
func (e *Experiment) reconstructions() []string {
	prof, err := sched.Lookup(e.Policy)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range e.Rows {
		feats, err := prof.ParseFeatures(strings.Trim(e.Features+","+r.Features, ","))
		if err != nil {
			continue
		}
		cfg, err := prof.NewConfig(1, feats, nil)
		if err != nil {
			continue
		}
		for _, rc := range cfg.Reconstructions() {
			if !seen[rc] {
				seen[rc] = true
				out = append(out, rc)
			}
		}
	}
	sort.Strings(out)
	return out
}

// WriteText prints the results as tables, paper beside simulation.
func WriteText(w io.Writer, results []*Result) error {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "== %s: %s\n", r.ID, r.Title)
		fmt.Fprintf(&b, "   seed %s; %s\n", r.Source, r.Load)
		fmt.Fprintf(&b, "   simulated: %s on %s; %d runs x %s, figures are means over the runs\n", r.Scenario, r.Settings, r.Runs, r.Duration)
		if len(r.Reconstructions) > 0 {
			fmt.Fprintf(&b, "   reconstructions (not known to match the original patches): %s\n", strings.Join(r.Reconstructions, ", "))
		}
		b.WriteString("\n")
		cols := []struct {
			name string
			get  func(Figures) *float64
		}{{"max", func(f Figures) *float64 { return f.Max }}, {"avg", func(f Figures) *float64 { return f.Avg }}}
		if r.metric == "timer-p50" {
			cols = append([]struct {
				name string
				get  func(Figures) *float64
			}{{"median", func(f Figures) *float64 { return f.P50 }}}, cols...)
		}
		fmt.Fprintf(&b, "   %-22s", "config")
		for _, c := range cols {
			fmt.Fprintf(&b, " %13s %11s %6s", "paper "+c.name+" us", "sim "+c.name, "ratio")
		}
		b.WriteString("\n")
		for _, row := range r.Rows {
			fmt.Fprintf(&b, "   %-22s", row.Config)
			for _, c := range cols {
				fmt.Fprintf(&b, " %13s %11s %6s", num(c.get(row.Paper), 1), num(c.get(row.Sim), 1), num(c.get(row.Ratio), 2))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		for _, c := range r.Claims {
			verdict := "holds"
			if !c.Holds {
				verdict = "does not hold"
			}
			fmt.Fprintf(&b, "   [%s] %s — %s\n", verdict, c.Text, c.Detail)
			if !c.Holds {
				b.WriteString("      (why the model does not bear this out: EXPERIMENTS.md, " + r.ID + ")\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func num(p *float64, prec int) string {
	if p == nil || math.IsNaN(*p) {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, *p)
}

// SimFigures returns the simulated figures of a row, for tests.
func (r *Result) SimFigures(config string) (Figures, bool) {
	for _, row := range r.Rows {
		if row.Config == config {
			return row.Sim, true
		}
	}
	return Figures{}, false
}
