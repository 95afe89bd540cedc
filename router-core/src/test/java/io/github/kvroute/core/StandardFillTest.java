package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The standard terms in their standard order are evaluated straight through on a pooled view
 * ({@link StandardEstimate#fill}); the values, their total to the bit, and what is reported as a
 * failure are those of evaluating the terms one by one, contained: a NaN or negative term counts 0
 * and is reported once, in the terms' order. Checked on random views, some with NaN or negative
 * inputs, against the same terms in another order (which takes the term-by-term loop).
 * {@link CostTerms#prefillMillis} of a view so filled is its prefill term's value.
 */
class StandardFillTest {
  @Test
  void theStandardOrderGivesTheTermByTermValuesAndFailures() {
    List<Scorer> standard = CostTerms.standard(CostModel.defaults());
    List<String> straightFailures = new ArrayList<>();
    List<String> loopFailures = new ArrayList<>();
    StandardEstimate straight =
        new StandardEstimate(standard, (plugin, fallback, e) -> straightFailures.add(plugin));
    // the same scorers reversed: not the standard order, so evaluated term by term
    List<Scorer> reversed = new ArrayList<>(standard);
    Collections.reverse(reversed);
    StandardEstimate loop =
        new StandardEstimate(reversed, (plugin, fallback, e) -> loopFailures.add(plugin));

    SplittableRandom random = new SplittableRandom(7);
    DecisionContext context = new DecisionContext();
    int roundsWithFailures = 0;
    for (int round = 0; round < 2_000; round++) {
      Request request = request("q" + round, prompt(16 * (1 + random.nextInt(64)), round))
          .maxOutputTokens(1 + random.nextInt(512)).build();
      context.request = request;
      MutableView v = randomView(context, random);
      MutableView w = randomViewLike(context, v);
      straightFailures.clear();
      loopFailures.clear();

      double total = straight.fill(request, v);
      double loopTotal = loop.fill(request, w);

      double expected = 0;
      List<String> expectedFailures = new ArrayList<>();
      for (int i = 0; i < standard.size(); i++) {
        double ms = standard.get(i).costMillis(request, v);
        if (Double.isNaN(ms) || ms < 0) {
          expectedFailures.add("scorer " + standard.get(i).name());
          ms = 0;
        }
        assertThat(v.termMillis[i]).isEqualTo(ms);
        assertThat(w.termMillis[standard.size() - 1 - i]).isEqualTo(ms);
        expected += ms;
      }
      assertThat(Double.doubleToRawLongBits(total))
          .isEqualTo(Double.doubleToRawLongBits(expected));
      assertThat(straightFailures).isEqualTo(expectedFailures);
      // filled for the request, the view answers the prefill externality from its term, which is
      // the same value (or, when a term failed and counted 0, computes it as before)
      v.standardMillis = total;
      assertThat(Double.doubleToRawLongBits(CostTerms.prefillMillis(request, v))).isEqualTo(
          Double.doubleToRawLongBits(PrefillTerm.prefillMillis(request.promptTokens(), v)));
      assertThat(v.standardFilled).isEqualTo(expectedFailures.isEmpty());
      roundsWithFailures += expectedFailures.isEmpty() ? 0 : 1;
      assertThat(loopFailures).containsExactlyInAnyOrderElementsOf(expectedFailures);
      assertThat(loopTotal).isCloseTo(total, Offset.offset(1e-6 * total));
    }
    assertThat(roundsWithFailures).isBetween(100, 1_900);
  }

  private static MutableView randomView(DecisionContext context, SplittableRandom random) {
    MutableView v = new MutableView(context);
    ReplicaSnapshot.Builder b = TestData.ready("r").waitingRequests(random.nextInt(5));
    if (random.nextBoolean()) {
      b.decodeStepMillis(random.nextDouble() * 40);
    }
    if (random.nextBoolean()) {
      b.kvBlocks(random.nextInt(1_000), 1_000).kvBlockSizeTokens(16);
    }
    v.report(b.build());
    v.estimatedQueueMillis = odd(random, random.nextDouble() * 500);
    v.matchedTokens = random.nextInt(1_024);
    v.cacheHitReliability = random.nextDouble();
    v.prefillMillisPerToken = odd(random, random.nextDouble() * 0.1);
    v.prefillOverheadMillis = random.nextDouble() * 20;
    v.adapterLoadMillis = random.nextInt(4) == 0 ? 800 : 0;
    v.kvTransferMillis = odd(random, random.nextInt(4) == 0 ? random.nextDouble() * 50 : 0);
    v.unseenArrivalsPerSecond = random.nextDouble() * 20;
    v.snapshotAgeMillis = random.nextDouble() * 2_000;
    v.meanRequestCostMillis = odd(random, random.nextDouble() * 100);
    v.telemetryStale = random.nextInt(8) == 0;
    v.freeKvTokens = random.nextBoolean() ? -1 : random.nextInt(20_000);
    return v;
  }

  /** {@code x}, or now and then NaN or a negative value, which a term must not pass on. */
  private static double odd(SplittableRandom random, double x) {
    return switch (random.nextInt(16)) {
      case 0 -> Double.NaN;
      case 1 -> -x - 1;
      default -> x;
    };
  }

  private static MutableView randomViewLike(DecisionContext context, MutableView v) {
    MutableView w = new MutableView(context);
    w.report(v.snapshot);
    w.estimatedQueueMillis = v.estimatedQueueMillis;
    w.matchedTokens = v.matchedTokens;
    w.cacheHitReliability = v.cacheHitReliability;
    w.prefillMillisPerToken = v.prefillMillisPerToken;
    w.prefillOverheadMillis = v.prefillOverheadMillis;
    w.adapterLoadMillis = v.adapterLoadMillis;
    w.kvTransferMillis = v.kvTransferMillis;
    w.unseenArrivalsPerSecond = v.unseenArrivalsPerSecond;
    w.snapshotAgeMillis = v.snapshotAgeMillis;
    w.meanRequestCostMillis = v.meanRequestCostMillis;
    w.telemetryStale = v.telemetryStale;
    w.freeKvTokens = v.freeKvTokens;
    return w;
  }
}
