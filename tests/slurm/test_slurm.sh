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
# Then a second cluster of two nodes, n0 and n1 (partitions p0 and p1, one
# node each; "all" both), for what needs several nodes. Its runs replay a
# real H200 file (docs/results/gpu-runs/h200-check-2b86d9f/seeds-gpu-1.h5) on
# emulated devices (--replay-devices):
#   5. a two-component heterogeneous job: the script with its "#SBATCH hetjob"
#      block enabled, as slurm/README.md says, component 0 on p0 and
#      component 1 on p1; --placement per_class with class A for component
#      0's ranks and B for component 1's: each point of jobs/seeds.yaml once
#      per class, classes A and B, ranks 0-1 on n0 and 2-3 on n1;
#   6. the same job with SWEEP_LAUNCHER=mpirun: refused (exit 2), naming why;
#   7. a fleet check, jobs/fleet.yaml, on 2 nodes x 2 GPUs, one GPU at 0.8
#      speed: each calibration point once on each of the 4 GPUs.
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
	local c
	for c in "$tmp"/cluster*; do
		"$here/cluster.sh" stop "$c" || true
	done
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

# The sorted list IDS holds every id of the sorted list PLAN exactly once,
# and nothing else; WHAT names IDS in the message.
check_complete_ids() {
	local ids=$1 plan=$2 what=$3 dups
	dups=$(uniq -d "$ids" | wc -l)
	[ "$dups" = 0 ] || fail "$what: $dups points more than once"
	diff -q "$plan" "$ids" >/dev/null ||
		fail "$what: $(wc -l <"$ids") rows, $(comm -23 "$plan" "$ids" | wc -l) planned points missing," \
			"$(comm -13 "$plan" "$ids" | wc -l) not planned"
}

# FILE holds every id of the sorted list PLAN exactly once, and nothing else.
check_complete() {
	local file=$1 plan=$2
	"$h5column" "$file" /measurements point_id | sort >"$file.ids" || fail "cannot read $file"
	check_complete_ids "$file.ids" "$plan" "$file"
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

# --- a second cluster: two nodes ---------------------------------------------------
"$here/cluster.sh" stop "$tmp/cluster"
t=$(now)
mkdir "$tmp/cluster2"
SW_SLURM_NODES=2 "$here/cluster.sh" start "$tmp/cluster2" || fail "could not start the two-node cluster (see above)"
export SLURM_CONF=$tmp/cluster2/slurm.conf
say "two-node cluster up in $(since "$t") s"
# Two Slurm nodes on one machine: Open MPI's shared-memory transport (vader)
# failed at start-up in 1 of 15 heterogeneous jobs here (a segfault, then "A
# system call failed during shared memory initialization"), TCP over
# loopback in none of 35; real nodes are real machines.
export OMPI_MCA_btl=self,tcp
recorded=$src/docs/results/gpu-runs/h200-check-2b86d9f/seeds-gpu-1.h5
export SWEEP_BACKEND=replay=$recorded
unset SWEEP_ARGS
"$sweep" --dry-run --points --backend "$SWEEP_BACKEND" jobs/seeds.yaml |
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9a-f]+$/ && length($2) == 16 { print $2 }' | sort >"$tmp/seeds.plan"
n_seeds=$(wc -l <"$tmp/seeds.plan")
((n_seeds > 0)) || fail "sweep --dry-run listed no points of jobs/seeds.yaml"

# "RANK CLASS HOST UUID" per /devices row of FILE, and "POINT RANK" per
# /measurements row.
devices() {
	paste -d ' ' <("$h5column" "$1" /devices rank) <("$h5column" "$1" /devices device_class) \
		<("$h5column" "$1" /devices host) <("$h5column" "$1" /devices uuid)
}
rows() { paste -d ' ' <("$h5column" "$1" /measurements point_id) <("$h5column" "$1" /measurements rank); }

# --- 5. a heterogeneous job: a class per component -------------------------------
# The user's edit: the block after "##SBATCH hetjob" loses one '#' a line.
sed '/^##SBATCH hetjob/,/^[^#]/s/^##SBATCH/#SBATCH/' "$src/slurm/sweep.sh" >"$tmp/sweep-het.sh"
chmod +x "$tmp/sweep-het.sh"
[ "$(grep -c '^#SBATCH hetjob$' "$tmp/sweep-het.sh")" = 1 ] || fail "slurm/sweep.sh has no '##SBATCH hetjob' block"
diff "$src/slurm/sweep.sh" "$tmp/sweep-het.sh" | grep '^> ' | grep -qv '^> #SBATCH' &&
	fail "enabling the hetjob block changed more than its #SBATCH lines"
