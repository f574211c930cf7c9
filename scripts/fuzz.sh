#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz for SECONDS (default 60), built by the `fuzz` preset
# (clang, libFuzzer, ASan, UBSan), with a seed corpus made from the shipped scenes, experiments,
# records, specs, robots (URDF, MJCF) and gate histories and tests/fuzz/corpus/TARGET. A crash, a leak, undefined
# behaviour or a timeout fails (exit code != 0) and leaves the input in build/fuzz/artifacts/.
# Usage: scripts/fuzz.sh TARGET [SECONDS]   TARGET: scene | experiment | record | spec | urdf | mjcf | history | all
# (all: every target built, then run two at a time, each for SECONDS)
# FUZZ_SEED=N fixes libFuzzer's random seed (CI uses 1, so a run explores what a local run with the
# same seed and an empty build/fuzz/corpus explored).
set -euo pipefail
cd "$(dirname "$0")/.."
# the seeds of scene and record are made by an mbbench: the Release build's where there is one
# (CI has it), else the fuzz build's
seeder=build/release/mbbench seeder_target=
[[ -x $seeder ]] || seeder=build/fuzz/mbbench seeder_target=mbbench
target=${1:?usage: scripts/fuzz.sh scene|experiment|record|spec|urdf|mjcf|history|all [SECONDS]}
seconds=${2:-60}
all=(scene experiment record spec urdf mjcf history)
if [[ "$target" == all ]]; then
  # every target built at once, then run two at a time (a libFuzzer process runs on one core)
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$(nproc)" --target "${all[@]/%/_fuzz}" $seeder_target
  failed=()
  for ((i = 0; i < ${#all[@]}; i += 2)); do
    pids=()
    for t in "${all[@]:i:2}"; do
      FUZZ_NO_BUILD=1 "$0" "$t" "$seconds" > "build/fuzz/$t.log" 2>&1 &
      pids+=($!)
    done
    for k in "${!pids[@]}"; do wait "${pids[$k]}" || failed+=("${all[i + k]}"); done
    for t in "${all[@]:i:2}"; do
      echo "== fuzz: $t"
      cat "build/fuzz/$t.log"
    done
  done
  # each finding once more at the end, where a truncated log still shows it
  for t in "${failed[@]}"; do sed -n '/^== fuzz: .* failed/,$p' "build/fuzz/$t.log"; done
  ((${#failed[@]} == 0))
  exit
fi
if [[ -z ${FUZZ_NO_BUILD:-} ]]; then
  cmake --preset fuzz >/dev/null
  targets=("${target}_fuzz")
  [[ ($target == scene || $target == record) && -n $seeder_target ]] && targets+=(mbbench)
  cmake --build --preset fuzz -j "$(nproc)" --target "${targets[@]}"
fi
bin=build/fuzz
seeds=$bin/seeds/$target
corpus=$bin/corpus/$target
mkdir -p "$seeds" "$corpus" "$bin/artifacts"
# each file under its path with / as _: two files of one name in different folders are two seeds
seed() { for f in "$@"; do cp "$f" "$seeds/${f//\//_}"; done; }
case $target in
  scene)
    seed tests/data/bad/scenes/*.toml tests/data/motors/*.toml
    for m in pendulum10 double-pendulum chain:n=3,body=box tree:joints=7,anchor=ball loop:n=8 bouncing-ball incline-cubes:cubes=2 heavy-rod \
             walker strandbeest:legs=2,motor=on; do
      "$seeder" export-scene "$m" -o "$seeds/${m//[:=,]/_}.toml"
    done ;;
  experiment)
    seed results/experiments/*.toml tests/data/experiments/small.toml tests/data/bad/experiments/*.toml ;;
  record)
    seed tests/data/bad/records/*.jsonl results/baselines/gate.json
    "$seeder" run double-pendulum GC4 --h 0.01 --duration 0.1 --samples 0.1 --quiet --out "$seeds/run.json" ;;
  spec)
    i=0
    for s in GC4 ref:tol=1e-12 iterative:tol_p=1e-6,tol_v=0 sle:solver=cholmod LMBS4:alpha=10,beta=10 Imp6:solver=linear \
             lagrange:stab=vd,tol_p=1e-10 pendulum:amplitude=45 chain:n=5,body=box tree:joints=7,anchor=ball loop:n=8; do
      printf '%s' "$s" > "$seeds/seed$((i++))"
    done ;;
  urdf)
    seed tests/data/robots/*.urdf tests/data/urdf/*.urdf tests/data/bad/urdf/*.urdf tests/fuzz/corpus/urdf/* ;;
  mjcf)
    seed tests/data/mjcf/*.xml tests/data/mjcf/bad/*.xml tests/data/bad/mjcf/*.xml tests/fuzz/corpus/mjcf/* ;;
  history)
    seed tests/data/bad/history/*.jsonl tests/fuzz/corpus/history/* ;;
  *) echo "fuzz: unknown target '$target'" >&2; exit 2 ;;
esac
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp
log=$bin/$target.out
status=0
"$bin/${target}_fuzz" ${FUZZ_SEED:+-seed=$FUZZ_SEED} -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
  -artifact_prefix="$bin/artifacts/${target}-" -print_final_stats=1 "$corpus" "$seeds" > "$log" 2>&1 || status=$?
tail -25 "$log"
if ((status != 0)); then
  # the finding as a clean clone shows it: the sanitizer's report (its stack) and the input itself
  echo "== fuzz: $target failed (exit $status); the report:"
  sed -n '/^==[0-9]*==ERROR\|runtime error\|^==[0-9]*== ERROR/,/^SUMMARY/p' "$log" | grep -v '^  [A-Z].*: *[0-9a-f][0-9a-f]' | head -120
  for a in $(grep -o "Test unit written to [^ ]*" "$log" | sed 's/Test unit written to //'); do
    echo "== fuzz: the input $a ($(stat -c %s "$a") bytes), base64:"
    head -c 16384 "$a" | base64
  done
fi
exit $status
