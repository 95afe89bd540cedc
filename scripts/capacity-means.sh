#!/usr/bin/env bash
# Mean capacity_rps (the highest offered rate held at 90% SLO attainment, from the default load sweep)
# of policies over several seeds, per named scenario (one stale-telemetry row per delay), with each
# policy's rank, its ratio to the best other policy, and the standard error of its seed-by-seed
# difference from that policy (diff_se, in req/s). Single seeds move capacity by up to 20%
# (hot-prefix): compare means over ten seeds, and read a difference within about twice diff_se as none.
#
#   scripts/capacity-means.sh POLICY[,POLICY...]|all [SEEDS] [extra kvroute-sim compare options...]
#   scripts/capacity-means.sh all 1,2,3 --routers 3 --telemetry-delay-ms 1000
#
# SCENARIOS="hot-prefix multi-tenant" limits the scenarios; TRACE=mooncake:PATH (or azure:PATH) replays
# that trace instead of the scenarios (add --replicas N); KVROUTE_SIM_JAR=path compares another build;
# RAW_OUT=file keeps every run's CSV row (scenario first).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
policies=${1:?usage: capacity-means.sh POLICY[,POLICY...]|all [SEEDS] [options...]}
seeds=${2:-1,2,3}
shift $(( $# >= 2 ? 2 : 1 ))
source "$root/scripts/lib/sim.sh"
jar=$(sim_jar "$root")
if [[ -n "${TRACE:-}" ]]; then
  scenarios=$(basename "${TRACE#*:}")
else
  scenarios=$(named_scenarios "$jar")
fi
for scenario in $scenarios; do
  if [[ -n "${TRACE:-}" ]]; then source=(--trace "$TRACE"); else source=(--scenario "$scenario"); fi
  for seed in ${seeds//,/ }; do
    java -cp "$jar" io.github.kvroute.examples.KvrouteSim compare "${source[@]}" \
        --seed "$seed" --policies "$policies" --format csv --no-report "$@" \
        2>/dev/null | tail -n +2 | sed "s/^/$scenario,/"
  done
done | tee "${RAW_OUT:-/dev/null}" | awk -F, '{
  split($2, p, "@"); s = $1 (p[2] != "" ? "@" p[2] : ""); key = s SUBSEP p[1];
  c[key] += $20; g[key] += $8; n[key]++; x[key, n[key]] = $20; seen[s] = 1 }
  END {
    for (k in c) { split(k, q, SUBSEP); m = c[k] / n[k]; mean[k] = m }
    for (k in mean) { split(k, q, SUBSEP); r = 1; best = 0; bk = ""
      for (o in mean) { split(o, w, SUBSEP); if (w[1] != q[1] || o == k) continue
        if (mean[o] > mean[k]) r++; if (bk == "" || mean[o] > best) { best = mean[o]; bk = o } }
      # the standard error of the seed-by-seed difference from the best other policy
      se = 0
      if (bk != "" && n[k] > 1 && n[k] == n[bk]) {
        d = 0; d2 = 0
        for (i = 1; i <= n[k]; i++) { e = x[k, i] - x[bk, i]; d += e; d2 += e * e }
        v = (d2 - d * d / n[k]) / (n[k] - 1); se = v > 0 ? sqrt(v / n[k]) : 0 }
      printf "%-28s %-26s %9.2f %9.3f %4d %7.3f %8.2f\n", q[1], q[2], mean[k], g[k] / n[k], r,
        (best > 0 ? mean[k] / best : 0), se }
  }' \
  | sort -k1,1 -k3,3nr | { printf "%-28s %-26s %9s %9s %4s %7s %8s\n" scenario policy capacity goodput rank vs_best diff_se; cat; }
