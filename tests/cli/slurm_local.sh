#!/usr/bin/env bash
# A single-node Slurm cluster on localhost for tests/cli/sweep_slurm_test.cpp, from Debian's
# slurm-wlm and munge: munged with its own key and socket, slurmctld and slurmd with a generated
# slurm.conf, every file under DIR, ports PORT and PORT+1. Nothing outside DIR is touched.
#   slurm_local.sh start DIR PORT   -> exit 0 when the node is idle (jobs can run); otherwise
#                                      exit 1 with one line on stderr saying exactly why
#   slurm_local.sh stop DIR         -> stops what start started (always exit 0)
# Clients use SLURM_CONF=DIR/slurm.conf.
set -uo pipefail

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start DIR PORT | stop DIR" >&2; exit 2; }

stop() {
  for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 0.5
  for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
    rm -f "$f"
  done
  return 0
}

fail() {
  echo "slurm_local: $*" >&2
  stop
  exit 1
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi
[ "$cmd" = start ] || { echo "usage: $0 start DIR PORT | stop DIR" >&2; exit 2; }
port=${3:?PORT}
# slurmstepd makes unix sockets DIR/spool/<node>_<job>.<step> (up to ~40 more bytes), and a
# socket path holds at most 108 (unix(7)).
[ ${#dir} -le 60 ] || fail "DIR $dir is ${#dir} bytes; at most 60 leave room for slurmstepd's sockets"

for p in munged slurmctld slurmd sbatch sinfo; do
  command -v "$p" >/dev/null ||
    PATH="$PATH:/usr/sbin" command -v "$p" >/dev/null ||
    fail "$p not found (Debian packages slurm-wlm and munge; scripts/install-deps installs them)"
done
export PATH="$PATH:/usr/sbin"
user=$(id -un)
mkdir -p "$dir"/{munge,spool,state,log} || fail "cannot create $dir"
chmod 700 "$dir/munge"
# munge: a fresh 1 KiB key (munged(8): at least 32 bytes), readable by its owner only.
head -c 1024 /dev/urandom >"$dir/munge/munge.key" && chmod 400 "$dir/munge/munge.key" ||
  fail "cannot write the munge key"
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/seed" --force 2>"$dir/log/munged.err" ||
  fail "munged did not start: $(head -c 300 "$dir/log/munged.err" | tr '\n' ' ')"

cpus=$(nproc)
cat >"$dir/slurm.conf" <<EOF
ClusterName=fabricsim-test
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=localhost CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"
# -i: ignore state from an earlier run of the same DIR.
slurmctld -f "$SLURM_CONF" -i 2>"$dir/log/slurmctld.err" ||
  fail "slurmctld did not start: $(head -c 300 "$dir/log/slurmctld.err" | tr '\n' ' ')"
slurmd -f "$SLURM_CONF" -N localhost 2>"$dir/log/slurmd.err" ||
  fail "slurmd did not start: $(head -c 300 "$dir/log/slurmd.err" | tr '\n' ' ')"
# The node registers within seconds; give it 30.
for _ in $(seq 1 60); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1)
  [ "$state" = idle ] && exit 0
  sleep 0.5
done
fail "the node did not become idle in 30 s (state '${state:-none}'): " \
  "$(tail -n 3 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" 2>/dev/null | tr '\n' ' ' | head -c 400)"
