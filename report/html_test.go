package report_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"schedlab/lab"
	"schedlab/report"
	"schedlab/workload"

	"schedlab/internal/testskip"
)

// samplePage is a page with every kind of part: a simulated run on two
// CPUs (tables, CDFs, histograms, timeline) and a comparison (paper beside
// simulation, claims, bars with a missing and a negative figure).
func samplePage(t *testing.T) (*report.Page, int) {
	t.Helper()
	spec, name, err := workload.Load("wakeup-latency-calibrated-make-j5", nil)
	if err != nil {
		t.Fatal(err)
	}
	oc, err := lab.Simulate(lab.Request{Spec: spec, Name: name, CPUs: 2, Duration: 2 * time.Second, Seed: 1,
		Keep: lab.Keep{Samples: true, Timeline: 60 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	r, timer, wakeup, tl := oc.Report, oc.Timer, oc.Wakeup, oc.Timeline
	run := report.RunSection("wakeup-latency-calibrated-make-j5 <two CPUs>", r, report.RunFigures{Timer: timer, Wakeup: wakeup, Timeline: tl})
	v := func(x float64) *float64 { return &x }
	cmp := report.ComparisonSection(report.Comparison{
		ID: "demo", Title: "a comparison", RefName: "paper", SimName: "sim", Metrics: []string{"median", "avg"},
		Paragraphs: []string{"Seed x: a load & a measurer."},
		Rows: []report.ComparisonRow{
			{Config: "baseline", Ref: map[string]*float64{"median": v(4568.4), "avg": v(4000)}, Sim: map[string]*float64{"median": v(5000), "avg": v(2846.4)},
				Ratio: map[string]*float64{"avg": v(0.71)}, Figures: report.RunFigures{Timer: timer, Timeline: tl},
				Runs: map[string][]float64{"median": {4800, 5000, 5200}, "avg": {2700, 2846.4, 2992.8}}},
			{Config: "no-groups", Ref: map[string]*float64{"median": v(-82.4)}, Sim: map[string]*float64{"median": v(5), "avg": v(7)},
				Figures: report.RunFigures{Timer: wakeup, Timeline: tl}},
		},
		Claims:  []report.Claim{{Text: "avg: baseline > no-groups", Holds: true, Detail: "2846.4 > 7"}, {Text: "median < 0.5 ms", Holds: false}},
		Samples: "the samples of one run",
	})
	figures := len(run.Figures) + len(cmp.Figures)
	return &report.Page{Title: "schedlab test page", Subtitle: "every part", Sections: []report.Section{run, cmp}}, figures
}

// TestHTMLSelfContained: nothing in the page refers to anything outside
// it, and it has the parts it should.
func TestHTMLSelfContained(t *testing.T) {
	page, figures := samplePage(t)
	var b bytes.Buffer
	if err := report.WriteHTML(&b, page); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	// The only URL is the SVG namespace name, which is never fetched.
	rest := strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, u := range regexp.MustCompile(`(?i)(https?:|ftp:|//[a-z0-9.-]+\.[a-z]{2,}/)`).FindAllStringIndex(rest, -1) {
		t.Errorf("external reference: %.60q", rest[u[0]:])
	}
	for _, bad := range []string{"<link", "<img", "<iframe", "src=", "@import", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if got := strings.Count(s, "<figure class=\"chart"); got != figures {
		t.Errorf("%d figures, want %d", got, figures)
	}
	if got := strings.Count(s, "<svg "); got != figures {
		t.Errorf("%d svg elements, want %d", got, figures)
	}
	for _, want := range []string{"<title>schedlab test page</title>", "wakeup-latency-calibrated-make-j5 &lt;two CPUs&gt;", "a load &amp; a measurer",
		`<li class="holds">`, `<li class="fails">`, "paper median µs", "The first 60 ms, per CPU", "timer latency (callback start − timer expiry)",
		`<a href="#demo">`, "max delay start s"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestPageFigures: every axis of every figure of the page follows the
// charts' rules, the comparison's runs are on its bars and in its table,
// and its configurations' histograms are one figure on one scale.
func TestPageFigures(t *testing.T) {
	page, _ := samplePage(t)
	var hists []string
	for _, sec := range page.Sections {
		for _, f := range sec.Figures {
			report.CheckAxes(t, f.SVG)
			if strings.Contains(f.SVG, `class="chart hist"`) && strings.Contains(f.Name, "-hist") {
				hists = append(hists, f.SVG)
			}
		}
	}
	if len(hists) != 1 {
		t.Fatalf("%d comparison histogram figures, want one for both configurations", len(hists))
	}
	tops := regexp.MustCompile(`<g class="panel" data-ymax="([^"]*)">`).FindAllStringSubmatch(hists[0], -1)
	if len(tops) != 2 || tops[0][1] != tops[1][1] {
		t.Errorf("histogram panels' y maxima %v, want two, shared", tops)
	}
	var b bytes.Buffer
	report.WriteHTML(&b, page)
	for _, want := range []string{`<g class="runs" data-runs="3">`, "runs min–max", "4800–5200", "each dot is one run"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// chromium finds a headless browser, or says why the test cannot run.
func chromium(t *testing.T) string {
	t.Helper()
	testskip.Uncached()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testskip.Skip(t, "no chromium on PATH: the HTML report is not rendered here (.ci/setup installs Debian's chromium, so CI runs this test)")
	return ""
}

// runChromium runs headless Chromium with a fresh profile and no network
// features, and returns its stdout and stderr.
func runChromium(t *testing.T, bin string, args ...string) (string, string) {
	t.Helper()
	profile := t.TempDir()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// TestHTMLInChromium opens the report in headless Chromium: the page's own
// check must find every chart laid out and drawn, the DOM must hold the
// SVG charts, the console must stay silent, and a screenshot must come out.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	page, figures := samplePage(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := report.WriteHTML(&b, page); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + path

	dom, stderr := runChromium(t, bin, "--window-size=1400,1000", "--dump-dom", url)
	want := `data-check="ok: ` + strconv.Itoa(figures) + ` charts"`
	if !strings.Contains(dom, want) {
		m := regexp.MustCompile(`data-check="[^"]*"`).FindString(dom)
		t.Errorf("page check: %q, want %s", m, want)
	}
	if got := strings.Count(dom, "<svg "); got != figures {
		t.Errorf("DOM has %d svg elements, want %d", got, figures)
	}
	for _, kind := range []string{"chart tail", "chart hist", "chart bars", "chart timeline"} {
		if !strings.Contains(dom, `class="`+kind+`"`) {
			t.Errorf("DOM lacks a %s", kind)
		}
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console: %s", line)
		}
	}

	shot := filepath.Join(dir, "report.png")
	runChromium(t, bin, "--window-size=1400,2400", "--screenshot="+shot, url)
	fi, err := os.Stat(shot)
	if err != nil || fi.Size() < 20_000 {
		t.Errorf("screenshot: %v, %d bytes", err, fi.Size())
	}
	if keep := os.Getenv("SCHEDLAB_SCREENSHOT"); keep != "" {
		png, _ := os.ReadFile(shot)
		os.WriteFile(keep, png, 0o644)
	}
}
