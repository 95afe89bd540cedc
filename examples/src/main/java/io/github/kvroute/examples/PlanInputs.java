package io.github.kvroute.examples;

import io.github.kvroute.advisors.WorkerThroughput;
import io.github.kvroute.advisors.WorkloadProfile;
import io.github.kvroute.sim.EnginePreset;
import io.github.kvroute.sim.ReplicaModel;
import io.github.kvroute.sim.trace.TraceRequest;
import io.github.kvroute.sim.trace.TraceSource;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What {@code kvroute-sim plan} sizes from: a trace's offered work, and an engine preset's per-worker
 * throughput from the simulator's step model.
 */
final class PlanInputs {
  private PlanInputs() {}

  /**
   * The trace's mean rate (requests over the span between its first and last arrival), mean prompt and
   * output lengths, and its prefix hit rate with an unbounded cache: the share of prompt tokens in
   * leading blocks some earlier request already sent (0 for a trace without block ids). A real cache
   * evicts, so this is the most prefix caching can save on the trace.
   *
   * @throws IllegalArgumentException if the trace has fewer than two requests or they share one instant
   */
  static WorkloadProfile profile(TraceSource trace) {
    List<TraceRequest> requests = trace.requests(1);
    if (requests.size() < 2) {
      throw new IllegalArgumentException("trace: " + requests.size()
          + " request(s) (expected: at least 2, to measure a rate)");
    }
    long span = requests.get(requests.size() - 1).arrivalNanos() - requests.get(0).arrivalNanos();
    if (span <= 0) {
      throw new IllegalArgumentException("trace: every request arrives at one instant (expected:"
          + " arrivals spread over time, to measure a rate)");
    }
    int block = trace.blockSizeTokens().orElse(0);
    Set<Long> seen = new HashSet<>();
    double input = 0;
    double output = 0;
    double hitTokens = 0;
    for (TraceRequest r : requests) {
      input += r.inputTokens();
      output += r.outputTokens();
      long[] ids = r.hashIds();
      int leading = 0;
      while (leading < ids.length && seen.contains(ids[leading])) {
        leading++;
      }
      hitTokens += Math.min((long) leading * block, r.inputTokens());
      for (long id : ids) {
        seen.add(id);
      }
    }
    int n = requests.size();
    return new WorkloadProfile((n - 1) / (span / 1e9), input / n, output / n, hitTokens / input);
  }

  /**
   * One replica of {@code engine} in the simulator's step model: prefill throughput is a prompt of
   * {@code meanUncachedInputTokens} computed alone in the engine's chunks; decode throughput is the
   * largest batch whose step stays within {@code tpotMillis} and whose KV fits (each sequence holding
   * its prompt and half its output), in tokens per second.
   */
  static WorkerThroughput throughput(EnginePreset engine, double meanUncachedInputTokens,
      double meanInputTokens, double meanOutputTokens, double tpotMillis) {
    ReplicaModel m = engine.replicaModel();
    int prompt = (int) Math.max(1, Math.round(meanUncachedInputTokens));
    double prefill = prompt / m.lonePrefillMillis(prompt) * 1e3;
    long context = Math.max(1, Math.round(meanInputTokens + meanOutputTokens / 2));
    int fitting = (int) Math.max(1, Math.min(m.maxRunningSequences(), m.kvCapacityTokens() / context));
    int batch = 1;
    while (batch < fitting && m.decodeStepMillis(batch + 1, (batch + 1) * context) <= tpotMillis) {
      batch++;
    }
    double step = m.decodeStepMillis(batch, batch * context);
    double decode = batch / step * 1e3;
    String source = String.format(Locale.ROOT, "the simulator's step model of %s: a %d-token prefill"
        + " alone takes %.1f ms; decode batch %d of %d-token contexts steps in %.1f ms (TPOT target"
        + " %.0f ms%s)", engine.name(), prompt, m.lonePrefillMillis(prompt), batch, context, step,
        tpotMillis, step > tpotMillis ? "; even one sequence misses it"
            : batch == fitting ? ", batch capped by " + (fitting == m.maxRunningSequences()
                ? "max_num_seqs" : "KV capacity") : "");
    return new WorkerThroughput(prefill, decode, source);
  }
}
