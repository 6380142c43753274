package workload

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"schedlab/workload/jsonc"
)

// Built-in scenarios live in scenarios/: NAME.json is a fixed scenario;
// NAME.json.tmpl is a parametric one, a text/template whose first action is
// a comment that declares its parameters:
//
//	{{- /*
//	# free text
//	param  N        int    10     1..1024      job slots, as in make -jN
//	param  sigma    float  1      0..10        σ of the burst length
//	include make-jN
//	list   make-j5 make-j10
//	*/ -}}
//
// A "param" line gives the name (a JSON-safe identifier), the kind (int or
// float), the default, the inclusive range lo..hi and a one-line doc.
// "include T" declares template T's parameters here too (for a scenario
// that uses T's {{define}}d parts). If the template's name ends with an
// upper-case int parameter (make-jN), every name with digits in its place
// (make-j5, make-j16) renders the template with that value; "list" names
// the instances `schedlab scenarios` shows. Every template is parsed into
// one set, so a file can {{template}} parts another file {{define}}s. The
// data of a rendering maps each parameter to its value (int64 or float64)
// and "rendered_from" to a JSON object recording the template and the
// values, which the template writes as the top-level key of that name.

//go:embed scenarios/*.json scenarios/*.json.tmpl
var builtin embed.FS

// Param is one parameter of a parametric built-in scenario.
type Param struct {
	Name string
	Kind string // "int" or "float"
	// Default is the value used when none is given, as written; for a
	// parameter that a scenario's name sets (N of make-j5) it is that value.
	Default  string
	Min, Max float64 // inclusive range
	Doc      string
}

// ScenarioInfo names a built-in scenario and says what it is.
type ScenarioInfo struct {
	Name        string
	Description string
	// Template is the template a parametric scenario renders ("make-jN"),
	// "" for a fixed one. NameParam is the parameter its name sets ("N"),
	// if any.
	Template, NameParam string
	Params              []Param
}

// tmpl is a parametric scenario's template.
type tmpl struct {
	name      string
	own       []Param // declared in the file
	params    []Param // own and included, in declaration order
	includes  []string
	list      []string
	nameParam string // the upper-case int parameter the name ends with
	prefix    string // the name without it ("make-j")
}

func (t *tmpl) param(name string) *Param {
	for i := range t.params {
		if t.params[i].Name == name {
			return &t.params[i]
		}
	}
	return nil
}

func (t *tmpl) paramNames() string {
	n := make([]string, len(t.params))
	for i, p := range t.params {
		n[i] = p.Name
	}
	return strings.Join(n, ", ")
}

// pattern is how a parametric name is written in lists: make-jN, or the
// template's name.
func (t *tmpl) pattern() string {
	if t.nameParam == "" {
		return t.name
	}
	p := t.param(t.nameParam)
	return fmt.Sprintf("%s (any %s in %s..%s)", t.name, t.nameParam, num(p.Min), num(p.Max))
}

type library struct {
	fixed map[string][]byte
	tmpls map[string]*tmpl
	names []string // template names, sorted
	set   *template.Template
}

var loadLibrary = sync.OnceValues(func() (*library, error) { return newLibrary(builtin) })

