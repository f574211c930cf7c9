#!/usr/bin/env bash
# Fills a gate history from a range of commits (docs/usage.md "gate"): one worktree, checked out
# at each commit of A..B in turn (oldest first), an incremental Release build of mbbench in it,
# and `mbbench gate --history FILE` against that commit's own baseline (its exit status does not
# stop the script: a history records regressions too). Then `mbbench trend FILE` draws the page.
# Usage: scripts/history.sh A..B [--out FILE] [--last N] [--workdir DIR] [--build CMD] [-- GATE OPTIONS...]
#   --out FILE     the history to append to (default results/out/history/history.jsonl)
#   --last N       only the last N commits of the range
#   --workdir DIR  where the worktree and its build live (default: a new folder under /tmp);
#                  kept between runs, so a second run builds incrementally. Under ccache, a folder
#                  below CCACHE_BASEDIR shares the cache with the other checkouts
#   --build CMD    the command, run in the worktree, that builds build/release/mbbench (default:
#                  cmake --preset release, then cmake --build --preset release --target mbbench)
#   GATE OPTIONS are passed to mbbench gate (default: --models none, the timing signals only)
# Needs a commit that has `mbbench gate --history` (older ones are skipped with a note).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
usage="usage: scripts/history.sh A..B [--out FILE] [--last N] [--workdir DIR] [--build CMD] [-- GATE OPTIONS...]"
[[ $# -ge 1 ]] || { echo "$usage" >&2; exit 2; }
range=$1; shift
out=results/out/history/history.jsonl
last=0
work=
build=
gate_opts=(--models none)
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --last) last=$2; shift 2 ;;
    --workdir) work=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --) shift; gate_opts=("$@"); break ;;
    *) echo "history: unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $last =~ ^[0-9]+$ ]] || { echo "history: --last needs a whole number, got '$last'" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
commits=$(git rev-list --reverse "$range")
if [[ $last -gt 0 ]]; then commits=$(echo "$commits" | tail -n "$last"); fi
[[ -n $commits ]] || { echo "history: no commits in $range" >&2; exit 2; }
if [[ -z $work ]]; then
  work=$(mktemp -d /tmp/mbbench-history.XXXXXX)
  trap 'git -C "$repo" worktree remove --force "$work/wt" 2>/dev/null || true; rm -rf "$work"' EXIT
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
wt=$work/wt
if ! git -C "$wt" rev-parse --git-dir >/dev/null 2>&1; then
  git worktree add --detach "$wt" "$(echo "$commits" | head -n 1)" >/dev/null
fi
for c in $commits; do
  echo "history: $(git log -1 --format='%h %s' "$c")"
  git -C "$wt" checkout --quiet --detach "$c"
  (
    cd "$wt"
    if ! grep -q -- '--history' runners/main.cpp; then
      echo "history: $c has no mbbench gate --history; skipped"
      exit 0
    fi
    # one build folder for every commit (the worktree's path does not change): incremental builds
    if [[ -n $build ]]; then
      bash -c "$build" >"$work/build.log" 2>&1 || { echo "history: the build of $c failed (log: $work/build.log)"; exit 0; }
    else
      { cmake --preset release && cmake --build --preset release --target mbbench; } >"$work/build.log" 2>&1 ||
        { echo "history: the build of $c failed (log: $work/build.log)"; exit 0; }
    fi
    build/release/mbbench gate --history "$out" "${gate_opts[@]}" | tail -n 1 || true
  )
done
"$repo/build/release/mbbench" trend "$out" --out "$(dirname "$out")/trend" ||
  echo "history: build this checkout (cmake --build --preset release) and run mbbench trend $out"
