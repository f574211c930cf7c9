#!/usr/bin/env bash
# Installs what is missing, builds the Debug preset with AddressSanitizer and UBSan, and runs the
# whole Catch2 suite through ctest. In CI (CI=true) warnings are errors and Chromium is installed
# for the report's browser test (elsewhere that test is skipped with a message if it is absent).
set -euo pipefail
cd "$(dirname "$0")/.."
werror=OFF
if [[ "${CI:-}" == "true" ]]; then
  werror=ON
  scripts/install-deps.sh --with-browser
else
  scripts/install-deps.sh
fi
cmake --preset debug-asan -DMBBENCH_WERROR=$werror >/dev/null
cmake --build --preset debug-asan -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --preset debug-asan -j "$(nproc)"
