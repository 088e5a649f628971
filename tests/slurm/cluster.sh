#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for the tests, wholly inside DIR: its own munged (key, socket),
# slurmctld and slurmd on free ports, its own slurm.conf. Nothing of the machine's Slurm or munge is used or
# touched, so it can run beside a real installation.
#
#   cluster.sh start DIR   prints the line to eval: export SLURM_CONF=DIR/slurm.conf
#   cluster.sh stop DIR    stops the daemons (every job of the cluster ends with them)
#
# Needs Debian's slurm-wlm and munge (scripts/install-deps.sh). The daemons run as the calling user: as root
# (CI) jobs run as root; as another user, SlurmUser/SlurmdUser are that user and jobs run as it.
set -euo pipefail
action=${1:-}; dir=${2:-}
[ -n "$action" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  for tool in munged slurmctld slurmd sbatch; do
    command -v "$tool" >/dev/null || PATH=$PATH:/usr/sbin
    command -v "$tool" >/dev/null ||
      { echo "error: $tool not found: install Debian's slurm-wlm and munge (scripts/install-deps.sh)" >&2; exit 1; }
  done
  mkdir -p "$dir"/state "$dir"/spool "$dir"/munge
  dir=$(cd "$dir" && pwd)
  user=$(id -un)
  chmod 700 "$dir"/munge
  dd if=/dev/urandom of="$dir"/munge/munge.key bs=1 count=1024 status=none
  chmod 400 "$dir"/munge/munge.key
  munged --force --socket="$dir"/munge/socket --key-file="$dir"/munge/munge.key \
    --pid-file="$dir"/munged.pid --log-file="$dir"/munge/munged.log --seed-file="$dir"/munge/seed
  local cpus mem
  cpus=$(nproc)
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
  cat > "$dir"/slurm.conf <<CONF
ClusterName=fmwork-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=fmwork-node NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=fmwork-node Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$dir"/slurm.conf
  slurmctld -i
  slurmd -N fmwork-node
  for _ in $(seq 600); do  # 2 minutes: a hang guard for a busy machine
    if sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; then
      echo "export SLURM_CONF=$dir/slurm.conf"
      return 0
    fi
    sleep 0.2
  done
  echo "error: the one-node cluster did not come up in 2 minutes; see $dir/slurmctld.log and $dir/slurmd.log" >&2
  tail -n 5 "$dir"/slurmctld.log "$dir"/slurmd.log >&2 || true
  stop
  exit 1
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