// newLibrary reads the scenarios/ directory of fsys.
func newLibrary(fsys fs.FS) (*library, error) {
	l := &library{fixed: map[string][]byte{}, tmpls: map[string]*tmpl{},
		set: template.New("").Option("missingkey=error").Funcs(templateFuncs)}
	entries, err := fs.ReadDir(fsys, "scenarios")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		data, err := fs.ReadFile(fsys, "scenarios/"+e.Name())
		if err != nil {
			return nil, err
		}
		switch name := e.Name(); {
		case strings.HasSuffix(name, ".json.tmpl"):
			name = strings.TrimSuffix(name, ".json.tmpl")
			t, err := parseHeader(name, string(data))
			if err != nil {
				return nil, err
			}
			if _, err := l.set.New(name).Parse(string(data)); err != nil {
				return nil, fmt.Errorf("scenario template %s: %w", name, err)
			}
			l.tmpls[name] = t
			l.names = append(l.names, name)
		case strings.HasSuffix(name, ".json"):
			l.fixed[strings.TrimSuffix(name, ".json")] = data
		}
	}
	sort.Strings(l.names)
	for _, name := range l.names {
		if err := l.resolveIncludes(l.tmpls[name], map[string]bool{}); err != nil {
			return nil, err
		}
	}
	seen := map[string]string{}
	for n := range l.fixed {
		seen[n] = "the fixed scenario"
	}
	for _, name := range l.names {
		t := l.tmpls[name]
		for _, p := range t.params {
			if strings.HasSuffix(name, p.Name) && p.Kind == "int" && p.Name == strings.ToUpper(p.Name) && len(name) > len(p.Name) {
				t.nameParam, t.prefix = p.Name, strings.TrimSuffix(name, p.Name)
			}
		}
	}
	for _, name := range l.names {
		t := l.tmpls[name]
		if t.nameParam != "" && len(t.list) == 0 {
			return nil, fmt.Errorf("scenario template %s: its name takes %s, so it needs a \"list\" line naming the instances to show", name, t.nameParam)
		}
		shown := t.list
		if t.nameParam == "" {
			shown = append([]string{name}, shown...)
		}
		for _, s := range shown {
			if r, _, ok := l.resolve(s); !ok || r != t {
				return nil, fmt.Errorf("scenario template %s lists %q, which does not name it", name, s)
			}
			if other, dup := seen[s]; dup {
				return nil, fmt.Errorf("scenario %q is both %s and template %s", s, other, name)
			}
			seen[s] = "template " + name
		}
	}
	return l, nil
}

// parseHeader reads the parameter declarations of a template.
func parseHeader(name, text string) (*tmpl, error) {
	t := &tmpl{name: name}
	errf := func(format string, a ...any) error {
		return fmt.Errorf("scenario template %s: %s", name, fmt.Sprintf(format, a...))
	}
	body := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(text, "{{"), "-"), " ")
	if !strings.HasPrefix(body, "/*") {
		return nil, errf("must begin with a {{/* … */}} comment declaring its parameters")
	}
	end := strings.Index(body, "*/")
	if end < 0 {
		return nil, errf("unterminated header comment")
	}
	for i, line := range strings.Split(body[2:end], "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "param":
			if len(f) < 6 {
				return nil, errf("header line %d: want \"param NAME int|float DEFAULT LO..HI doc\"", i+1)
			}
			p := Param{Name: f[1], Kind: f[2], Default: f[3], Doc: strings.Join(f[5:], " ")}
			if !validParamName(p.Name) {
				return nil, errf("parameter name %q must be a letter then letters, digits or _", p.Name)
			}
			lo, hi, ok := strings.Cut(f[4], "..")
			var err1, err2 error
			p.Min, err1 = strconv.ParseFloat(lo, 64)
			p.Max, err2 = strconv.ParseFloat(hi, 64)
			if !ok || err1 != nil || err2 != nil || p.Min > p.Max {
				return nil, errf("parameter %s: range %q is not LO..HI", p.Name, f[4])
			}
			if _, err := p.parse(p.Default); err != nil {
				return nil, errf("parameter %s: default: %v", p.Name, err)
			}
			for _, q := range t.own {
				if q.Name == p.Name {
					return nil, errf("parameter %s declared twice", p.Name)
				}
			}
			t.own = append(t.own, p)
		case "include":
			t.includes = append(t.includes, f[1:]...)
		case "list":
			t.list = append(t.list, f[1:]...)
		default:
			return nil, errf("header line %d: unknown directive %q (valid: param, include, list, # comment)", i+1, f[0])
		}
	}
	return t, nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func validParamName(s string) bool {
	if s == "" || s == "rendered_from" {
		return false
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || (c != '_' && (c < '0' || c > '9'))) {
			return false
		}
	}
	return true
}

