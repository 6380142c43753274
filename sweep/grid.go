// Package sweep runs grids of simulations: the product of scenarios,
// policies, feature sets, tunable values, scenario parameters, CPU counts
// and seeds. Each run's result is a file named by a hash of its inputs, so
// an interrupted sweep resumes where it stopped and N shards on N machines
// (Kubernetes Indexed Jobs, Slurm job arrays) fill one directory that Merge
// turns into one table: per configuration, the mean and 95 % confidence
// interval over seeds.
package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"schedlab/internal/buildinfo"
	"schedlab/lab"
	"schedlab/workload"
)

// Grid is a sweep file. Every list multiplies the runs; an absent list
// means the one default value (the default policy, no features, …).
type Grid struct {
	Scenarios []string           `json:"scenarios"`
	Policies  []string           `json:"policies"`
	Features  [][]string         `json:"features"`
	Tunables  map[string][]int64 `json:"tunables"`
	Params    map[string][]any   `json:"params"`
	CPUs      []int              `json:"cpus"`
	Seeds     []uint64           `json:"seeds"`
	Duration  string             `json:"duration"`

	hashMu sync.Mutex
	hashes map[string]string // workload file hashes, by scenario
}

// Point is one run of a grid: everything that determines its result.
type Point struct {
	Scenario string            `json:"scenario"`
	Policy   string            `json:"policy"`
	Features []string          `json:"features"`
	Tunables map[string]int64  `json:"tunables"`
	Params   map[string]string `json:"params"`
	CPUs     int               `json:"cpus"`
	Duration string            `json:"duration"`
	Seed     uint64            `json:"seed"`
	// Workload is a hash of a workload file's bytes, so that an edited
	// file is not mistaken for the one already run; empty for built-ins.
	Workload string `json:"workload,omitempty"`
	// Schedlab is the build that ran it (buildinfo.ID), so that results of
	// an older build never stand in for this one's.
	Schedlab string `json:"schedlab,omitempty"`
}

// Key names the point's result file: a hash of its canonical JSON
// (encoding/json writes map keys sorted, so equal points hash equally).
func (p Point) Key() string {
	b, _ := json.Marshal(p)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// String names the run for a person: scenario, policy, and what the grid
// set.
func (p Point) String() string {
	parts := []string{p.Scenario}
	if p.Policy != "" {
		parts = append(parts, p.Policy)
	}
	if len(p.Features) > 0 {
		parts = append(parts, strings.Join(p.Features, ","))
	}
	for _, k := range sortedKeys(p.Tunables) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, p.Tunables[k]))
	}
	for _, k := range sortedKeys(p.Params) {
		parts = append(parts, k+"="+p.Params[k])
	}
	return strings.Join(append(parts, fmt.Sprintf("cpus=%d", p.CPUs), fmt.Sprintf("seed=%d", p.Seed)), " ")
}

// Config is the point without its seed: the rows of a merged table.
func (p Point) Config() Point {
	p.Seed = 0
	return p
}

// ParseGrid reads a grid file, with errors that name the file and the
// offending key or position.
func ParseGrid(name string, data []byte) (*Grid, error) {
	var g Grid
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			l, c := lineCol(data, se.Offset)
			return nil, fmt.Errorf("%s:%d:%d: malformed JSON: %v", name, l, c, se)
		case errors.As(err, &te):
			l, c := lineCol(data, te.Offset)
			return nil, fmt.Errorf("%s:%d:%d: key %q: want %v, got a JSON %s", name, l, c, te.Field, te.Type, te.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return nil, fmt.Errorf("%s: %s (valid: scenarios, policies, features, tunables, params, cpus, seeds, duration)", name, strings.TrimPrefix(err.Error(), "json: "))
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		l, c := lineCol(data, dec.InputOffset())
		return nil, fmt.Errorf("%s:%d:%d: data after the grid's closing brace", name, l, c)
	}
	if len(g.Scenarios) == 0 {
		return nil, fmt.Errorf("%s: \"scenarios\" must list at least one scenario or workload file", name)
	}
	for k, vs := range g.Tunables {
		if len(vs) == 0 {
			return nil, fmt.Errorf("%s: tunables.%s lists no values", name, k)
		}
	}
	for k, vs := range g.Params {
		if len(vs) == 0 {
			return nil, fmt.Errorf("%s: params.%s lists no values", name, k)
		}
	}
	for _, c := range g.CPUs {
		if c < 1 || c > lab.MaxCPUs {
			return nil, fmt.Errorf("%s: cpus: %d is not 1 to %d", name, c, lab.MaxCPUs)
		}
	}
	if _, err := g.Len(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &g, nil
}

// check refuses what would make every run of an axis fail: an unknown
// policy, feature, tunable, scenario or parameter, a bad value or
// duration. Each value is checked once, against every policy, not each
// combination.
func (g *Grid) check() error {
	policies := g.Policies
	if len(policies) == 0 {
		policies = []string{""}
	}
	for _, pol := range policies {
		if err := lab.CheckFeatures(pol, nil); err != nil {
			return fmt.Errorf("policies: %w", err)
		}
		for _, fs := range g.Features {
			if err := lab.CheckFeatures(pol, fs); err != nil {
				return fmt.Errorf("features %v: %w", fs, err)
			}
		}
		for _, k := range sortedKeys(g.Tunables) {
			for _, v := range g.Tunables[k] {
				if err := lab.CheckTunable(pol, k, v); err != nil {
					return fmt.Errorf("tunables.%s: %w", k, err)
				}
			}
		}
	}
	for _, sc := range g.Scenarios {
		if _, _, err := workload.Load(sc, nil); err != nil && len(g.Params) == 0 {
			return fmt.Errorf("scenarios: %w", err)
		}
		for _, k := range sortedKeys(g.Params) {
			for _, v := range g.Params[k] {
				if _, _, err := workload.Load(sc, map[string]string{k: fmt.Sprint(v)}); err != nil {
					return fmt.Errorf("params.%s=%v for %s: %w", k, v, sc, err)
				}
			}
		}
	}
	if g.Duration != "" {
		if _, err := lab.ParseDuration(g.Duration); err != nil {
			return fmt.Errorf("duration: %w", err)
		}
	}
	return nil
}

// LoadGrid reads and parses a grid file.
func LoadGrid(path string) (*Grid, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read grid %s: %w", path, errors.Unwrap(err))
	}
	return ParseGrid(path, data)
}

