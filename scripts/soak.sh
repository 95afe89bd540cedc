#!/usr/bin/env bash
# The soak (not a CI test): 8 routing threads beside report, KV-event and membership-churn threads for
# MINUTES, the router's books checked at quiescence after every phase (router-testkit's RouterStress;
# RouterStressTest runs a few seconds of it in CI). Prints one line per phase, a summary and every
# violation; exits 1 if there was any.
#
#   scripts/soak.sh MINUTES [--threads N] [--policy NAME] [--seed S] [--no-ghosts]
#   scripts/soak.sh 10
#
# Builds router-benchmarks/target/benchmarks.jar when missing (SOAK_REBUILD=1 forces it).
# SOAK_HEAP sets the JVM's heap (default 1g).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
minutes=${1:?usage: soak.sh MINUTES [--threads N] [--policy NAME] [--seed S] [--no-ghosts]}
shift
jar="$root/router-benchmarks/target/benchmarks.jar"
if [[ ! -f "$jar" || "${SOAK_REBUILD:-0}" == 1 ]]; then
  (cd "$root" && mvn -B -q -pl router-benchmarks -am package -DskipTests)
fi
exec java "-Xmx${SOAK_HEAP:-1g}" -cp "$jar" io.github.kvroute.benchmarks.Soak "$minutes" "$@"
