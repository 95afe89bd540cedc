package io.github.kvroute.telemetry;

import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ReplicaSnapshot;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What a replica's counters say about the interval between two of its snapshots: throughputs, the
 * prefix-cache hit ratio and the mean TTFT of the requests that reached their first token in between.
 * A counter that went down (the engine restarted without a new epoch being seen) or is missing from
 * either snapshot leaves its rate absent.
 *
 * <p>These are the poller's view for hosts and dashboards ({@link ScrapeStatus#rates()}); they are not
 * snapshot fields, so a router fed by the poller sees exactly what the simulator's telemetry profiles
 * give it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param intervalSeconds time between the two snapshots' observations
 * @param promptTokensPerSecond growth of {@code promptTokensTotal}
 * @param generationTokensPerSecond growth of {@code generationTokensTotal}
 * @param prefixCacheHitRatio hits over queries of the prefix cache in the interval (vLLM)
 * @param preemptionsPerSecond growth of {@code preemptionsTotal}
 * @param firstTokensPerSecond growth of the TTFT histogram's count
 * @param meanTimeToFirstTokenSeconds growth of the TTFT sum over growth of its count
 */
public record CounterRates(
    double intervalSeconds,
    OptionalDouble promptTokensPerSecond,
    OptionalDouble generationTokensPerSecond,
    OptionalDouble prefixCacheHitRatio,
    OptionalDouble preemptionsPerSecond,
    OptionalDouble firstTokensPerSecond,
    OptionalDouble meanTimeToFirstTokenSeconds) {

  /**
   * The rates between {@code earlier} and {@code later}; empty unless both are of the same replica and
   * epoch, carry observation times, and {@code later} was observed after {@code earlier}.
   *
   * @param earlier a replica's snapshot
   * @param later a later snapshot of the same replica
   * @return the rates, each empty when either snapshot lacks its counter
   * @throws NullPointerException if an argument is null
   */
  public static Optional<CounterRates> between(ReplicaSnapshot earlier, ReplicaSnapshot later) {
    if (!earlier.replicaId().equals(later.replicaId()) || earlier.epoch() != later.epoch()
        || earlier.observedAtNanos().isEmpty() || later.observedAtNanos().isEmpty()) {
      return Optional.empty();
    }
    long nanos = later.observedAtNanos().getAsLong() - earlier.observedAtNanos().getAsLong();
    if (nanos <= 0) {
      return Optional.empty();
    }
    double seconds = nanos / 1e9;
    OptionalDouble hitRatio = OptionalDouble.empty();
    OptionalLong queries = delta(earlier.prefixCacheQueriesTotal(), later.prefixCacheQueriesTotal());
    OptionalLong hits = delta(earlier.prefixCacheHitsTotal(), later.prefixCacheHitsTotal());
    if (queries.isPresent() && hits.isPresent() && queries.getAsLong() > 0
        && hits.getAsLong() <= queries.getAsLong()) {
      hitRatio = OptionalDouble.of((double) hits.getAsLong() / queries.getAsLong());
    }
    OptionalDouble firstTokens = OptionalDouble.empty();
    OptionalDouble meanTtft = OptionalDouble.empty();
    if (earlier.timeToFirstToken().isPresent() && later.timeToFirstToken().isPresent()) {
      LatencyTotals a = earlier.timeToFirstToken().get();
      LatencyTotals b = later.timeToFirstToken().get();
      long count = b.count() - a.count();
      double sum = b.sumSeconds() - a.sumSeconds();
      if (count >= 0 && sum >= 0) {
        firstTokens = OptionalDouble.of(count / seconds);
        if (count > 0) {
          meanTtft = OptionalDouble.of(sum / count);
        }
      }
    }
    return Optional.of(new CounterRates(seconds,
        perSecond(earlier.promptTokensTotal(), later.promptTokensTotal(), seconds),
        perSecond(earlier.generationTokensTotal(), later.generationTokensTotal(), seconds),
        hitRatio,
        perSecond(earlier.preemptionsTotal(), later.preemptionsTotal(), seconds),
        firstTokens,
        meanTtft));
  }

  private static OptionalLong delta(OptionalLong a, OptionalLong b) {
    if (a.isEmpty() || b.isEmpty() || b.getAsLong() < a.getAsLong()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(b.getAsLong() - a.getAsLong());
  }

  private static OptionalDouble perSecond(OptionalLong a, OptionalLong b, double seconds) {
    OptionalLong d = delta(a, b);
    return d.isPresent() ? OptionalDouble.of(d.getAsLong() / seconds) : OptionalDouble.empty();
  }
}
