#!/usr/bin/env bash
# Installs what is missing, builds the Release preset and reproduces the default paper job:
# schmitt2005 s.6 (results/experiments/schmitt2005.toml: the four pendulum models x the methods
# that exist x the default step-size grid x 60 s), plus the sweep of the paper's ambiguous readings
# (results/experiments/schmitt2005-readings.toml), and the timing of bender2007 s.6 (Fig. 4:
# results/experiments/bender2007.toml, serially through Google Benchmark, into OUT_DIR/bender2007/),
# into one report (then tomcin2014's Figures 5 and 6 and bayer2009's Table 1 and Figure 4, below):
#   OUT_DIR/schmitt2005/report.html   (tables beside the paper, findings, figures, provenance)
#   OUT_DIR/schmitt2005/tables.md, records.csv, records.jsonl, plots/
# Usage: scripts/reproduce.sh [OUT_DIR]    (default results/out)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
mb=build/release/mbbench
out=${1:-results/out}/schmitt2005
rm -rf "$out"
"$mb" sweep results/experiments/schmitt2005.toml --jobs "$(nproc)" --out "$out"
"$mb" sweep results/experiments/schmitt2005-readings.toml --jobs "$(nproc)" --out "$out/readings"
timing=${1:-results/out}/bender2007
"$mb" bench results/experiments/bender2007.toml --out "$timing"
"$mb" report "$out/records.jsonl" "$out/readings/records.jsonl" --out "$out" --timing "$timing"
# tomcin2014 Figures 5 and 6 (timing experiments; each writes timing.md and plots/ in its folder)
for fig in tomcin2014-fig5 tomcin2014-fig6 tomcin2014-fig6-strandbeest; do
  "$mb" bench "results/experiments/$fig.toml" --out "${1:-results/out}/$fig"
done
# bayer2009 Table 1 and Figures 2-3 (all 18 simulations x the 8 optimization sets, one repetition:
# about 15 minutes, most of it scenario 3 at 0.001 %) and Figure 4 (without the original solver's
# 0.001 % runs on 30 x 30 and 40 x 40, more than 10 s each); each writes timing.md beside the paper's values
"$mb" bench results/experiments/bayer2009.toml --repetitions 1 --out "${1:-results/out}/bayer2009"
"$mb" bench results/experiments/bayer2009-fig4.toml --repetitions 1 --filter '-ext=0.001,n=[34]0' --out "${1:-results/out}/bayer2009-fig4"
echo "reproduce: report in $out/report.html (tables in $out/tables.md); tomcin2014 in ${1:-results/out}/tomcin2014-fig*/timing.md;" \
  "bayer2009 in ${1:-results/out}/bayer2009*/timing.md"
