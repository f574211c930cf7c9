#!/usr/bin/env bash
# Installs the Debian packages mbbench needs, only those missing; idempotent.
# Usage: scripts/install-deps.sh [--with-browser]   (Chromium for the report's browser test)
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config git
      libeigen3-dev libboost-dev libboost-math-dev libsuitesparse-dev libbenchmark-dev
      catch2 libfmt-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev gnuplot-nox)
if [[ "${1:-}" == "--with-browser" ]]; then pkgs+=(chromium); fi
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
