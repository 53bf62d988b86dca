#!/usr/bin/env bash
# A throwaway single-node Slurm cluster on loopback for the tests: its own
# munged, slurmctld and slurmd, with key, socket, configuration, state, logs
# and fake GPUs all under DIR. It installs nothing (scripts/bootstrap.sh does)
# and leaves /etc/slurm, /etc/munge and any system munged or Slurm alone; stop
# ends only the daemons named by the pid files in DIR.
#
#   cluster.sh start DIR   start the daemons, wait until the node is idle;
#                          clients then need SLURM_CONF=DIR/slurm.conf
#   cluster.sh stop DIR    cancel the cluster's jobs and stop its daemons
#
# Needs root: the daemons run as root (SlurmUser=root) and mknod makes the
# fake GPU devices. Environment: SW_SLURM_CPUS (CPUs each node claims,
# default 16, more than the machine has: config_overrides lets it),
# SW_SLURM_GPUS (fake GPUs of each node, default 4), SW_SLURM_NODES (nodes,
# default 1), SW_SLURM_TIMEOUT (seconds to wait for the nodes, default 30).
#
# Nodes: one node, "localhost", the default partition "test". With
# SW_SLURM_NODES=N > 1 the nodes are n0 .. n(N-1) instead (Slurm 22.05
# refuses a node named localhost beside another: "Duplicated NodeHostName"),
# each a slurmd of its own on this machine (its own port, spool, pid file,
# log and TmpFS, named by %n) in a UTS namespace whose host name is the
# node's name, so the tasks it starts see that name in gethostname().
# Partition "test" is n0, "all" every node; partition pK holds node nK
# alone: a heterogeneous job puts a component on each (Slurm 22.05's backfill
# plans each pending component on whole nodes, so the components of a
# heterogeneous job never start on one node: slurm/README.md).
#
# Written for Debian 12's Slurm 22.05 and munge 0.5; the pitfalls behind it
# are in ../shared/slurm/NOTES.md (from the repository's root).
set -euo pipefail

say() { echo "cluster.sh: $*" >&2; }

