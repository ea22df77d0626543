#!/usr/bin/env bash
# Fleet test (issue #17): scripts/slurm-local brings a real local Slurm cluster up from nothing in
# a fresh directory, its four nodes are IDLE with their GRES, a job on MIG instances gets three
# CUDA devices, slurmrestd answers with the JWT token, set-gres gives zx-mig another MIG layout
# (and a job gets the new instances), and down leaves none of its daemons running. Needs root (the daemons run as root): re-runs itself through `sudo -n` when it can,
# else skips (exit 77). Each step prints PASS or FAIL with what it saw.
#   bash tests/fleet/tst_slurmlocal.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        exec sudo -n bash "$0" "$@"
    fi
    echo "SKIP: needs root (or sudo without a password) to run the Slurm daemons"
    exit 77
fi

slurm_local=$PWD/scripts/slurm-local
dir=$(mktemp -d /tmp/zx-slurmlocal.XXXXXX)
failures=0
torn_down=0

pass() { echo "PASS: $*"; }
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# Brings the cluster down (always, from the EXIT trap too) and checks that none of the PIDs up
# recorded still runs (a zombie waiting for PID 1 counts as stopped).
teardown() {
    ((torn_down)) && return 0
    torn_down=1
    local pids=$dir/pids.recorded
    [[ -f $dir/run/pids ]] && cp "$dir/run/pids" "$pids"
    if "$slurm_local" down --dir "$dir"; then pass "down"; else fail "down exited non-zero"; fi
    [[ -f $pids ]] || return 0
    local name comm pid start c rest st s
    local -a f
    while read -r name comm pid start; do
        if [[ $name == munged && -s /run/munge/zhaoxi-slurm-local.users ]]; then
            echo "note: munged (pid $pid) is shared with another local cluster: it stays up"
            continue
        fi
        c=$(cat "/proc/$pid/comm" 2>/dev/null) || c=
        if [[ -n $c ]]; then
            rest=$(cat "/proc/$pid/stat" 2>/dev/null) || rest=
            rest=${rest##*) }
            read -ra f <<<"$rest"
            st=${f[0]:-}
            s=${f[19]:-}
            if [[ $c == "$comm" && $s == "$start" && $st != Z && $st != X ]]; then
                fail "after down, $name (pid $pid) still runs"
                continue
            fi
        fi
        pass "after down, $name (pid $pid) is gone"
    done <"$pids"
}

finish() {
    local rc=$?
    teardown || true
    if ((failures)); then
        echo "== $failures check(s) failed; logs kept in $dir/log"
        exit 1
    fi
    if ((rc != 0)); then
        echo "== the test stopped early (exit $rc); logs kept in $dir/log"
        exit "$rc"
    fi
    rm -rf "$dir"
    echo "== all checks passed"
}
trap finish EXIT

show_logs() {
    local f
    for f in "$dir"/log/slurmctld.log "$dir"/log/slurmd-*.log "$dir"/log/slurmrestd.log; do
        [[ -s $f ]] || continue
        echo "--- tail of $f"
        tail -n 10 "$f"
    done
}

# ---- up
echo "== up in $dir"
if ! out=$("$slurm_local" up --dir "$dir"); then
    fail "slurm-local up exited non-zero"
    exit 1
fi
mapfile -t last < <(tail -n 3 <<<"$out")
if [[ ${last[0]:-} =~ ^REST_URL=http://127\.0\.0\.1:[0-9]+$ && ${last[1]:-} == "TOKEN_FILE=$dir/token" &&
    ${last[2]:-} == "SLURM_CONF=$dir/etc/slurm.conf" ]]; then
    pass "up printed REST_URL, TOKEN_FILE and SLURM_CONF last"
else
    fail "up's last lines are not REST_URL/TOKEN_FILE/SLURM_CONF:"$'\n'"$out"
    exit 1
fi
eval "$(tail -n 3 <<<"$out")"
export SLURM_CONF
if [[ -s $TOKEN_FILE && $(stat -c %a "$TOKEN_FILE") == 600 ]]; then
    pass "token file, mode 0600"
else
    fail "token file $TOKEN_FILE missing, empty or not mode 0600"
fi

# ---- nodes and GRES
expected="zx-mig idle gpu:3g.71gb:2,gpu:1g.18gb:7
zx-mps idle gpu:l40s:1,mps:l40s:100
zx-shard idle gpu:l40s:1,shard:l40s:8
zx-whole idle gpu:h200:4"
nodes=$(sinfo -h -N -o '%N %T %G' | sort -u)
if [[ $nodes == "$expected" ]]; then
    pass "sinfo: 4 idle nodes with their GRES"
else
    fail "sinfo: expected"$'\n'"$expected"$'\n'"got"$'\n'"$nodes"
fi

# ---- a job on three 1g.18gb MIG instances
job_out=$dir/mig-job.out
# shellcheck disable=SC2016 # expanded by the job
if jid=$(timeout 60 sbatch --wait --parsable --gres=gpu:1g.18gb:3 -w zx-mig -o "$job_out" \
    --wrap 'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"'); then
    cvd=$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' "$job_out")
    IFS=, read -ra idx <<<"$cvd"
    distinct=$(printf '%s\n' "${idx[@]}" | sort -u | grep -cE '^[2-8]$' || true)
    # The node lists its 2 3g.71gb instances first (indices 0-1), then the 7 1g.18gb (2-8).
    if ((${#idx[@]} == 3 && distinct == 3)); then
        pass "MIG job $jid: CUDA_VISIBLE_DEVICES=$cvd (three 1g.18gb instances)"
    else
        fail "MIG job $jid: CUDA_VISIBLE_DEVICES='$cvd', expected three distinct indices in 2-8"
    fi
else
    fail "MIG job did not complete within 60 s (sbatch --wait: ${jid:-no job id})"
    squeue -a || true
    show_logs
fi

# ---- slurmrestd with the token
rest() {
    curl -s -o "$dir/rest.json" -w '%{http_code}' --max-time 10 "$@" || echo "curl-failed"
}
token=$(cat "$TOKEN_FILE")
auth=(-H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $token")
code=$(rest "${auth[@]}" "$REST_URL/slurm/v0.0.38/ping")
if [[ $code == 200 ]]; then
    pass "REST ping: 200"
else
    fail "REST ping answered $code: $(head -c 400 "$dir/rest.json" 2>/dev/null)"
fi
code=$(rest "${auth[@]}" "$REST_URL/slurm/v0.0.38/nodes")
if [[ $code == 200 ]] && [[ $(grep -c '"name": "zx-' "$dir/rest.json" || true) -eq 4 ]]; then
    pass "REST nodes: 200 with the 4 nodes"
else
    fail "REST nodes answered $code: $(head -c 400 "$dir/rest.json" 2>/dev/null)"
fi
code=$(rest "$REST_URL/slurm/v0.0.38/ping")
if [[ $code == 401 ]]; then
    pass "REST without a token: 401"
else
    fail "REST without a token answered $code, expected 401"
fi

# ---- set-gres: another MIG layout on zx-mig (card 0 = 7x1g.18gb, card 1 = 2x3g.71gb)
if "$slurm_local" set-gres zx-mig gpu:1g.18gb:7,gpu:3g.71gb:2 --dir "$dir"; then
    pass "set-gres zx-mig gpu:1g.18gb:7,gpu:3g.71gb:2"
else
    fail "set-gres exited non-zero"
    show_logs
fi
got=$(sinfo -h -N -n zx-mig -o '%T %G' | head -n 1)
if [[ $got == "idle gpu:1g.18gb:7,gpu:3g.71gb:2" ]]; then
    pass "sinfo: zx-mig idle with the new GRES"
else
    fail "sinfo: zx-mig shows '$got'"
fi
lines=$(grep '^NodeName=zx-mig ' "$dir/etc/gres.conf" | sed "s|$dir|DIR|")
expected="NodeName=zx-mig Name=gpu Type=1g.18gb File=DIR/dev/zx-mig-gpu[0-6]
NodeName=zx-mig Name=gpu Type=3g.71gb File=DIR/dev/zx-mig-gpu[7-8]"
if [[ $lines == "$expected" ]]; then
    pass "gres.conf: zx-mig's lines in device order"
else
    fail "gres.conf: expected"$'\n'"$expected"$'\n'"got"$'\n'"$lines"
fi
if "$slurm_local" status --dir "$dir" >/dev/null; then
    pass "status: every daemon lives after the restarts"
else
    fail "status: a daemon died after set-gres"
fi
job_out=$dir/mig-3g.out
# shellcheck disable=SC2016 # expanded by the job
if jid=$(timeout 60 sbatch --wait --parsable --gres=gpu:3g.71gb:2 -w zx-mig -o "$job_out" \
    --wrap 'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"'); then
    cvd=$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' "$job_out")
    if [[ $cvd == 7,8 ]]; then
        pass "job $jid on the two 3g.71gb instances: CUDA_VISIBLE_DEVICES=$cvd"
    else
        fail "job $jid: CUDA_VISIBLE_DEVICES='$cvd', expected 7,8 (the 3g.71gb instances now come last)"
    fi
else
    fail "the 3g.71gb job did not complete within 60 s"
    squeue -a || true
    show_logs
fi
# More devices: the fake device files follow.
if "$slurm_local" set-gres zx-mig gpu:1g.18gb:14 --dir "$dir" &&
    [[ $(find "$dir/dev" -name 'zx-mig-gpu*' | wc -l) -eq 14 ]] &&
    [[ $(sinfo -h -N -n zx-mig -o '%G' | head -n 1) == gpu:1g.18gb:14 ]]; then
    pass "set-gres zx-mig gpu:1g.18gb:14: 14 devices"
else
    fail "set-gres to 14 instances: $(sinfo -h -N -n zx-mig -o '%G' | head -n 1), $(find "$dir/dev" -name 'zx-mig-gpu*' | wc -l) devices"
fi
rc=0
"$slurm_local" set-gres zx-mig mps:100 --dir "$dir" 2>"$dir/bad.err" || rc=$?
if ((rc == 2)) && grep -q "is not gpu:TYPE:N" "$dir/bad.err"; then
    pass "set-gres refuses a GRES it cannot write (exit 2)"
else
    fail "set-gres mps:100 exited $rc: $(cat "$dir/bad.err")"
fi

# ---- down (also from the EXIT trap when a step above stopped the test)
teardown
