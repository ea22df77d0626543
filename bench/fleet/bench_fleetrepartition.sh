#!/usr/bin/env bash
# The repartition cycle through Slurm (`zhaoxictl fleet repartition`) on the emulated cluster:
# zx-mig goes back and forth between 2x3g.71gb + 7x1g.18gb and 14x1g.18gb, with
# `scripts/slurm-local set-gres` as the GRES command (controller and node slurmd restarted).
# Half of the runs start with a job on the node (--immediate requeues it). Prints each run and
# the median per step: drain, jobs, apply (skipped), gres (rewrite + restarts + registration),
# wait-gres, resume, and the whole cycle. A figure, not a test. Needs root.
#   bench/fleet/bench_fleetrepartition.sh [--zhaoxictl PATH] [--runs N] [--dir DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
zhaoxictl=build/app/zhaoxictl/zhaoxictl
runs=6
dir=
while (($#)); do
    case $1 in
    --zhaoxictl) zhaoxictl=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --dir) dir=${2:?}; shift 2 ;;
    *) echo "bench_fleetrepartition: unknown argument $1" >&2; exit 64 ;;
    esac
done
[[ $(id -u) -eq 0 ]] || { echo "bench_fleetrepartition: needs root (Slurm's daemons)" >&2; exit 77; }
[[ -x $zhaoxictl ]] || { echo "bench_fleetrepartition: no zhaoxictl at $zhaoxictl" >&2; exit 2; }
[[ -n $dir ]] || dir=$(mktemp -d /tmp/zx-bench-repartition.XXXXXX)
chmod 0755 "$dir"
slurm_local=$PWD/scripts/slurm-local
cleanup() { "$slurm_local" down --dir "$dir/cluster" >/dev/null 2>&1 || true; }
trap cleanup EXIT
eval "$("$slurm_local" up --dir "$dir/cluster" 2>/dev/null | tail -n 3)"
export SLURM_CONF

layouts=("0:7x1g.18gb;1:7x1g.18gb" "0:3g.71gb@0,3g.71gb@4;1:7x1g.18gb")
steps=(drain jobs apply gres wait-gres resume)
declare -A col
for s in "${steps[@]}" total; do col[$s]=""; done
printf '%-4s %-4s %8s %8s %8s %8s %10s %8s %8s\n' run job "${steps[@]}" total
for ((i = 0; i < runs; i++)); do
    layout=${layouts[i % 2]}
    job=no
    if ((i % 4 >= 2)); then
        gres=gpu:1g.18gb:1
        sbatch -Q -o /dev/null -p training -w zx-mig -t 10 --gres=$gres --wrap 'sleep 600' >/dev/null
        # Until it runs (bounded).
        for ((k = 0; k < 100; k++)); do
            [[ $(squeue -h -w zx-mig -t RUNNING -o %i | wc -l) -ge 1 ]] && break
            sleep 0.1
        done
        job=yes
    fi
    out=$("$zhaoxictl" fleet repartition zx-mig --layout "$layout" --rest "$REST_URL" \
        --token-file "$TOKEN_FILE" --user root --immediate --no-reconfigure \
        --gres-command "$slurm_local set-gres --dir $dir/cluster")
    # "  1234 ms  step  ok  message": the time each step ended; a step lasts from the end of the
    # one before.
    line=$(awk -v steps="plan ${steps[*]}" '
        { t = $1; s = $3; end[s] = t }
        END {
            n = split(steps, st, " ")
            prev = end["plan"]
            out = ""
            for (k = 2; k <= n; k++) { d = end[st[k]] - prev; prev = end[st[k]]; out = out " " d }
            print out " " end["resume"]
        }' <<<"$out")
    read -ra v <<<"$line"
    printf '%-4s %-4s %8s %8s %8s %8s %10s %8s %8s\n' "$i" "$job" "${v[@]}"
    for k in "${!steps[@]}"; do col[${steps[k]}]+="${v[k]} "; done
    col[total]+="${v[6]} "
    scancel -u root >/dev/null 2>&1 || true
    # The requeued job must not hold the node for the next run.
    for ((k = 0; k < 100; k++)); do
        [[ -z $(squeue -h -w zx-mig -o %i) ]] && break
        sleep 0.1
    done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf '%-9s' median
for s in "${steps[@]}"; do printf ' %8s' "$(median <<<"${col[$s]}")"; done
printf ' %8s   (ms, %d runs)\n' "$(median <<<"${col[total]}")" "$runs"
