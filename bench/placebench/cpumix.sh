#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes openb workloads with more CPU demand than the published ones, for bench/placebench/run.sh:
# the GPU pods of openb_pod_list_cpu250 plus CPU-only pods drawn (with replacement, seeded) from
# its CPU-only pods until their CPU is PERCENT/400 of the GPU pods' CPU. That ratio follows the
# published family (cpu100: 0.21, cpu200: 0.47, cpu250: 0.62, so 0.25 per 100 %): cpu300x asks
# about 0.75, cpu400x 1.0. The "x" marks a workload made here, not published.
#
#   bench/placebench/cpumix.sh DATA_DIR OUT_DIR [PERCENT ...]     (default: 300 400)
#   then: WORKLOADS="cpu300x cpu400x" bench/placebench/run.sh OUT_DIR
#
# OUT_DIR gets the node list as a link and one pod file per percent; nothing goes into the project.
set -euo pipefail

data=${1:?usage: cpumix.sh DATA_DIR OUT_DIR [PERCENT ...]}
out=${2:?usage: cpumix.sh DATA_DIR OUT_DIR [PERCENT ...]}
shift 2
percents=("$@")
[ ${#percents[@]} -gt 0 ] || percents=(300 400)
src=$data/openb_pod_list_cpu250.csv
[ -r "$src" ] || { echo "cpumix.sh: no $src" >&2; exit 2; }
[ -r "$data/openb_node_list_gpu_node.csv" ] || { echo "cpumix.sh: no node list in $data" >&2; exit 2; }
mkdir -p "$out"
ln -sf "$(realpath "$data/openb_node_list_gpu_node.csv")" "$out/openb_node_list_gpu_node.csv"

for p in "${percents[@]}"; do
    [[ "$p" =~ ^[0-9]+$ ]] && [ "$p" -gt 250 ] || {
        echo "cpumix.sh: percent '$p' must be a whole number above 250" >&2
        exit 2
    }
    dst=$out/openb_pod_list_cpu${p}x.csv
    # Columns: name,cpu_milli,memory_mib,num_gpu,gpu_milli,... ; the copies are named after the
    # last original so that the name order (FGD protocol 3.2) keeps the originals first.
    awk -F, -v OFS=, -v pct="$p" -v seed=$((p * 7919)) '
        NR == 1 { print; next }
        {
            print; n++
            if ($4 == 0) { cpu[++c] = $0; cpuOnly += $2 } else gpuCpu += $2
        }
        END {
            if (c == 0 || gpuCpu == 0) { print "cpumix.sh: no CPU-only or no GPU pods" > "/dev/stderr"; exit 2 }
            srand(seed)
            want = gpuCpu * pct / 400
            while (cpuOnly < want) {
                split(cpu[int(rand() * c) + 1], f, ",")
                f[1] = sprintf("openb-pod-x%06d", n++)
                line = f[1]
                for (i = 2; i in f; i++) line = line OFS f[i]
                print line
                cpuOnly += f[2]
            }
        }' "$src" > "$dst.tmp"
    mv "$dst.tmp" "$dst"
    echo "cpumix.sh: wrote $dst ($(($(wc -l < "$dst") - 1)) pods)"
done
