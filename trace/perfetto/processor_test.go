package perfetto

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"schedlab/internal/simtest"
	"schedlab/internal/testskip"
	"schedlab/sim"
	"schedlab/trace"
)

// verdict is one SQL query over trace_processor's tables: a row saying
// "pass", or "fail" and what is missing.
const verdict = `
select case
  when (select count(*) from sched) = 0 then 'fail: no sched slices'
  when (select count(*) from thread_state where waker_utid is not null) = 0 then 'fail: no wakeup arrows (waker_utid)'
  when (select count(*) from slice where name like 'callback_start%') = 0 then 'fail: no marks'
  when exists (select 1 from thread t left join process p using (upid)
               where t.name in ('make', 'sigev-helper', 'callback') and (p.pid is null or p.pid != 1000))
    then 'fail: an rt-app thread outside process 1000'
  when exists (select 1 from thread t left join process p using (upid)
               where t.name in ('sh', 'gcc', 'cc1', 'as') and (p.pid is null or p.pid != t.tid))
    then 'fail: a job step not its own process'
  when exists (select 1 from process p join process pp on p.parent_upid = pp.upid
               where p.name = 'gcc' and pp.name != 'sh')
    then 'fail: a gcc whose parent is not a sh'
  else 'pass'
end as verdict;
`

// TestTraceProcessor loads a simulation's trace into Perfetto's own
// trace_processor, where one is installed: neither Debian nor the npm
// registry packages it, so on most machines this skips and the decoding
// tests above are what checks the format.
func TestTraceProcessor(t *testing.T) {
	testskip.Uncached()
	var tp string
	for _, name := range []string{"trace_processor_shell", "trace_processor"} {
		if p, err := exec.LookPath(name); err == nil {
			tp = p
			break
		}
	}
	if tp == "" {
		testskip.Skip(t, "no Perfetto trace_processor_shell on PATH (no Debian or npm package has it)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "calibrated-make-j5.perfetto-trace")
	var b bytes.Buffer
	w := NewWriter(&b, Options{})
	simtest.Run(t, sim.Config{Spec: simtest.Scenario(t, "wakeup-latency-calibrated-make-j5"), Sched: simtest.Config(t, "cfs-2.6.35", 2, nil, nil),
		Duration: 2_000_000_000, Sink: trace.Tee{w}})
	if err := w.Close(2_000_000_000); err != nil {
		t.Fatal(err)
	}
	query := filepath.Join(dir, "verdict.sql")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(query, []byte(verdict), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tp, "-q", query, path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "pass") || strings.Contains(string(out), "fail") {
		t.Errorf("%s: %v\n%s", tp, err, out)
	}
}