// resolveIncludes fills t.params: the included templates' parameters, then
// its own.
func (l *library) resolveIncludes(t *tmpl, visiting map[string]bool) error {
	if t.params != nil {
		return nil
	}
	if visiting[t.name] {
		return fmt.Errorf("scenario template %s includes itself", t.name)
	}
	visiting[t.name] = true
	var ps []Param
	add := func(p Param) error {
		for _, q := range ps {
			if q.Name == p.Name {
				if q != p {
					return fmt.Errorf("scenario template %s: parameter %s is declared differently by two templates", t.name, p.Name)
				}
				return nil
			}
		}
		ps = append(ps, p)
		return nil
	}
	for _, inc := range t.includes {
		it := l.tmpls[inc]
		if it == nil {
			return fmt.Errorf("scenario template %s includes unknown template %q", t.name, inc)
		}
		if err := l.resolveIncludes(it, visiting); err != nil {
			return err
		}
		for _, p := range it.params {
			if err := add(p); err != nil {
				return err
			}
		}
	}
	for _, p := range t.own {
		if err := add(p); err != nil {
			return err
		}
	}
	t.params = append([]Param{}, ps...)
	return nil
}

// resolve finds the template a name renders and the value its name gives
// the name parameter ("" if none).
func (l *library) resolve(name string) (*tmpl, string, bool) {
	if t := l.tmpls[name]; t != nil {
		return t, "", true
	}
	for _, n := range l.names {
		t := l.tmpls[n]
		if t.nameParam == "" {
			continue
		}
		rest, ok := strings.CutPrefix(name, t.prefix)
		if ok && rest != "" && strings.Trim(rest, "0123456789") == "" && (rest[0] != '0' || rest == "0") {
			return t, rest, true
		}
	}
	return nil, "", false
}

// parse checks a value of p and returns it as int64 or float64.
func (p *Param) parse(s string) (any, error) {
	switch p.Kind {
	case "int":
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || float64(n) < p.Min || float64(n) > p.Max {
			return nil, fmt.Errorf("%s=%q: want an integer in [%s, %s]", p.Name, s, num(p.Min), num(p.Max))
		}
		return n, nil
	case "float":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || f < p.Min || f > p.Max {
			return nil, fmt.Errorf("%s=%q: want a number in [%s, %s]", p.Name, s, num(p.Min), num(p.Max))
		}
		return f, nil
	}
	return nil, fmt.Errorf("%s: unknown kind %q (valid: int, float)", p.Name, p.Kind)
}

// values resolves a rendering's parameter values: the defaults, the name's
// value, then params.
func (t *tmpl) values(display, nameVal string, params map[string]string) (map[string]any, error) {
	vals := map[string]any{}
	for i := range t.params {
		v, err := t.params[i].parse(t.params[i].Default)
		if err != nil {
			return nil, err
		}
		vals[t.params[i].Name] = v
	}
	if nameVal != "" {
		v, err := t.param(t.nameParam).parse(nameVal)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: parameter %v, from the name %s (valid: %s)", display, err, t.pattern(), t.paramNames())
		}
		vals[t.nameParam] = v
	}
	for _, k := range sortedParamKeys(params) {
		p := t.param(k)
		switch {
		case p == nil:
			return nil, fmt.Errorf("scenario %s: unknown parameter %q (valid: %s)", display, k, t.paramNames())
		case k == t.nameParam && nameVal != "":
			return nil, fmt.Errorf("scenario %s: parameter %s is set by the name (%s%s); name another instance instead (valid: %s)", display, k, t.prefix, nameVal, t.paramNames())
		}
		v, err := p.parse(params[k])
		if err != nil {
			return nil, fmt.Errorf("scenario %s: parameter %v (valid: %s)", display, err, t.paramNames())
		}
		vals[k] = v
	}
	return vals, nil
}

func sortedParamKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// render executes t with vals.
func (l *library) render(t *tmpl, vals map[string]any) ([]byte, error) {
	var rf strings.Builder
	fmt.Fprintf(&rf, "{\n    \"template\": %q,\n    \"params\": {", t.name)
	for i, p := range t.params {
		if i > 0 {
			rf.WriteByte(',')
		}
		fmt.Fprintf(&rf, "\n      %q: %v", p.Name, vals[p.Name])
	}
	rf.WriteString("\n    }\n  }")
	data := make(map[string]any, len(vals)+1)
	for k, v := range vals {
		data[k] = v
	}
	data["rendered_from"] = rf.String()
	var out bytes.Buffer
	if err := l.set.ExecuteTemplate(&out, t.name, data); err != nil {
		return nil, fmt.Errorf("scenario template %s: %w", t.name, err)
	}
	return out.Bytes(), nil
}

