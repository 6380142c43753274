package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"schedlab/analyze"
	"schedlab/internal/pool"
	"schedlab/lab"
	"schedlab/sched"
	"schedlab/sim"
	"schedlab/validate"
	"schedlab/workload"
)

// Result is an experiment's outcome, with the design's JSON keys.
type Result struct {
	ID              string   `json:"id"`
	Source          string   `json:"source"`
	Citation        string   `json:"citation"`
	Title           string   `json:"title"`
	Load            string   `json:"load"`
	Scenario        string   `json:"scenario"`
	Policy          string   `json:"policy"`
	Settings        string   `json:"settings"`
	Runs            int      `json:"runs"`
	Duration        string   `json:"duration"`
	Reconstructions []string `json:"reconstructions,omitempty"`
	// Noise is the source's own spread (a factor), which a claim may miss
	// by and still be "within the mails' own noise"; NoiseNote says where
	// it comes from.
	Noise     float64       `json:"noise"`
	NoiseNote string        `json:"noise_note"`
	Rows      []RowResult   `json:"rows"`
	Claims    []ClaimResult `json:"claims"`
	// Variants are the rows and verdicts under the experiment's other
	// readings (Experiment.Variants).
	Variants []VariantResult `json:"variants,omitempty"`
	// Kernel is the real-kernel column's head (Options.Kernel; nil
	// without it, and then no row has one).
	Kernel *KernelColumn `json:"kernel,omitempty"`
	metric Metric
	// figures are what the HTML report draws, per row (Options.Figures).
	figures []rowFigures
}

// rowFigures are the samples behind one row: every run's timer samples,
// pooled, the first run's timeline, and each run's figures (µs, by the
// page's metric names: "max", "avg", "median"), of which the row's are
// the means. They are the HTML report's alone: the JSON stays the means.
type rowFigures struct {
	timer    []int64
	timeline *analyze.Timeline
	runs     map[string][]float64
}

// RowResult is one configuration, paper beside simulation.
type RowResult struct {
	Config string  `json:"config"`
	Paper  Figures `json:"paper"`
	Sim    Figures `json:"sim"`
	Ratio  Figures `json:"ratio"` // sim/paper where both exist
	// Lo and Hi are the smallest and largest figure of any one run, of
	// which Sim is the mean: the spread over the runs.
	Lo, Hi Figures
	Note   string `json:"note,omitempty"`
	// Kernel is the row on the real kernel (Options.Kernel), or why not.
	Kernel *KernelRow `json:"kernel,omitempty"`
	median bool       // the experiment compares medians: p50_us is always present
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
		SimMin map[string]*float64 `json:"sim_min"`
		SimMax map[string]*float64 `json:"sim_max"`
		Ratio  map[string]*float64 `json:"ratio"`
		Note   string              `json:"note,omitempty"`
		Kernel *KernelRow          `json:"kernel,omitempty"`
	}{r.Config, fig(r.Paper), fig(r.Sim), fig(r.Lo), fig(r.Hi), fig(r.Ratio), r.Note, r.Kernel})
}

// VariantResult is an experiment's rows and verdicts under a variant.
type VariantResult struct {
	Name     string        `json:"name"`
	Why      string        `json:"why"`
	Scenario string        `json:"scenario"`
	Settings string        `json:"settings"`
	Rows     []RowResult   `json:"rows"`
	Claims   []ClaimResult `json:"claims"`
}

