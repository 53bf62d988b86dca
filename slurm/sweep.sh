#!/bin/bash
# Runs a sweep on a Slurm cluster: one MPI rank per GPU across the allocation,
# rank 0 writes one HDF5 file.
#
#   sbatch slurm/sweep.sh [JOB.yaml [OUTPUT.h5 [SWEEP OPTIONS...]]]
#   sbatch -N 4 slurm/sweep.sh jobs/seeds.yaml seeds.h5    # 4 nodes x 8 GPUs
#
# Requeue-safe: when OUTPUT exists (Slurm requeued the job, or the same
# command is submitted again after a time limit, a node failure or scancel),
# the sweep resumes it and runs only the points it lacks; a finished file
# makes the job a no-op, and a file of another job is refused, never
# overwritten. So give each job file its own OUTPUT.
#
# Settings (arguments win over environment):
#   SWEEP_JOB       job file                 (default jobs/seeds.yaml)
#   SWEEP_OUTPUT    result file              (default: the job file's name
#                   with .h5, in the directory sbatch was run from)
#   SWEEP_BACKEND   cuda | model | auto      (default auto: the GPUs; a rank
#                   without one fails the job, never falls back to model)
#   SWEEP_ARGS      more sweep options, split at blanks ("--schedule static")
#   SWEEP_BIN       the sweep binary         (default: sweep on PATH, else
#                   build/sweep in the directory sbatch was run from)
#   SWEEP_LAUNCHER  srun | mpirun | auto     (default auto: srun --mpi=pmix
#                   where this Slurm offers PMIx, else mpirun)
# Site settings (partition, account, GPUs per node, modules) are the #SBATCH
# lines and the block below them: slurm/README.md says what to change.
#
#SBATCH --job-name=sweep
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-task=1
# Cores for each rank's CPU checks (OpenMP), which run beside the next point's
# timing: with one core a rank checks a large point several times slower.
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --output=sweep-%j.out
#SBATCH --open-mode=append
#SBATCH --requeue
##SBATCH --partition=gpu
##SBATCH --account=myproject
set -euo pipefail

# --- site: modules and environment --------------------------------------------
# module load cuda openmpi hdf5

say() { printf 'sweep.sh: %s\n' "$*"; }

job=${1:-${SWEEP_JOB:-jobs/seeds.yaml}}
name=${job##*/}
out=${2:-${SWEEP_OUTPUT:-${name%.*}.h5}}
shift $(($# < 2 ? $# : 2))
backend=${SWEEP_BACKEND:-auto}
launcher=${SWEEP_LAUNCHER:-auto}
bin=${SWEEP_BIN:-$(command -v sweep || echo "${SLURM_SUBMIT_DIR:-$PWD}/build/sweep")}

if [ ! -x "$bin" ]; then
	say "no sweep binary at $bin: build it, or set SWEEP_BIN"
	exit 2
fi

args=(--backend "$backend" -o "$out" "$@")
if [ -n "${SWEEP_ARGS:-}" ]; then
	read -r -a extra <<<"$SWEEP_ARGS"
	args+=("${extra[@]}")
fi
# An existing OUTPUT is resumed, unless the options ask to replace it.
resume=0
if [ -e "$out" ]; then
	resume=1
	for a in "${args[@]}"; do
		case $a in -f | --force) resume=0 ;; esac
	done
fi
[ "$resume" = 0 ] || args+=(--resume)

# srun starts the ranks through PMIx where this Slurm offers it; mpirun reads
# the allocation itself. (The list is captured first: grep -q would end the
# pipe early and pipefail would call that a failure.)
if [ "$launcher" = auto ]; then
	launcher=mpirun
	if [ -n "${SLURM_JOB_ID:-}" ] && mpi_types=$(srun --mpi=list 2>&1) &&
		grep -qw pmix <<<"$mpi_types"; then
		launcher=srun
	fi
fi
# Each rank's cores: srun no longer passes sbatch's --cpus-per-task on
# (Slurm 22.05), so it is named again; mpirun would bind each rank to one
# core, so it binds none and leaves placement to the kernel.
cpus=${SLURM_CPUS_PER_TASK:-}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-${cpus:-}}
[ -n "$OMP_NUM_THREADS" ] || unset OMP_NUM_THREADS
case $launcher in
srun) cmd=(srun --mpi=pmix ${cpus:+--cpus-per-task="$cpus"} "$bin" "${args[@]}" "$job") ;;
mpirun) cmd=(mpirun ${SLURM_NTASKS:+-np "$SLURM_NTASKS"} --bind-to none "$bin" "${args[@]}" "$job") ;;
*)
	say "SWEEP_LAUNCHER=$launcher: expected srun, mpirun or auto"
	exit 2
	;;
esac

say "job ${SLURM_JOB_ID:-(not under Slurm)} restart ${SLURM_RESTART_COUNT:-0}, $(date '+%F %T'), in $PWD"
say "nodes (${SLURM_JOB_NUM_NODES:-1}): ${SLURM_JOB_NODELIST:-$(hostname)}"
say "tasks ${SLURM_NTASKS:-?}, per node ${SLURM_TASKS_PER_NODE:-?}, GPUs per task ${SLURM_GPUS_PER_TASK:-?}"
if command -v nvidia-smi >/dev/null 2>&1; then
	say "GPUs of $(hostname) (the table below says which rank took which):"
	nvidia-smi -L || true
fi
[ "$resume" = 0 ] || say "$out exists: resuming it, only the points it lacks run"
say "${cmd[*]}"

# On scancel or the time limit Slurm sends SIGTERM, then SIGKILL after
# KillWait: the ranks stop taking points and rank 0 writes what was measured.
# The trap keeps this shell alive until they have, to log how it ended.
trap 'say "SIGTERM: stopping; a requeue or the same command again completes $out"' TERM
start=$(date +%s)
rc=0
# Rank 0's stderr (its binding table, progress and errors) joins the job log.
"${cmd[@]}" 2>&1 || rc=$?
say "exit $rc after $(($(date +%s) - start)) s, $(date '+%F %T')"
exit "$rc"
