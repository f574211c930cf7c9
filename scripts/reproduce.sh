#!/usr/bin/env bash
# Installs what is missing, builds the Release preset and reproduces the default paper job into
# results/out/. At this stage the default job is the pendulum accuracy sweep of the methods that
# exist (GC4 and ref) over the default step-size grid (schmitt2005 s.4-6), 60 s per case.
# Usage: scripts/reproduce.sh [OUT_DIR]    (default results/out)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
mb=build/release/mbbench
out=${1:-results/out}/pendulum
mkdir -p "$out"
records="$out/records.jsonl"
rm -f "$records.partial"
models=(pendulum10 pendulum90 double-pendulum triple-pendulum)
methods=(GC4 ref)
grid=(0.00125 0.0017677669529663688 0.0025 0.0035355339059327377 0.005 0.007071067811865475 0.01
      0.014142135623730951 0.02 0.028284271247461901 0.04 0.056568542494923802 0.08)
total=$(( ${#models[@]} * ${#methods[@]} * ${#grid[@]} )); n=0
for model in "${models[@]}"; do
  for method in "${methods[@]}"; do
    for h in "${grid[@]}"; do
      n=$((n + 1))
      printf '\r[%3d/%3d] %-16s %-4s h=%-8.5g' "$n" "$total" "$model" "$method" "$h"
      "$mb" run "$model" "$method" --h "$h" --duration 60 --quiet --append "$records.partial"
    done
  done
done
printf '\n'
mv "$records.partial" "$records"
"$mb" table "$records" --out "$out/table.md"
cat "$out/table.md"
echo "reproduce: records in $records, table in $out/table.md"
