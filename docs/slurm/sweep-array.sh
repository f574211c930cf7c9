#!/usr/bin/env bash
# One shard of an mbbench sweep per Slurm array task (docs/cluster.md). Submit, then merge:
#
#   jid=$(sbatch --parsable --array=1-16 docs/slurm/sweep-array.sh results/experiments/schmitt2005.toml /shared/s2005)
#   sbatch --dependency=afterok:$jid --wrap \
#     "build/release/mbbench merge /shared/s2005/records.shard-*-of-16.jsonl --out /shared/s2005/records.jsonl"
#
# Task k of N (k = 1..N, from the array's range) runs `mbbench sweep EXP --shard k/N --resume` into
# OUT/records.shard-k-of-N.jsonl on a folder every node sees. --resume makes a requeued or rerun task
# continue its shard instead of refusing the existing file. Threads per task: --cpus-per-task.
# MBBENCH names the binary (default build/release/mbbench, relative to the submit folder).
#SBATCH --job-name=mbbench-sweep
#SBATCH --cpus-per-task=2
#SBATCH --time=04:00:00
#SBATCH --output=mbbench-sweep-%A_%a.out
set -euo pipefail
exp=${1:?usage: sbatch --array=1-N sweep-array.sh EXPERIMENT.toml OUT_DIR}
out=${2:?usage: sbatch --array=1-N sweep-array.sh EXPERIMENT.toml OUT_DIR}
mb=${MBBENCH:-build/release/mbbench}
: "${SLURM_ARRAY_TASK_ID:?not an array task: submit with sbatch --array=1-N}"
first=${SLURM_ARRAY_TASK_MIN:-1}
shards=${SLURM_ARRAY_TASK_COUNT:?}
if (( ${SLURM_ARRAY_TASK_MAX:-$((first + shards - 1))} - first + 1 != shards )); then
  echo "sweep-array: the array must be a plain range (--array=1-N), got min $first, max $SLURM_ARRAY_TASK_MAX, count $shards" >&2
  exit 2
fi
k=$((SLURM_ARRAY_TASK_ID - first + 1))
exec "$mb" sweep "$exp" --shard "$k/$shards" --jobs "${SLURM_CPUS_PER_TASK:-1}" --resume --out "$out"
