package vm

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// aptSource is one "deb" entry of the machine's apt sources: an archive
// and the suites it serves.
type aptSource struct {
	URI      string
	Suites   []string
	SignedBy string
}

// aptConfigRoot is where the machine's apt sources are read (a variable
// for the tests).
var aptConfigRoot = "/etc/apt"

// machineSources reads the deb entries of the machine's sources.list and
// sources.list.d (one-line *.list and deb822 *.sources files), as apt
// reads them: other names in sources.list.d are ignored.
func machineSources() ([]aptSource, error) {
	var out []aptSource
	files := []string{filepath.Join(aptConfigRoot, "sources.list")}
	parts, _ := filepath.Glob(filepath.Join(aptConfigRoot, "sources.list.d", "*"))
	slices.Sort(parts)
	files = append(files, parts...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		switch {
		case strings.HasSuffix(f, ".sources"):
			out = append(out, parseDeb822(string(b))...)
		case strings.HasSuffix(f, ".list"):
			out = append(out, parseOneLine(string(b))...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no deb entries in %s/sources.list or %s/sources.list.d", aptConfigRoot, aptConfigRoot)
	}
	return out, nil
}

// parseOneLine reads the one-line format: deb [options] uri suite comp...
func parseOneLine(text string) []aptSource {
	var out []aptSource
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "deb" {
			continue
		}
		s := aptSource{}
		f = f[1:]
		if strings.HasPrefix(f[0], "[") {
			// Options run to the closing bracket, which may be a field
			// of its own or end one.
			for len(f) > 0 {
				opt := strings.Trim(f[0], "[]")
				end := strings.HasSuffix(f[0], "]")
				f = f[1:]
				if k, v, ok := strings.Cut(opt, "="); ok && strings.EqualFold(k, "signed-by") {
					s.SignedBy = v
				}
				if end {
					break
				}
			}
		}
		if len(f) < 2 {
			continue
		}
		s.URI, s.Suites = f[0], []string{f[1]}
		out = append(out, s)
	}
	return out
}

// parseDeb822 reads the deb822 format: stanzas of Key: value fields.
func parseDeb822(text string) []aptSource {
	var out []aptSource
	for _, stanza := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n\n") {
		fields := map[string]string{}
		var last string
		for _, line := range strings.Split(stanza, "\n") {
			if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
				continue
			}
			if line[0] == ' ' || line[0] == '\t' { // a continuation (inline keys)
				if last != "" {
					fields[last] += "\n" + line
				}
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			last = strings.ToLower(strings.TrimSpace(k))
			fields[last] = strings.TrimSpace(v)
		}
		if !slices.Contains(strings.Fields(fields["types"]), "deb") || strings.EqualFold(fields["enabled"], "no") {
			continue
		}
		signed := fields["signed-by"]
		if strings.Contains(signed, "\n") { // an inline key, not a path
			signed = ""
		}
		for _, uri := range strings.Fields(fields["uris"]) {
			out = append(out, aptSource{URI: uri, Suites: strings.Fields(fields["suites"]), SignedBy: signed})
		}
	}
	return out
}

// machineCodename is the machine's Debian release (VERSION_CODENAME).
func machineCodename() (string, error) {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return "", fmt.Errorf("cannot tell the machine's Debian release: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VERSION_CODENAME="); ok && strings.Trim(v, `"' `) != "" {
			return strings.Trim(v, `"' `), nil
		}
	}
	return "", errors.New("cannot tell the machine's Debian release: no VERSION_CODENAME in /etc/os-release")
}

// derivedSources writes the apt sources of suites (each a codename and a
// suffix such as "-security") from the machine's own: a suite goes to the
// archive that serves the machine's suite of the same suffix, or, when the
// machine has none (backports, unstable), the archive of its main suite.
// No archive's name is written into the project: they all come from the
// machine's configuration.
func derivedSources(machine []aptSource, codename string, suites []suite) (string, error) {
	find := func(suffix string) *aptSource {
		for i, s := range machine {
			if slices.Contains(s.Suites, codename+suffix) {
				return &machine[i]
			}
		}
		return nil
	}
	main := find("")
	if main == nil {
		return "", fmt.Errorf("the machine's apt sources (%s/sources.list*) have no entry for its own suite %s: no Debian archive to fetch kernels from", aptConfigRoot, codename)
	}
	var b strings.Builder
	for _, su := range suites {
		src := find(su.suffix)
		if src == nil {
			if su.suffix == "-security" || su.suffix == "-updates" {
				continue // the machine does without; so does the kernel
			}
			src = main
		}
		opts := "targets=Packages"
		if src.SignedBy != "" {
			opts += " signed-by=" + src.SignedBy
		}
		fmt.Fprintf(&b, "deb [%s] %s %s main\n", opts, src.URI, su.name())
	}
	return b.String(), nil
}

// privateApt runs apt with its own sources, state and cache under dir,
// so that the machine's apt configuration and lists are neither used nor
// changed, and no root is needed.
type privateApt struct{ dir string }

func (a privateApt) opts() []string {
	d := a.dir
	o := []string{
		"-o", "Dir::State=" + filepath.Join(d, "state"),
		"-o", "Dir::State::status=" + filepath.Join(d, "state", "status"),
		"-o", "Dir::Cache=" + filepath.Join(d, "cache"),
		"-o", "Dir::Etc::SourceList=" + filepath.Join(d, "sources.list"),
		"-o", "Dir::Etc::SourceParts=" + filepath.Join(d, "sources.list.d"),
		"-o", "Dir::Etc::Preferences=" + filepath.Join(d, "preferences"),
		"-o", "Dir::Etc::PreferencesParts=" + filepath.Join(d, "preferences.d"),
		"-o", "Acquire::Languages=none",
	}
	if os.Geteuid() == 0 {
		// As root apt drops to _apt for downloads, which cannot write
		// into root's private cache directory.
		o = append(o, "-o", "APT::Sandbox::User=root")
	}
	return o
}

func (a privateApt) setup(sources string) error {
	for _, d := range []string{"state/lists/partial", "cache/archives/partial", "sources.list.d", "preferences.d"} {
		if err := os.MkdirAll(filepath.Join(a.dir, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(a.dir, "state", "status"), nil, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(a.dir, "sources.list"), []byte(sources), 0o644)
}

// run runs apt-get or apt-cache with the private options, in dir (where
// apt-get download writes).
func (a privateApt) run(dir, tool string, args ...string) ([]byte, error) {
	cmd := exec.Command(tool, append(a.opts(), args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %v: %s", tool, strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	return out, nil
}

// record is one package's stanza from apt-cache show.
type record map[string]string

func parseRecord(b []byte) record {
	r := record{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if len(r) > 0 {
				break // the first (candidate) stanza only
			}
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok && line[0] != ' ' {
			r[k] = strings.TrimSpace(v)
		}
	}
	return r
}

// depends lists the first alternative of each dependency in a Depends
// field, without versions.
func depends(field string) []string {
	var out []string
	for _, d := range strings.Split(field, ",") {
		alt, _, _ := strings.Cut(d, "|")
		name, _, _ := strings.Cut(strings.TrimSpace(alt), " ")
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

// lastLines is the last n non-empty lines of s, joined by "; ".
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}