# The pid of PIDFILE when it names a live NAME (Debian's daemons run as
# slurmctld-wlm and slurmd-wlm); empty otherwise, so a reused pid is never hit.
our_pid() {
	local pidfile=$1 name=$2 pid exe
	[ -s "$pidfile" ] || return 0
	pid=$(tr -dc 0-9 <"$pidfile")
	[ -n "$pid" ] || return 0
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 0
	case ${exe##*/} in "$name" | "$name"-*) echo "$pid" ;; esac
}

# A process is gone when every thread is gone or a zombie: while a daemon
# shuts down its leader turns Z before the other threads release the ports.
running() {
	local stat st
	for stat in /proc/"$1"/task/*/stat; do
		st=$(sed 's/.*) //' "$stat" 2>/dev/null | cut -c1)
		case $st in "" | Z | X) ;; *) return 0 ;; esac
	done
	return 1
}

stop_daemon() {
	local pidfile=$1 name=$2 pid
	pid=$(our_pid "$pidfile" "$name")
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 100); do
			running "$pid" || break
			sleep 0.1
		done
		if running "$pid"; then
			say "$name ($pid) ignored SIGTERM for 10 s: SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$pidfile"
}

stop() {
	local dir=$1 jobs
	export SLURM_CONF=$dir/slurm.conf
	# Jobs first, so no slurmstepd or task outlives the cluster.
	if [ -n "$(our_pid "$dir/slurmctld.pid" slurmctld)" ]; then
		jobs=$(timeout 5 squeue -h -o %i 2>/dev/null | tr '\n' ' ') || jobs=""
		if [ -n "${jobs// /}" ]; then
			say "cancelling jobs $jobs"
			# shellcheck disable=SC2086 # one argument per job id
			timeout 5 scancel $jobs 2>/dev/null || true
			for _ in $(seq 100); do
				[ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
				sleep 0.1
			done
		fi
	fi
	local pidfile
	for pidfile in "$dir"/slurmd-*.pid; do
		[ -e "$pidfile" ] && stop_daemon "$pidfile" slurmd
	done
	stop_daemon "$dir/slurmctld.pid" slurmctld
	stop_daemon "$dir/munge/munged.pid" munged
}

# The first of COUNT free TCP ports in a row on loopback, for slurmctld and
# each slurmd: a Slurm of the system may hold the usual 6817 and 6818.
free_ports() {
	local count=$1 p k
	for ((p = 6817; p + count <= 6917; p += count)); do
		for ((k = 0; k < count; k++)); do
			(exec 3<>"/dev/tcp/127.0.0.1/$((p + k))") 2>/dev/null && break
		done
		if ((k == count)); then
			echo "$p"
			return 0
		fi
	done
	return 1
}

# The nodes' names, node 0 first.
node_names() {
	local n nodes=${SW_SLURM_NODES:-1}
	if ((nodes == 1)); then
		echo localhost
	else
		for ((n = 0; n < nodes; n++)); do echo "n$n"; done
	fi
}

start() {
	local dir=$1
	# 16 CPUs: 4 tasks of slurm/sweep.sh, 4 CPUs each
	local cpus=${SW_SLURM_CPUS:-16} gpus=${SW_SLURM_GPUS:-4} timeout=${SW_SLURM_TIMEOUT:-30}
	local nodes=${SW_SLURM_NODES:-1}
	local missing=() cmd pmix ctld_port mem states i t name names=() idle
	case $nodes in
	[1-9]) ;;
	*)
		say "SW_SLURM_NODES=$nodes: expected 1 to 9"
		return 1
		;;
	esac
	mapfile -t names < <(node_names)

	[ "$(id -u)" = 0 ] || {
		say "needs root (the daemons run as root, mknod makes the fake GPUs)"
		return 1
	}
	for cmd in munged mungekey munge unmunge slurmctld slurmd sbatch srun squeue sinfo scontrol scancel unshare; do
		command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
	done
	# srun --mpi=pmix: Slurm's plugin dlopen()s the unversioned libpmix.so,
	# which only libpmix-dev ships.
	pmix=$(compgen -G '/usr/lib/*/pmix2/lib/libpmix.so' | head -n 1) || true
	[ -n "$pmix" ] || missing+=("libpmix.so")
	if ((${#missing[@]})); then
		say "missing ${missing[*]}: apt-get install slurmctld slurmd slurm-client munge libpmix-dev" \
			"(scripts/bootstrap.sh installs them)"
		return 1
	fi
	ctld_port=$(free_ports $((nodes + 1))) || {
		say "no $((nodes + 1)) free TCP ports in a row in 6817..6916"
		return 1
	}

	# munged wants every directory on its socket path open to all.
	chmod 0755 "$dir"
	local up=$dir
	while up=${up%/*} && [ -n "$up" ]; do
		if [ "$(($(stat -c %#a "$up") & 1))" = 0 ]; then
			say "$up is not open to all (o+x): munged refuses a socket below it"
			return 1
		fi
	done
	mkdir -p "$dir"/{munge,state,log,dev}
	for name in "${names[@]}"; do mkdir -p "$dir/spool/$name" "$dir/tmp/$name"; done
	chmod 0755 "$dir/munge"

	# --- munge: a private daemon with its own key and socket ---------------
	mungekey --create --force --keyfile="$dir/munge/munge.key"
	chmod 0600 "$dir/munge/munge.key"
	munged --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
		--pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" \
		--log-file="$dir/log/munged.log"
	for _ in $(seq 50); do
		munge -S "$dir/munge/socket" -n </dev/null 2>/dev/null |
			unmunge -S "$dir/munge/socket" >/dev/null 2>&1 && break
		sleep 0.1
	done
	munge -S "$dir/munge/socket" -n </dev/null | unmunge -S "$dir/munge/socket" >/dev/null

	# --- fake GPUs ----------------------------------------------------------
	# Character devices, or slurmd never sets CUDA_VISIBLE_DEVICES; major 195
	# is nvidia's, but nothing opens them (no cgroups, task/none). The index
	# Slurm gives a GPU is the number at the end of its name.
	for ((i = 0; i < gpus; i++)); do
		mknod -m 0666 "$dir/dev/nvidia$i" c 195 "$i" || {
			say "mknod failed (no CAP_MKNOD?): without device files Slurm binds no GPUs"
			return 1
		}
	done
	# Every node names the same files: nothing opens them.
	{
		echo AutoDetect=off
		for name in "${names[@]}"; do
			echo "NodeName=$name Name=gpu File=$dir/dev/nvidia[0-$((gpus - 1))]"
		done
	} >"$dir/gres.conf"

	# --- slurm.conf ---------------------------------------------------------
	# RealMemory as slurmd detects it, so the node is never drained for it.
	mem=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p') || mem=""
	cat >"$dir/slurm.conf" <<-EOF
		# Written by tests/slurm/cluster.sh: one node on loopback, no cgroups.
		ClusterName=swtest
		SlurmctldHost=localhost(127.0.0.1)
		SlurmctldPort=$ctld_port
		SlurmdPort=$((ctld_port + 1))
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		CredType=cred/munge
		AuthInfo=socket=$dir/munge/socket
		MpiDefault=pmix
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		JobCompType=jobcomp/none
		SwitchType=switch/none
		MailProg=/bin/true
		SchedulerType=sched/backfill
		# Start batch jobs at once, not up to 3 s after the last scheduling pass;
		# heterogeneous jobs start only from the backfill scheduler, every
		# bf_interval seconds (default 30).
		SchedulerParameters=batch_sched_delay=0,bf_interval=1
		SelectType=select/cons_tres
		SelectTypeParameters=CR_CPU
		# Believe the CPUs and GPUs below, not the hardware.
		SlurmdParameters=config_overrides
		ReturnToService=2
		# Refuse at submission what can never run, rather than pend forever.
		EnforcePartLimits=ALL
		# sbatch --wait polls every 2 s only while MinJobAge is this small.
		MinJobAge=5
		KillWait=5
		InactiveLimit=0
		Waittime=0
		StateSaveLocation=$dir/state
		# One of each per node (%n): srun --mpi=pmix's directories of a step
		# are named by job and step only, so two nodes' steps of one
		# heterogeneous step collide in a shared TmpFS ("File exists").
		SlurmdSpoolDir=$dir/spool/%n
		TmpFS=$dir/tmp/%n
		SlurmctldPidFile=$dir/slurmctld.pid
		SlurmdPidFile=$dir/slurmd-%n.pid
		SlurmctldLogFile=$dir/log/slurmctld.log
		SlurmdLogFile=$dir/log/slurmd-%n.log
		SlurmctldDebug=info
		SlurmdDebug=info
		GresTypes=gpu
	EOF
	for i in "${!names[@]}"; do
		echo "NodeName=${names[i]} NodeAddr=127.0.0.1 NodeHostname=localhost Port=$((ctld_port + 1 + i))" \
			"CPUs=$cpus RealMemory=${mem:-1000} Gres=gpu:$gpus State=UNKNOWN"
	done >>"$dir/slurm.conf"
	echo "PartitionName=test Nodes=${names[0]} Default=YES MaxTime=INFINITE State=UP" >>"$dir/slurm.conf"
	if ((nodes > 1)); then
		for i in "${!names[@]}"; do
			echo "PartitionName=p$i Nodes=${names[i]} MaxTime=INFINITE State=UP"
		done >>"$dir/slurm.conf"
		echo "PartitionName=all Nodes=n[0-$((nodes - 1))] MaxTime=INFINITE State=UP" >>"$dir/slurm.conf"
	fi
	export SLURM_CONF=$dir/slurm.conf

	# --- daemons ------------------------------------------------------------
	# Both fork into the background and write their pid files. slurmd starts
	# once slurmctld answers: a first registration that fails is retried only
	# a second later.
	slurmctld -i
	for _ in $(seq 100); do
		scontrol ping 2>/dev/null | grep -q 'is UP' && break
		sleep 0.05
	done
	if ((nodes == 1)); then
		slurmd -N localhost
	else
		for name in "${names[@]}"; do
			# shellcheck disable=SC2016 # $1 is the inner shell's
			unshare --uts -- sh -c 'hostname "$1" && exec slurmd -N "$1"' sh "$name"
		done
	fi
	for ((t = 0; t < timeout * 5; t++)); do
		states=$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u) || states=""
		idle=$(grep -c ' idle$' <<<"$states") || true
		((idle == nodes)) && break
		if grep -E ' (drain|down|fail)' <<<"$states" >&2; then
			say "a node is down: $(scontrol show node | grep -i reason)"
			return 1
		fi
		sleep 0.2
	done
	if ((idle != nodes)); then
		say "$idle of $nodes nodes idle after $timeout s: $(tr '\n' ' ' <<<"$states")"
		return 1
	fi
	[ -n "$(our_pid "$dir/slurmctld.pid" slurmctld)" ] || {
		say "slurmctld is not running"
		return 1
	}
	for name in "${names[@]}"; do
		[ -n "$(our_pid "$dir/slurmd-$name.pid" slurmd)" ] || {
			say "slurmd of $name is not running"
			return 1
		}
	done
	say "up: ${names[*]} idle, $cpus CPUs and $gpus GPUs each, ports $ctld_port to $((ctld_port + nodes)), in $dir"
}

# A start that fails shows the daemons' logs and stops what it started.
on_start_exit() {
	local rc=$? dir=$1 log
	[ "$rc" = 0 ] && return 0
	for log in "$dir"/log/*.log; do
		[ -s "$log" ] || continue
		echo "----- $log" >&2
		tail -n 30 "$log" >&2
	done
	stop "$dir" || true
	say "start failed"
	exit "$rc"
}

case ${1:-} in
start | stop)
	if [ -z "${2:-}" ] || [ ! -d "$2" ]; then
		say "$1: DIR must be an existing directory"
		exit 2
	fi
	dir=$(cd "$2" && pwd)
	if [ "$1" = start ]; then
		trap 'on_start_exit "$dir"' EXIT
		trap 'exit 130' INT TERM
		start "$dir"
	else
		stop "$dir"
	fi
	;;
*)
	echo "usage: $0 start|stop DIR" >&2
	exit 2
	;;
esac
