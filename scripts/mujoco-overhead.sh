#!/usr/bin/env bash
# MuJoCo as its users run it against our `mujoco` adapter stepping the same file with the file's own
# contact model: `mujoco-testspeed` (libmujoco-samples) and `mbbench run FILE:damping=on
# mujoco:contacts=file,integrator=euler`, zero control, the file's time step, one thread, on
# humanoid.xml and humanoid100.xml (or the files given). Prints each one's time per step (the best
# of REPS runs) and their ratio: the adapter's step also recomputes the kinematics at the step's end
# and writes our Cartesian State. The file's joint stiffness and armature are not in our Model, so
# the two runs are not the same motion (testspeed's contacts per step are printed beside).
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
best() { sort -g | head -1; }
printf "%-18s %7s %10s %14s %14s %9s\n" model steps contacts "testspeed ms" "adapter ms" ratio
for model in "${models[@]}"; do
  [[ -f $model ]] || die "no model file '$model'"
  h=$(grep -o 'timestep="[^"]*"' "$model" | head -1 | cut -d'"' -f2 || true)
  h=${h:-0.002}  # MuJoCo's default time step
  duration=$(python3 -c "print(repr($steps * $h))")
  contacts=""
  for ((r = 0; r < reps; ++r)); do
    mujoco-testspeed "$model" "$steps" 1 0 >"$tmp/ts.txt" || die "mujoco-testspeed failed on $model"
    awk '/Time per step/ {print $5}' "$tmp/ts.txt" >>"$tmp/ts"
    contacts=$(awk '/Contacts per step/ {print $5}' "$tmp/ts.txt")
    "$mbbench" run "$model:damping=on" mujoco:contacts=file,integrator=euler --h "$h" --duration "$duration" --out "$tmp/r.json" \
      >"$tmp/run.txt" 2>&1 || { cat "$tmp/run.txt" >&2; die "mbbench run failed on $model"; }
    python3 -c "import json; print('%.4f' % (1e3 * json.load(open('$tmp/r.json'))['provenance']['timing']['step_seconds_mean']))" >>"$tmp/ad"
  done
  ts=$(best <"$tmp/ts")
  ad=$(best <"$tmp/ad")
  rm -f "$tmp/ts" "$tmp/ad"
  printf "%-18s %7s %10s %14s %14s %8.3fx\n" "$(basename "$model")" "$steps" "$contacts" "$ts" "$ad" "$(python3 -c "print($ad / $ts)")"
done
