# slurm_cluster.sh - a throwaway single-node Slurm cluster on localhost for
# the tests (sourced after tests/lib.sh). Everything lives under $TMP/slurm;
# munged gets its own key and socket, so a system munge/slurm is not touched.
#   slurm_install        installs slurm-wlm and munge when missing (TAP-skips when it cannot)
#   slurm_start          starts munged, slurmctld and slurmd; TAP-skips when they cannot run
#   slurm_wait SECONDS   waits until the queue is empty; fails after SECONDS
#   slurm_stop           stops the daemons (also run at exit)
slurm_install() {
    [ "$(id -u)" = 0 ] || skip_all "the test cluster's daemons run as root, and this is not root"
    if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
        echo "# installing slurm-wlm and munge"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge > "$TMP/apt.log" 2>&1 ||
            { apt-get update -qq > /dev/null 2>&1 &&
              DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge > "$TMP/apt.log" 2>&1; } ||
            skip_all "cannot install slurm-wlm and munge (see apt-get)"
    fi
}

slurm_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

slurm_start() {
    S=$TMP/slurm
    mkdir -p "$S/state" "$S/spool" "$S/munge"
    chmod 700 "$S/munge"
    mungekey -c -k "$S/munge/munge.key" > /dev/null 2>&1 || skip_all "mungekey cannot make a key"
    munged --force --socket="$S/munge/socket" --key-file="$S/munge/munge.key" --pid-file="$S/munge/munged.pid" \
        --log-file="$S/munge/munged.log" --seed-file="$S/munge/seed" > /dev/null 2>&1 ||
        skip_all "munged cannot start here: $(tail -1 "$S/munge/munged.log" 2> /dev/null)"
    trap 'slurm_stop; rm -rf "$TMP"' EXIT
    host=$(hostname -s)
    cat > "$S/slurm.conf" <<EOT
ClusterName=winnowtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/socket
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
MessageTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=winnow Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOT
    export SLURM_CONF="$S/slurm.conf"
    slurmctld -f "$SLURM_CONF" > /dev/null 2>&1 || skip_all "slurmctld cannot start here: $(tail -1 "$S/slurmctld.log" 2> /dev/null)"
    slurmd -f "$SLURM_CONF" > /dev/null 2>&1 || skip_all "slurmd cannot start here: $(tail -1 "$S/slurmd.log" 2> /dev/null)"
    i=0
    until sinfo -h -o %T 2> /dev/null | grep -q idle; do
        i=$((i + 1))
        [ $i -gt 60 ] && skip_all "the test node never became idle: $(tail -1 "$S/slurmd.log" 2> /dev/null)"
        sleep 0.5
    done
}

slurm_wait() {
    i=0
    while [ -n "$(squeue -h 2> /dev/null)" ]; do
        i=$((i + 1))
        [ $i -gt $(($1 * 2)) ] && return 1
        sleep 0.5
    done
    return 0
}

slurm_stop() {
    for f in "$S/slurmd.pid" "$S/slurmctld.pid" "$S/munge/munged.pid"; do
        [ -s "$f" ] && kill "$(cat "$f")" 2> /dev/null
    done
    sleep 0.5
    for f in "$S/slurmd.pid" "$S/slurmctld.pid" "$S/munge/munged.pid"; do
        [ -s "$f" ] && kill -9 "$(cat "$f")" 2> /dev/null
    done
    return 0
}
