#!/usr/bin/env python3
"""Compares two record sets (tests/data/records/*.jsonl, one case a line): per metric, the largest
relative difference |new - old| / max(|old|, |new|) over all cases, split by method and by model
(with the largest absolute difference), and every case whose status, failure, h or step counts
differ.
Usage: scripts/compare-records.py OLD.jsonl NEW.jsonl"""
import json
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        return {r["case_id"]: r for r in map(json.loads, f)}


def rel(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def main():
    old, new = load(sys.argv[1]), load(sys.argv[2])
    if set(old) != set(new):
        print("case ids differ:", sorted(set(old) ^ set(new))[:10])
    worst = defaultdict(lambda: (0.0, ""))  # metric -> (max rel, case)
    by_method = defaultdict(float)          # (method, metric) -> max rel
    by_model = defaultdict(lambda: [0.0, 0.0])  # (model, metric) -> [max rel, max abs]
    changed = defaultdict(int)              # method -> cases with any metric changed
    other = []
    for cid in sorted(set(old) & set(new)):
        o, n = old[cid], new[cid]
        model, method = cid.split(" ")[:2]
        for k in ("status", "reason", "h", "h_requested", "steps", "steps_done"):
            if o[k] != n[k]:
                other.append(f"{cid}: {k} {o[k]!r} -> {n[k]!r}")
        if o["fail_t"] != n["fail_t"]:
            other.append(f"{cid}: fail_t {o['fail_t']!r} -> {n['fail_t']!r} (relative {rel(o['fail_t'], n['fail_t']):.2e})")
        any_change = False
        for key in ("metrics", "stats"):
            for m in sorted(set(o[key]) | set(n[key])):
                a, b = o[key].get(m), n[key].get(m)
                if a is None or b is None:
                    other.append(f"{cid}: {key}.{m} {a!r} -> {b!r}")
                    continue
                d = rel(a, b)
                any_change |= d > 0
                name = m if key == "metrics" else f"stats.{m}"
                if d > worst[name][0]:
                    worst[name] = (d, cid)
                by_method[(method, name)] = max(by_method[(method, name)], d)
                mm = by_model[(model, name)]
                mm[0], mm[1] = max(mm[0], d), max(mm[1], abs(a - b))
        changed[method] += any_change
    print(f"{len(old)} cases; cases with a changed metric, by method: " +
          ", ".join(f"{m} {c}" for m, c in sorted(changed.items())))
    print("max relative difference per metric over all cases (case):")
    for m in sorted(worst):
        print(f"  {m:24s} {worst[m][0]:.3e}  ({worst[m][1]})")
    print("max relative difference per method and metric (non-zero only):")
    for (method, m), d in sorted(by_method.items()):
        if d > 0:
            print(f"  {method:10s} {m:24s} {d:.3e}")
    print("max relative and absolute difference per model and metric (non-zero only):")
    for (model, m), (d, ad) in sorted(by_model.items()):
        if d > 0:
            print(f"  {model:16s} {m:24s} rel {d:.3e}  abs {ad:.3e}")
    print(f"status / failure / h / step-count changes: {len(other)}")
    for line in other:
        print("  " + line)


if __name__ == "__main__":
    main()
