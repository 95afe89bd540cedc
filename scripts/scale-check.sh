#!/usr/bin/env bash
# At every load scale of the default sweep, one policy's SLO attainment against the best other
# policy's and round-robin's, as means over seeds, per named scenario (one stale-telemetry section per
# delay). Every policy of a run serves the same requests at a given scale, so the attainments
# compare as the goodputs do: `vs_best` below 0.98 (scale: times the scenario's rate) is goodput more than 2% under the best other
# policy's there, flagged `LOW`; `vs_rr` below 1, flagged `UNDER_RR`, is under round-robin's.
#
#   scripts/scale-check.sh POLICY [SEEDS] [extra kvroute-sim compare options...]
#   scripts/scale-check.sh hybrid-cost 1,2,3 --routers 3 --telemetry-delay-ms 1000
#
# SCENARIOS="hot-prefix multi-tenant" limits the scenarios; TRACE=mooncake:PATH (or azure:PATH)
# replays that trace instead (add --replicas N); KVROUTE_SIM_JAR=path compares another build.
# Runs every registered policy (the best other is among them); POLICIES=a,b,... runs only those
# (include POLICY and round-robin), which is faster but finds the best other among them only.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
policy=${1:?usage: scale-check.sh POLICY [SEEDS] [options...]}
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
        --seed "$seed" --policies "${POLICIES:-all}" --no-report "$@" 2>/dev/null
  done
done | awk -v me="$policy" '
  # "== name: description" opens a section; the attainment rows follow a "policy capacity_rps" header
  /^== / { section = $2; sub(/:$/, "", section); rows = 0; next }
  $1 == "policy" && $2 == "capacity_rps" {
    rows = 1; scales = NF - 2
    for (i = 3; i <= NF; i++) { s = $i; sub(/^att@x/, "", s); scale[i - 2] = s }
    next }
  rows && NF == 0 { rows = 0; next }
  rows {
    seen[section] = 1; p = $1; pols[section, p] = 1
    for (i = 3; i <= NF; i++) { att[section, p, i - 2] += $i; n[section, p, i - 2]++ }
  }
  END {
    for (s in seen) {
      for (k = 1; k <= scales; k++) {
        if (!((s, me, k) in n)) continue
        mine = att[s, me, k] / n[s, me, k]; best = -1; bp = ""
        for (key in pols) {
          split(key, q, SUBSEP); if (q[1] != s || q[2] == me) continue
          m = att[s, q[2], k] / n[s, q[2], k]; if (m > best) { best = m; bp = q[2] } }
        rr = ((s, "round-robin", k) in n) ? att[s, "round-robin", k] / n[s, "round-robin", k] : 0
        vb = best > 0 ? mine / best : 1; vr = rr > 0 ? mine / rr : 1
        flag = (vb < 0.98 ? " LOW" : "") (vr < 0.9995 ? " UNDER_RR" : "")
        printf "%-26s %6s %7.3f %-26s %7.3f %7.3f %7.3f%s\n", s, scale[k], mine, bp, best, vb, vr, flag
      }
    }
  }' | sort -k1,1 -k2,2g | { printf "%-26s %6s %7s %-26s %7s %7s %7s\n" scenario scale policy \
      "best other" its vs_best vs_rr; cat; }
