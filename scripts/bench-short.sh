#!/usr/bin/env bash
# The short benchmark suite behind BENCHMARKS.md: one fork, 2 warm-up and 3 measured iterations of
# 1 s each (2 s for the scaling groups), so that it ends in under 5 minutes on 2 cores. Figures from
# it are single runs: compare ratios measured within one invocation, not across machines or runs.
#
#   scripts/bench-short.sh            # every short benchmark, the index's retained heap at 1M and
#                                     # its write stalls at a 16 MiB budget
#   scripts/bench-short.sh route      # only the JMH benchmarks whose name matches
#
# Builds router-benchmarks/target/benchmarks.jar when missing (BENCH_REBUILD=1 forces it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/router-benchmarks/target/benchmarks.jar"
if [[ ! -f "$jar" || "${BENCH_REBUILD:-0}" == 1 ]]; then
  (cd "$root" && mvn -B -q -pl router-benchmarks -am package -DskipTests)
fi
short=(-f 1 -wi 2 -i 3 -w 1 -r 1)
if [[ $# -gt 0 ]]; then
  exec java -jar "$jar" "$1" "${short[@]}" -prof gc
fi
java -jar "$jar" 'RouteBenchmark' "${short[@]}" -prof gc
java -jar "$jar" 'PromptHashing' "${short[@]}" -p tokens=8192 -p keyed=false -prof gc
java -jar "$jar" 'RouteScaling' -f 1 -wi 2 -i 3 -w 1 -r 2
java -jar "$jar" 'IndexMatch' "${short[@]}" -p entries=1000000 -p blocks=64,128 -p replicas=4,256
java -XX:+UseSerialGC -Xmx2g -cp "$jar" io.github.kvroute.benchmarks.IndexMemory 1000000 256
java -Xms2g -Xmx2g -XX:+AlwaysPreTouch -cp "$jar" io.github.kvroute.benchmarks.IndexPauses 16 8 100000
