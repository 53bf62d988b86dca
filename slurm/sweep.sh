#!/bin/bash
# Runs a sweep on a Slurm cluster: one MPI rank per GPU across the allocation,
# rank 0 writes one HDF5 file.
#
#   sbatch slurm/sweep.sh [JOB.yaml [OUTPUT.h5 [SWEEP OPTIONS...]]]
#   sbatch -N 4 slurm/sweep.sh jobs/seeds.yaml seeds.h5    # 4 nodes x 8 GPUs
#   sbatch -N 4 slurm/sweep.sh jobs/fleet.yaml fleet.h5    # fleet check: every GPU
#   sbatch -N 2 slurm/sweep.sh jobs/seeds.yaml seeds.h5 --placement every_gpu
#
# A heterogeneous job (#SBATCH hetjob, e.g. A100 nodes and H100 nodes): remove
# one '#' from each line of the block below the site lines. The script then
# starts one MPI job across all components (srun --het-group=0 ... :
# --het-group=1 ..., one MPI_COMM_WORLD, ranks of component 0 first); add
# --placement per_class to run every point once on each GPU model, or
# every_gpu on each GPU (slurm/README.md).
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
# --- heterogeneous job: the lines above are component 0, these component 1 --
##SBATCH hetjob
##SBATCH --partition=h100
##SBATCH --nodes=1
##SBATCH --ntasks-per-node=8
##SBATCH --gpus-per-task=1
##SBATCH --cpus-per-task=4
##SBATCH --time=02:00:00
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

# A heterogeneous job's components, 1 for any other job. The batch script
# runs in component 0, whose SLURM_NTASKS and SLURM_JOB_NODELIST it sees;
# each component's are in SLURM_*_HET_GROUP_<k>.
het=${SLURM_HET_SIZE:-1}
het_var() { local v="SLURM_$1_HET_GROUP_$2"; echo "${!v:-}"; }

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
# mpirun would read component 0's nodes and tasks only.
if ((het > 1)) && [ "$launcher" != srun ]; then
	say "a heterogeneous job ($het components) needs srun with PMIx, not $launcher" \
		"(SWEEP_LAUNCHER=${SWEEP_LAUNCHER:-auto}; srun --mpi=list must name pmix): mpirun would see component 0 only"
	exit 2
fi
# Each rank's cores: srun no longer passes sbatch's --cpus-per-task on
# (Slurm 22.05), so it is named again; mpirun would bind each rank to one
# core, so it binds none and leaves placement to the kernel.
cpus=${SLURM_CPUS_PER_TASK:-}
omp_user=${OMP_NUM_THREADS:-}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-${cpus:-}}
[ -n "$OMP_NUM_THREADS" ] || unset OMP_NUM_THREADS
case $launcher in
srun)
	if ((het == 1)); then
		cmd=(srun --mpi=pmix ${cpus:+--cpus-per-task="$cpus"} "$bin" "${args[@]}" "$job")
	else
		# One heterogeneous step, a part per component with that
		# component's cores and threads: one MPI_COMM_WORLD.
		cmd=(srun --mpi=pmix)
		for ((k = 0; k < het; k++)); do
			c=$(het_var CPUS_PER_TASK "$k")
			omp=${omp_user:-$c}
			((k == 0)) || cmd+=(:)
			cmd+=(--het-group="$k" ${c:+--cpus-per-task="$c"} ${omp:+--export=ALL,OMP_NUM_THREADS="$omp"}
				"$bin" "${args[@]}" "$job")
		done
	fi
	;;
mpirun) cmd=(mpirun ${SLURM_NTASKS:+-np "$SLURM_NTASKS"} --bind-to none "$bin" "${args[@]}" "$job") ;;
*)
	say "SWEEP_LAUNCHER=$launcher: expected srun, mpirun or auto"
	exit 2
	;;
esac

say "job ${SLURM_JOB_ID:-(not under Slurm)} restart ${SLURM_RESTART_COUNT:-0}, $(date '+%F %T'), in $PWD"
if ((het > 1)); then
	say "heterogeneous job, $het components; ranks are numbered component by component from 0:"
	first=0
	for ((k = 0; k < het; k++)); do
		n=$(het_var NTASKS "$k") g=$(het_var GPUS_PER_TASK "$k") c=$(het_var CPUS_PER_TASK "$k")
		say "component $k: partition $(het_var JOB_PARTITION "$k"), nodes ($(het_var JOB_NUM_NODES "$k")): $(het_var JOB_NODELIST "$k"), tasks ${n:-?} (ranks $first-$((first + ${n:-1} - 1))), GPUs per task ${g:-none}, CPUs per task ${c:-none}"
		first=$((first + ${n:-1}))
	done
else
	say "nodes (${SLURM_JOB_NUM_NODES:-1}): ${SLURM_JOB_NODELIST:-$(hostname)}"
	say "tasks ${SLURM_NTASKS:-?}, per node ${SLURM_TASKS_PER_NODE:-?}, GPUs per task ${SLURM_GPUS_PER_TASK:-?}"
fi
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
