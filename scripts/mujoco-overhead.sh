#!/usr/bin/env bash
# MuJoCo as its users run it against our `mujoco` adapter stepping the same file with the file's own
# contact model: `mujoco-testspeed` (libmujoco-samples) and `mbbench run FILE:damping=on
# mujoco:contacts=file,integrator=euler`, zero control, the file's time step, one thread, on
# humanoid.xml and humanoid100.xml (or the files given); time per step, the best of REPS runs.
# Our Model lacks the files' joint stiffness and armature (the importer's warning), so testspeed
# also runs a copy without them ("same"): the adapter's ratio to that is its own overhead (its step
# writes our Cartesian State), the ratio to the file adds the different motion.
# METHODS="gc-contact ..." adds our methods on the file (our contact model, the file's limits, zero
# control): each one's time per step and its ratio to testspeed's on the file, timed in the same runs.
# COUNT=instructions counts instead (valgrind's callgrind, once: the counts do not vary from run to
# run, where wall time on a shared machine does): mj_step's instructions in testspeed against
# Method::step's in `mbbench run` (the adapter's step, or a method's), per step over the same STEPS.
#   scripts/mujoco-overhead.sh [STEPS [REPS [MODEL.xml ...]]]   (from the checkout, after a release build)
set -euo pipefail
steps=${1:-10000}
reps=${2:-3}
shift $(($# < 2 ? $# : 2))
mbbench=${MBBENCH:-build/release/mbbench}
die() { echo "mujoco-overhead: $*" >&2; exit 2; }
command -v mujoco-testspeed >/dev/null || die "mujoco-testspeed not found (Debian: apt-get install libmujoco-samples)"
[[ -x $mbbench ]] || die "$mbbench not found: build it first (cmake --preset release && cmake --build --preset release --target mbbench)"
command -v python3 >/dev/null || die "python3 not found (it reads the run's record)"
models=("$@")
if [[ ${#models[@]} -eq 0 ]]; then
  for name in humanoid.xml humanoid100.xml; do
    path=$(dpkg -L libmujoco-samples 2>/dev/null | grep "/$name\$" | head -1 || true)
    [[ -n $path ]] || path=/usr/share/mujoco/model/${name%.xml}/$name
    [[ -f $path ]] || die "$name not found (libmujoco-samples installs it under /usr/share/mujoco/model)"
    models+=("$path")
  done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
speed() {  # time per step and contacts per step of testspeed on $1
  mujoco-testspeed "$1" "$steps" 1 0 >"$tmp/ts.txt" || die "mujoco-testspeed failed on $1"
  awk '/Time per step/ {t = $5} /Contacts per step/ {c = $5} END {print t, c}' "$tmp/ts.txt"
}
if [[ ${COUNT:-} == instructions ]]; then
  command -v valgrind >/dev/null || die "valgrind not found (Debian: apt-get install valgrind)"
  # the instructions inside the function FN of a command, per step
  count() {
    local fn=$1; shift
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" --toggle-collect="$fn" "$@" >"$tmp/cg.txt" 2>&1 ||
      { cat "$tmp/cg.txt" >&2; die "valgrind failed on: $*"; }
    awk -v n="$steps" '/^summary:/ {printf "%.4g", $2 / n / 1e6}' "$tmp/cg.out"
  }
  unit="M instr"
else
  unit="ms"
fi
printf "%-16s %6s %9s %9s %10s %10s %10s %8s %8s\n" model steps contacts "(same)" "file $unit" "same $unit" "adapter $unit" "/same" "/file"
for model in "${models[@]}"; do
  [[ -f $model ]] || die "no model file '$model'"
  h=$(grep -o 'timestep="[^"]*"' "$model" | head -1 | cut -d'"' -f2 || true)
  h=${h:-0.002}  # MuJoCo's default time step
  duration=$(python3 -c "print(repr($steps * $h))")
  # the copy in a copy of the model's directory, so that its includes resolve
  rm -rf "$tmp/same" && cp -r "$(dirname "$model")" "$tmp/same"
  python3 - "$tmp/same" <<'PY'
import pathlib, re, sys
for f in pathlib.Path(sys.argv[1]).rglob("*.xml"):
    f.write_text(re.sub(r'\s(stiffness|armature)\s*=\s*"[^"]*"', "", f.read_text()))
PY
  same="$tmp/same/$(basename "$model")"
  : >"$tmp/file" >"$tmp/same.t" >"$tmp/ad"
  for m in ${METHODS:-}; do : >"$tmp/m.$m"; done
  if [[ ${COUNT:-} == instructions ]]; then
    reps=0
    read -r _ c_file < <(speed "$model")
    read -r _ c_same < <(speed "$same")
    count mj_step mujoco-testspeed "$model" "$steps" 1 0 >"$tmp/file"
    count mj_step mujoco-testspeed "$same" "$steps" 1 0 >"$tmp/same.t"
    count 'mb::Method::step(*' "$mbbench" run "$model:damping=on" mujoco:contacts=file,integrator=euler --h "$h" \
      --duration "$duration" --no-ref --out "$tmp/r.json" >"$tmp/ad"
    for m in ${METHODS:-}; do
      count 'mb::Method::step(*' "$mbbench" run "$model" "$m" --h "$h" --duration "$duration" --no-ref --out "$tmp/r.json" >"$tmp/m.$m"
    done
  fi
  for ((r = 0; r < reps; ++r)); do
    read -r t c_file < <(speed "$model") && echo "$t" >>"$tmp/file"
    read -r t c_same < <(speed "$same") && echo "$t" >>"$tmp/same.t"
    "$mbbench" run "$model:damping=on" mujoco:contacts=file,integrator=euler --h "$h" --duration "$duration" --out "$tmp/r.json" \
      >"$tmp/run.txt" 2>&1 || { cat "$tmp/run.txt" >&2; die "mbbench run failed on $model"; }
    python3 -c "import json; print('%.4f' % (1e3 * json.load(open('$tmp/r.json'))['provenance']['timing']['step_seconds_mean']))" >>"$tmp/ad"
    for m in ${METHODS:-}; do
      "$mbbench" run "$model" "$m" --h "$h" --duration "$duration" --no-ref --out "$tmp/r.json" >"$tmp/run.txt" 2>&1 ||
        { cat "$tmp/run.txt" >&2; die "mbbench run $m failed on $model"; }
      python3 -c "import json; print('%.4f' % (1e3 * json.load(open('$tmp/r.json'))['provenance']['timing']['step_seconds_mean']))" >>"$tmp/m.$m"
    done
  done
  best() { sort -g "$1" | head -1; }
  tf=$(best "$tmp/file"); tsame=$(best "$tmp/same.t"); ad=$(best "$tmp/ad")
  printf "%-16s %6s %9s %9s %10s %10s %10s %7.3fx %7.3fx\n" "$(basename "$model")" "$steps" "$c_file" "$c_same" "$tf" "$tsame" "$ad" \
    "$(python3 -c "print($ad / $tsame)")" "$(python3 -c "print($ad / $tf)")"
  for m in ${METHODS:-}; do
    t=$(best "$tmp/m.$m")
    printf "%-16s %6s %-30s %10s %s %7.3fx testspeed\n" "" "" "$m" "$t" "$unit" "$(python3 -c "print($t / $tf)")"
  done
done
