package sweep

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Stat is a mean over seeds with the half-width of its 95 % confidence
// interval (Student's t; 0 with fewer than two seeds). Without a
// successful run both are NaN, which JSON writes as null.
type Stat struct {
	Mean float64 `json:"mean"`
	CI95 float64 `json:"ci95"`
}

// MarshalJSON writes NaN as null: JSON has no NaN.
func (s Stat) MarshalJSON() ([]byte, error) {
	num := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	return json.Marshal(struct {
		Mean any `json:"mean"`
		CI95 any `json:"ci95"`
	}{num(s.Mean), num(s.CI95)})
}

// Row is one configuration of a merged sweep.
type Row struct {
	Config Point    `json:"config"`
	Runs   int      `json:"runs"`
	Failed int      `json:"failed"`
	Errors []string `json:"errors,omitempty"`
	// Metric is the latency summarised: "timer" where the workload has a
	// timer, else "wakeup".
	Metric string `json:"metric"`
	Avg    Stat   `json:"avg_us"`
	P99    Stat   `json:"p99_us"`
	Max    Stat   `json:"max_us"`
}

// Table is a merged sweep.
type Table struct {
	Rows []Row `json:"rows"`
	// Axis names the grid dimensions that vary between rows, main first.
	Axis []string `json:"axis"`
	// Skipped are files of the directory that are not sweep results (a
	// foreign or half-written file), with why.
	Skipped []string `json:"skipped,omitempty"`
}

// Merge reads every result in dir and summarises it per configuration.
func Merge(dir string) (*Table, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no sweep results (*.json)", dir)
	}
	groups := map[string][]Record{}
	t := &Table{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var rec Record
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Skipped = append(t.Skipped, fmt.Sprintf("%s: not a sweep result: %v", f, err))
			continue
		}
		// A result file is named by its point's key and holds a result or
		// an error: anything else is not one of a sweep's.
		if rec.Point.Scenario == "" || (rec.Result == nil) == (rec.Error == "") || filepath.Base(f) != rec.Point.Key()+".json" {
			t.Skipped = append(t.Skipped, fmt.Sprintf("%s: not a sweep result (no point, or not named by its key)", f))
			continue
		}
		k, _ := json.Marshal(rec.Point.Config())
		groups[string(k)] = append(groups[string(k)], rec)
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%s holds no sweep results: %s", dir, strings.Join(t.Skipped, "; "))
	}
	for _, recs := range groups {
		sort.Slice(recs, func(i, j int) bool { return recs[i].Point.Seed < recs[j].Point.Seed })
		t.Rows = append(t.Rows, summarise(recs))
	}
	sort.Slice(t.Rows, func(i, j int) bool { return less(t.Rows[i].Config, t.Rows[j].Config) })
	t.Axis = varying(t.Rows)
	return t, nil
}

func summarise(recs []Record) Row {
	row := Row{Config: recs[0].Point.Config(), Metric: "wakeup"}
	for _, r := range recs {
		if r.Result != nil && r.Result.TimerLatency.Count > 0 {
			row.Metric = "timer"
		}
	}
	var avg, p99, mx []float64
	for _, r := range recs {
		if r.Error != "" || r.Result == nil {
			row.Failed++
			row.Errors = append(row.Errors, fmt.Sprintf("seed %d: %s", r.Point.Seed, r.Error))
			continue
		}
		row.Runs++
		l := r.Result.WakeupLatency
		if row.Metric == "timer" {
			l = r.Result.TimerLatency
		}
		avg, p99, mx = append(avg, float64(l.Avg)), append(p99, float64(l.P99)), append(mx, float64(l.Max))
	}
	row.Avg, row.P99, row.Max = stat(avg), stat(p99), stat(mx)
	return row
}

