#!/usr/bin/env bash
# Regenerates the committed record set tests/data/records/schmitt2005.jsonl (its README states why
# each regeneration was made) from a fresh sweep of results/experiments/schmitt2005.toml on a
# Release build, and prints how far every metric moved (scripts/compare-records.py).
#   scripts/regen-records.sh [MBBENCH] [JOBS]   (default build/release/mbbench, 2 jobs)
# The sweep's records keep only the accuracy fields the regression test compares
# (tests/records_regression_test.cpp), by scripts/records-set.py.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-build/release/mbbench}
jobs=${2:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$mb" sweep results/experiments/schmitt2005.toml --jobs "$jobs" --out "$out"
old=tests/data/records/schmitt2005.jsonl
scripts/records-set.py "$out/records.jsonl" > "$old.new"
python3 scripts/compare-records.py "$old" "$old.new"
mv "$old.new" "$old"
echo "regen-records: wrote $old"
