#!/usr/bin/env bash
# Runs the benchmarks behind BENCHMARKS.md and prints the median of three
# runs of each figure. Every figure is meant to be read against the
# references measured in the same run (a push and pop on a typed,
# allocation-free heap, and on container/heap), since the machine is shared
# and its absolute speed varies; cpu-ns/event is CPU time (GC included).
# scripts/bench-compare.sh compares this tree with another revision.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp)
{
  go test ./sim/ -run '^$' -bench 'Engine$|TypedHeap|ContainerHeap|Scenario|Tasks' -count 3
  go test ./sched/eevdf/ -run '^$' -bench . -count 3
  go test ./sweep/ -run '^$' -bench . -benchtime 3x -count 3
} 2>&1 | grep -E '^Bench' > "$out"
python3 - "$out" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    name = f[0].rsplit('-', 1)[0]
    rows.setdefault(name, []).append({f[i + 1]: float(f[i]) for i in range(2, len(f) - 1, 2)})
for name, runs in rows.items():
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(f"{name:58s} " + "  ".join(f"{v:.6g} {k}" for k, v in med.items() if k not in ('ns/op', 'B/op')))
PY
rm -f "$out"