// templateFuncs are the functions templates may call, on int64 values
// (parameters of kind int and integer constants) unless said otherwise.
var templateFuncs = template.FuncMap{
	"add": func(a, b int64) int64 { return a + b },
	"sub": func(a, b int64) int64 { return a - b },
	"mul": func(a, b int64) int64 { return a * b },
	"div": func(a, b int64) (int64, error) {
		if b == 0 {
			return 0, errors.New("division by zero")
		}
		return a / b, nil
	},
	// seq is 0, 1, …, n−1: a template writes one definition per job slot
	// with it, where tasks must name each other (a child waking its
	// parent by name).
	"seq": func(n int64) []int64 {
		out := make([]int64, max(0, n))
		for i := range out {
			out[i] = int64(i)
		}
		return out
	},
	// bursts is how many lognormal bursts of the given median (µs) and σ
	// make total µs of CPU on average: round(total / (median·e^(σ²/2))),
	// at least 1 (the mean of a lognormal is median·e^(σ²/2)).
	"bursts": func(total, median int64, sigma float64) int64 {
		if median <= 0 {
			return 1
		}
		n := math.Round(float64(total) / (float64(median) * math.Exp(sigma*sigma/2)))
		return int64(max(1, min(n, 1e9)))
	},
}

// TemplateInfo describes the template of parametric scenarios.
type TemplateInfo struct {
	Name string // "make-jN"
	// NameParam is the parameter the names set ("N": make-j5 is N=5),
	// "" if the template's own name is the scenario's.
	NameParam string
	Listed    []string // the names Scenarios lists
	Params    []Param  // with the template's defaults
}

// Templates lists the parametric scenarios' templates by name.
func Templates() []TemplateInfo {
	l, err := loadLibrary()
	if err != nil {
		return nil
	}
	var out []TemplateInfo
	for _, tn := range l.names {
		t := l.tmpls[tn]
		listed := t.list
		if t.nameParam == "" {
			listed = append([]string{tn}, listed...)
		}
		out = append(out, TemplateInfo{Name: tn, NameParam: t.nameParam, Listed: append([]string{}, listed...),
			Params: append([]Param{}, t.params...)})
	}
	return out
}

// Scenarios lists the built-in scenarios by name: the fixed ones and the
// listed instances of the parametric ones, with their parameters'
// defaults.
func Scenarios() []ScenarioInfo {
	l, err := loadLibrary()
	if err != nil {
		return nil
	}
	var out []ScenarioInfo
	for name, data := range l.fixed {
		out = append(out, ScenarioInfo{Name: name, Description: description(data)})
	}
	for _, tn := range l.names {
		t := l.tmpls[tn]
		names := t.list
		if t.nameParam == "" {
			names = append([]string{tn}, names...)
		}
		for _, n := range names {
			_, nameVal, _ := l.resolve(n)
			info := ScenarioInfo{Name: n, Template: tn, Params: append([]Param{}, t.params...)}
			if nameVal != "" {
				info.NameParam = t.nameParam
				for i := range info.Params {
					if info.Params[i].Name == t.nameParam {
						info.Params[i].Default = nameVal
					}
				}
			}
			if data, err := Scenario(n, nil); err == nil {
				info.Description = description(data)
			}
			out = append(out, info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return naturalLess(out[i].Name, out[j].Name) })
	return out
}

func description(data []byte) string {
	if v, err := jsonc.Parse(data); err == nil {
		if d := v.Get("description"); d != nil {
			return d.Str
		}
	}
	return ""
}

// naturalLess orders names with numbers in them numerically: make-j5
// before make-j10.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da != "" && db != "" {
			na, _ := strconv.ParseUint(da, 10, 64)
			nb, _ := strconv.ParseUint(db, 10, 64)
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitsPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

func scenarioNames() string {
	l, err := loadLibrary()
	if err != nil {
		return err.Error()
	}
	var n []string
	for _, s := range Scenarios() {
		n = append(n, s.Name)
	}
	var pats []string
	for _, tn := range l.names {
		if t := l.tmpls[tn]; t.nameParam != "" {
			pats = append(pats, t.pattern())
		}
	}
	s := strings.Join(n, ", ")
	if len(pats) > 0 {
		s += "; parametric: " + strings.Join(pats, ", ")
	}
	return s
}

// Scenario returns a built-in scenario's JSON: a fixed scenario as
// shipped, or a parametric one rendered with params (name → value) over
// its defaults. An unknown name, an unknown parameter or a bad value is an
// error that lists the valid ones.
func Scenario(name string, params map[string]string) ([]byte, error) {
	l, err := loadLibrary()
	if err != nil {
		return nil, err
	}
	if data, ok := l.fixed[name]; ok {
		if len(params) > 0 {
			return nil, fmt.Errorf("scenario %s takes no parameters (parameter %q given)", name, sortedParamKeys(params)[0])
		}
		return data, nil
	}
	t, nameVal, ok := l.resolve(name)
	if !ok {
		if err := renamedScenario(name); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("no built-in scenario %q (built-ins: %s)", name, scenarioNames())
	}
	vals, err := t.values(name, nameVal, params)
	if err != nil {
		return nil, err
	}
	return l.render(t, vals)
}

// renamed are the parametric scenarios that were renamed, by old prefix:
// the process-level build kbuild-jN became make-jN when it was shown to
// match a real gcc build (EXPERIMENTS.md, "Two loads"), and the chain
// model that had been make-jN is calibrated-make-jN. Only kbuild-jN's
// names no longer exist; the old make-jN names now give the other model,
// which the scenarios' descriptions say.
var renamed = []struct{ old, now string }{
	{"wakeup-latency-kbuild-j", "wakeup-latency-make-j"},
	{"kbuild-j", "make-j"},
}

// renamedScenario is the error for a name that was renamed, nil for any
// other name.
func renamedScenario(name string) error {
	for _, r := range renamed {
		if n, ok := strings.CutPrefix(name, r.old); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			cal := strings.Replace(r.now, "make-j", "calibrated-make-j", 1)
			return fmt.Errorf("scenario %q was renamed: the process-level build is now %s%s (the chain model that was make-j%s, which reproduce calibrates, is %s%s)",
				name, r.now, n, n, cal, n)
		}
	}
	return nil
}

