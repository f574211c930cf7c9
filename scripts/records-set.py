#!/usr/bin/env python3
# The committed record set (tests/data/records/schmitt2005.jsonl, its README) from a sweep's records:
# the accuracy fields of every case, one line per case id, in case order.
#   build/release/mbbench sweep results/experiments/schmitt2005.toml --jobs 2 --out /tmp/s2005
#   scripts/records-set.py /tmp/s2005/records.jsonl > tests/data/records/schmitt2005.jsonl
import json
import sys

records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
records.sort(key=lambda r: r["experiment"]["case_index"])
for r in records:
    f = r.get("failure") or {}
    out = {"case_id": r["experiment"]["case_id"], "status": r["status"], "reason": f.get("reason", ""),
           "fail_t": float(f.get("t", 0.0)), "h": r["h"], "h_requested": r["h_requested"], "steps": r["steps"],
           "steps_done": r["steps_done"],
           "metrics": {k: v for k, v in r["metrics"].items() if v is not None and not k.endswith("_note")},
           "stats": r["stats"]}
    print(json.dumps(out, separators=(",", ":")))