// stat is the mean and the 95 % confidence half-width t·s/√n.
func stat(xs []float64) Stat {
	n := len(xs)
	if n == 0 {
		return Stat{Mean: math.NaN(), CI95: math.NaN()}
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(n)
	if n < 2 {
		return Stat{Mean: round1(mean)}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	return Stat{Mean: round1(mean), CI95: round1(tQuantile975(n-1) * sd / math.Sqrt(float64(n)))}
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// tQuantile975 is Student's t 0.975 quantile for df degrees of freedom.
func tQuantile975(df int) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	switch {
	case df < len(table):
		return table[df]
	case df < 60:
		return 2.021
	case df < 120:
		return 2.000
	}
	return 1.960
}

// less orders configurations field by field, numbers as numbers.
func less(a, b Point) bool {
	if a.Scenario != b.Scenario {
		return a.Scenario < b.Scenario
	}
	if a.Policy != b.Policy {
		return a.Policy < b.Policy
	}
	if fa, fb := strings.Join(a.Features, ","), strings.Join(b.Features, ","); fa != fb {
		return fa < fb
	}
	for _, k := range sortedKeys(a.Tunables) {
		if a.Tunables[k] != b.Tunables[k] {
			return a.Tunables[k] < b.Tunables[k]
		}
	}
	for _, k := range sortedKeys(a.Params) {
		if x, y := a.Params[k], b.Params[k]; x != y {
			fx, ex := strconv.ParseFloat(x, 64)
			fy, ey := strconv.ParseFloat(y, 64)
			if ex == nil && ey == nil {
				return fx < fy
			}
			return x < y
		}
	}
	if a.CPUs != b.CPUs {
		return a.CPUs < b.CPUs
	}
	if a.Duration != b.Duration {
		return a.Duration < b.Duration
	}
	if a.Workload != b.Workload {
		return a.Workload < b.Workload
	}
	return a.Schedlab < b.Schedlab
}

// dims are the grid dimensions of a configuration, by name, in the order
// a plot prefers as its main axis.
func dims(p Point) [][2]string {
	var d [][2]string
	for _, k := range sortedKeys(p.Tunables) {
		d = append(d, [2]string{k, strconv.FormatInt(p.Tunables[k], 10)})
	}
	d = append(d, [2]string{"features", strings.Join(p.Features, ",")})
	for _, k := range sortedKeys(p.Params) {
		d = append(d, [2]string{k, p.Params[k]})
	}
	d = append(d, [2]string{"policy", p.Policy}, [2]string{"scenario", p.Scenario}, [2]string{"cpus", strconv.Itoa(p.CPUs)},
		// Rows that differ only here are an edited workload file or a
		// rebuilt schedlab: the label must tell them apart.
		[2]string{"workload", p.Workload}, [2]string{"schedlab", p.Schedlab})
	return d
}

func varying(rows []Row) []string {
	if len(rows) < 2 {
		return nil
	}
	var out []string
	first := dims(rows[0].Config)
	for i, d := range first {
		for _, r := range rows[1:] {
			dd := dims(r.Config)
			if i >= len(dd) || dd[i] != d {
				out = append(out, d[0])
				break
			}
		}
	}
	return out
}

// Label describes a row by the dimensions that vary.
func (t *Table) Label(r Row) string {
	if len(t.Axis) == 0 {
		return r.Config.Scenario
	}
	var parts []string
	for _, d := range dims(r.Config) {
		for _, a := range t.Axis {
			if d[0] == a {
				v := d[1]
				if v == "" {
					v = "-"
				}
				parts = append(parts, a+"="+v)
			}
		}
	}
	return strings.Join(parts, " ")
}

// WriteText prints the table for a reader.
func (t *Table) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "configuration\truns\tfailed\tmetric\tavg us (±95%)\tp99 us (±95%)\tmax us (±95%)")
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\n", t.Label(r), r.Runs, r.Failed, r.Metric, ci(r.Avg), ci(r.P99), ci(r.Max))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range t.Rows {
		for _, e := range r.Errors {
			fmt.Fprintf(w, "failed: %s: %s\n", t.Label(r), e)
		}
	}
	for _, s := range t.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", s)
	}
	return nil
}

func ci(s Stat) string {
	if math.IsNaN(s.Mean) {
		return "-"
	}
	return fmt.Sprintf("%.1f ± %.1f", s.Mean, s.CI95)
}

// WriteCSV writes one line per configuration.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"scenario", "policy", "features", "tunables", "params", "cpus", "duration", "runs", "failed", "metric",
		"avg_us", "avg_ci95", "p99_us", "p99_ci95", "max_us", "max_ci95"})
	for _, r := range t.Rows {
		c := r.Config
		var tun, par []string
		for _, k := range sortedKeys(c.Tunables) {
			tun = append(tun, fmt.Sprintf("%s=%d", k, c.Tunables[k]))
		}
		for _, k := range sortedKeys(c.Params) {
			par = append(par, k+"="+c.Params[k])
		}
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
		cw.Write([]string{c.Scenario, c.Policy, strings.Join(c.Features, " "), strings.Join(tun, " "), strings.Join(par, " "),
			strconv.Itoa(c.CPUs), c.Duration, strconv.Itoa(r.Runs), strconv.Itoa(r.Failed), r.Metric,
			f(r.Avg.Mean), f(r.Avg.CI95), f(r.P99.Mean), f(r.P99.CI95), f(r.Max.Mean), f(r.Max.CI95)})
	}
	cw.Flush()
	return cw.Error()
}
