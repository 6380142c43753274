package workload

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"schedlab/workload/jsonc"
)

//go:embed scenarios/*.json
var builtin embed.FS

// ScenarioInfo names a built-in scenario and says what it is.
type ScenarioInfo struct {
	Name        string
	Description string
}

// Scenarios lists the built-in scenarios by name.
func Scenarios() []ScenarioInfo {
	entries, _ := fs.ReadDir(builtin, "scenarios")
	var out []ScenarioInfo
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".json")
		data, _ := Scenario(name)
		info := ScenarioInfo{Name: name}
		if v, err := jsonc.Parse(data); err == nil {
			if d := v.Get("description"); d != nil {
				info.Description = d.Str
			}
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func scenarioNames() string {
	var n []string
	for _, s := range Scenarios() {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// Scenario returns a built-in scenario's JSON as shipped.
func Scenario(name string) ([]byte, error) {
	data, err := builtin.ReadFile("scenarios/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("no built-in scenario %q (built-ins: %s)", name, scenarioNames())
	}
	return data, nil
}

// Load reads a workload given on the command line: a file if arg names one
// (or ends in .json), otherwise a built-in scenario. name is what reports
// call it.
func Load(arg string) (spec *Spec, name string, err error) {
	data, ferr := os.ReadFile(arg)
	switch {
	case ferr == nil:
		name = arg
	case strings.HasSuffix(arg, ".json") || strings.ContainsRune(arg, os.PathSeparator) || !errors.Is(ferr, fs.ErrNotExist):
		return nil, "", fmt.Errorf("cannot read workload %s: %w", arg, errors.Unwrap(ferr))
	default:
		if data, err = Scenario(arg); err != nil {
			return nil, "", fmt.Errorf("no file or built-in scenario named %q (built-ins: %s)", arg, scenarioNames())
		}
		name = arg
	}
	spec, err = Parse(name, data)
	if err != nil {
		return nil, "", err
	}
	spec.Name = name
	return spec, name, nil
}
