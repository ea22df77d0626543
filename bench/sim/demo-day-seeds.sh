#!/usr/bin/env bash
# The demo day over many days: every policy on seeds 1-20 (by default), then per policy the mean
# efficiency against the fluid bound and, overall and per service, the SLO attainment's lowest
# day and mean over the days. Figures, not pass/fail (issue 18's goal reads off the table).
#   bench/sim/demo-day-seeds.sh                       # seeds 1-20, demo day, build/ 's zhaoxictl
#   bench/sim/demo-day-seeds.sh --seeds 1-5 -j 2 --per-seed
#   bench/sim/demo-day-seeds.sh --scenario FILE --zhaoxictl PATH --keep DIR
# Needs jq. Each seed runs `zhaoxictl simulate --compare --json` once (about 2 s of CPU).
set -euo pipefail
cd "$(dirname "$0")/../.."

scenario=resources/scenarios/demo-day.json
zhaoxictl=${ZHAOXICTL:-build/app/zhaoxictl/zhaoxictl}
seeds=1-20
jobs=1
keep=
perSeed=0
while (($#)); do
    case $1 in
    --scenario) scenario=$2; shift 2 ;;
    --zhaoxictl) zhaoxictl=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --per-seed) perSeed=1; shift ;;
    -h | --help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
command -v jq >/dev/null || { echo "needs jq" >&2; exit 2; }
[[ -x $zhaoxictl ]] || { echo "no zhaoxictl at $zhaoxictl (build it, or --zhaoxictl)" >&2; exit 2; }
[[ $seeds =~ ^([0-9]+)-([0-9]+)$ ]] || { echo "--seeds: expected FROM-TO, got $seeds" >&2; exit 2; }
first=${BASH_REMATCH[1]}
last=${BASH_REMATCH[2]}

dir=${keep:-$(mktemp -d)}
mkdir -p "$dir"
[[ -n $keep ]] || trap 'rm -rf "$dir"' EXIT

export zhaoxictl scenario dir
# shellcheck disable=SC2016 # expanded by the inner sh, from the exported variables
seq "$first" "$last" | xargs -P "$jobs" -I{} sh -c \
    '"$zhaoxictl" simulate --scenario "$scenario" --compare --seed {} --json > "$dir/seed-{}.json.part" && mv "$dir/seed-{}.json.part" "$dir/seed-{}.json"'

files=()
for s in $(seq "$first" "$last"); do
    files+=("$dir/seed-$s.json")
done

echo "$(basename "$scenario"), seeds $first-$last ($((last - first + 1)) days); attainment in %: lowest day / mean"
# One row per policy: efficiency (mean, lowest), overall attainment and each service's.
jq -s -r --argjson perSeed "$perSeed" '
  def pct: . * 100;
  def f($n): (. * pow(10; $n) | round) / pow(10; $n) | tostring
             | if test("\\.") then . else . + "." end
             | . + ("0" * ($n - (split(".")[1] | length)));
  def mean: add / length;
  [ .[] | .policies[] ] as $runs
  | ($runs | map(.inference.services | keys) | add | unique) as $services
  | ($runs | map(.policy) | reduce .[] as $p ([]; if index([$p]) then . else . + [$p] end)) as $policies
  | (["policy", "eff% mean", "eff% min", "SLO% min/mean"]
     + ($services | map("\(.) min/mean")) + ["preempt", "lost h"]) as $head
  | ([$head]
     + [ $policies[] as $p
         | [ $runs[] | select(.policy == $p) ] as $r
         | [ $p,
             ($r | map(.training.efficiency | pct) | mean | f(2)),
             ($r | map(.training.efficiency | pct) | min | f(2)),
             (($r | map(.inference.slo_attainment | pct) | min | f(3)) + " / "
              + ($r | map(.inference.slo_attainment | pct) | mean | f(3))) ]
           + [ $services[] as $s
               | ($r | map(.inference.services[$s].slo_attainment | pct)) as $a
               | ($a | min | f(3)) + " / " + ($a | mean | f(3)) ]
           + [ ($r | map(.preemptions) | mean | f(1)),
               ($r | map(.training.lost_work) | mean | f(2)) ] ])
  | .[] | @tsv
' "${files[@]}" | column -t -s $'\t'

if ((perSeed)); then
    echo
    echo "per seed: eff% and each service's attainment %"
    jq -s -r '
      def f($n): (. * pow(10; $n) | round) / pow(10; $n);
      .[] | .policies[] as $p
      | [ "seed \($p.seed)", $p.policy, ($p.training.efficiency * 100 | f(2)) ]
        + [ $p.inference.services | to_entries[] | "\(.key) \(.value.slo_attainment * 100 | f(3))" ]
      | @tsv
    ' "${files[@]}" | column -t -s $'\t'
fi
