#!/bin/bash
# Makes the stored reference solutions of results/reference/ (see its README.md): `ref` at
# tolerance 1e-13 on the external benchmark models, to each experiment's end time, one record per
# model with its provenance (commit, compiler, flags, machine, date). Release build:
#   scripts/make-references.sh [build/release/mbbench]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/mbbench}
out=results/reference
mkdir -p "$out"
# model, end time (s), output step (s): the end times of results/experiments/iftomm.toml (0.7 s)
# and andrews.toml (0.03 s)
while read -r model end h; do
  file="$out/$(echo "$model" | tr ':=,' '___').json"
  rm -f "$file"  # one JSON line (the records format), written by --append
  "$bin" run "$model" ref:tol=1e-13 --duration "$end" --h "$h" --no-round --samples "$end" --no-ref --quiet --append "$file"
  echo "$file"
done <<'LIST'
iftomm-a01 0.7 0.01
four-bar:n=2 0.7 0.01
bricard 0.7 0.01
andrews 0.03 0.001
LIST
