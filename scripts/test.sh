#!/usr/bin/env bash
# Installs what is missing, builds the Debug preset with AddressSanitizer and UBSan, and runs the
# Catch2 suite through ctest. In CI (CI=true) warnings are errors and Chromium is installed for
# the report's browser test (elsewhere that test is skipped with a message if it is absent).
# Usage: scripts/test.sh [--full] [--build-only | --tests-only]
#   --full        also the tests labelled `full` (heavy cases the Release runs of .ci/run cover:
#                 docs/usage.md "Tests"), which the default run leaves out
#   --build-only  install and build, run nothing;  --tests-only  run the tests of the last build
set -euo pipefail
cd "$(dirname "$0")/.."
full=0 build=1 tests=1
for a in "$@"; do
  case $a in
    --full) full=1 ;;
    --build-only) tests=0 ;;
    --tests-only) build=0 ;;
    *) echo "test.sh: unknown option $a (use --full, --build-only or --tests-only)" >&2; exit 2 ;;
  esac
done
werror=OFF
if [[ "${CI:-}" == "true" ]]; then
  werror=ON
  scripts/install-deps.sh --with-browser
else
  scripts/install-deps.sh
fi
if [[ $build == 1 ]]; then
  cmake --preset debug-asan -DMBBENCH_WERROR=$werror >/dev/null
  cmake --build --preset debug-asan -j "$(nproc)"
fi
if [[ $tests == 1 ]]; then
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  if [[ $full == 1 ]]; then
    ctest --preset debug-asan -j "$(nproc)"
  else
    ctest --preset debug-asan -j "$(nproc)" -LE full
  fi
fi
