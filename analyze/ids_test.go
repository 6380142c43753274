package analyze

import (
	"math/rand/v2"
	"testing"
)

// randomID draws ids that hit one page often, the page boundaries, the
// edge of the dense range and the ids beyond it (negative, huge).
func randomID(r *rand.Rand) int32 {
	switch r.IntN(6) {
	case 0:
		return int32(r.IntN(8))
	case 1:
		return int32(r.IntN(4)*pageLen + r.IntN(3) - 1)
	case 2:
		return int32(denseIDs - 2 + r.IntN(4))
	case 3:
		return -int32(r.IntN(3)) - 1
	case 4:
		return int32(r.Uint32())
	default:
		return int32(r.IntN(3 * pageLen))
	}
}

// TestIDTableIsAMap: random sets, deletes and clears give the answers a
// map[int32]int64 gives, and a table emptied by deletes holds no page.
func TestIDTableIsAMap(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		var tab idTable
		ref := map[int32]int64{}
		ids := make([]int32, 64)
		for i := range ids {
			ids[i] = randomID(r)
		}
		for step := 0; step < 20000; step++ {
			id := ids[r.IntN(len(ids))]
			switch op := r.IntN(100); {
			case op < 45:
				v := r.Int64()
				tab.set(id, v)
				ref[id] = v
			case op < 90:
				tab.del(id)
				delete(ref, id)
			case op < 91:
				tab.clear()
				clear(ref)
			}
			got, ok := tab.get(id)
			want, wok := ref[id]
			if got != want || ok != wok {
				t.Fatalf("seed %d step %d: get(%d) = %d, %v; the map says %d, %v", seed, step, id, got, ok, want, wok)
			}
			if tab.len() != len(ref) {
				t.Fatalf("seed %d step %d: len %d, the map's %d", seed, step, tab.len(), len(ref))
			}
		}
		for _, id := range ids {
			got, ok := tab.get(id)
			if want, wok := ref[id]; got != want || ok != wok {
				t.Fatalf("seed %d: get(%d) = %d, %v; the map says %d, %v", seed, id, got, ok, want, wok)
			}
		}
		for id := range ref {
			tab.del(id)
		}
		for n, p := range tab.pages {
			if p != nil {
				t.Fatalf("seed %d: page %d kept with nothing in it", seed, n)
			}
		}
		if tab.len() != 0 || len(tab.other) != 0 {
			t.Fatalf("seed %d: %d values left", seed, tab.len())
		}
	}
}

// TestPIDSetIsAMap: add and has answer as a map[int32]bool does.
func TestPIDSetIsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var s pidSet
	ref := map[int32]bool{}
	for step := 0; step < 20000; step++ {
		id := randomID(r)
		if r.IntN(2) == 0 {
			if s.add(id) != !ref[id] {
				t.Fatalf("step %d: add(%d) says new = %v, the map %v", step, id, !ref[id], ref[id])
			}
			ref[id] = true
		}
		if s.has(id) != ref[id] {
			t.Fatalf("step %d: has(%d) = %v, the map %v", step, id, s.has(id), ref[id])
		}
	}
}

// TestExpiriesAreAMap: random expiries and callbacks over a few timers,
// with repeated, out-of-order and never-taken sequence numbers, give the
// answers the map[timerKey]int64 they replace gave.
func TestExpiriesAreAMap(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 2))
		var x expiries
		ref := map[timerKey]int64{}
		timers := make([]int32, 6)
		for i := range timers {
			timers[i] = randomID(r)
		}
		next := map[int32]int64{}
		for step := 0; step < 20000; step++ {
			tm := timers[r.IntN(len(timers))]
			// Mostly the timer's next expiry and the callback of its
			// last, as the simulator writes them; sometimes any of the
			// last few, or one far back.
			var seq int64
			switch r.IntN(10) {
			case 0:
				seq = r.Int64N(1000)
			case 1, 2:
				seq = next[tm] - r.Int64N(4)
			default:
				seq = next[tm]
			}
			if r.IntN(2) == 0 {
				if seq == next[tm] {
					next[tm]++
					seq = next[tm]
				}
				v := r.Int64()
				x.put(tm, seq, v)
				ref[timerKey{tm, seq}] = v
			} else {
				got, ok := x.take(tm, seq)
				want, wok := ref[timerKey{tm, seq}]
				delete(ref, timerKey{tm, seq})
				if got != want || ok != wok {
					t.Fatalf("seed %d step %d: take(%d, %d) = %d, %v; the map says %d, %v", seed, step, tm, seq, got, ok, want, wok)
				}
			}
			if x.len() != len(ref) {
				t.Fatalf("seed %d step %d: %d pending, the map %d", seed, step, x.len(), len(ref))
			}
		}
		for k, want := range ref {
			if got, ok := x.take(k.timer, k.seq); !ok || got != want {
				t.Fatalf("seed %d: take(%d, %d) = %d, %v; the map says %d", seed, k.timer, k.seq, got, ok, want)
			}
		}
		if x.len() != 0 || x.timers.len() != 0 || len(x.older) != 0 {
			t.Fatalf("seed %d: %d left, %d timers' slots, %d in the map", seed, x.len(), x.timers.len(), len(x.older))
		}
	}
}
