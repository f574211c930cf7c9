#!/usr/bin/env bash
# Installs what is missing, builds the Release preset and reproduces the default paper job:
# schmitt2005 s.6 (results/experiments/schmitt2005.toml: the four pendulum models x the methods
# that exist x the default step-size grid x 60 s), plus the sweep of the paper's ambiguous readings
# (results/experiments/schmitt2005-readings.toml), and the timing experiments run serially through
# Google Benchmark, each into OUT_DIR/<name>/ with its timing.md: bender2007 s.6 (Fig. 4),
# tomcin2014's Figures 5 and 6, bayer2009's Table 1 and Figures 2-4. One report holds them all,
# each timing table beside the paper's values:
#   OUT_DIR/schmitt2005/report.html   (tables beside the papers, findings, figures, timing, provenance)
#   OUT_DIR/schmitt2005/tables.md, records.csv, records.jsonl, plots/
# tomcin2014 s.7's Strandbeest drop (records with joint error and penetration) has a report of its own:
#   OUT_DIR/tomcin2014-strandbeest-drop/report.html, tables.md ("Whole runs beside the paper's")
# schmitt2003's walker, anytime loop, adaptive step and repair experiments share one:
#   OUT_DIR/schmitt2003/report.html
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
root=${1:-results/out}
"$mb" bench results/experiments/bender2007.toml --out "$root/bender2007"
# tomcin2014 Figures 5 and 6 (timing experiments; each writes timing.md and plots/ in its folder)
for fig in tomcin2014-fig5 tomcin2014-fig6 tomcin2014-fig6-strandbeest; do
  "$mb" bench "results/experiments/$fig.toml" --out "$root/$fig"
done
# bayer2009 Table 1 and Figures 2-3 (all 18 simulations x the 8 optimization sets, one repetition:
# about 15 minutes, most of it scenario 3 at 0.001 %) and Figure 4 (without the original solver's
# 0.001 % runs on 30 x 30 and 40 x 40, more than 10 s each); each writes timing.md beside the paper's values
"$mb" bench results/experiments/bayer2009.toml --repetitions 1 --out "$root/bayer2009"
"$mb" bench results/experiments/bayer2009-fig4.toml --repetitions 1 --filter '-ext=0.001,n=[34]0' --out "$root/bayer2009-fig4"
timing=()
for t in bender2007 tomcin2014-fig5 tomcin2014-fig6 tomcin2014-fig6-strandbeest bayer2009 bayer2009-fig4; do
  timing+=(--timing "$root/$t")
done
"$mb" report "$out/records.jsonl" "$out/readings/records.jsonl" --out "$out" "${timing[@]}"
# tomcin2014 s.7's table: 4 runs of 5 s (k = 0, 5, 10, 20), about 10 s each, one at a time (step and CPU time)
drop=$root/tomcin2014-strandbeest-drop
rm -rf "$drop"
"$mb" sweep results/experiments/tomcin2014-strandbeest-drop.toml --jobs 1 --out "$drop"
"$mb" report "$drop/records.jsonl" --out "$drop"
# schmitt2003's walking machine, anytime loop, adaptive step and repair (about 30 s; the walker one
# case at a time, for its real-time factors): one report
s3=$root/schmitt2003
rm -rf "$s3"
"$mb" sweep results/experiments/schmitt2003-walker.toml --jobs 1 --out "$s3/walker"
for e in anytime adaptive repair; do
  "$mb" sweep "results/experiments/schmitt2003-$e.toml" --jobs "$(nproc)" --out "$s3/$e"
done
"$mb" report "$s3"/{walker,anytime,adaptive,repair}/records.jsonl --out "$s3"
echo "reproduce: report in $out/report.html (tables in $out/tables.md, with the timing of bender2007, tomcin2014 Figures" \
  "5 and 6 and bayer2009); tomcin2014's Strandbeest drop in $drop/report.html; schmitt2003 in $s3/report.html"
