#!/usr/bin/env bash
# scripts/check-deb.sh [--fresh [--keep]] [BUILD_DIR]: the Debian package of a built tree (default
# build/release), made with cpack, installed with apt, run from an empty folder and removed again.
# As root. Checks that
#   - every library the installed executable needs resolves to a file of an installed package;
#   - `mbbench run pendulum10 GC4` ends with status ok;
#   - the installed data is found from the executable's location (`mbbench gate --which` names
#     /usr/share/mbbench/results/baselines/gate.json).
# Without --fresh it installs on this machine (Debian 12), where the dependencies are installed
# already; it refuses to run when a package mbbench is installed, and removes the one it installed,
# also when a check fails.
# --fresh: a new Debian 12 root instead (debootstrap --variant=minbase bookworm, from this
# machine's Debian mirror; sources bookworm, bookworm-updates, bookworm-security), the .deb
# installed there with `apt-get install -y ./mbbench_*.deb` (Recommends too, as apt does), the
# checks run in the chroot, then examples/program and examples/plugin built against /usr there
# with the g++, cmake and Eigen the Recommends brought. Prints what apt pulled (packages, download,
# disk) and the seconds of each phase. Needs the network; removes the root unless --keep.
# Build the whole tree first (cpack's preinstall step builds every target that is out of date).
set -euo pipefail
fresh=0 keep=0
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --fresh) fresh=1 ;;
    --keep) keep=1 ;;
    *) echo "check-deb: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-build/release}")
[[ $(id -u) == 0 ]] || { echo "check-deb: run as root (apt-get install)" >&2; exit 2; }

# the checks on an installed package; $1 the root ("" this machine), run in that root
check_installed() {
  local root=$1 exe=/usr/bin/mbbench
  local in=(); [[ -n $root ]] && in=(chroot "$root")
  if "${in[@]}" ldd "$exe" | grep -q "not found"; then
    "${in[@]}" ldd "$exe" | grep "not found" >&2
    return 1
  fi
  "${in[@]}" sh -c "ldd $exe | awk '\$3 ~ /^\\// {print \$3}' | while read -r lib; do
    dpkg -S \"\$(readlink -f \"\$lib\")\" >/dev/null 2>&1 || dpkg -S \"\$lib\" >/dev/null 2>&1 ||
      { echo \"check-deb: \$lib belongs to no package\" >&2; exit 1; }
  done"
  "${in[@]}" sh -c "set -e; d=\$(mktemp -d); cd \$d
    $exe run pendulum10 GC4 | tee run.txt
    grep -q '^status: ok' run.txt
    $exe gate --which | tee which.txt
    grep -q '^baseline: /usr/share/mbbench/results/baselines/gate.json' which.txt
    cd /; rm -rf \$d"
}

cd "$build"
rm -f mbbench_*.deb
cpack -G DEB >/dev/null
deb=$(ls "$build"/mbbench_*.deb)
echo "check-deb: $deb ($(du -k "$deb" | cut -f1) KiB)"
dpkg-deb -f "$deb" Depends | sed 's/^/  Depends: /'

if [[ $fresh == 0 ]]; then
  if dpkg-query -W -f='${Status}' mbbench 2>/dev/null | grep -q "install ok installed"; then
    echo "check-deb: a package mbbench is installed already; remove it first" >&2
    exit 2
  fi
  cleanup() { apt-get remove -y mbbench >/dev/null 2>&1 || true; }
  trap cleanup EXIT
  apt-get install -y "$deb" >/dev/null
  check_installed ""
  echo "check-deb: passed"
  exit 0
fi

# --fresh: this machine's mirrors of bookworm and bookworm-security (one-line or deb822 sources)
uri_of() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk -v s="$1" '$1 == "deb" && $3 == s {print $2; exit}'
  cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk -v s="$1" '/^URIs:/ {u = $2} /^Suites:/ {for (i = 2; i <= NF; i++) if ($i == s) {print u; exit}} /^$/ {u = ""}'
}
mirror=$(uri_of bookworm | head -1); mirror=${mirror:-http://deb.debian.org/debian}
security=$(uri_of bookworm-security | head -1); security=${security:-http://deb.debian.org/debian-security}
command -v debootstrap >/dev/null || apt-get install -y debootstrap >/dev/null
root=$(mktemp -d /var/tmp/mbbench-fresh.XXXXXX)
chmod 755 "$root"  # apt downloads as the user _apt
cleanup() {
  local m
  for m in "$root/proc" "$root/sys"; do mountpoint -q "$m" && umount "$m"; done
  if [[ $keep == 1 ]]; then
    echo "check-deb: kept the root $root"
  elif ! mountpoint -q "$root/proc" && ! mountpoint -q "$root/sys"; then
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT
t0=$(date +%s)
echo "check-deb: debootstrap --variant=minbase bookworm $root $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
  { tail -20 "$root.debootstrap.log" >&2; exit 1; }
rm -f "$root.debootstrap.log"
t1=$(date +%s)
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"  # the machine key reads the CPU's caches there
before=$(chroot "$root" dpkg-query -W -f='.\n' | wc -l)
chroot "$root" apt-get update >/dev/null
cp "$deb" "$root/tmp/"
name=$(basename "$deb")
# what apt would pull without the Recommends, then the install as a user runs it
chroot "$root" sh -c "cd /tmp && apt-get install -s --no-install-recommends ./$name" | grep -E "newly installed" |
  sed 's/^/check-deb: without Recommends: /'
chroot "$root" sh -c "cd /tmp && DEBIAN_FRONTEND=noninteractive apt-get install -y ./$name" >"$root/tmp/apt.log" 2>&1 ||
  { tail -30 "$root/tmp/apt.log" >&2; exit 1; }
t2=$(date +%s)
grep -E "newly installed|Need to get|After this operation" "$root/tmp/apt.log" | sed 's/^/check-deb: apt: /'
after=$(chroot "$root" dpkg-query -W -f='.\n' | wc -l)
echo "check-deb: packages in the root: $before after debootstrap, $after after the install"
check_installed "$root"
t3=$(date +%s)

# a plugin and a program built against the installed package, as a user of the .deb builds them
if chroot "$root" sh -c "command -v g++ && command -v cmake" >/dev/null; then
  mkdir -p "$root/tmp/examples"
  cp -r "$src/examples/plugin" "$src/examples/program" "$root/tmp/examples/"
  chroot "$root" sh -c "set -e; cd /tmp/examples
    cmake -S program -B program/build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build program/build >/dev/null
    program/build/run_model pendulum10 GC4 | tee program.txt
    grep -q '^status: ok' program.txt
    cmake -S plugin -B plugin/build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build plugin/build >/dev/null
    mbbench run pendulum10 euler --plugin plugin/build/libeuler_plugin.so | tee plugin.txt
    grep -q '^status: ok' plugin.txt"
else
  echo "check-deb: no g++ or cmake in the root: the examples are not built" >&2
  exit 1
fi
t4=$(date +%s)
echo "check-deb: seconds: debootstrap $((t1 - t0)), apt update and install $((t2 - t1)), checks $((t3 - t2)), examples $((t4 - t3)), total $((t4 - t0))"
echo "check-deb: passed (fresh Debian 12)"
