#!/usr/bin/env bash
# Installs the Debian packages mbbench needs, only those missing; idempotent.
# Usage: scripts/install-deps.sh [--with-browser] [--with-fuzz]
#   --with-browser: Chromium, for the report's browser test
#   --with-fuzz:    clang and its libFuzzer runtime, for the fuzz preset (scripts/fuzz.sh)
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config git
      libeigen3-dev libboost-dev libboost-math-dev libsuitesparse-dev libbenchmark-dev
      catch2 libfmt-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev gnuplot-nox libfcl-dev
      # the gate's instruction counts (cachegrind; docs/usage.md "gate")
      valgrind
      # OpenMPI: mbbench sweep --mpi (docs/cluster.md)
      libopenmpi-dev openmpi-bin
      # the peer engines (docs/peers.md): each built when found; MuJoCo's CMake config needs the
      # qhull headers and OpenGL (libgl-dev)
      libode-dev libmujoco-dev libqhull-dev libgl-dev libbullet-dev libsimbody-dev libdart-dev
      # URDF import (docs/peers.md); its mesh files as convex hulls (Assimp, and Qhull above)
      liburdfdom-dev libtinyxml-dev libassimp-dev
      # MuJoCo's sample models (humanoid.xml, humanoid100.xml) for the MJCF import's tests (docs/mjcf.md)
      libmujoco-samples)
for a in "$@"; do
  case $a in
    --with-browser) pkgs+=(chromium) ;;
    --with-fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
    *) echo "install-deps: unknown option $a" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
