#!/usr/bin/env bash
# scripts/check-deb.sh [BUILD_DIR]: the Debian package of a built tree (default build/release), made
# with cpack, installed with apt on this machine (Debian 12, as root), run from an empty folder and
# removed again. Checks that
#   - every library the installed executable needs resolves to a file of an installed package;
#   - `mbbench run pendulum10 GC4` ends with status ok;
#   - the installed data is found from the executable's location (`mbbench gate --which` names
#     /usr/share/mbbench/results/baselines/gate.json).
# Build the whole tree first (cpack's preinstall step builds every target that is out of date).
# Refuses to run when a package mbbench is installed already; it removes the one it installed,
# also when a check fails.
set -euo pipefail
build=$(realpath "${1:-build/release}")
[[ $(id -u) == 0 ]] || { echo "check-deb: run as root (apt-get install)" >&2; exit 2; }
if dpkg-query -W -f='${Status}' mbbench 2>/dev/null | grep -q "install ok installed"; then
  echo "check-deb: a package mbbench is installed already; remove it first" >&2
  exit 2
fi

cd "$build"
rm -f mbbench_*.deb
cpack -G DEB >/dev/null
deb=$(ls "$build"/mbbench_*.deb)
echo "check-deb: $deb"
dpkg-deb -f "$deb" Depends | sed 's/^/  Depends: /'

cleanup() { apt-get remove -y mbbench >/dev/null 2>&1 || true; }
trap cleanup EXIT
apt-get install -y "$deb" >/dev/null

exe=/usr/bin/mbbench
if ldd "$exe" | grep -q "not found"; then
  ldd "$exe" | grep "not found" >&2
  exit 1
fi
ldd "$exe" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  dpkg -S "$(readlink -f "$lib")" >/dev/null 2>&1 || dpkg -S "$lib" >/dev/null 2>&1 ||
    { echo "check-deb: $lib belongs to no package" >&2; exit 1; }
done

empty=$(mktemp -d)
cd "$empty"
"$exe" run pendulum10 GC4 | tee run.txt
grep -q "^status: ok" run.txt
"$exe" gate --which | tee which.txt
grep -q "^baseline: /usr/share/mbbench/results/baselines/gate.json" which.txt
cd /
rm -rf "$empty"
echo "check-deb: passed"
