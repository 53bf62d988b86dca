#!/usr/bin/env bash
# slurm/sweep.sh under a real Slurm: a throwaway one-node cluster
# (cluster.sh: 16 CPUs, 4 fake GPUs) runs the batch script with 4 tasks on the
# model backend, unchanged but for sbatch options and SWEEP_* settings:
#   1. srun + PMIx: a complete file, 4 device rows, 4 distinct GPUs, the
#      binding table in the job log;
#   2. the mpirun fallback: a complete file;
#   3. a long job (the replay backend at 8 ms a point, so its pace does not
#      depend on the machine's load) cancelled once a quarter of its rows
#      are seen (scancel), then submitted again with the same output: every
#      planned point exactly once;
#   4. the same job requeued midway (scontrol requeue): the same.
# "Complete" means the file's point ids are exactly sweep --dry-run --points's.
# Needs root for the daemons: SKIPPED (77) otherwise. A Slurm that cannot
# start is a failure: the README's test command installs it.
# usage: test_slurm.sh SWEEP H5COLUMN SOURCE_DIR
set -euo pipefail

if [ $# -ne 3 ]; then
	echo "usage: $0 SWEEP H5COLUMN SOURCE_DIR" >&2
	exit 2
fi
sweep=$1 h5column=$2 src=$3
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "test_slurm: the test cluster's daemons need root: SKIPPED"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sweep-slurm-XXXXXX")
chmod 0755 "$tmp" # the cluster's munge socket lies below it
mkdir "$tmp/cluster"
passed=0
finish() {
	"$here/cluster.sh" stop "$tmp/cluster" || true
	if [ "$passed" = 1 ]; then
		rm -rf "$tmp"
	else
		echo "test_slurm: files kept in $tmp (job logs *.log, daemon logs cluster/log)" >&2
	fi
}
trap finish EXIT
trap 'exit 130' INT TERM

fail() {
	echo "test_slurm: FAIL: $*" >&2
	exit 1
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "test_slurm: $*"; }

t0=$(now)
"$here/cluster.sh" start "$tmp/cluster" || fail "could not start the test cluster (see above)"
say "cluster up in $(since "$t0") s"
export SLURM_CONF=$tmp/cluster/slurm.conf
# mpirun refuses root unless told; jobs of a root submitter run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SWEEP_BACKEND=model SWEEP_BIN=$sweep
unset SWEEP_JOB SWEEP_OUTPUT SWEEP_ARGS SWEEP_LAUNCHER
cd "$src"
# The script asks for 8 tasks per node; this node has 4 GPUs.
sb=(-n 4 --ntasks-per-node=4 --gpus-per-task=1 --time=2)

# The planned point ids, sorted, of jobs/ci.yaml with sweep options "$@".
planned() {
	"$sweep" --dry-run --points --backend "$SWEEP_BACKEND" "$@" jobs/ci.yaml |
		awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9a-f]+$/ && length($2) == 16 { print $2 }' | sort
}

# FILE holds every id of the sorted list PLAN exactly once, and nothing else.
check_complete() {
	local file=$1 plan=$2 dups
	"$h5column" "$file" /measurements point_id | sort >"$file.ids" || fail "cannot read $file"
	dups=$(uniq -d "$file.ids" | wc -l)
	[ "$dups" = 0 ] || fail "$file: $dups points more than once"
	diff -q "$plan" "$file.ids" >/dev/null ||
		fail "$file: $(wc -l <"$file.ids") rows, $(comm -23 "$plan" "$file.ids" | wc -l) planned points missing," \
			"$(comm -13 "$plan" "$file.ids" | wc -l) not planned"
}

# Submits and waits: sbatch --wait ARGS..., showing LOG when the job fails.
submit_wait() {
	local log=$1
	shift
	timeout 150 sbatch --wait --quiet "${sb[@]}" -o "$log" "$@" || {
		cat "$log" >&2 || true
		fail "job failed: sbatch $*"
	}
}

