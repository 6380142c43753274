package sim

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"schedlab/workload"
)

// A wide lognormal draws past int64, whose conversion from float is
// undefined (a negative length on amd64): draws are held at maxDraw.
func TestDrawsStayInRange(t *testing.T) {
	e := &Engine{rng: rand.New(rand.NewPCG(1, 2))}
	d := workload.Duration{Dist: workload.LogNormal, Median: workload.MaxNS, Sigma: 10}
	x := workload.Duration{Dist: workload.Exponential, Mean: workload.MaxNS}
	capped := 0
	for range 100000 {
		for _, dd := range []workload.Duration{d, x} {
			v := e.draw(&dd)
			if v < 0 || v > maxDraw {
				t.Fatalf("draw of %+v: %d ns", dd, v)
			}
			if v == maxDraw {
				capped++
			}
		}
	}
	if capped == 0 {
		t.Error("no draw reached the cap")
	}
	if drawNS(1e300) != maxDraw || drawNS(12.7) != 12 {
		t.Error("drawNS")
	}
}

// The tick grid is exact to the end of the longest simulation: the
// products now·HZ and k·10⁹ wrap past 9.2·10¹⁵ ns at HZ 1000.
func TestJiffiesDoNotWrap(t *testing.T) {
	for _, hz := range []int64{100, 250, 300, 1000} {
		e := &Engine{p: Params{HZ: hz}}
		for _, now := range []int64{0, 1, 999_999_999, 1e9, 3_333_333, 9_223_372_036_854, 9.3e15, workload.MaxNS - 1, workload.MaxNS} {
			want := new(big.Int).Div(new(big.Int).Mul(big.NewInt(now), big.NewInt(hz)), big.NewInt(1e9))
			k := e.jiffy(now)
			if k != want.Int64() {
				t.Errorf("HZ %d: jiffy(%d) = %d, want %v", hz, now, k, want)
			}
			start := new(big.Int).Div(new(big.Int).Mul(big.NewInt(k+1), big.NewInt(1e9)), big.NewInt(hz))
			if got := e.jiffyStart(k + 1); got != start.Int64() {
				t.Errorf("HZ %d: jiffyStart(%d) = %d, want %v", hz, k+1, got, start)
			}
		}
	}
}

// Forks that never end are bounded as --pids-max bounds them on the host:
// a fork bomb whose forks take time ends with an input error when the
// live threads reach the bound (workload.MaxThreads, here 3,000 so that
// the test is short).
func TestLiveThreadsAreBounded(t *testing.T) {
	sp, err := workload.Parse("bomb.json", []byte(`{"tasks": {"a": {"fork": "a", "run": 10}}}`))
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Spec: sp, Sched: policyConfig(t, "cfs-2.6.35", 4), Params: DefaultParams(), Duration: 10e9})
	if err != nil {
		t.Fatal(err)
	}
	e.maxThreads = 3000
	_, err = e.Run()
	var we *WorkloadError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "with 3000 alive, the most the simulator holds at once") || !strings.Contains(err.Error(), "--pids-max") {
		t.Fatalf("a fork bomb ends with %v", err)
	}
}

// nextJiffy, with its kept answer and its step to the following jiffy,
// is the first jiffy start after now by a scan of the grid, for times
// that move on by less than a jiffy, by several, and stand still, with
// the grid shifted, at HZ that do and do not divide 10⁹.
func TestNextJiffyIsTheNextStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, hz := range []int64{100, 250, 300, 1000} {
		for _, off := range []int64{0, 1, 1e9/hz - 1, rng.Int64N(1e9 / hz)} {
			e := &Engine{p: Params{HZ: hz}, tickOff: off}
			k := int64(0) // the scan's jiffy: the last start at or before now
			for range 20000 {
				switch rng.IntN(4) {
				case 0: // stand still
				case 1:
					e.now += rng.Int64N(1e9 / hz)
				case 2:
					e.now += rng.Int64N(5e9 / hz)
				case 3:
					e.now += 1e9/hz - 1 + rng.Int64N(3)
				}
				for e.jiffyStart(k+1) <= e.now {
					k++
				}
				if got, want := e.nextJiffy(), e.jiffyStart(k+1); got != want {
					t.Fatalf("HZ %d, offset %d, now %d: nextJiffy %d, want %d", hz, off, e.now, got, want)
				}
			}
		}
	}
}
