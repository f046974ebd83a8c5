#!/usr/bin/env bash
# A one-node Slurm cluster on this machine (Debian's slurm-wlm 22.05 and
# munge), to try `mbfmu study --slurm` and for its test. Needs root and no
# systemd: the daemons are started directly.
#
#   scripts/slurm-local.sh start    install slurm-wlm and munge if needed, write
#                                   /etc/slurm/slurm.conf (one node, all CPUs, no
#                                   accounting), start munged, slurmctld, slurmd
#   scripts/slurm-local.sh stop     stop the daemons this script started (by pid)
#   scripts/slurm-local.sh status   say whether a controller answers
#
# start prints "started" when it started the daemons, "running" when a
# cluster already answered (it then starts nothing, and stop stops nothing).
# Exit status: 0 ready, 2 not root, 3 Slurm/munge cannot be installed,
# 4 the daemons did not come up (their logs are in /var/log/slurm-local).
set -euo pipefail

state=${MBFMU_SLURM_STATE:-/run/mbfmu-slurm-local}
logs=/var/log/slurm-local
conf=/etc/slurm/slurm.conf
mark="# written by mbfmu scripts/slurm-local.sh"

die() {
	code=$1
	shift
	echo "slurm-local: $*" >&2
	exit "$code"
}

answers() { squeue -h -o %i >/dev/null 2>&1; }

# wait_for CMD... : up to 30 s for a command to succeed
wait_for() {
	for _ in $(seq 1 60); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.5
	done
	return 1
}

start() {
	[ "$(id -u)" = 0 ] || die 2 "needs root (it installs packages and starts daemons)"
	if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmd >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
		command -v apt-get >/dev/null 2>&1 || die 3 "slurm-wlm and munge are not installed and there is no apt-get"
		echo "slurm-local: installing slurm-wlm and munge (Debian packages)" >&2
		export DEBIAN_FRONTEND=noninteractive
		(apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1 ||
			(apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1)) ||
			die 3 "apt-get install slurm-wlm munge failed"
	fi
	if answers; then
		echo running
		return 0
	fi
	mkdir -p "$state" "$logs"
	: >"$state/pids"

	# munge: a key readable by munge only, the daemon as the munge user
	if [ ! -s /etc/munge/munge.key ]; then
		mkdir -p /etc/munge
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
	fi
	chown munge:munge /etc/munge/munge.key
	chmod 400 /etc/munge/munge.key
	mkdir -p /run/munge /var/lib/munge /var/log/munge
	chown munge:munge /run/munge /var/lib/munge /var/log/munge
	if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
		rm -f /run/munge/munged.pid
		runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid ||
			die 4 "munged did not start"
		wait_for test -s /run/munge/munged.pid || die 4 "munged wrote no pid file"
		cat /run/munge/munged.pid >>"$state/pids"
		wait_for sh -c 'munge -n | unmunge' || die 4 "munge does not answer"
	fi

	# slurm.conf: one node with every CPU, one partition, no accounting
	if [ -f "$conf" ] && ! grep -qF "$mark" "$conf"; then
		die 4 "$conf exists and was not written by this script: not touching it"
	fi
	host=$(hostname -s)
	cpus=$(nproc)
	mkdir -p /var/spool/slurmctld /var/spool/slurmd /etc/slurm
	cat >"$conf" <<EOF
$mark
ClusterName=local
SlurmctldHost=$host
AuthType=auth/munge
SlurmUser=root
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=$logs/slurmctld.log
SlurmdLogFile=$logs/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SchedulerType=sched/backfill
MinJobAge=30
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	rm -f /run/slurmctld.pid /run/slurmd.pid
	slurmctld -i || die 4 "slurmctld did not start (see $logs/slurmctld.log)"
	wait_for test -s /run/slurmctld.pid || die 4 "slurmctld wrote no pid file (see $logs/slurmctld.log)"
	cat /run/slurmctld.pid >>"$state/pids"
	slurmd || die 4 "slurmd did not start (see $logs/slurmd.log)"
	wait_for test -s /run/slurmd.pid || die 4 "slurmd wrote no pid file (see $logs/slurmd.log)"
	cat /run/slurmd.pid >>"$state/pids"
	wait_for answers || die 4 "the controller does not answer (see $logs)"
	# the node may come up DOWN after an earlier unclean stop
	scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
	wait_for sh -c "sinfo -h -N -o %t | grep -qE '^(idle|mix|alloc)'" ||
		die 4 "node $host is not idle: $(sinfo -h -N -o '%N %t %E' 2>&1) (see $logs)"
	echo started
}

stop() {
	[ -f "$state/pids" ] || return 0
	# slurmd, slurmctld, then munged: the reverse of the start order
	pids=$(tac "$state/pids")
	for pid in $pids; do
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 40); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.25
		done
		kill -9 "$pid" 2>/dev/null || true
	done
	rm -f "$state/pids"
	echo stopped
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) if answers; then echo running; else echo "not running"; exit 1; fi ;;
*)
	echo "usage: $0 start|stop|status" >&2
	exit 64
	;;
esac