state() { squeue -h -t all -j "$1" -o %T 2>/dev/null || true; }

# Waits while job ID is in one of the STATES (120 s at most), then prints
# the state it reached: "" once it is out of sight.
wait_while() {
	local id=$1 states=" $2 " s deadline=$((SECONDS + 120))
	while ((SECONDS < deadline)); do
		s=$(state "$id")
		if [[ -z $s || $states != *" $s "* ]]; then
			echo "$s"
			return 0
		fi
		sleep 0.05
	done
	fail "job $id still $s after 120 s"
}

# --- 1. four tasks through srun and PMIx ---------------------------------------
t=$(now)
planned >"$tmp/ci.plan"
[ -s "$tmp/ci.plan" ] || fail "sweep --dry-run listed no points"
submit_wait "$tmp/ci.log" "$src/slurm/sweep.sh" jobs/ci.yaml "$tmp/ci.h5"
grep -q 'srun --mpi=pmix' "$tmp/ci.log" || fail "ci.log: not launched by srun --mpi=pmix"
grep -q '^sweep: rank  *host' "$tmp/ci.log" || fail "ci.log: no binding table"
grep -q '^sweep.sh: nodes (1): localhost' "$tmp/ci.log" || fail "ci.log: no node list"
check_complete "$tmp/ci.h5" "$tmp/ci.plan"
"$h5column" "$tmp/ci.h5" /devices visible_devices >"$tmp/ci.gpus"
[ "$(wc -l <"$tmp/ci.gpus")" = 4 ] || fail "ci.h5: $(wc -l <"$tmp/ci.gpus") device rows, want 4"
[ "$(sort -u "$tmp/ci.gpus" | grep -c '^[0-3]$')" = 4 ] ||
	fail "ci.h5: visible_devices of the 4 ranks are not 4 distinct GPUs: $(tr '\n' ' ' <"$tmp/ci.gpus")"
say "srun: $(wc -l <"$tmp/ci.plan") points, 4 ranks on GPUs $(tr '\n' ' ' <"$tmp/ci.gpus")in $(since "$t") s"

# --- 2. the mpirun fallback, settings from the environment -----------------------
t=$(now)
SWEEP_LAUNCHER=mpirun SWEEP_JOB=jobs/ci.yaml SWEEP_OUTPUT=$tmp/mpirun.h5 \
	submit_wait "$tmp/mpirun.log" "$src/slurm/sweep.sh"
grep -q '^sweep.sh: mpirun -np 4 ' "$tmp/mpirun.log" || fail "mpirun.log: not launched by mpirun -np 4"
check_complete "$tmp/mpirun.h5" "$tmp/ci.plan"
[ "$("$h5column" "$tmp/mpirun.h5" /devices rank | wc -l)" = 4 ] || fail "mpirun.h5: not 4 device rows"
say "mpirun: complete in $(since "$t") s"

# --- 3. cancelled midway, then submitted again -----------------------------------
# The long runs replay 8 ms a point (the replay backend, a test instrument),
# so their pace is the same however busy the machine is; the model backend
# runs them three times faster on an idle machine than on a loaded one.
export SWEEP_ARGS="--set strided_read.stride=1:128 --set strided_read.n=1K:4G:x2"
export SWEEP_BACKEND="replay=$tmp/long.csv"
read -r -a long <<<"$SWEEP_ARGS"
planned "${long[@]}" >"$tmp/long.plan"
n_plan=$(wc -l <"$tmp/long.plan")
{
	echo point_id_hex,family,variant,seconds
	sed 's/$/,strided_read,course,0.008/' "$tmp/long.plan"
} >"$tmp/long.csv"

# A full run first, to know what "midway" is.
t=$(now)
id=$(sbatch --parsable "${sb[@]}" -o "$tmp/full.log" "$src/slurm/sweep.sh" jobs/ci.yaml "$tmp/full.h5")
wait_while "$id" PENDING >/dev/null
t_run=$(now)
end=$(wait_while "$id" 'RUNNING COMPLETING')
run_s=$(since "$t_run")
[ "$end" = COMPLETED ] || {
	cat "$tmp/full.log" >&2
	fail "full run ended ${end:-out of sight}"
}
check_complete "$tmp/full.h5" "$tmp/long.plan"
say "full run: $n_plan points, running $run_s s, in $(since "$t") s"