// ClaimResult is a claim with its verdict, judged on the 3-run means
// (verdict.go). Holds is the verdict "holds"; Share is the share of 3-run
// means in which the claim holds, over Means of them; Miss the factor by
// which the all-run means miss it.
type ClaimResult struct {
	Text string `json:"text"`
	// Holds is the verdict "holds": on the rows and again when every run
	// is repeated with the noise model on, at every NoiseLevel. A claim
	// that holds only because the model has no noise does not hold.
	Holds bool `json:"holds"`
	// Verdict is the weakest of the verdicts without noise and at every
	// NoiseLevel; Share, Means and Miss are the judgement without noise.
	Verdict Verdict `json:"verdict"`
	Share   float64 `json:"share"`
	Means   int     `json:"means"`
	Miss    float64 `json:"miss"`
	Detail  string  `json:"detail"`
	// WithoutNoise is the rows' check, WithNoise that it holds at every
	// NoiseLevel; NoiseDetail is the figures of the first level that
	// flips the rows' verdict (else of the first level).
	WithoutNoise bool   `json:"holds_without_noise"`
	WithNoise    bool   `json:"holds_with_noise"`
	NoiseDetail  string `json:"noise_detail"`
}

// NoiseLevels turn the noise model on (sim/noise.go) for the further
// checks of every claim: the means measured once on the VM (validate's
// VMNoiseResched, VMNoiseTimer), the only machine whose noise schedlab has
// measured, and ten times them with as much again on every context switch,
// since the seed machines' noise is unknown and, with caches, larger than
// an emulator's. A verdict that one noise realisation keeps and another
// flips rests on the noise, so a claim must hold at every level.
var NoiseLevels = []NoiseLevel{
	{"the VM's", []Setting{{sim.ParamNoiseResch, validate.VMNoiseResched}, {sim.ParamNoiseTimer, validate.VMNoiseTimer}}},
	{"10 × the VM's", []Setting{{sim.ParamNoiseResch, 10 * validate.VMNoiseResched}, {sim.ParamNoiseTimer, 10 * validate.VMNoiseTimer},
		{sim.ParamNoiseSwitch, 10 * validate.VMNoiseResched}}},
}

// A NoiseLevel is one noise check: its name and the engine parameters.
type NoiseLevel struct {
	Name string
	Set  []Setting
}

// Request builds the simulation of one run of a row: the experiment's
// settings with the row's switch added, nothing else.
func (e *Experiment) Request(r Row, seed uint64) (lab.Request, error) {
	return e.request(r, nil, seed)
}

// request is Request under a variant (nil: none): the variant's scenario
// and parameters in place of the experiment's, its settings added before
// the row's.
func (e *Experiment) request(r Row, v *Variant, seed uint64) (lab.Request, error) {
	scenario, base := e.Scenario, e.Params
	if v != nil && v.Scenario != "" {
		scenario, base = v.Scenario, v.Params
	}
	params := maps.Clone(base)
	if params == nil {
		params = map[string]string{}
	}
	maps.Copy(params, r.Params)
	spec, name, err := workload.Load(scenario, params)
	if err != nil {
		return lab.Request{}, err
	}
	var feats []string
	for _, list := range []string{e.Features, r.Features} {
		for _, f := range strings.Split(list, ",") {
			if f != "" {
				feats = append(feats, f)
			}
		}
	}
	set := map[string]int64{}
	all := append([]Setting{}, e.Set...)
	if v != nil {
		all = append(all, v.Set...)
	}
	for _, s := range append(all, r.Set...) {
		set[s.Name] = s.Value
	}
	return lab.Request{Spec: spec, Name: name, Policy: e.policy(r), Features: feats, Tunables: set, Duration: e.Duration, Seed: seed}, nil
}

// Options control a run of experiments.
type Options struct {
	// Workers is how many simulations run at once; 0: one per CPU.
	Workers int
	// Progress, if set, is called after each simulation with the number
	// done and the total.
	Progress func(done, total int)
	// Figures keeps what the HTML report draws (Page): every run's timer
	// samples and the first run's timeline of each row.
	Figures bool
	// NoNoiseCheck skips the claims' second check with noise (tests).
	NoNoiseCheck bool
	// Kernel, if set, adds the real-kernel column (kernel.go), after the
	// simulations.
	Kernel *KernelOptions
}

// timelineWindow is the first moments a row's timeline shows.
const timelineWindow = 100 * time.Millisecond

