#!/usr/bin/env bash
# Regenerates the docs made from the registry and the catalog (tests/docs_test.cpp checks them):
#   docs/methods.md  <- mbbench list methods --markdown
#   docs/models.md   <- mbbench list models --markdown
# Usage: scripts/gen-docs.sh [MBBENCH]   (default build/release/mbbench)
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-build/release/mbbench}
"$mb" list methods --markdown > docs/methods.md
"$mb" list models --markdown > docs/models.md
echo "gen-docs: wrote docs/methods.md and docs/models.md"