# Submits the long job writing FILE (log FILE.log) and returns once it is
# running with a quarter of the points in FILE, as a reader sees them,
# setting id and half_at: early by the rows, not by the clock or the file's
# size (HDF5 allocates space in chunks, and the time one run takes here
# varies threefold). A quarter, not a half: rows reach a reader at the
# writer's flushes, every 2 s, so the run is further on than they say.
submit_half() {
	local file=$1
	id=$(sbatch --parsable "${sb[@]}" -o "$file.log" "$src/slurm/sweep.sh" jobs/ci.yaml "$file")
	wait_while "$id" PENDING >/dev/null
	t_run=$(now)
	while (($(live_rows "$file") < n_plan / 4)); do
		[ "$(state "$id")" = RUNNING ] || fail "job $id ended before a quarter of $file was written"
		sleep 0.05
	done
	half_at="$(since "$t_run") s of $run_s s, $(live_rows "$file") of $n_plan rows seen"
}
live_rows() { "$h5column" --live "$1" /measurements point_id 2>/dev/null | wc -l; }

# FILE has some rows but not all, what was measured before the SIGTERM;
# sets rows.
check_partial() {
	local file=$1
	rows=$("$h5column" "$file" /measurements point_id | wc -l) || fail "$file unreadable after SIGTERM"
	((rows > 0 && rows < n_plan)) || fail "stopped at $half_at: $rows of $n_plan rows, want some but not all"
	grep -q SIGTERM "$file.log" || fail "$file.log: the script did not log the SIGTERM"
}

t=$(now)
submit_half "$tmp/cut.h5"
scancel "$id"
end=$(wait_while "$id" 'RUNNING COMPLETING')
check_partial "$tmp/cut.h5"
say "cancelled ($end) at $half_at: $rows of $n_plan rows"
submit_wait "$tmp/cut.h5.log" "$src/slurm/sweep.sh" jobs/ci.yaml "$tmp/cut.h5"
grep -q 'exists: resuming it' "$tmp/cut.h5.log" || fail "cut.h5.log: the second job did not resume"
check_complete "$tmp/cut.h5" "$tmp/long.plan"
[ "$("$h5column" "$tmp/cut.h5" /devices rank | wc -l)" = 8 ] || fail "cut.h5: not 2 sessions of 4 ranks"
say "resubmitted: every planned point exactly once; cancel and resubmission in $(since "$t") s"

# --- 4. requeued midway: Slurm runs the same script again ----------------------------
t=$(now)
submit_half "$tmp/requeue.h5"
scontrol requeue "$id"
end=$(wait_while "$id" 'RUNNING COMPLETING REQUEUED')
[ "$end" = PENDING ] || fail "job $id ${end:-out of sight} after requeue, not pending"
check_partial "$tmp/requeue.h5"
say "requeued at $half_at: $rows of $n_plan rows"
# A requeued job may start again only after a delay (Reason=BeginTime).
scontrol update jobid="$id" StartTime=now
end=$(wait_while "$id" 'PENDING CONFIGURING RUNNING COMPLETING')
[ "$end" = COMPLETED ] || {
	cat "$tmp/requeue.h5.log" >&2
	fail "requeued job ended ${end:-out of sight}"
}
grep -q '^sweep.sh: job .* restart 1,' "$tmp/requeue.h5.log" || fail "requeue.h5.log: no second start"
grep -q 'exists: resuming it' "$tmp/requeue.h5.log" || fail "requeue.h5.log: the requeued job did not resume"
check_complete "$tmp/requeue.h5" "$tmp/long.plan"
say "requeued: every planned point exactly once; in $(since "$t") s"

passed=1
say "PASS in $(since "$t0") s"
