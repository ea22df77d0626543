#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs every placement policy over seeds 42-51 on the openb workloads of a data folder, through
# `zhaoxictl place-bench`, and prints the means beside the FGD paper's published numbers
# (benchmarks/FGD_PROTOCOL.md 7.1) and, for the default workload, each seed beside 7.2.
#
#   bench/placebench/run.sh DATA_DIR [ZHAOXICTL]
#   env: POLICIES="random dotprod ..." WORKLOADS="default cpu050 ..." SEEDS=42-51
#
# The trace files stay where they are: nothing is copied into the project.
set -euo pipefail

data=${1:?usage: run.sh DATA_DIR [ZHAOXICTL]}
ctl=${2:-$(dirname "$0")/../../build/app/zhaoxictl/zhaoxictl}
policies=${POLICIES:-random dotprod gpuclustering gpupacking bestfit fgd default}
workloads=${WORKLOADS:-default cpu050 cpu100 cpu200 cpu250}
seeds=${SEEDS:-42-51}
nodes=$data/openb_node_list_gpu_node.csv
[ -x "$ctl" ] || { echo "run.sh: no zhaoxictl at $ctl" >&2; exit 2; }
[ -r "$nodes" ] || { echo "run.sh: no $nodes" >&2; exit 2; }

# Section 7.1: mean allocation % at 130 % arrived, seeds 42-51.
published() { # workload policy
    case "$1:$2" in
    default:random) echo 87.47 ;; default:dotprod) echo 90.85 ;; default:gpuclustering) echo 91.88 ;;
    default:gpupacking) echo 92.00 ;; default:bestfit) echo 93.08 ;; default:fgd) echo 95.39 ;;
    cpu050:random) echo 91.24 ;; cpu050:dotprod) echo 93.27 ;; cpu050:gpuclustering) echo 93.79 ;;
    cpu050:gpupacking) echo 93.72 ;; cpu050:bestfit) echo 93.79 ;; cpu050:fgd) echo 95.21 ;;
    cpu100:random) echo 89.11 ;; cpu100:dotprod) echo 91.95 ;; cpu100:gpuclustering) echo 92.64 ;;
    cpu100:gpupacking) echo 92.72 ;; cpu100:bestfit) echo 93.44 ;; cpu100:fgd) echo 95.35 ;;
    cpu200:random) echo 83.77 ;; cpu200:dotprod) echo 87.70 ;; cpu200:gpuclustering) echo 89.92 ;;
    cpu200:gpupacking) echo 90.22 ;; cpu200:bestfit) echo 92.40 ;; cpu200:fgd) echo 95.05 ;;
    cpu250:random) echo 80.42 ;; cpu250:dotprod) echo 83.81 ;; cpu250:gpuclustering) echo 87.99 ;;
    cpu250:gpupacking) echo 88.28 ;; cpu250:bestfit) echo 91.45 ;; cpu250:fgd) echo 93.41 ;;
    *) echo - ;;
    esac
}

# Section 7.2: the default workload per seed, 42..51.
published_seeds() {
    case "$1" in
    random) echo "87.26 88.03 87.83 87.36 87.48 87.41 87.81 87.07 87.31 87.14" ;;
    dotprod) echo "90.54 90.84 91.03 90.89 90.74 90.75 91.28 90.93 90.76 90.73" ;;
    gpuclustering) echo "91.53 91.97 91.88 92.96 90.81 91.42 92.60 92.34 91.56 91.71" ;;
    gpupacking) echo "91.57 92.06 92.10 92.79 91.30 91.29 92.78 92.06 91.69 92.38" ;;
    bestfit) echo "93.13 93.25 93.09 93.14 93.19 93.04 92.95 93.21 92.87 92.89" ;;
    fgd) echo "95.29 95.32 95.44 95.48 95.49 95.27 95.37 95.47 95.35 95.43" ;;
    *) echo "" ;;
    esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-9s %-14s %16s %10s %7s %14s\n' workload policy "ours (mean+-sd)" published diff decisions/s
for w in $workloads; do
    pods=$data/openb_pod_list_$w.csv
    [ -r "$pods" ] || { echo "run.sh: skipping $w (no $pods)" >&2; continue; }
    for p in $policies; do
        out=$tmp/$w-$p.txt
        "$ctl" place-bench --nodes "$nodes" --pods "$pods" --policy "$p" --seeds "$seeds" > "$out"
        # The per-seed table follows its header line; the summary line ends it.
        awk -v w="$w" -v p="$p" -v pub="$(published "$w" "$p")" '
            /^seed  alloc@130/ { table = 1; next }
            table && $1 ~ /^-?[0-9]+$/ && NF >= 7 { dps += $7; n++ }
            /^mean allocation at 130 %:/ { mean = $6; sd = $8 }
            END {
                diff = (pub == "-") ? "-" : sprintf("%+.2f", mean - pub)
                printf "%-9s %-14s %9.2f +- %.2f %10s %7s %14.0f\n", w, p, mean, sd, pub, diff, dps / n
            }' "$out"
    done
done

if [[ " $workloads " == *" default "* ]]; then
    echo
    echo "default workload, allocation % at 130 per seed (ours / published 7.2):"
    for p in $policies; do
        out=$tmp/default-$p.txt
        [ -r "$out" ] || continue
        ours=$(awk '/^seed  alloc@130/ { t = 1; next } t && $1 ~ /^-?[0-9]+$/ && NF >= 7 { printf "%s ", $2 }' "$out")
        pub=$(published_seeds "$p")
        same=$(awk -v a="$ours" -v b="$pub" 'BEGIN {
            n = split(a, x, " "); m = split(b, y, " "); s = 0
            if (m != n) { print "-"; exit }
            for (i = 1; i <= n; i++) s += (x[i] == y[i])
            print s "/" n }')
        printf '%-14s ours: %s\n' "$p" "$ours"
        [ -n "$pub" ] && printf '%-14s pub:  %s  (identical: %s)\n' "" "$pub" "$same"
    done
fi
