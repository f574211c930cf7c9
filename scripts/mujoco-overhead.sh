#!/usr/bin/env bash
# MuJoCo's own mujoco-testspeed (libmujoco-samples) and our `mujoco` adapter on the same MJCF file,
# one after the other, each with MuJoCo's semi-implicit Euler at the file's time step: the time
# per step of each and the adapter's overhead (its step also recomputes the kinematics and writes
# our Cartesian State). Twice: with the file's contacts and with contacts disabled (testspeed on a
# copy whose <option> disables them, the adapter with contacts=off).
#   scripts/mujoco-overhead.sh [MODEL.xml] [STEPS]   (from the checkout, after a release build)
set -euo pipefail
model=${1:-/usr/share/mujoco/model/humanoid/humanoid.xml}
steps=${2:-10000}
mbbench=${MBBENCH:-build/release/mbbench}
command -v mujoco-testspeed >/dev/null || { echo "mujoco-testspeed not found (Debian: libmujoco-samples)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
h=$(grep -o 'timestep="[^"]*"' "$model" | head -1 | cut -d'"' -f2)
h=${h:-0.002}  # MuJoCo's default time step
duration=$(python3 -c "print(repr($steps * $h))")
# the copy sits in a copy of the model's directory, so that its includes resolve
cp -r "$(dirname "$model")" "$tmp/model"
nocontact="$tmp/model/nocontact.xml"
python3 - "$model" "$nocontact" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
flag = '<flag contact="disable"/>'
if re.search(r'<option[^>]*/>', text):
    text = re.sub(r'<option([^>]*)/>', r'<option\1>' + flag + '</option>', text, count=1)
elif '<option' in text:
    text = re.sub(r'(<option[^>]*>)', r'\1' + flag, text, count=1)
else:
    text = re.sub(r'(<mujoco[^>]*>)', r'\1<option>' + flag + '</option>', text, count=1)
open(sys.argv[2], 'w').write(text)
PY
printf "%-10s %-10s %14s %14s %10s\n" contacts steps "testspeed ms" "adapter ms" overhead
for contacts in on off; do
  file=$model
  [[ $contacts == off ]] && file=$nocontact
  ts=$(mujoco-testspeed "$file" "$steps" 1 0 | awk '/Time per step/ {print $5}')
  "$mbbench" run "$model:contacts=$contacts" mujoco:integrator=euler --h "$h" --duration "$duration" --out "$tmp/r.json" >/dev/null 2>&1
  ad=$(python3 -c "import json; print('%.4f' % (1e3 * json.load(open('$tmp/r.json'))['provenance']['timing']['step_seconds_mean']))")
  printf "%-10s %-10s %14s %14s %9.2fx\n" "$contacts" "$steps" "$ts" "$ad" "$(python3 -c "print($ad / $ts)")"
done
