package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.core.CostModel;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The routers' prior is the engine's constants off by the documented factor, seeded. */
class RouterPriorTest {
  private final ReplicaModel m = ReplicaModel.defaults();

  @Test
  void eachTimingConstantIsTheTruthTimesOrOverTheFactor() {
    Set<Double> seen = new HashSet<>();
    for (long seed = 1; seed <= 20; seed++) {
      CostModel p = RouterPrior.of(m, 1.5, seed);
      double overhead = p.prefillOverheadMillis() / m.prefillOverheadMillis();
      double perToken = p.prefillMillisPerToken() / m.prefillMillisPerToken();
      double adapter = p.adapterLoadMillis() / m.adapterLoadMillis();
      for (double ratio : new double[] {overhead, perToken, adapter}) {
        assertThat(ratio).satisfiesAnyOf(r -> assertThat(r).isCloseTo(1.5, within(1e-12)),
            r -> assertThat(r).isCloseTo(1 / 1.5, within(1e-12)));
      }
      seen.add(Math.rint(perToken * 100) / 100);
      assertThat(p.kvBytesPerToken()).isEqualTo(m.kvBytesPerToken());
    }
    assertThat(seen).as("both directions occur over seeds").hasSize(2);
  }

  @Test
  void factorOneIsTheTruthAndTheSameSeedTheSamePrior() {
    CostModel exact = RouterPrior.of(m, 1.0, 7);
    assertThat(exact.prefillMillisPerToken()).isEqualTo(m.prefillMillisPerToken());
    assertThat(exact.prefillOverheadMillis()).isEqualTo(m.prefillOverheadMillis());
    assertThat(RouterPrior.of(m, 2, 7).prefillMillisPerToken())
        .isEqualTo(RouterPrior.of(m, 2, 7).prefillMillisPerToken());
  }

  @Test
  void aFactorBelowOneIsRefused() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Scenario.newBuilder().priorErrorFactor(0.5))
        .withMessage("priorErrorFactor: 0.5 (expected: finite and >= 1)");
  }

  @Test
  void theRunReportsLearntBesideTrueAndPriorPerReplica() {
    Scenario s = Scenarios.named("rag-long-docs").orElseThrow().toBuilder().requests(400)
        .priorErrorFactor(1.5).build();

    SimulationResult r = Simulator.create().run(s, "round-robin");

    assertThat(r.calibration()).hasSize(4);
    for (SimulationResult.Calibration c : r.calibration()) {
      assertThat(c.trueMillisPerToken()).isEqualTo(s.replicaModel().prefillMillisPerToken());
      assertThat(c.priorMillisPerToken() / c.trueMillisPerToken())
          .satisfiesAnyOf(x -> assertThat(x).isCloseTo(1.5, within(1e-9)),
              x -> assertThat(x).isCloseTo(1 / 1.5, within(1e-9)));
      assertThat(c.learntMillisPerToken()).as("learnt from the gateway's own TTFTs, not the prior")
          .isNotEqualTo(c.priorMillisPerToken());
    }
    assertThat(r.checks()).anyMatch(l -> l.startsWith("note: prefill ms/token (router 0)"));
  }
}
