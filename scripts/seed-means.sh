#!/usr/bin/env bash
# Mean goodput, TTFT p99 and prefix hit ratio of policies over several seeds, per named scenario
# (one stale-telemetry row per delay). Single-seed tails move with the seed; compare means.
#
#   scripts/seed-means.sh POLICY[,POLICY...] [SEEDS] [extra kvroute-sim compare options...]
#   scripts/seed-means.sh hybrid-cost,cache-aware 1,2,3 --option hybrid-cost.externality=none
#
# KVROUTE_SIM_JAR=path/to/kvroute-sim.jar compares another build (say, a worktree of an older commit).
# SCENARIOS="hot-prefix multi-tenant" limits the scenarios.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
policies=${1:?usage: seed-means.sh POLICY[,POLICY...] [SEEDS] [options...]}
seeds=${2:-1,2,3}
shift $(( $# >= 2 ? 2 : 1 ))
source "$root/scripts/lib/sim.sh"
jar=$(sim_jar "$root")
for scenario in $(named_scenarios "$jar"); do
  for seed in ${seeds//,/ }; do
    java -cp "$jar" io.github.kvroute.examples.KvrouteSim compare --scenario "$scenario" \
        --seed "$seed" --policies "$policies" --load-scales none --format csv --no-report "$@" \
        2>/dev/null | tail -n +2 | sed "s/^/$scenario,/"
  done
done | awk -F, '{
  split($2, p, "@"); key = sprintf("%-24s %-26s", $1 (p[2] != "" ? "@" p[2] : ""), p[1]);
  g[key] += $8; t[key] += $12; h[key] += $14; n[key]++ }
  END { for (k in g) printf "%s %9.3f %10.1f %8.3f\n", k, g[k]/n[k], t[k]/n[k], h[k]/n[k] }' \
  | sort | { printf "%-24s %-26s %9s %10s %8s\n" scenario policy goodput ttft_p99 hit; cat; }