// Run simulates the experiments and computes their rows and verdicts:
// the rows without noise, and each claim once more on the same runs at
// every NoiseLevel (unless o.NoNoiseCheck).
func Run(exps []*Experiment, o Options) ([]*Result, error) {
	res, err := simulateAll(exps, o)
	if err != nil || o.Kernel == nil {
		return res, err
	}
	if err := runKernel(exps, res, *o.Kernel); err != nil {
		return nil, err
	}
	return res, nil
}

// simulateAll is Run without the real kernel.
func simulateAll(exps []*Experiment, o Options) ([]*Result, error) {
	res, err := run(exps, o)
	if err != nil || o.NoNoiseCheck {
		for _, r := range res {
			for i := range r.Claims {
				c := &r.Claims[i]
				c.WithoutNoise, c.WithNoise, c.NoiseDetail = c.Holds, c.Holds, "not checked"
			}
			for _, v := range r.Variants {
				for i := range v.Claims {
					c := &v.Claims[i]
					c.WithoutNoise, c.WithNoise, c.NoiseDetail = c.Holds, c.Holds, "not checked"
				}
			}
		}
		return res, err
	}
	for _, r := range res {
		for i := range r.Claims {
			c := &r.Claims[i]
			c.WithoutNoise, c.WithNoise = c.Holds, true
		}
		// The variants are judged without noise only: at every level
		// they would triple reproduce's time again.
		for _, v := range r.Variants {
			for i := range v.Claims {
				c := &v.Claims[i]
				c.WithoutNoise, c.WithNoise, c.NoiseDetail = c.Holds, c.Holds, "not checked with noise"
			}
		}
	}
	for _, lv := range NoiseLevels {
		var noisy []*Experiment
		for _, e := range exps {
			c := *e
			c.Set = append(append([]Setting{}, e.Set...), lv.Set...)
			c.Variants = nil
			noisy = append(noisy, &c)
		}
		nres, err := run(noisy, Options{Workers: o.Workers})
		if err != nil {
			return nil, fmt.Errorf("with %s noise: %w", lv.Name, err)
		}
		for i, r := range res {
			checkNoise(r.Claims, nres[i].Claims, lv.Name)
		}
	}
	for _, r := range res {
		final(r.Claims)
		for _, v := range r.Variants {
			final(v.Claims)
		}
	}
	return res, nil
}

// checkNoise folds one noise level's verdicts (noisy) into the claims.
func checkNoise(claims, noisy []ClaimResult, level string) {
	for j := range claims {
		c, n := &claims[j], noisy[j]
		// The first level that flips the verdict is the one shown.
		if c.NoiseDetail == "" || (c.WithNoise && n.Holds != c.WithoutNoise) {
			c.NoiseDetail = fmt.Sprintf("%s noise: [%s] %s", level, n.Verdict, n.Detail)
		}
		c.WithNoise = c.WithNoise && n.Holds
		c.Verdict = weaker(c.Verdict, n.Verdict)
	}
}

// final sets the claims' verdict "holds": without noise and at every
// level.
func final(claims []ClaimResult) {
	for i := range claims {
		c := &claims[i]
		c.Holds = c.WithoutNoise && c.WithNoise
	}
}

