#!/bin/bash
# sbatch slurm/sweep.sh [JOB.yaml [OUTPUT.h5]]
# One MPI rank per GPU across the allocation. Requeue-safe: a rerun of the same
# Slurm job (or a resubmission naming the same OUTPUT) resumes the file.
# Settings (arguments win over environment):
#   SWEEP_JOB      job file            (default: jobs/seeds.yaml)
#   SWEEP_OUTPUT   result file         (default: sweep-<job id>.h5)
#   SWEEP_BACKEND  cuda | model | auto (default: auto)
#   SWEEP_BIN      the sweep binary    (default: sweep on PATH, else ./build/sweep)
#   SWEEP_ARGS     more sweep options, e.g. "--schedule static"
# Site settings (partition, account, modules) go below; see slurm/README.md.
#SBATCH --job-name=sweep
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-task=1
#SBATCH --time=02:00:00
#SBATCH --output=sweep-%j.out
#SBATCH --requeue
set -euo pipefail

job=${1:-${SWEEP_JOB:-jobs/seeds.yaml}}
out=${2:-${SWEEP_OUTPUT:-sweep-${SLURM_JOB_ID:-manual}.h5}}
backend=${SWEEP_BACKEND:-auto}
bin=${SWEEP_BIN:-$(command -v sweep || echo ./build/sweep)}
read -r -a extra <<<"${SWEEP_ARGS:-}"

echo "sweep job ${SLURM_JOB_ID:-?} on ${SLURM_JOB_NUM_NODES:-?} node(s): ${SLURM_JOB_NODELIST:-$(hostname)}"
echo "tasks: ${SLURM_NTASKS:-?}, job file: $job, output: $out, backend: $backend"
if command -v nvidia-smi >/dev/null 2>&1; then
	nvidia-smi -L || true
fi

args=(--backend "$backend" -o "$out" "${extra[@]}")
[ -e "$out" ] && args+=(--resume) && echo "resuming $out"

# srun starts the ranks through PMIx where Slurm offers it; otherwise mpirun
# reads the allocation itself.
if srun --mpi=list 2>&1 | grep -q pmix; then
	exec srun --mpi=pmix "$bin" "${args[@]}" "$job"
fi
exec mpirun "$bin" "${args[@]}" "$job"