// readFile reads a workload file, but never more of it than MaxFileSize
// and a byte: a file over the limit, or one without end such as
// /dev/zero, is refused before it fills the memory.
func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooBig := func(size string) error {
		return &Error{File: name, Msg: fmt.Sprintf("%s bytes: a workload file is at most %d bytes (%d MiB)", size, MaxFileSize, MaxFileSize>>20)}
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileSize {
		return nil, tooBig(strconv.FormatInt(st.Size(), 10))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, tooBig(fmt.Sprintf("more than %d", MaxFileSize))
	}
	return data, nil
}

// Load reads a workload given on the command line: a file if arg names one
// (or ends in .json), otherwise a built-in scenario rendered with params.
// name is what reports call it: the argument, followed by the parameters
// given, if any ("make-j10 exec_us=500").
func Load(arg string, params map[string]string) (spec *Spec, name string, err error) {
	return LoadWith(arg, params, ReadOptions{})
}

// LoadWith is Load with options for reading the file.
func LoadWith(arg string, params map[string]string, opts ReadOptions) (spec *Spec, name string, err error) {
	data, ferr := readFile(arg)
	var tooBig *Error
	switch {
	case errors.As(ferr, &tooBig):
		return nil, "", ferr
	case ferr == nil:
		name = arg
		if len(params) > 0 {
			return nil, "", fmt.Errorf("parameters (%s) apply to built-in scenarios, and %s is a file", sortedParamKeys(params)[0], arg)
		}
	case strings.HasSuffix(arg, ".json") || strings.ContainsRune(arg, os.PathSeparator) || !errors.Is(ferr, fs.ErrNotExist):
		return nil, "", fmt.Errorf("cannot read workload %s: %w", arg, errors.Unwrap(ferr))
	default:
		if data, err = Scenario(arg, params); err != nil {
			if strings.HasPrefix(err.Error(), "no built-in scenario") {
				return nil, "", fmt.Errorf("no file or built-in scenario named %q (built-ins: %s)", arg, scenarioNames())
			}
			return nil, "", err
		}
		name = arg
		for _, k := range sortedParamKeys(params) {
			name += " " + k + "=" + strings.TrimSpace(params[k])
		}
	}
	spec, err = ParseWith(name, data, opts)
	if err != nil {
		return nil, "", err
	}
	spec.Name = name
	return spec, name, nil
}
