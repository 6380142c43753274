package report

// A self-contained HTML report: one file, styles inline, every chart an
// inline SVG from svg.go, no request of any kind when it is viewed. A
// dozen lines of script check, when the page loads, that every chart
// rendered, and write the verdict into <body data-check=...> (the headless
// browser test reads it); the page works the same without them.

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"schedlab/analyze"
)

// Page is an HTML report: a title and sections, each with text, tables,
// verdicts and figures. run, analyze and reproduce build one; validate
// and sweep merge can build theirs from the same parts.
type Page struct {
	Title    string
	Subtitle string
	Sections []Section
}

// Section is a part of the page with its own heading and table of
// contents entry.
type Section struct {
	ID         string // HTML id, for links; derived from Title when empty
	Title      string
	Paragraphs []string // plain text
	Facts      [][2]string
	Tables     []Table
	Claims     []Claim
	Figures    []Figure
	After      []Table // tables after the figures
}

// Table is a captioned table of text cells; numeric-looking cells are
// right-aligned.
type Table struct {
	Caption string
	Columns []string
	Rows    [][]string
}

// Claim is a statement and whether it holds.
type Claim struct {
	Text  string
	Holds bool
	// Verdict, if set, is printed instead of "holds"/"does not hold" (e.g.
	// "within the mails' own noise", drawn as neither).
	Verdict string
	Detail  string
}

// Figure is a chart (an <svg> element, e.g. from TailChart) with a caption.
type Figure struct {
	Name    string // a file name stem for the figure alone (reproduce --svg)
	SVG     string
	Caption string
	Wide    bool // spans the whole width (timelines); others flow two a row
}

