package rtapp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// keys returns an object's keys in order (rt-app runs events in key order,
// which a map would lose).
func keys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// field decodes obj[path[0]][path[1]]… .
func field(t *testing.T, raw json.RawMessage, path ...string) json.RawMessage {
	t.Helper()
	for _, k := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		v, ok := m[k]
		if !ok {
			t.Fatalf("no key %q in %s", k, raw)
		}
		raw = v
	}
	return raw
}

func eq(t *testing.T, raw json.RawMessage, want string, path ...string) {
	t.Helper()
	got := field(t, raw, path...)
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s, want %s", strings.Join(path, "."), got, want)
	}
}

const convertSpec = `{
  "global": {"duration": 3, "default_policy": "SCHED_NORMAL"},
  "tasks": {
    "x": {"priority": -2, "loop": 4, "timer": {"ref": "own", "period": 10000}, "run": 100,
          "resume": "term", "suspend": 0, "yield": 0},
    "term": {"instance": 1, "cpus": [1], "delay": 1500, "sleep1": 20, "suspend": 0, "runtime0": 200, "resume": "x"},
    "rt": {"policy": "SCHED_FIFO", "priority": 10, "timer": {"ref": "unique", "period": 1000, "mode": "absolute"}},
    "ph": {"instance": 3, "phases": {"b": {"loop": 5, "run": 10, "timer": {"ref": "unique1", "period": 100}}, "a": {"sleep": 10}}}
  }
}`

func TestConvert(t *testing.T) {
	out, err := Convert(parse(t, convertSpec), Options{Dir: "/tmp/logs"})
	if err != nil {
		t.Fatal(err)
	}
	js := json.RawMessage(out)
	if !json.Valid(js) {
		t.Fatalf("invalid JSON:\n%s", out)
	}
	if got := keys(t, js); !reflect.DeepEqual(got, []string{"global", "tasks"}) {
		t.Errorf("top-level keys %v", got)
	}
	if got, want := keys(t, field(t, js, "global")), []string{"duration", "calibration", "default_policy",
		"lock_pages", "ftrace", "logdir", "log_basename"}; !reflect.DeepEqual(got, want) {
		t.Errorf("global keys %v, want %v (no log_size: 1.0 turns logging off for \"file\")", got, want)
	}
	eq(t, js, `3`, "global", "duration")
	eq(t, js, `"CPU0"`, "global", "calibration")
	eq(t, js, `false`, "global", "lock_pages")
	eq(t, js, `false`, "global", "ftrace")
	eq(t, js, `"/tmp/logs"`, "global", "logdir")
	eq(t, js, `"rt-app"`, "global", "log_basename")

	if got := keys(t, field(t, js, "tasks")); !reflect.DeepEqual(got, []string{"x", "term", "rt", "ph"}) {
		t.Errorf("tasks in order %v", got)
	}
	// A task without phases gets one, and its loop counts passes.
	eq(t, js, `"SCHED_OTHER"`, "tasks", "x", "policy")
	eq(t, js, `-2`, "tasks", "x", "priority")
	eq(t, js, `4`, "tasks", "x", "loop")
	eq(t, js, `1`, "tasks", "x", "phases", "x", "loop")
	if got, want := keys(t, field(t, js, "tasks", "x", "phases", "x")), []string{"loop", "timer", "run", "resume", "suspend", "yield"}; !reflect.DeepEqual(got, want) {
		t.Errorf("x's events %v, want %v", got, want)
	}
	eq(t, js, `{"ref": "own", "period": 10000, "mode": "relative"}`, "tasks", "x", "phases", "x", "timer")
	eq(t, js, `100`, "tasks", "x", "phases", "x", "run")
	eq(t, js, `"term"`, "tasks", "x", "phases", "x", "resume")
	eq(t, js, `"x"`, "tasks", "x", "phases", "x", "suspend")

	eq(t, js, `[1]`, "tasks", "term", "cpus")
	eq(t, js, `1500`, "tasks", "term", "delay")
	eq(t, js, `-1`, "tasks", "term", "loop")
	if got, want := keys(t, field(t, js, "tasks", "term", "phases", "term")), []string{"loop", "sleep1", "suspend", "runtime0", "resume"}; !reflect.DeepEqual(got, want) {
		t.Errorf("term's events %v, want %v", got, want)
	}
	eq(t, js, `"term"`, "tasks", "term", "phases", "term", "suspend")
	eq(t, js, `200`, "tasks", "term", "phases", "term", "runtime0")

	eq(t, js, `"SCHED_FIFO"`, "tasks", "rt", "policy")
	eq(t, js, `10`, "tasks", "rt", "priority")
	eq(t, js, `{"ref": "unique", "period": 1000, "mode": "absolute"}`, "tasks", "rt", "phases", "rt", "timer")

	eq(t, js, `3`, "tasks", "ph", "instance")
	if got := keys(t, field(t, js, "tasks", "ph", "phases")); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Errorf("phases in order %v", got)
	}
	eq(t, js, `5`, "tasks", "ph", "phases", "b", "loop")
	eq(t, js, `1`, "tasks", "ph", "phases", "a", "loop")
}

