#!/usr/bin/env bash
# Every policy on every named scenario (default seed and load), one CSV per scenario in OUT_DIR, with
# the wall-clock decision_us columns removed: two builds that route alike give identical files.
#
#   scripts/scenario-csvs.sh OUT_DIR [extra kvroute-sim compare options...]
#   diff -r before/ after/          # behaviour unchanged when this prints nothing
#
# KVROUTE_SIM_JAR=path/to/kvroute-sim.jar runs another build (say, a worktree of an older commit).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out=${1:?usage: scenario-csvs.sh OUT_DIR [options...]}
shift
jar="${KVROUTE_SIM_JAR:-}"
if [[ -z "$jar" ]]; then
  "$root/kvroute-sim" policies >/dev/null  # builds the jar once if needed
  jar="$root/examples/target/kvroute-sim.jar"
fi
mkdir -p "$out"
for scenario in $(java -cp "$jar" io.github.kvroute.examples.KvrouteSim scenarios | awk '/^#/ {exit} {print $1}'); do
  java -cp "$jar" io.github.kvroute.examples.KvrouteSim compare --scenario "$scenario" \
      --policies all --load-scales none --format csv --no-report "$@" 2>/dev/null \
    | awk -F, -v OFS=, '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i !~ /^decision_us/) keep[++n] = i }
        { line = $keep[1]; for (j = 2; j <= n; j++) line = line OFS $keep[j]; print line }' \
    > "$out/$scenario.csv"
done