func lineCol(data []byte, off int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// MaxRuns bounds a grid: a sweep of more runs is a mistake in its file
// (or an attack on the machine), and even counting its points one by one
// would take longer than the runs a person meant.
const MaxRuns = 10_000_000

// dim is one axis of a grid: its name and how many values it has.
type dim struct {
	name string
	n    int
}

// dims lists the grid's axes in enumeration order, slowest first:
// scenarios, policies, features, tunables by name, parameters by name,
// CPUs, seeds. An absent list is one default value.
func (g *Grid) dims() []dim {
	or1 := func(n int) int { return max(n, 1) }
	d := []dim{{"scenarios", len(g.Scenarios)}, {"policies", or1(len(g.Policies))}, {"features", or1(len(g.Features))}}
	for _, k := range sortedKeys(g.Tunables) {
		d = append(d, dim{"tunables." + k, len(g.Tunables[k])})
	}
	for _, k := range sortedKeys(g.Params) {
		d = append(d, dim{"params." + k, len(g.Params[k])})
	}
	return append(d, dim{"cpus", or1(len(g.CPUs))}, dim{"seeds", or1(len(g.Seeds))})
}

// Len is the number of runs in the grid, or an error naming the axes when
// it exceeds MaxRuns.
func (g *Grid) Len() (int, error) {
	n := 1
	var parts []string
	over := false
	for _, d := range g.dims() {
		parts = append(parts, fmt.Sprintf("%s %d", d.name, d.n))
		if d.n > 0 && n > MaxRuns/d.n {
			over = true
		}
		n *= d.n
		if over {
			n = MaxRuns + 1
		}
	}
	if n > MaxRuns {
		return 0, fmt.Errorf("the grid has more than %d runs (%s multiply): split it into smaller grids", MaxRuns, strings.Join(parts, " × "))
	}
	return n, nil
}

// Point is run i of the grid (0 ≤ i < Len), computed from i alone as a
// number whose digits are the axes, so that shard k of n picks its runs
// without expanding the grid, and every machine numbers them alike.
func (g *Grid) Point(i int) Point {
	ds := g.dims()
	idx := make([]int, len(ds))
	for k := len(ds) - 1; k >= 0; k-- {
		idx[k] = i % ds[k].n
		i /= ds[k].n
	}
	next := func() int { v := idx[0]; idx = idx[1:]; return v }
	p := Point{Scenario: g.Scenarios[next()], Duration: g.Duration, Tunables: map[string]int64{}, Params: map[string]string{}}
	if k := next(); len(g.Policies) > 0 {
		p.Policy = g.Policies[k]
	}
	if k := next(); len(g.Features) > 0 {
		p.Features = append([]string{}, g.Features[k]...)
	} else {
		p.Features = []string{}
	}
	for _, k := range sortedKeys(g.Tunables) {
		p.Tunables[k] = g.Tunables[k][next()]
	}
	for _, k := range sortedKeys(g.Params) {
		p.Params[k] = fmt.Sprint(g.Params[k][next()])
	}
	p.CPUs = 1
	if k := next(); len(g.CPUs) > 0 {
		p.CPUs = g.CPUs[k]
	}
	p.Seed = 1
	if k := next(); len(g.Seeds) > 0 {
		p.Seed = g.Seeds[k]
	}
	p.Workload = g.workloadHash(p.Scenario)
	p.Schedlab = buildinfo.ID()
	return p
}

// Points expands the whole grid, for small grids and tests.
func (g *Grid) Points() []Point {
	n, err := g.Len()
	if err != nil {
		return nil
	}
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = g.Point(i)
	}
	return pts
}

// workloadHash is the hash of a workload file's bytes, read once per
// scenario; "" for a built-in name.
func (g *Grid) workloadHash(sc string) string {
	g.hashMu.Lock()
	defer g.hashMu.Unlock()
	if h, ok := g.hashes[sc]; ok {
		return h
	}
	if g.hashes == nil {
		g.hashes = map[string]string{}
	}
	g.hashes[sc] = fileHash(sc)
	return g.hashes[sc]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fileHash is the hash of a workload file's bytes, "" for a built-in name.
func fileHash(arg string) string {
	data, err := os.ReadFile(arg)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:8])
}
