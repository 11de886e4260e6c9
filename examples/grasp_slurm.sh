#!/bin/bash
# The grasp study of the paper's Example 4 (§6.4) on a Slurm cluster: the default grid
# (21 × 21 = 441 cells, 1 mm apart over x ∈ [−10, 10] mm, y ∈ [−20, 0] mm) with 400 trials per
# cell, split into a job array of 100 shards (cell k goes to shard k mod 100), then merged into
# one study and drawn.
#
# Usage, from the crate's directory after `cargo build --release`:
#
#   bash examples/grasp_slurm.sh      # outside Slurm: submits the array and the merge after it
#
# which does the same as, by hand:
#
#   mkdir -p logs shards
#   jobid=$(sbatch --parsable examples/grasp_slurm.sh)
#   sbatch --dependency=afterok:$jobid --job-name=grasp-merge --output=logs/grasp-merge-%j.out \
#       --wrap "target/release/implicit-contact study grasp --merge shards/* --out runs/grasp \
#               && target/release/implicit-contact paper grasp --out runs --plots plots"
#
# Each task writes shards/<task>/ (grasp_success.csv, grasp_trials.csv, the partial map and,
# last, grasp_study.json). The merge runs only if every task succeeded (afterok); it checks
# that the directories are all the shards of one study (same seed, grid, trials and model;
# every index once) and writes runs/grasp/ with tables byte-identical to an unsharded run's.
# `paper grasp` then draws plots/fig10b_grasp_success.svg and .png from runs/grasp/ and prints
# the study's claims. Remove shards/ before a new study: a stale shard is refused, not mixed in.
#
# Expected cost: 441 × 400 = 176,400 trials at 40 ms each on average (measured on one core of
# the project's 2-core machine; single trials range from 5 ms to about 0.2 s), about 2 CPU-hours
# in all. A task runs 4 or 5 cells, 1,600–2,000 trials, on 4 CPUs: about 20–30 s. The merge reads about 25 MB of tables and takes seconds. Disk: about
# 20 MB of shards, 20 MB merged.
#
# Environment: IMPLICIT_CONTACT (the binary, default target/release/implicit-contact), TRIALS
# (trials per cell, default 400), SEED (default 1).
#
#SBATCH --job-name=grasp-study
#SBATCH --array=0-99
#SBATCH --cpus-per-task=4
#SBATCH --mem-per-cpu=500M
#SBATCH --time=00:30:00
#SBATCH --output=logs/grasp-%A_%a.out

set -euo pipefail
BIN=${IMPLICIT_CONTACT:-target/release/implicit-contact}
TRIALS=${TRIALS:-400}
SEED=${SEED:-1}

if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
    # Not a task of the array: submit the array, then the merge that waits for all of it.
    mkdir -p logs shards
    array=$(sbatch --parsable "$0")
    merge=$(sbatch --parsable --dependency=afterok:"$array" --job-name=grasp-merge \
        --cpus-per-task=1 --mem=2G --time=00:20:00 --output=logs/grasp-merge-%j.out \
        --wrap "$BIN study grasp --merge shards/* --out runs/grasp && $BIN paper grasp --out runs --plots plots")
    echo "submitted the array $array (100 shards) and its merge $merge"
    exit 0
fi

# SLURM_ARRAY_TASK_COUNT is set by Slurm 18.08 and later; before, from the array's bounds.
COUNT=${SLURM_ARRAY_TASK_COUNT:-$((SLURM_ARRAY_TASK_MAX - SLURM_ARRAY_TASK_MIN + 1))}
exec "$BIN" study grasp \
    --shard "$SLURM_ARRAY_TASK_ID/$COUNT" \
    --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --trials "$TRIALS" \
    --seed "$SEED" \
    --out "shards/$SLURM_ARRAY_TASK_ID"
