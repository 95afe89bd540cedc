package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;

/**
 * Waiting on the engine's running batch: a request that reaches a continuous-batching engine mid-step
 * waits for that step to end (half a step on average), and its prefill then runs in a step that also
 * decodes every running sequence. So the first token comes about {@value #STEPS} decode steps later
 * than the queue and the prefill alone predict. The step is the replica's reported decode step time,
 * which grows with its batch (vLLM's time per output token; 8 ms + 0.06 ms per running sequence in the
 * simulator's model), making this the cost term that sees a busy batch when nothing is queued; 0 when
 * the replica does not report it.
 *
 * <p>Measured, hybrid-cost, means of seeds 1-6 ({@code scripts/seed-means.sh hybrid-cost
 * 1,2,3,4,5,6}) with the term against without: hot-prefix TTFT p99 393 -> 272 ms, multi-turn-chat
 * goodput 20.39 -> 20.50 req/s and p99 670 -> 613 ms, stale-telemetry at 1 s p99 276 -> 239 ms;
 * the other scenarios within noise.
 */
final class StepTerm implements Scorer {
  static final StepTerm INSTANCE = new StepTerm();
  /** Half the step in progress, then the step that carries the prefill. */
  static final double STEPS = 1.5;

  private StepTerm() {}

  @Override
  public String name() {
    return CostTerm.STEP.termName();
  }

  @Override
  public double costMillis(Request request, CandidateView candidate) {
    return candidate.snapshot() == null
        ? 0 : STEPS * candidate.snapshot().decodeStepMillis().orElse(0);
  }
}
