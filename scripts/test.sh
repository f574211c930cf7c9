#!/usr/bin/env bash
# Installs what is missing, builds the Debug preset with AddressSanitizer and UBSan, and runs the
# whole Catch2 suite through ctest. In CI (CI=true) warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
werror=OFF
if [[ "${CI:-}" == "true" ]]; then werror=ON; fi
cmake --preset debug-asan -DMBBENCH_WERROR=$werror >/dev/null
cmake --build --preset debug-asan -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --preset debug-asan -j "$(nproc)"
