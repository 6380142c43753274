package lab

import (
	"errors"
	"strings"
	"testing"
)

func TestParamsReachTheScenario(t *testing.T) {
	r, err := Simulate(Options{Workload: "wakeup-latency", Params: map[string]string{"period": "20000"}, Duration: "1s", Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Scenario != "wakeup-latency period=20000" || r.TimerLatency.Count != 49 {
		t.Fatalf("scenario %q, %d samples in 1 s of a 20 ms timer", r.Scenario, r.TimerLatency.Count)
	}
	for _, o := range []Options{
		{Workload: "wakeup-latency", Params: map[string]string{"perod": "1"}},
		{Workload: "two-hogs", Params: map[string]string{"N": "1"}},
	} {
		_, err := Resolve(o)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "param") {
			t.Errorf("%+v: want an input error about the parameter, got %v", o, err)
		}
	}
	cfg, err := Resolve(Options{Workload: "two-hogs"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(Options{Workload: "two-hogs", Spec: cfg.Spec, Params: map[string]string{"N": "1"}}); err == nil {
		t.Error("parameters next to a parsed Spec are silently dropped")
	}
}