func run(exps []*Experiment, o Options) ([]*Result, error) {
	type job struct {
		exp, variant, row int // variant −1: the experiment itself
		seed              uint64
		req               *lab.Request // the row's, shared by its runs
	}
	// A row's workload is loaded once: its runs share the Spec, which the
	// simulator only reads.
	var jobs []job
	for ei, e := range exps {
		for vi := -1; vi < len(e.Variants); vi++ {
			var v *Variant
			if vi >= 0 {
				v = &e.Variants[vi]
			}
			for ri, r := range e.Rows {
				req, err := e.request(r, v, 0)
				if err != nil {
					return nil, fmt.Errorf("experiment %s, row %s: %w", e.ID, r.Config, err)
				}
				for s := 1; s <= e.Runs; s++ {
					jobs = append(jobs, job{ei, vi, ri, uint64(s), &req})
				}
			}
		}
	}
	out := make([]*lab.Outcome, len(jobs))
	errs := make([]error, len(jobs))
	pool.Run(len(jobs), o.Workers, func(i int) {
		j := jobs[i]
		req := *j.req
		req.Seed = j.seed
		// The page draws the calibrated rows only.
		if o.Figures && j.variant < 0 {
			req.Keep.Samples = true
			if j.seed == 1 {
				req.Keep.Timeline = timelineWindow
			}
		}
		out[i], errs[i] = lab.Simulate(req)
	}, o.Progress)
	for i, err := range errs {
		if err != nil {
			e := exps[jobs[i].exp]
			return nil, fmt.Errorf("experiment %s, row %s: %w", e.ID, e.Rows[jobs[i].row].Config, err)
		}
	}

	var results []*Result
	k := 0
	for _, e := range exps {
		res := &Result{ID: e.ID, Source: e.Source, Citation: e.Citation, Title: e.Title, Load: e.Load, Scenario: e.Scenario, Policy: e.Policy,
			Settings: e.settings(), Runs: e.Runs, Duration: e.Duration.String(), metric: e.Metric, Reconstructions: e.reconstructions(),
			Noise: e.Noise, NoiseNote: e.NoiseNote}
		median := e.Metric == TimerMedian
		// block computes the rows and verdicts of the experiment or of one
		// variant from the next runs in out, in the order jobs has them.
		block := func(keep bool) ([]RowResult, []ClaimResult) {
			var rows []RowResult
			sims := map[string]Figures{}
			perRun := map[string]runFigures{}
			for _, r := range e.Rows {
				figs := rowFigures{runs: map[string][]float64{}}
				var rf runFigures
				for s := 0; s < e.Runs; s++ {
					oc := out[k]
					tl := oc.Report.TimerLatency
					rf.max = append(rf.max, float64(tl.Max))
					rf.avg = append(rf.avg, float64(tl.Avg))
					rf.p50 = append(rf.p50, float64(tl.P50))
					figs.timer = append(figs.timer, oc.Timer...)
					if oc.Timeline != nil {
						figs.timeline = oc.Timeline
					}
					k++
				}
				figs.runs["max"], figs.runs["avg"], figs.runs["median"] = rf.max, rf.avg, rf.p50
				sim := rf.mean(allRuns(e.Runs), median)
				sims[r.Config] = sim
				perRun[r.Config] = rf
				lo, hi := rf.extremes(median)
				rows = append(rows, RowResult{Config: r.Config, Paper: r.Paper, Sim: sim, Ratio: ratios(sim, r.Paper), Lo: lo, Hi: hi, Note: r.Note,
					median: median})
				if keep {
					res.figures = append(res.figures, figs)
				}
			}
			var claims []ClaimResult
			for _, c := range e.Claims {
				_, detail := c.Check(sims)
				j := judge(c, sims, perRun, e.Runs, median, e.noise())
				claims = append(claims, ClaimResult{Text: c.Text, Holds: j.Verdict == Holds, Verdict: j.Verdict,
					Share: math.Round(j.Share*1000) / 1000, Means: j.Means, Miss: math.Round(j.Miss*100) / 100,
					Detail: detail + "; " + j.Describe(e.noise())})
			}
			return rows, claims
		}
		res.Rows, res.Claims = block(o.Figures)
		for i := range e.Variants {
			v := &e.Variants[i]
			vr := VariantResult{Name: v.Name, Why: v.Why, Scenario: e.Scenario, Settings: e.variantSettings(v)}
			if v.Scenario != "" {
				vr.Scenario = v.Scenario
			}
			vr.Rows, vr.Claims = block(false)
			res.Variants = append(res.Variants, vr)
		}
		results = append(results, res)
	}
	return results, nil
}

