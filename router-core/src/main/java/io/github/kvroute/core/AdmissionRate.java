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
 * <p>A sample spans reports until it holds at least {@value #MIN_ADMISSIONS} first tokens (or
 * {@value #MAX_SPAN_MILLIS} ms have passed while requests kept waiting), not one report interval.
 * A replica admitting a couple of requests a second shows 0 or 1 first token per 250 ms report, so
 * one-interval samples read 0 or 4 per second, and their average dipped to a fifth of the true rate
 * after a few empty intervals; {@code n / μ} turns such a dip into a wait five times too long. On
 * {@code rag-long-docs} at 1.5 times its rate (seed 1) the replica holding the requested document read
 * 70 s behind 51 waiting requests while the others read 2-9 s behind 33-48, so the document was
 * recomputed elsewhere, and the fleet recomputed 937k tokens in the run; with spans of at least four
 * first tokens it recomputed 461k. Measured in docs/cost-model.md ("The admission-rate floor").
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
  /** First tokens a sample must span (see the notes). */
  static final int MIN_ADMISSIONS = 4;
  /** The longest a sample waits for them: a replica that admits fewer has a low rate, taken as such. */
  static final long MAX_SPAN_MILLIS = 5_000;
  private static final long MAX_SPAN_NANOS = MAX_SPAN_MILLIS * 1_000_000L;

  /** The TTFT count where the current span began; -1 when no span is open (nothing waiting). */
  private long spanStartCount = -1;
  private long spanStartNanos;
  private double perSecond = Double.NaN;

  /** Folds in report {@code s}, observed at {@code observedAtNanos}. */
  void onReport(ReplicaSnapshot s, long observedAtNanos) {
    Optional<LatencyTotals> totals =
        s.timeToFirstToken().isPresent() ? s.timeToFirstToken() : s.queueTime();
    if (totals.isEmpty() || s.waitingRequests().isEmpty()) {
      return;
    }
    long count = totals.get().count();
    if (spanStartCount >= 0 && count < spanStartCount) {
      perSecond = Double.NaN;
      spanStartCount = -1;
    }
    if (s.waitingRequests().getAsInt() <= 0) {
      spanStartCount = -1; // an empty queue admits as fast as requests come: no sample
      return;
    }
    if (spanStartCount < 0) {
      startSpan(count, observedAtNanos);
      return;
    }
    long admitted = count - spanStartCount;
    long span = observedAtNanos - spanStartNanos;
    if (span > 0 && (admitted >= MIN_ADMISSIONS || span >= MAX_SPAN_NANOS)) {
      double sample = admitted * 1e9 / span;
      perSecond = Double.isNaN(perSecond) ? sample : perSecond + SMOOTHING * (sample - perSecond);
      startSpan(count, observedAtNanos);
    }
  }

  private void startSpan(long count, long atNanos) {
    spanStartCount = count;
    spanStartNanos = atNanos;
  }

  /** {@return admissions per second while requests wait, NaN before one is measured} */
  double perSecond() {
    return perSecond;
  }

  /** Forgets what was measured: a new process admits at its own rate. */
  void reset() {
    spanStartCount = -1;
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
