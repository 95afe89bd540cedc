package io.github.kvroute.core;

import io.github.kvroute.api.LatencyTotals;
import io.github.kvroute.api.ReplicaSnapshot;
import java.util.Optional;

/**
 * How fast a saturated replica takes requests off its waiting queue, measured from its reports, and
 * the wait that implies for a request behind the ones waiting there while its KV cache is full.
 *
 * <h2>Design notes</h2>
 * A stock engine reports how many requests wait ({@code vllm:num_requests_waiting}) but not how long
 * they will wait. The queue estimate prices each at its prefill work, which is right for a replica
 * held up by prefills; a replica whose KV is full admits a waiting request only when running ones
 * finish and free their blocks, so there each waiting request costs about one admission interval,
 * however little prefill it needs. By Little's law a request arriving behind {@code n} waiting ones
 * waits about {@code n / μ}, with {@code μ} the rate at which the replica admits: the count of its TTFT
 * histogram (else of its queue-time histogram) per second, between two reports that both show
 * requests waiting (a replica with an empty queue admits as fast as requests come, which says nothing
 * about how fast it could). Samples are averaged with weight {@value #SMOOTHING}; a counter that goes
 * backwards (a restart the epoch did not show) starts over.
 *
 * <p>The wait is a floor under the queue estimate, only where the report shows requests waiting and
 * KV use of at least {@value #KV_BOUND} (the replica is held up by its KV), at {@value #WEIGHT} of
 * {@code n / μ}, with {@code n} the reported waiting count plus this router's sends since the report
 * less the admissions since. Measured ({@code scripts/capacity-means.sh hybrid-cost 1,2,3}, default
 * {@code vllm} telemetry and sweep, capacity_rps, without / with): multi-tenant 102.70 / 115.90,
 * hot-prefix 77.27 / 81.94, overload 35.97 / 36.58, multi-turn-chat 21.79 / 21.94, mixed-sizes 44.92 /
 * 44.88, rag-long-docs 8.64 / 8.46, stale-telemetry 210.71 / 194.09 / 208.48 / 203.56 against 210.17
 * / 200.93 / 209.59 / 202.83 (delay 0 / 50 / 250 / 1000 ms). Without the KV condition rag-long-docs
 * lost more (8.47) and mixed-sizes too (43.72); at full weight rag-long-docs fell to 7.28.
 * docs/cost-model.md ("The admission-rate floor") has the rest.
 *
 * <p>Thread-safety: not thread-safe; written under its {@link ReplicaEntry}'s monitor, which
 * publishes {@link #perSecond()} in a volatile for readers.
 */
final class AdmissionRate {
  static final double SMOOTHING = 0.3;
  /** KV use from which a replica with requests waiting counts as held up by its KV. */
  static final double KV_BOUND = 0.9;
  /** The share of {@code n / μ} the floor takes. */
  static final double WEIGHT = 0.3;

  private long previousCount = -1;
  private long previousAtNanos;
  private boolean previousWaiting;
  private double perSecond = Double.NaN;

  /** Folds in report {@code s}, observed at {@code observedAtNanos}. */
  void onReport(ReplicaSnapshot s, long observedAtNanos) {
    Optional<LatencyTotals> totals =
        s.timeToFirstToken().isPresent() ? s.timeToFirstToken() : s.queueTime();
    if (totals.isEmpty() || s.waitingRequests().isEmpty()) {
      return;
    }
    long count = totals.get().count();
    boolean waiting = s.waitingRequests().getAsInt() > 0;
    if (previousCount >= 0 && count < previousCount) {
      perSecond = Double.NaN;
    } else if (previousCount >= 0 && previousWaiting && waiting
        && observedAtNanos > previousAtNanos) {
      double sample = (count - previousCount) * 1e9 / (observedAtNanos - previousAtNanos);
      perSecond = Double.isNaN(perSecond) ? sample : perSecond + SMOOTHING * (sample - perSecond);
    }
    previousCount = count;
    previousAtNanos = observedAtNanos;
    previousWaiting = waiting;
  }

  /** {@return admissions per second while requests wait, NaN before one is measured} */
  double perSecond() {
    return perSecond;
  }

  /** Forgets what was measured: a new process admits at its own rate. */
  void reset() {
    previousCount = -1;
    perSecond = Double.NaN;
  }

  /**
   * The floor under the queue estimate of a replica whose report {@code s} is {@code ageMillis} old,
   * with {@code sentSince} of this router's sends since it, at {@code perSecond} admissions per
   * second; 0 unless the report shows requests waiting and KV use of at least {@link #KV_BOUND}, and
   * a rate is known.
   */
  static double kvBoundWaitMillis(ReplicaSnapshot s, int sentSince, double ageMillis,
      double perSecond) {
    if (!(perSecond > 0) || s.waitingRequests().orElse(0) <= 0
        || s.kvUtilization().orElse(0) < KV_BOUND) {
      return 0;
    }
    double waiting = s.waitingRequests().getAsInt() + sentSince - perSecond * ageMillis / 1000.0;
    return WEIGHT * Math.max(0, waiting) * 1000.0 / perSecond;
  }
}
