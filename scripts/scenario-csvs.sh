#!/usr/bin/env bash
# Every policy on every named scenario (default seed and load), one CSV per scenario in OUT_DIR, with
# the wall-clock decision_us columns removed: two builds that route alike give identical files.
#
#   scripts/scenario-csvs.sh OUT_DIR [extra kvroute-sim compare options...]
#   diff -r before/ after/          # behaviour unchanged when this prints nothing
#
# KVROUTE_SIM_JAR=path/to/kvroute-sim.jar runs another build (say, a worktree of an older commit);
# SCENARIOS="hot-prefix multi-tenant" limits the scenarios.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out=${1:?usage: scenario-csvs.sh OUT_DIR [options...]}
shift
source "$root/scripts/lib/sim.sh"
jar=$(sim_jar "$root")
mkdir -p "$out"
for scenario in $(named_scenarios "$jar"); do
  java -cp "$jar" io.github.kvroute.examples.KvrouteSim compare --scenario "$scenario" \
      --policies all --load-scales none --format csv --no-report "$@" 2>/dev/null \
    | awk -F, -v OFS=, '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i !~ /^decision_us/) keep[++n] = i }
        { line = $keep[1]; for (j = 2; j <= n; j++) line = line OFS $keep[j]; print line }' \
    > "$out/$scenario.csv"
done
