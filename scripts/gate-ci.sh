#!/usr/bin/env bash
# The CI gate (docs/usage.md "gate"): `mbbench gate` on the Release build, by the machine's key.
# - This machine has a time baseline (`mbbench gate --which`: "entry: yes"): every signal gates.
# - Otherwise accuracy and instructions gate, and the time signal is measured A/B against a Release
#   build of the baseline's commit (a worktree in build/gate-base, only its mbbench target) when
#   methods/ changed since that commit; when methods/ did not change, when the commit is not in
#   this clone, or with MBBENCH_GATE_AB=off (no time left for the build), time is not gated.
# The gate's summary line names the signals that gated. Extra arguments go to `mbbench gate`.
# Usage: scripts/gate-ci.sh [GATE OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
mb=build/release/mbbench
info=$("$mb" gate --which "$@")
echo "$info" | sed 's/^/gate-ci: /'
entry=$(sed -n 's/^entry: //p' <<<"$info")
commit=$(sed -n 's/^commit: //p' <<<"$info")
commit=${commit%-dirty}
if [[ $entry == yes* ]]; then
  exec "$mb" gate "$@"
fi
if [[ -z $commit ]] || ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "gate-ci: the baseline's commit '${commit}' is not in this clone: accuracy and instructions gate alone"
  exec "$mb" gate "$@"
fi
if git diff --quiet "$commit" HEAD -- methods/; then
  echo "gate-ci: methods/ unchanged since the baseline's commit ${commit:0:12}: accuracy and instructions gate alone"
  exec "$mb" gate "$@"
fi
if [[ ${MBBENCH_GATE_AB:-on} == off ]]; then
  echo "gate-ci: methods/ changed since ${commit:0:12}, but MBBENCH_GATE_AB=off: accuracy and instructions gate alone"
  exec "$mb" gate "$@"
fi
echo "gate-ci: methods/ changed since the baseline's commit ${commit:0:12}: building it for the A/B time signal"
base=build/gate-base
if [[ "$(git -C "$base" rev-parse HEAD 2>/dev/null || true)" != "$commit" ]]; then
  git worktree remove --force "$base" 2>/dev/null || rm -rf "$base"
  git worktree prune
  git worktree add --detach "$base" "$commit" >/dev/null
fi
(cd "$base" && cmake --preset release >/dev/null && cmake --build --preset release -j "$(nproc)" --target mbbench >/dev/null)
exec "$mb" gate --against "$base/build/release/mbbench" "$@"