func TestConvertOptions(t *testing.T) {
	spec := parse(t, convertSpec)
	out, err := Convert(spec, Options{Duration: 2 * time.Second, CPUs: []int{1, 0}, NsPerLoop: 11})
	if err != nil {
		t.Fatal(err)
	}
	js := json.RawMessage(out)
	eq(t, js, `2`, "global", "duration")
	eq(t, js, `11`, "global", "calibration")
	eq(t, js, `"."`, "global", "logdir")
	for _, task := range []string{"x", "term", "rt", "ph"} {
		eq(t, js, `[1, 0]`, "tasks", task, "cpus")
	}
	if out, err = Convert(spec, Options{CPUs: []int{1}}); err != nil {
		t.Fatal(err)
	}
	eq(t, json.RawMessage(out), `"CPU1"`, "global", "calibration")

	noDuration := parse(t, `{"tasks": {"a": {"run": 10}}}`)
	if out, err = Convert(noDuration, Options{}); err != nil {
		t.Fatal(err)
	}
	eq(t, json.RawMessage(out), `-1`, "global", "duration")

	if _, err := Convert(spec, Options{Duration: 1500 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "whole number of seconds") {
		t.Errorf("1.5 s: got %v", err)
	}
	if _, err := Convert(load(t, "calibrated-make-j5"), Options{}); err == nil || !strings.Contains(err.Error(), "fork") {
		t.Errorf("calibrated-make-j5: got %v, want Check's refusal", err)
	}
}

func TestConvertSync(t *testing.T) {
	out, err := Convert(parse(t, `{"global": {"duration": 1, "pi_enabled": true, "io_device": "/tmp/io", "mem_buffer_size": 4096}, "tasks": {
		"a": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "barrier": "B", "mem": 100, "iorun": 200, "suspend": "R"},
		"b": {"lock": "m", "signal": "c", "broad": "c", "unlock": "m", "barrier": "B", "resume": "R"}}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	js := json.RawMessage(out)
	eq(t, js, `true`, "global", "pi_enabled")
	eq(t, js, `"/tmp/io"`, "global", "io_device")
	eq(t, js, `4096`, "global", "mem_buffer_size")
	for key, want := range map[string]string{"lock": `"m"`, "wait": `{"ref": "c", "mutex": "m"}`, "unlock": `"m"`,
		"barrier": `"B"`, "mem": `100`, "iorun": `200`, "suspend": `"R"`} {
		eq(t, js, want, "tasks", "a", "phases", "a", key)
	}
	for key, want := range map[string]string{"signal": `"c"`, "broad": `"c"`, "resume": `"R"`} {
		eq(t, js, want, "tasks", "b", "phases", "b", key)
	}
}