// WriteHTML writes the page.
func WriteHTML(w io.Writer, p *Page) error {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", esc(p.Title), pageCSS)
	fmt.Fprintf(&b, "<header><h1>%s</h1>", esc(p.Title))
	if p.Subtitle != "" {
		fmt.Fprintf(&b, "<p class=\"sub\">%s</p>", esc(p.Subtitle))
	}
	b.WriteString("</header>\n")
	ids := map[string]int{}
	secIDs := make([]string, len(p.Sections))
	for i, s := range p.Sections {
		id := s.ID
		if id == "" {
			id = slug(s.Title)
		}
		if n := ids[id]; n > 0 {
			id = fmt.Sprintf("%s-%d", id, n+1)
		}
		ids[id]++
		secIDs[i] = id
	}
	if len(p.Sections) > 1 {
		b.WriteString("<nav><ul>")
		for i, s := range p.Sections {
			fmt.Fprintf(&b, "<li><a href=\"#%s\">%s</a></li>", esc(secIDs[i]), esc(s.Title))
		}
		b.WriteString("</ul></nav>\n")
	}
	b.WriteString("<main>\n")
	for i, s := range p.Sections {
		fmt.Fprintf(&b, "<section id=\"%s\">\n<h2>%s</h2>\n", esc(secIDs[i]), esc(s.Title))
		for _, para := range s.Paragraphs {
			fmt.Fprintf(&b, "<p>%s</p>\n", esc(para))
		}
		if len(s.Facts) > 0 {
			b.WriteString("<dl class=\"facts\">")
			for _, f := range s.Facts {
				fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>", esc(f[0]), esc(f[1]))
			}
			b.WriteString("</dl>\n")
		}
		for _, t := range s.Tables {
			writeTable(&b, t)
		}
		if len(s.Claims) > 0 {
			b.WriteString("<ul class=\"claims\">\n")
			for _, c := range s.Claims {
				cls, mark := "holds", "holds"
				if !c.Holds {
					cls, mark = "fails", "does not hold"
				}
				if c.Verdict != "" && c.Verdict != mark {
					cls, mark = "noise", c.Verdict
				}
				fmt.Fprintf(&b, "<li class=\"%s\"><span class=\"verdict\">%s</span> %s", cls, mark, esc(c.Text))
				if c.Detail != "" {
					fmt.Fprintf(&b, " <span class=\"detail\">— %s</span>", esc(c.Detail))
				}
				b.WriteString("</li>\n")
			}
			b.WriteString("</ul>\n")
		}
		if len(s.Figures) > 0 {
			b.WriteString("<div class=\"figures\">\n")
			for _, f := range s.Figures {
				cls := "chart"
				if f.Wide {
					cls += " wide"
				}
				fmt.Fprintf(&b, "<figure class=\"%s\">%s", cls, f.SVG)
				if f.Caption != "" {
					fmt.Fprintf(&b, "<figcaption>%s</figcaption>", esc(f.Caption))
				}
				b.WriteString("</figure>\n")
			}
			b.WriteString("</div>\n")
		}
		for _, t := range s.After {
			writeTable(&b, t)
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</main>\n<footer>Written by schedlab. The file is self-contained: it fetches nothing.</footer>\n")
	fmt.Fprintf(&b, "<script>%s</script>\n</body>\n</html>\n", pageCheckJS)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTable(b *strings.Builder, t Table) {
	b.WriteString("<div class=\"tablewrap\"><table>")
	if t.Caption != "" {
		fmt.Fprintf(b, "<caption>%s</caption>", esc(t.Caption))
	}
	b.WriteString("<thead><tr>")
	for _, c := range t.Columns {
		fmt.Fprintf(b, "<th>%s</th>", esc(c))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, row := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range row {
			if numeric(c) {
				fmt.Fprintf(b, "<td class=\"n\">%s</td>", esc(c))
			} else {
				fmt.Fprintf(b, "<td>%s</td>", esc(c))
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table></div>\n")
}

func numeric(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || s == "-" || s == "–" {
		return s != ""
	}
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case strings.ContainsRune("+-–±.,×x %µsm", r): // – joins a range, ± a mean and its interval
		default:
			return false
		}
	}
	return digits > 0
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimSuffix(b.String(), "-")
	if out == "" {
		out = "section"
	}
	return out
}

const pageCSS = `
:root { --ink: #1f2328; --muted: #59636e; --line: #d8dee4; --bg: #ffffff; --soft: #f6f8fa; --ok: #1a7f37; --bad: #cf222e; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--bg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; }
header { padding: 24px 32px 8px; border-bottom: 1px solid var(--line); }
h1 { margin: 0 0 4px; font-size: 24px; }
.sub { margin: 0 0 12px; color: var(--muted); }
nav { padding: 8px 32px; border-bottom: 1px solid var(--line); background: var(--soft); }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 18px; }
nav a { color: #0969da; text-decoration: none; }
main { padding: 8px 32px 32px; max-width: 1500px; }
section { margin-top: 24px; }
h2 { font-size: 19px; margin: 0 0 8px; padding-top: 8px; border-top: 1px solid var(--line); }
p { max-width: 110ch; margin: 6px 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.tablewrap { overflow-x: auto; margin: 10px 0; }
table { border-collapse: collapse; font-size: 14px; }
caption { text-align: left; color: var(--muted); padding-bottom: 4px; }
/* A wide table wraps its headers and text before it scrolls; numbers never wrap. */
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; }
th { background: var(--soft); font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
ul.claims { list-style: none; padding: 0; }
ul.claims li { margin: 4px 0; }
.verdict { display: inline-block; min-width: 98px; padding: 0 6px; border-radius: 4px; color: #fff; font-size: 12px; text-align: center; }
li.holds .verdict { background: var(--ok); }
li.fails .verdict { background: var(--bad); }
li.noise .verdict { background: #9a6700; }
.detail { color: var(--muted); }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 560px), 1fr)); gap: 8px 16px; align-items: start; }
figure.chart { margin: 8px 0; min-width: 0; }
figure.chart.wide { grid-column: 1 / -1; }
figure.chart svg { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
figcaption { color: var(--muted); font-size: 13px; }
footer { padding: 16px 32px; color: var(--muted); font-size: 13px; border-top: 1px solid var(--line); }
`

// pageCheckJS verifies, once the page has loaded, that every figure holds
// an SVG chart that laid out with a size and drew something, and that no
// label of it runs past its edges (the SVG would clip it; text cannot be
// measured where the SVG is written, only here), and records the result
// (and any script error) in <body data-check>.
const pageCheckJS = `
(function () {
  var errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message)); });
  function check() {
    var figs = document.querySelectorAll('figure.chart'), bad = [], clipped = [];
    for (var i = 0; i < figs.length; i++) {
      var svg = figs[i].querySelector('svg');
      var r = svg ? svg.getBoundingClientRect() : null;
      var marks = svg ? svg.querySelectorAll('path, rect, line, text').length : 0;
      if (!svg || !r || r.width < 10 || r.height < 10 || marks < 3) { bad.push(i); continue; }
      var texts = svg.querySelectorAll('text');
      for (var j = 0; j < texts.length; j++) {
        var t = texts[j].getBoundingClientRect();
        if (t.width > 0 && (t.left < r.left - 1 || t.right > r.right + 1 || t.top < r.top - 1 || t.bottom > r.bottom + 1)) {
          clipped.push(i + ' "' + texts[j].textContent.slice(0, 40) + '"');
          break;
        }
      }
    }
    var verdict = errors.length ? 'error: ' + errors.join('; ') :
      bad.length ? 'fail: charts ' + bad.join(',') + ' did not render' :
      clipped.length ? 'fail: labels cut at a chart edge: ' + clipped.join(', ') : 'ok: ' + figs.length + ' charts';
    document.body.setAttribute('data-check', verdict);
  }
  if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', check); } else { check(); }
})();
`

// RunFigures are what a run contributes to a page: its latency samples
// (ns) and, optionally, the timeline of its first moments.
type RunFigures struct {
	Timer, Wakeup []int64
	Timeline      *analyze.Timeline
}

// RunSection is the section of one run (simulated, measured or read from
// a trace): its settings, the latency statistics, tail plots and histograms of
// both latencies, the per-CPU timeline and the per-task table.
func RunSection(title string, r *Run, f RunFigures) Section {
	s := Section{Title: title}
	s.Facts = append(s.Facts,
		[2]string{"scenario", r.Scenario},
		[2]string{"policy", r.Policy},
		[2]string{"CPUs", fmt.Sprint(r.CPUs)},
		[2]string{"seed", fmt.Sprint(r.Seed)},
		[2]string{"duration", FormatUS(float64(r.SimNS) / 1e3)})
	if r.CPUs > 1 && r.SimNS > 0 {
		s.Facts = append(s.Facts, [2]string{"wasted capacity", fmt.Sprintf("%.3f ms (%.2f%% of CPU time): a CPU idle while a task waited",
			r.WastedCapacityMS, 100*r.WastedCapacityMS*1e6/(float64(r.SimNS)*float64(r.CPUs)))})
	}
	if d := diffFeatures(r.Features, r.DefaultFeatures); d != "" {
		s.Facts = append(s.Facts, [2]string{"features changed", d})
	}
	if d := diffTunables(r.Tunables, r.DefaultTunables); d != "" {
		s.Facts = append(s.Facts, [2]string{"tunables changed", d})
	}
	for _, rc := range r.Reconstructions {
		s.Facts = append(s.Facts, [2]string{"reconstruction", rc + " (not known to match the original)"})
	}
	for _, w := range r.Warnings {
		s.Paragraphs = append(s.Paragraphs, "Note: "+w)
	}
	s.Tables = append(s.Tables, LatencyTable([]string{"timer latency (callback start − timer expiry)", "wakeup latency (sched_waking → switch-in)"},
		[]Latency{r.TimerLatency, r.WakeupLatency}))
	s.Figures = append(s.Figures,
		Figure{SVG: TailChart("Timer latency: the tail", "callback start − timer expiry", []Series{{r.Scenario, f.Timer}}),
			Caption: "Timer latency: when the callback started running minus the expiry the timer was programmed for. " + tailCaption},
		Figure{SVG: HistChart("Timer latency histogram", HistPanel{Hist: r.TimerHist}), Caption: "Timer latency in log2 buckets, as bcc's runqlat prints them (the first bar holds 0 and 1 µs)."},
		Figure{SVG: TailChart("Wakeup latency: the tail", "sched_waking → switch-in", []Series{{r.Scenario, f.Wakeup}}),
			Caption: "Wakeup latency: from sched_waking (sched_wakeup_new for a new task) to the sched_switch that puts the task on a CPU; perf sched's delay of a wakeup. " + tailCaption},
		Figure{SVG: HistChart("Wakeup latency histogram", HistPanel{Hist: r.WakeupHist}), Caption: "Wakeup latency in log2 buckets (the first bar holds 0 and 1 µs)."})
	if f.Timeline != nil {
		s.Figures = append(s.Figures, TimelineFigure([]TimelineLane{{"", f.Timeline}}))
	}
	tasks := r.Tasks
	s.After = append(s.After, TaskTable(tasks, 20))
	return s
}

// tailCaption says how to read a TailChart.
const tailCaption = "Both axes logarithmic: at each latency, the share of samples that took longer (1 − F), so the rare slow ones have room; " +
	"dots mark p50, p90, p99 and p99.9 on the dashed levels; samples below the axis's start are drawn on its left edge."

// TimelineFigure is a wide timeline figure with the standard caption.
func TimelineFigure(lanes []TimelineLane) Figure {
	var span int64
	unknown := 0
	for _, l := range lanes {
		if l.Timeline != nil {
			span = max(span, l.Timeline.End-l.Timeline.Start)
			unknown += l.Timeline.Unknown
		}
	}
	caption := "Each bar is a task on a CPU, coloured by comm. A thin line above a lane runs from a task's wakeup to its switch-in there (its wakeup latency). ▼ timer expiry, ▲ callback start, ✕ missed timer event. Hover for details."
	if unknown > 0 {
		caption += fmt.Sprintf(" %d time slice(s) whose switch-in the trace lacks are not drawn: when they began is unknown.", unknown)
	}
	return Figure{Wide: true, SVG: TimelineChart(fmt.Sprintf("The first %s, per CPU", FormatUS(float64(span)/1e3)), lanes), Caption: caption}
}

// LatencyTable has a row of statistics per latency.
func LatencyTable(names []string, ls []Latency) Table {
	t := Table{Columns: []string{"latency", "count", "avg µs", "p50 µs", "p90 µs", "p99 µs", "p99.9 µs", "max µs", "missed"}}
	for i, l := range ls {
		missed := "–"
		if l.Missed != nil {
			missed = fmt.Sprint(*l.Missed)
		}
		if l.Count == 0 {
			t.Rows = append(t.Rows, []string{names[i], "0", "–", "–", "–", "–", "–", "–", missed})
			continue
		}
		t.Rows = append(t.Rows, []string{names[i], fmt.Sprint(l.Count), f1(l.Avg), f1(l.P50), f1(l.P90), f1(l.P99), f1(l.P999), f1(l.Max), missed})
	}
	return t
}

func f1(u US) string { return fmt.Sprintf("%.1f", float64(u)) }

// TaskTable is the per-task table in perf sched latency's columns, its
// first maxRows rows.
func TaskTable(tasks []Task, maxRows int) Table {
	t := Table{Caption: fmt.Sprintf("Tasks, sorted as perf sched latency sorts them (average delay, maximum delay, switches, runtime); %d of %d shown.", min(maxRows, len(tasks)), len(tasks)),
		Columns: []string{"task", "runtime ms", "switches", "avg delay ms", "max delay ms", "max delay start s", "max delay end s"}}
	for i, task := range tasks {
		if i >= maxRows {
			break
		}
		name := fmt.Sprintf("%s:%d", task.Comm, task.PID)
		if task.Tasks > 1 {
			name = fmt.Sprintf("%s:(%d tasks)", task.Comm, task.Tasks)
		}
		t.Rows = append(t.Rows, []string{name, fmt.Sprintf("%.3f", task.RuntimeMS), fmt.Sprint(task.Switches),
			fmt.Sprintf("%.3f", float64(task.AvgDelayUS)/1000), fmt.Sprintf("%.3f", float64(task.MaxDelayUS)/1000),
			fmt.Sprintf("%.6f", float64(task.MaxDelayAt)/1e9), fmt.Sprintf("%.6f", float64(task.MaxDelayEnd)/1e9)})
	}
	return t
}

// Comparison is an experiment: for each configuration a reference (the
// paper's figures, or a host kernel's) beside the simulation's, and the
// claims checked against them.
type Comparison struct {
	ID, Title  string
	Paragraphs []string
	Facts      [][2]string
	RefName    string   // "paper"
	SimName    string   // "sim"
	Metrics    []string // the figures compared, in column order: "median", "max", "avg"
	Rows       []ComparisonRow
	Claims     []Claim
	// Samples says what the tail plots and histograms were drawn from, e.g.
	// "timer latency of all 10 runs of each configuration".
	Samples string
	// TimelineNote says which run the timelines show.
	TimelineNote string
}

// ComparisonRow is one configuration.
type ComparisonRow struct {
	Config   string
	Ref, Sim map[string]*float64 // metric → µs; nil or missing: unknown
	Ratio    map[string]*float64
	Note     string
	Figures  RunFigures // Timer samples for the tail plot and histogram, Timeline
	// Runs are the simulation's figure of each run (metric → µs), of
	// which Sim is the mean: the bars show them as dots, the table their
	// range.
	Runs map[string][]float64
}

// ComparisonSection lays an experiment out: its table (reference beside
// simulation with the ratio, and the range over runs where Runs has it),
// the claims with verdicts, a bar chart per metric, the tail plot of every
// configuration on one chart, their histograms on one scale and the
// timelines of their first moments.
func ComparisonSection(c Comparison) Section {
	s := Section{ID: c.ID, Title: c.ID + ": " + c.Title, Paragraphs: c.Paragraphs, Facts: c.Facts, Claims: c.Claims}
	runs := false
	for _, r := range c.Rows {
		runs = runs || len(r.Runs) > 0
	}
	t := Table{Columns: []string{"config"}}
	for _, m := range c.Metrics {
		t.Columns = append(t.Columns, c.RefName+" "+m+" µs", c.SimName+" "+m+" µs")
		if runs {
			t.Columns = append(t.Columns, "runs min–max")
		}
		t.Columns = append(t.Columns, "ratio")
	}
	t.Columns = append(t.Columns, "note")
	for _, r := range c.Rows {
		row := []string{r.Config}
		for _, m := range c.Metrics {
			row = append(row, optional(r.Ref[m], 1), optional(r.Sim[m], 1))
			if runs {
				row = append(row, spread(r.Runs[m]))
			}
			row = append(row, optional(r.Ratio[m], 2))
		}
		row = append(row, r.Note)
		t.Rows = append(t.Rows, row)
	}
	s.Tables = append(s.Tables, t)
	s.Figures = ComparisonFigures(c)
	return s
}

// spread is the range of a row's runs: whole µs from 100 µs on, where a
// tenth is noise beside the spread and would widen the table past a
// laptop's screen.
func spread(runs []float64) string {
	if len(runs) == 0 {
		return "–"
	}
	lo, hi := slices.Min(runs), slices.Max(runs)
	if math.Max(math.Abs(lo), math.Abs(hi)) >= 100 {
		return fmt.Sprintf("%.0f–%.0f", lo, hi)
	}
	return fmt.Sprintf("%.1f–%.1f", lo, hi)
}

func optional(p *float64, prec int) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.*f", prec, *p)
}

// ComparisonFigures are the charts of ComparisonSection, each with a Name
// for a file of its own.
func ComparisonFigures(c Comparison) []Figure {
	var figs []Figure
	groups := make([]string, len(c.Rows))
	for i, r := range c.Rows {
		groups[i] = r.Config
	}
	for _, m := range c.Metrics {
		ref := BarSeries{Name: c.RefName, Color: "#9aa4ae"}
		sim := BarSeries{Name: c.SimName, Color: Palette[0]}
		runs := false
		for _, r := range c.Rows {
			ref.Values = append(ref.Values, r.Ref[m])
			sim.Values = append(sim.Values, r.Sim[m])
			sim.Runs = append(sim.Runs, r.Runs[m])
			runs = runs || len(r.Runs[m]) > 0
		}
		caption := fmt.Sprintf("%s timer latency of each configuration: %s (grey) and %s (blue); – where the source gives no figure.", m, c.RefName, c.SimName)
		if runs {
			caption += fmt.Sprintf(" The %s bar is the mean over the runs; each dot is one run, the line spans them.", c.SimName)
		}
		figs = append(figs, Figure{Name: c.ID + "-" + slug(m), SVG: BarChart(fmt.Sprintf("%s: %s latency, %s beside %s", c.ID, m, c.RefName, c.SimName), "µs", groups, []BarSeries{ref, sim}),
			Caption: caption})
	}
	var series []Series
	var panels []HistPanel
	for i, r := range c.Rows {
		series = append(series, Series{Label: r.Config, Samples: r.Figures.Timer})
		var h analyze.Log2Hist
		for _, v := range r.Figures.Timer {
			h.Add(v)
		}
		panels = append(panels, HistPanel{Label: r.Config, Hist: h, Color: seriesColor(i)})
	}
	figs = append(figs, Figure{Name: c.ID + "-tail", SVG: TailChart(c.ID+": timer latency, the tail", "callback start − timer expiry", series),
		Caption: "Timer latency per configuration: " + c.Samples + ". " + tailCaption})
	figs = append(figs, Figure{Name: c.ID + "-hist", SVG: HistChart(c.ID+": timer latency histograms", panels...),
		Caption: "Timer latency per configuration in log2 buckets (the first bar holds 0 and 1 µs): " + c.Samples + ". One x axis and one y scale, as a share of each configuration's samples."})
	var lanes []TimelineLane
	for _, r := range c.Rows {
		if r.Figures.Timeline != nil {
			lanes = append(lanes, TimelineLane{Label: r.Config, Timeline: r.Figures.Timeline})
		}
	}
	if len(lanes) > 0 {
		f := TimelineFigure(lanes)
		f.Name = c.ID + "-timeline"
		if c.TimelineNote != "" {
			f.Caption = c.TimelineNote + " " + f.Caption
		}
		figs = append(figs, f)
	}
	return figs
}
