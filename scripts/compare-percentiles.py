#!/usr/bin/env python3
"""Compares two sets of compare-outputs.sh results (KEEP=DIR) that may differ
only where analyze.Hist replaced exact percentiles, and where --json's
"tasks" became rows by comm:

    KEEP=/tmp/cmp scripts/compare-outputs.sh main
    scripts/compare-percentiles.py /tmp/cmp/out-base /tmp/cmp/out-new [--tasks-by-comm]

Every percentile (p50_us, p90_us, p99_us, p999_us, and reproduce's p50_us)
may move by the histogram's resolution (2^-11 of the value) plus the 0.1 µs (two roundings to 0.1 µs)
of the output's rounding; everything else must be equal. With
--tasks-by-comm, a base's per-task rows are merged by comm and checked
against the new rows (switches and counts exactly, runtimes within their
rounding, maximum delay and lowest PID exactly). Prints the largest
percentile difference; exits 1 on anything else that differs.
"""
import json
import os
import sys

REL = 2.0 ** -11
PCT = {"p50_us", "p90_us", "p99_us", "p999_us"}

worst = (0.0, 0.0, "")  # relative, absolute µs, where
worst_abs = (0.0, 0.0, "")
moved = 0
bad = []


def merge_tasks(rows):
    out = {}
    for r in rows:
        m = out.setdefault(r["comm"], {"n": 0, "runtime_ms": 0.0, "switches": 0, "max_delay_us": 0.0, "pid": r["pid"]})
        m["n"] += 1
        m["runtime_ms"] += r["runtime_ms"]
        m["switches"] += r["switches"]
        m["max_delay_us"] = max(m["max_delay_us"], r["max_delay_us"])
        m["pid"] = min(m["pid"], r["pid"])
    return out


def check_tasks(base, new, where):
    mb = merge_tasks(base)
    if len(mb) != len(new):
        bad.append(f"{where}: {len(new)} comm rows, base has {len(mb)} comms")
        return
    for r in new:
        m = mb.get(r["comm"])
        if m is None:
            bad.append(f"{where}: comm {r['comm']!r} not in base")
            continue
        ok = (r["nr_tasks"] == m["n"] and r["switches"] == m["switches"] and r["pid"] == m["pid"]
              and r["max_delay_us"] == m["max_delay_us"]
              and abs(r["runtime_ms"] - m["runtime_ms"]) <= 0.0005 * (m["n"] + 1) + 1e-9)
        if not ok:
            bad.append(f"{where}: comm {r['comm']!r}: {r} vs merged base {m}")


def walk(b, n, where, by_comm):
    global worst, worst_abs, moved
    if isinstance(b, dict) and isinstance(n, dict):
        for k in sorted(set(b) | set(n)):
            w = f"{where}.{k}"
            if k not in b or k not in n:
                bad.append(f"{w}: only in {'new' if k in n else 'base'}")
            elif k in PCT and isinstance(b[k], (int, float)) and isinstance(n[k], (int, float)):
                d = abs(n[k] - b[k])
                if d:
                    moved += 1
                rel = d / abs(b[k]) if b[k] else (0 if d == 0 else float("inf"))
                if d > REL * abs(b[k]) + 0.1 + 1e-9:
                    bad.append(f"{w}: {b[k]} -> {n[k]} is beyond the resolution")
                if rel > worst[0] or (rel == worst[0] and d > worst[1]):
                    worst = (rel, d, f"{w}: {b[k]} -> {n[k]}")
                if d > worst_abs[1]:
                    worst_abs = (rel, d, f"{w}: {b[k]} -> {n[k]}")
            elif k == "tasks" and by_comm and isinstance(b[k], list):
                check_tasks(b[k], n[k], w)
            else:
                walk(b[k], n[k], w, by_comm)
    elif isinstance(b, list) and isinstance(n, list):
        if len(b) != len(n):
            bad.append(f"{where}: {len(b)} -> {len(n)} items")
            return
        for i, (x, y) in enumerate(zip(b, n)):
            walk(x, y, f"{where}[{i}]", by_comm)
    elif b != n:
        bad.append(f"{where}: {b!r} -> {n!r}")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    by_comm = "--tasks-by-comm" in sys.argv
    base, new = args
    files = sorted(f for f in os.listdir(new) if f.endswith(".json"))
    for f in files:
        try:
            with open(os.path.join(base, f)) as fb, open(os.path.join(new, f)) as fn:
                tb, tn = fb.read(), fn.read()
        except FileNotFoundError as e:
            bad.append(f"{f}: {e}")
            continue
        if tb == tn:
            continue
        if not tb.strip() or not tn.strip():
            bad.append(f"{f}: one side is empty")
            continue
        walk(json.loads(tb), json.loads(tn), f, by_comm)
    print(f"{len(files)} files; {moved} percentiles moved; the largest relative move: "
          f"{worst[0] * 100:.4f}% ({worst[1]:.1f} µs, {worst[2] or 'none'}); "
          f"bound {REL * 100:.4f}% + 0.1 µs of rounding; the largest absolute: {worst_abs[1]:.1f} µs "
          f"({worst_abs[0] * 100:.4f}%, {worst_abs[2] or 'none'})")
    for b in bad[:40]:
        print("DIFFERS:", b)
    if len(bad) > 40:
        print(f"... and {len(bad) - 40} more")
    sys.exit(1 if bad else 0)


main()
