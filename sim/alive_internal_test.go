package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"schedlab/workload"
)

// The live list keeps creation order through exits and compactions, and
// its lookup by comm or definition answers what a scan in creation order
// answers, below and above the size where it stops scanning, with Tasks
// recycled as new PIDs.
func TestLiveTasksMatchScan(t *testing.T) {
	defs := []*workload.Task{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	comms := []string{"a", "a-1", "b", "c", "c-2"}
	for _, size := range []int{8, 40, 300} {
		rng := rand.New(rand.NewPCG(uint64(size), 9))
		var l liveTasks
		var ref, free []*Task
		pid := 0
		for step := 0; step < 30000; step++ {
			if len(ref) < size && rng.IntN(2) == 0 || len(ref) == 0 {
				var tk *Task
				if n := len(free); n > 0 && rng.IntN(2) == 0 {
					tk, free = free[n-1], free[:n-1]
					*tk = Task{}
				} else {
					tk = new(Task)
				}
				pid++
				tk.st.PID, tk.st.Comm, tk.def = pid, comms[rng.IntN(len(comms))], defs[rng.IntN(len(defs))]
				l.add(tk)
				ref = append(ref, tk)
			} else {
				i := rng.IntN(len(ref))
				l.remove(ref[i])
				free = append(free, ref[i])
				ref = slices.Delete(ref, i, i+1)
			}
			if got := slices.Collect(l.all()); !slices.Equal(got, ref) || l.len() != len(ref) {
				t.Fatalf("size %d step %d: the list reads %d tasks, %d are live", size, step, len(got), len(ref))
			}
			comm, def := comms[rng.IntN(len(comms))]+[]string{"", "x"}[rng.IntN(2)], defs[rng.IntN(len(defs))]
			if rng.IntN(4) == 0 {
				def = nil
			}
			var want *Task
			for _, tk := range ref {
				if tk.st.Comm == comm {
					want = tk
					break
				}
			}
			for _, tk := range ref {
				if want == nil && def != nil && tk.def == def {
					want = tk
				}
			}
			if got := l.first(comm, def); got != want {
				t.Fatalf("size %d step %d: first(%q, %v) is %s, a scan finds %s", size, step, comm, def != nil, name(got), name(want))
			}
		}
	}
}

func name(t *Task) string {
	if t == nil {
		return "none"
	}
	return fmt.Sprintf("%s (pid %d)", t.st.Comm, t.st.PID)
}
