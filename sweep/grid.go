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
	"os"
	"sort"
	"strings"
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
}

// Key names the point's result file: a hash of its canonical JSON
// (encoding/json writes map keys sorted, so equal points hash equally).
func (p Point) Key() string {
	b, _ := json.Marshal(p)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
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
		if c < 1 {
			return nil, fmt.Errorf("%s: cpus must be positive, got %d", name, c)
		}
	}
	return &g, nil
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

// Points expands the grid into its runs, in a fixed order (scenarios,
// policies, features, tunables by name, parameters by name, CPUs, seeds),
// so that shard i of n is the same set of runs on every machine.
func (g *Grid) Points() []Point {
	orOne := func(s []string, def string) []string {
		if len(s) == 0 {
			return []string{def}
		}
		return s
	}
	policies := orOne(g.Policies, "")
	features := g.Features
	if len(features) == 0 {
		features = [][]string{nil}
	}
	cpus := g.CPUs
	if len(cpus) == 0 {
		cpus = []int{1}
	}
	seeds := g.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{1}
	}
	tunables := product(sortedKeys(g.Tunables), func(k string) []string {
		var out []string
		for _, v := range g.Tunables[k] {
			out = append(out, fmt.Sprint(v))
		}
		return out
	})
	params := product(sortedKeys(g.Params), func(k string) []string {
		var out []string
		for _, v := range g.Params[k] {
			out = append(out, fmt.Sprint(v))
		}
		return out
	})
	var pts []Point
	for _, sc := range g.Scenarios {
		wl := fileHash(sc)
		for _, pol := range policies {
			for _, fs := range features {
				for _, tv := range tunables {
					for _, pv := range params {
						for _, c := range cpus {
							for _, s := range seeds {
								p := Point{Scenario: sc, Policy: pol, Features: append([]string{}, fs...), CPUs: c,
									Duration: g.Duration, Seed: s, Workload: wl}
								p.Tunables = map[string]int64{}
								for k, v := range tv {
									var n int64
									fmt.Sscan(v, &n)
									p.Tunables[k] = n
								}
								p.Params = pv
								pts = append(pts, p)
							}
						}
					}
				}
			}
		}
	}
	return pts
}

// product returns every combination of one value per key.
func product(keys []string, values func(string) []string) []map[string]string {
	out := []map[string]string{{}}
	for _, k := range keys {
		var next []map[string]string
		for _, m := range out {
			for _, v := range values(k) {
				n := map[string]string{k: v}
				for kk, vv := range m {
					n[kk] = vv
				}
				next = append(next, n)
			}
		}
		out = next
	}
	return out
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
