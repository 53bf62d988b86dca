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
# fake GPU devices. Environment: SW_SLURM_CPUS (CPUs the node claims,
# default 8, more than the machine has: config_overrides lets it),
# SW_SLURM_GPUS (fake GPUs, default 4), SW_SLURM_TIMEOUT (seconds to wait
# for the node, default 30). Written for Debian 12's Slurm 22.05 and
# munge 0.5; the pitfalls behind it are in ../shared/slurm/NOTES.md (from the
# repository's root).
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
	stop_daemon "$dir/slurmd.pid" slurmd
	stop_daemon "$dir/slurmctld.pid" slurmctld
	stop_daemon "$dir/munge/munged.pid" munged
}

# Two free TCP ports on loopback, for slurmctld and slurmd: a Slurm of the
# system may hold the usual 6817 and 6818.
free_ports() {
	local p
	for ((p = 6817; p < 6917; p += 2)); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null &&
			! (exec 3<>"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null; then
			echo "$p $((p + 1))"
			return 0
		fi
	done
	return 1
}

start() {
	local dir=$1
	# 16 CPUs: 4 tasks of slurm/sweep.sh, 4 CPUs each
	local cpus=${SW_SLURM_CPUS:-16} gpus=${SW_SLURM_GPUS:-4} timeout=${SW_SLURM_TIMEOUT:-30}
	local missing=() cmd pmix ports ctld_port slurmd_port mem state i t

	[ "$(id -u)" = 0 ] || {
		say "needs root (the daemons run as root, mknod makes the fake GPUs)"
		return 1
	}
	for cmd in munged mungekey munge unmunge slurmctld slurmd sbatch srun squeue sinfo scontrol scancel; do
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
	ports=$(free_ports) || {
		say "no two free TCP ports in 6817..6916"
		return 1
	}
	read -r ctld_port slurmd_port <<<"$ports"

	# munged wants every directory on its socket path open to all.
	chmod 0755 "$dir"
	local up=$dir
	while up=${up%/*} && [ -n "$up" ]; do
		if [ "$(($(stat -c %#a "$up") & 1))" = 0 ]; then
			say "$up is not open to all (o+x): munged refuses a socket below it"
			return 1
		fi
	done
	mkdir -p "$dir"/{munge,state,spool,log,dev,tmp}
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
	cat >"$dir/gres.conf" <<-EOF
		AutoDetect=off
		NodeName=localhost Name=gpu File=$dir/dev/nvidia[0-$((gpus - 1))]
	EOF

	# --- slurm.conf ---------------------------------------------------------
	# RealMemory as slurmd detects it, so the node is never drained for it.
	mem=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p') || mem=""
	cat >"$dir/slurm.conf" <<-EOF
		# Written by tests/slurm/cluster.sh: one node on loopback, no cgroups.
		ClusterName=swtest
		SlurmctldHost=localhost(127.0.0.1)
		SlurmctldPort=$ctld_port
		SlurmdPort=$slurmd_port
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
		# Start batch jobs at once, not up to 3 s after the last scheduling pass.
		SchedulerParameters=batch_sched_delay=0
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
		SlurmdSpoolDir=$dir/spool
		TmpFS=$dir/tmp
		SlurmctldPidFile=$dir/slurmctld.pid
		SlurmdPidFile=$dir/slurmd.pid
		SlurmctldLogFile=$dir/log/slurmctld.log
		SlurmdLogFile=$dir/log/slurmd.log
		SlurmctldDebug=info
		SlurmdDebug=info
		GresTypes=gpu
		NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus RealMemory=${mem:-1000} Gres=gpu:$gpus State=UNKNOWN
		PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
	EOF
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
	slurmd -N localhost
	for ((t = 0; t < timeout * 5; t++)); do
		state=$(sinfo -h -n localhost -o %T 2>/dev/null | head -n 1) || state=""
		case $state in
		idle) break ;;
		drain* | down* | fail*)
			say "node is $state: $(scontrol show node localhost | grep -i reason)"
			return 1
			;;
		esac
		sleep 0.2
	done
	if [ "$state" != idle ]; then
		say "node not idle after $timeout s (state '$state')"
		return 1
	fi
	[ -n "$(our_pid "$dir/slurmctld.pid" slurmctld)" ] || {
		say "slurmctld is not running"
		return 1
	}
	[ -n "$(our_pid "$dir/slurmd.pid" slurmd)" ] || {
		say "slurmd is not running"
		return 1
	}
	say "up: node localhost idle, $cpus CPUs, $gpus GPUs, ports $ctld_port $slurmd_port, in $dir"
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