// allRuns is 0, 1, …, n−1.
func allRuns(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
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
func (e *Experiment) settings() string { return e.describe(e.Set, e.Params) }

// variantSettings describes what every row of a variant shares.
func (e *Experiment) variantSettings(v *Variant) string {
	set := map[string]int64{}
	var order []string
	for _, st := range append(append([]Setting{}, e.Set...), v.Set...) {
		if _, ok := set[st.Name]; !ok {
			order = append(order, st.Name)
		}
		set[st.Name] = st.Value
	}
	var merged []Setting
	for _, n := range order {
		merged = append(merged, Setting{n, set[n]})
	}
	params := e.Params
	if v.Scenario != "" {
		params = v.Params
	}
	return e.describe(merged, params)
}

func (e *Experiment) describe(sets []Setting, params map[string]string) string {
	parts := []string{e.Policy}
	// An experiment that compares kernels names each row's.
	var byRow []string
	for _, r := range e.Rows {
		if r.Policy != "" && !slices.Contains(byRow, r.Policy) {
			byRow = append(byRow, r.Policy)
		}
	}
	if len(byRow) > 0 {
		parts[0] = strings.Join(byRow, "/") + " (by row)"
	}
	if e.Features != "" {
		parts = append(parts, "features "+e.Features)
	}
	if len(sets) > 0 {
		set := make([]string, len(sets))
		for i, st := range sets {
			set[i] = st.String()
		}
		parts = append(parts, strings.Join(set, " "))
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+params[k])
	}
	return strings.Join(parts, ", ")
}

