# Shared by the comparison scripts (source it; it defines functions only).
#   sim_jar ROOT        prints the simulator jar: $KVROUTE_SIM_JAR, else ROOT's, built once if needed
#   named_scenarios JAR prints the named scenarios ($SCENARIOS if set), one per line

sim_jar() {
  if [[ -n "${KVROUTE_SIM_JAR:-}" ]]; then
    echo "$KVROUTE_SIM_JAR"
  else
    "$1/kvroute-sim" policies >/dev/null  # builds the jar once if needed
    echo "$1/examples/target/kvroute-sim.jar"
  fi
}

named_scenarios() {
  if [[ -n "${SCENARIOS:-}" ]]; then
    echo "$SCENARIOS"
  else
    java -cp "$1" io.github.kvroute.examples.KvrouteSim scenarios | awk '/^#/ {exit} {print $1}'
  fi
}
