#!/usr/bin/env bash
# Regenerates the committed record set tests/data/records/schmitt2005.jsonl (its README states why
# each regeneration was made) from a fresh sweep of results/experiments/schmitt2005.toml on a
# Release build, and prints how far every metric moved (scripts/compare-records.py).
#   scripts/regen-records.sh [MBBENCH] [JOBS]   (default build/release/mbbench, 2 jobs)
# The sweep's records keep only the accuracy fields the regression test compares
# (tests/records_regression_test.cpp): case_id, status, reason, fail_t, h, h_requested, steps,
# steps_done, metrics, stats.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-build/release/mbbench}
jobs=${2:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$mb" sweep results/experiments/schmitt2005.toml --jobs "$jobs" --out "$out"
old=tests/data/records/schmitt2005.jsonl
python3 - "$out/records.jsonl" "$old.new" <<'PY'
import json, sys
src, dst = sys.argv[1], sys.argv[2]
with open(src) as f, open(dst, "w") as o:
    for line in f:
        r = json.loads(line)
        fail = r["failure"] or {}
        c = {"case_id": r["experiment"]["case_id"], "status": r["status"], "reason": fail.get("reason", ""),
             "fail_t": float(fail.get("t", 0.0)), "h": r["h"], "h_requested": r["h_requested"], "steps": r["steps"],
             "steps_done": r["steps_done"], "metrics": r["metrics"], "stats": r["stats"]}
        o.write(json.dumps(c, separators=(",", ":")) + "\n")
PY
python3 scripts/compare-records.py "$old" "$old.new"
mv "$old.new" "$old"
echo "regen-records: wrote $old"