// reconstructions lists the reconstructions any row uses, with their
// parameters, so every report that uses one says so.
func (e *Experiment) reconstructions() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range e.Rows {
		prof, err := sched.Lookup(e.policy(r))
		if err != nil {
			continue
		}
		feats, err := prof.ParseFeatures(strings.Trim(e.Features+","+r.Features, ","))
		if err != nil {
			continue
		}
		// The row's tunables of the policy (a reading of a
		// reconstruction is one); engine parameters are not the
		// policy's.
		tun := map[string]int64{}
		for _, st := range append(append([]Setting{}, e.Set...), r.Set...) {
			if prof.Tunable(st.Name) != nil {
				tun[st.Name] = st.Value
			}
		}
		cfg, err := prof.NewConfig(1, feats, tun)
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

// WriteText prints the results as tables, paper beside simulation, and
// last the tally of paper figures within ±50 % (Tally).
func WriteText(w io.Writer, results []*Result) error {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "== %s: %s\n", r.ID, r.Title)
		fmt.Fprintf(&b, "   %s\n   load: %s\n", r.Citation, r.Load)
		fmt.Fprintf(&b, "   simulated: %s on %s; %d runs x %s, figures are means over the runs\n", r.Scenario, r.Settings, r.Runs, r.Duration)
		if len(r.Reconstructions) > 0 {
			fmt.Fprintf(&b, "   reconstructions (not known to match the original patches): %s\n", strings.Join(r.Reconstructions, ", "))
		}
		b.WriteString("\n")
		cols := []struct {
			name string
			get  func(Figures) *float64
		}{{"max", func(f Figures) *float64 { return f.Max }}, {"avg", func(f Figures) *float64 { return f.Avg }}}
		if r.metric == TimerMedian {
			cols = append([]struct {
				name string
				get  func(Figures) *float64
			}{{"median", func(f Figures) *float64 { return f.P50 }}}, cols...)
		}
		fmt.Fprintf(&b, "   %-22s", "config")
		for _, c := range cols {
			fmt.Fprintf(&b, " %13s %11s %13s %6s", "paper "+c.name+" us", "sim "+c.name, "runs min-max", "ratio")
		}
		if r.Kernel != nil {
			for _, c := range cols {
				fmt.Fprintf(&b, " %11s %13s", "kernel "+c.name, "runs min-max")
			}
		}
		b.WriteString("\n")
		for _, row := range r.Rows {
			fmt.Fprintf(&b, "   %-22s", row.Config)
			for _, c := range cols {
				fmt.Fprintf(&b, " %13s %11s %13s %6s", num(c.get(row.Paper), 1), num(c.get(row.Sim), 1), span(c.get(row.Lo), c.get(row.Hi)), num(c.get(row.Ratio), 2))
			}
			if k := row.Kernel; k != nil {
				fig := Figures{Max: k.Max, Avg: k.Avg, P50: k.P50}
				for _, c := range cols {
					fmt.Fprintf(&b, " %11s %13s", num(c.get(fig), 1), span(c.get(k.Lo), c.get(k.Hi)))
				}
				if k.Why != "" {
					b.WriteString("  " + k.Why)
				}
			}
			b.WriteString("\n")
		}
		if k := r.Kernel; k != nil {
			fmt.Fprintf(&b, "   kernel: %s (Linux %s, %s) in a VM, %d runs x %s per expressible row (seeds 1-%d), each row's features and tunables written to it%s\n",
				k.Name, k.Release, k.Sched, k.Runs, k.Duration, k.Runs, notApplied(k.NotApplied))
			if k.Kept != "" {
				fmt.Fprintf(&b, "   kernel column kept in %s (measured then, not now)\n", k.Kept)
			}
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "   verdicts on the 3-run means of every triple of seeds (the mails averaged 3 runs); \"holds\": in at least %.0f %% of them;\n", 100*holdsShare)
		fmt.Fprintf(&b, "   \"within the mails' own noise\": missed by at most %.2fx, the source's own spread (%s)\n", r.Noise, r.NoiseNote)
		for _, c := range r.Claims {
			fmt.Fprintf(&b, "   [%s] %s — %s\n", c.Verdict, c.Text, c.Detail)
			if !c.WithoutNoise || !c.WithNoise {
				fmt.Fprintf(&b, "      with %s\n", c.NoiseDetail)
			}
			if c.Verdict == DoesNotHold {
				b.WriteString("      (why the model does not bear this out: EXPERIMENTS.md, " + r.ID + ")\n")
			}
		}
		if len(r.Variants) > 0 {
			writeVariants(&b, r)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return WriteTally(w, Tally(results))
}

// writeVariants prints the rows under the experiment's other readings,
// one column pair (mean and range over the runs) per variant, then each
// variant's verdicts.
func writeVariants(b *strings.Builder, r *Result) {
	fmt.Fprintf(b, "\n   the same rows under other readings of the unknowns (%d runs each; verdicts without the noise model):\n", r.Runs)
	for _, v := range r.Variants {
		fmt.Fprintf(b, "     %-8s %s: %s on %s\n", v.Name, v.Why, v.Scenario, v.Settings)
	}
	for _, m := range []struct {
		name string
		get  func(Figures) *float64
	}{{"avg", func(f Figures) *float64 { return f.Avg }}, {"max", func(f Figures) *float64 { return f.Max }}} {
		b.WriteString("\n")
		fmt.Fprintf(b, "   %-22s %11s", "sim "+m.name+" us", "calibrated")
		for _, v := range r.Variants {
			fmt.Fprintf(b, " %11s %13s", v.Name, "runs min-max")
		}
		b.WriteString("\n")
		for i, row := range r.Rows {
			fmt.Fprintf(b, "   %-22s %11s", row.Config, num(m.get(row.Sim), 1))
			for _, v := range r.Variants {
				vr := v.Rows[i]
				fmt.Fprintf(b, " %11s %13s", num(m.get(vr.Sim), 1), span(m.get(vr.Lo), m.get(vr.Hi)))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	for _, v := range r.Variants {
		for _, c := range v.Claims {
			fmt.Fprintf(b, "   %-8s [%s] %s — %s\n", v.Name, c.Verdict, c.Text, c.Detail)

		}
	}
}

// notApplied says which of the experiment's settings the real kernel did
// not take.
func notApplied(na []string) string {
	if len(na) == 0 {
		return ""
	}
	return "; not applied (the simulated machine's or a patch's, no switch of this kernel): " + strings.Join(na, ", ")
}

// span is a row's range over its runs, in whole µs.
func span(lo, hi *float64) string {
	if lo == nil || hi == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f-%.0f", *lo, *hi)
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