# Component 0 on n0, component 1 on n1: sbatch's ':' sets each one's options.
het=(-p p0 -n 2 --ntasks-per-node=2 --time=2 : -p p1 -n 2 --ntasks-per-node=2 --time=2)
emulate=(--placement per_class --replay-devices "A:2,B:2" --replay-speed 50)
t=$(now)
# Submits the heterogeneous job (sbatch --wait): log LOG, script arguments ARGS...
het_wait() {
	local log=$1
	shift
	timeout 150 sbatch --wait --quiet -o "$log" "${het[@]}" "$tmp/sweep-het.sh" "$@"
}
het_wait "$tmp/het.log" jobs/seeds.yaml "$tmp/het.h5" "${emulate[@]}" || {
	cat "$tmp/het.log" >&2 || true
	fail "the heterogeneous job failed"
}
grep -q '^sweep.sh: heterogeneous job, 2 components' "$tmp/het.log" || fail "het.log: the script did not see a heterogeneous job"
grep -q '^sweep.sh: component 0: partition p0, nodes (1): n0, tasks 2 (ranks 0-1)' "$tmp/het.log" ||
	fail "het.log: no line for component 0 on p0"
grep -q '^sweep.sh: component 1: partition p1, nodes (1): n1, tasks 2 (ranks 2-3)' "$tmp/het.log" ||
	fail "het.log: no line for component 1 on p1"
grep -q '^sweep.sh: srun --mpi=pmix --het-group=0 .* : --het-group=1 ' "$tmp/het.log" ||
	fail "het.log: not one srun step across both components"
devices "$tmp/het.h5" >"$tmp/het.devices"
printf '%s\n' "0 A n0 EMU-A-0" "1 A n0 EMU-A-1" "2 B n1 EMU-B-0" "3 B n1 EMU-B-1" >"$tmp/het.want"
diff -u "$tmp/het.want" "$tmp/het.devices" >&2 ||
	fail "het.h5 /devices: want ranks 0-1 class A on n0 (component 0), 2-3 class B on n1 (component 1)"
rows "$tmp/het.h5" >"$tmp/het.rows"
for class in A B; do
	# The point ids of the rows whose rank is of CLASS.
	awk -v c="$class" 'NR == FNR { cls[$1] = $2; next } cls[$2] == c { print $1 }' \
		"$tmp/het.devices" "$tmp/het.rows" | sort >"$tmp/het.$class.ids"
	check_complete_ids "$tmp/het.$class.ids" "$tmp/seeds.plan" "het.h5, class $class"
done
for r in 0 1 2 3; do
	awk -v r="$r" '$2 == r' "$tmp/het.rows" | grep -q . || fail "het.h5: rank $r has no rows"
done
say "hetjob: $n_seeds points once per class, A on n0 (ranks 0-1), B on n1 (ranks 2-3), in $(since "$t") s"

# --- 6. the heterogeneous job under mpirun: refused ------------------------------
t=$(now)
if SWEEP_LAUNCHER=mpirun het_wait "$tmp/het-mpirun.log" jobs/seeds.yaml "$tmp/het-mpirun.h5" "${emulate[@]}"; then
	fail "the heterogeneous job under mpirun succeeded"
fi
grep -q '^sweep.sh: a heterogeneous job (2 components) needs srun with PMIx, not mpirun' "$tmp/het-mpirun.log" || {
	cat "$tmp/het-mpirun.log" >&2
	fail "het-mpirun.log: no reason given"
}
[ ! -e "$tmp/het-mpirun.h5" ] || fail "the refused job wrote het-mpirun.h5"
say "hetjob under mpirun: refused in $(since "$t") s"

# --- 7. a fleet check: every GPU of two nodes --------------------------------------
t=$(now)
sb=(-p all -N 2 -n 4 --ntasks-per-node=2 --gpus-per-task=1 --time=2)
submit_wait "$tmp/fleet.log" "$src/slurm/sweep.sh" jobs/fleet.yaml "$tmp/fleet.h5" \
	--replay-devices "A:3,A:1:0.8" --replay-speed 20
"$sweep" --dry-run --points --backend "$SWEEP_BACKEND" jobs/fleet.yaml |
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9a-f]+$/ && length($2) == 16 { print $2 }' | sort >"$tmp/fleet.plan"
[ -s "$tmp/fleet.plan" ] || fail "sweep --dry-run listed no points of jobs/fleet.yaml"
devices "$tmp/fleet.h5" >"$tmp/fleet.devices"
printf '%s\n' "0 A n0 EMU-A-0" "1 A n0 EMU-A-1" "2 A n1 EMU-A-2" "3 A n1 EMU-A-3" >"$tmp/fleet.want"
diff -u "$tmp/fleet.want" "$tmp/fleet.devices" >&2 || fail "fleet.h5 /devices: want 4 GPUs of class A, 2 on each node"
rows "$tmp/fleet.h5" >"$tmp/fleet.rows"
for r in 0 1 2 3; do
	awk -v r="$r" '$2 == r { print $1 }' "$tmp/fleet.rows" | sort >"$tmp/fleet.$r.ids"
	check_complete_ids "$tmp/fleet.$r.ids" "$tmp/fleet.plan" "fleet.h5, rank $r"
done
[ "$("$h5column" "$tmp/fleet.h5" /measurements calibration | sort -u)" = 1 ] ||
	fail "fleet.h5: rows not marked calibration"
say "fleet check: $(wc -l <"$tmp/fleet.plan") calibration points on each of 4 GPUs of 2 nodes, in $(since "$t") s"

passed=1
say "PASS in $(since "$t0") s"
