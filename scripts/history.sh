#!/usr/bin/env bash
# Fills a gate history from a range of commits (docs/usage.md "gate"): for each commit of A..B
# (oldest first), a worktree, a Release build, and `mbbench gate --history FILE` against that
# commit's own baseline (its exit status does not stop the script: a history records regressions
# too). Then `mbbench trend FILE` draws the page.
# Usage: scripts/history.sh A..B [--out FILE] [--last N] [-- GATE OPTIONS...]
#   --out FILE  the history to append to (default results/out/history/history.jsonl)
#   --last N    only the last N commits of the range
#   GATE OPTIONS are passed to mbbench gate (default: --models none, the timing signals only)
# Needs a commit that has `mbbench gate --history` (older ones are skipped with a note).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
[[ $# -ge 1 ]] || { echo "usage: scripts/history.sh A..B [--out FILE] [--last N] [-- GATE OPTIONS...]" >&2; exit 2; }
range=$1; shift
out=results/out/history/history.jsonl
last=0
gate_opts=(--models none)
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --last) last=$2; shift 2 ;;
    --) shift; gate_opts=("$@"); break ;;
    *) echo "history: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
commits=$(git rev-list --reverse "$range")
if [[ $last -gt 0 ]]; then commits=$(echo "$commits" | tail -n "$last"); fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
work=$(mktemp -d /tmp/mbbench-history.XXXXXX)
trap 'git -C "$repo" worktree remove --force "$work/wt" 2>/dev/null || true; rm -rf "$work"' EXIT
for c in $commits; do
  echo "history: $(git log -1 --format='%h %s' "$c")"
  git worktree add --detach "$work/wt" "$c" >/dev/null 2>&1
  (
    cd "$work/wt"
    if ! grep -q -- '--history' runners/main.cpp; then
      echo "history: $c has no mbbench gate --history; skipped"
      exit 0
    fi
    # one build folder for every commit (the worktree's path does not change): incremental builds
    cmake -S . -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
    cmake --build "$work/build" -j "$(nproc)" --target mbbench >/dev/null
    "$work/build/mbbench" gate --history "$out" "${gate_opts[@]}" | tail -n 1 || true
  )
  git worktree remove --force "$work/wt"
done
"$repo/build/release/mbbench" trend "$out" --out "$(dirname "$out")/trend" 2>/dev/null ||
  echo "history: build this checkout (cmake --build --preset release) and run mbbench trend $out"
