package io.github.kvroute.sim;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * What one policy did on one scenario, as docs/simulator.md ("Metric definitions") defines it.
 *
 * <ul>
 *   <li>{@code offered} requests in the workload; {@code admitted} routed at least once;
 *       {@code completed}; {@code rejected} ended by a routing or admission rejection;
 *       {@code failed} ended by a fault. Always {@code offered = completed + rejected + failed}.
 *   <li>{@code goodput_rps}: completed requests whose TTFT met their own deadline (the request's TTFT
 *       budget when it has one, else the scenario's TTFT objective) per second of the arrival span
 *       (first to last arrival); {@code slo_attainment}: the same count over {@code offered}.
 *   <li>TTFT (first token minus arrival) and end-to-end (last token minus arrival) percentiles over
 *       completed requests, in virtual milliseconds (HdrHistogram, 3 significant digits); {@code NaN}
 *       when nothing completed.
 *   <li>{@code prefix_hit_ratio}: prompt tokens the chosen replica actually had cached when the
 *       request's first prefill started, over the prompt tokens of admitted requests.
 *   <li>{@code recomputed_tokens}: prompt tokens computed on a replica while the same block was cached
 *       on another replica (measured when each prefill pass starts).
 *   <li>{@code imbalance}: max over mean, across replicas, of tokens computed (prefill plus generated).
 *   <li>{@code decision_us_p50/p99}: wall-clock microseconds of {@code Router.route()}: the only columns
 *       that differ between two runs with the same seed.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class SimulationResult {
  /** The CSV columns, in the order scripts depend on. */
  public static final String CSV_HEADER = "policy,offered,admitted,completed,rejected,failed,"
      + "goodput_rps,slo_attainment,ttft_p50_ms,ttft_p90_ms,ttft_p99_ms,e2e_p99_ms,prefix_hit_ratio,"
      + "recomputed_tokens,imbalance,decision_us_p50,decision_us_p99";

  /**
   * What one router believed about one replica's prefill cost per computed token at the end of the
   * run, beside the simulated engine's true constant (a slowed replica's own): its configured prior
   * (off by the scenario's prior error factor) and what it had learnt from the replica's own
   * outcomes (until enough samples, the rate it ranked by: the fleet's median or the prior).
   */
  public record Calibration(String replicaId, double trueMillisPerToken, double priorMillisPerToken,
      double learntMillisPerToken) {
    /** One summary line for {@link SimulationResult#checks()}. */
    static String note(List<Calibration> all) {
      StringBuilder b = new StringBuilder("note: prefill ms/token (router 0), learnt vs true");
      if (!all.isEmpty()) {
        b.append(String.format(Locale.ROOT, " %.4f, prior %.4f:", all.get(0).trueMillisPerToken(),
            all.get(0).priorMillisPerToken()));
      }
      for (Calibration c : all) {
        b.append(' ').append(c.replicaId()).append(' ').append(c.learntText(all.get(0)));
      }
      return b.toString();
    }

    /**
     * The learnt cost, with this replica's true one beside it when it differs from {@code first}'s
     * (a slowed replica), e.g. {@code 0.0650} or {@code 0.1301 (true 0.0650)}.
     *
     * @param first the entry the others are compared with (router 0's first replica)
     * @return the learnt milliseconds per token, four decimals, and the true ones when they differ
     */
    public String learntText(Calibration first) {
      String learnt = String.format(Locale.ROOT, "%.4f", learntMillisPerToken);
      return trueMillisPerToken == first.trueMillisPerToken ? learnt
          : learnt + String.format(Locale.ROOT, " (true %.4f)", trueMillisPerToken);
    }
  }

  /** One point of the TTFT distribution: {@code fraction} of completed requests had TTFT at most {@code millis}. */
  public record CdfPoint(double millis, double fraction) {}

  private final String policy;
  private final String scenario;
  private final long offered;
  private final long admitted;
  private final long completed;
  private final long rejected;
  private final long failed;
  private final double offeredRps;
  private final double goodputRps;
  private final double sloAttainment;
  private final double ttftP50Millis;
  private final double ttftP90Millis;
  private final double ttftP99Millis;
  private final double e2eP99Millis;
  private final double prefixHitRatio;
  private final long recomputedTokens;
  private final double imbalance;
  private final double decisionMicrosP50;
  private final double decisionMicrosP99;
  private final Histogram ttftMicros;
  private final ImmutableMap<String, Long> rejectedByReason;
  private final ImmutableMap<String, Long> failedByReason;
  private final long[] tokensByReplica;
  private final long workBucketMillis;
  private final long[][] workBuckets;
  private final long preemptions;
  private final double simulatedSeconds;
  private final double wallSeconds;
  private final ImmutableList<String> checks;
  private final ImmutableList<Calibration> calibration;
  private final ImmutableList<String> notes;
  private final java.util.Optional<io.github.kvroute.advisors.CanaryComparison.Report> canary;

  private SimulationResult(String policy, String scenario, Measurements m, long preemptions,
      long endNanos, double wallSeconds, List<String> checks, List<Calibration> calibration) {
    this.policy = policy;
    this.scenario = scenario;
    offered = m.offered;
    admitted = m.admitted;
    completed = m.completed;
    rejected = m.rejected;
    failed = m.failed;
    offeredRps = m.offered / m.arrivalSpanSeconds();
    goodputRps = m.withinSlo / m.arrivalSpanSeconds();
    sloAttainment = m.offered == 0 ? 0 : (double) m.withinSlo / m.offered;
    ttftP50Millis = percentileMillis(m.ttftMicros, 50);
    ttftP90Millis = percentileMillis(m.ttftMicros, 90);
    ttftP99Millis = percentileMillis(m.ttftMicros, 99);
    e2eP99Millis = percentileMillis(m.e2eMicros, 99);
    prefixHitRatio = m.admittedPromptTokens == 0 ? 0
        : (double) m.cachedPromptTokens / m.admittedPromptTokens;
    recomputedTokens = m.recomputedTokens;
    imbalance = m.imbalance();
    decisionMicrosP50 = m.decisionNanos.getTotalCount() == 0 ? Double.NaN
        : m.decisionNanos.getValueAtPercentile(50) / 1000.0;
    decisionMicrosP99 = m.decisionNanos.getTotalCount() == 0 ? Double.NaN
        : m.decisionNanos.getValueAtPercentile(99) / 1000.0;
    ttftMicros = m.ttftMicros.copy();
    rejectedByReason = ImmutableMap.copyOf(m.rejectedByReason);
    failedByReason = ImmutableMap.copyOf(m.failedByReason);
    tokensByReplica = m.workByReplica.clone();
    workBucketMillis = m.timeline.bucketNanos(100) / 1_000_000L;
    workBuckets = m.timeline.buckets(100);
    this.preemptions = preemptions;
    this.simulatedSeconds = endNanos / 1e9;
    this.wallSeconds = wallSeconds;
    this.checks = ImmutableList.copyOf(checks);
    this.calibration = ImmutableList.copyOf(calibration);
    this.notes = RunNotes.of(m);
    this.canary = m.canary == null ? java.util.Optional.empty()
        : java.util.Optional.of(m.canary.report());
  }

  private SimulationResult(SimulationResult r, String policy) {
    this.policy = policy;
    scenario = r.scenario;
    offered = r.offered;
    admitted = r.admitted;
    completed = r.completed;
    rejected = r.rejected;
    failed = r.failed;
    offeredRps = r.offeredRps;
    goodputRps = r.goodputRps;
    sloAttainment = r.sloAttainment;
    ttftP50Millis = r.ttftP50Millis;
    ttftP90Millis = r.ttftP90Millis;
    ttftP99Millis = r.ttftP99Millis;
    e2eP99Millis = r.e2eP99Millis;
    prefixHitRatio = r.prefixHitRatio;
    recomputedTokens = r.recomputedTokens;
    imbalance = r.imbalance;
    decisionMicrosP50 = r.decisionMicrosP50;
    decisionMicrosP99 = r.decisionMicrosP99;
    ttftMicros = r.ttftMicros;
    rejectedByReason = r.rejectedByReason;
    failedByReason = r.failedByReason;
    tokensByReplica = r.tokensByReplica;
    workBucketMillis = r.workBucketMillis;
    workBuckets = r.workBuckets;
    preemptions = r.preemptions;
    simulatedSeconds = r.simulatedSeconds;
    wallSeconds = r.wallSeconds;
    checks = r.checks;
    calibration = r.calibration;
    notes = r.notes;
    canary = r.canary;
  }

  static SimulationResult from(String policy, Scenario scenario, Measurements m,
      ReplicaEngine[] replicas, long endNanos, double wallSeconds, List<String> checks,
      List<Calibration> calibration) {
    long preemptions = 0;
    for (ReplicaEngine r : replicas) {
      preemptions += r.preemptions();
    }
    return new SimulationResult(policy, scenario.name(), m, preemptions, endNanos, wallSeconds,
        checks, calibration);
  }

  private static double percentileMillis(Histogram h, double p) {
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(p) / 1000.0;
  }

  /**
   * {@return this result as a CSV row in {@link #CSV_HEADER}'s order (fixed decimals,
   * {@link Locale#ROOT})}
   */
  public String csvRow() {
    return String.format(Locale.ROOT,
        "%s,%d,%d,%d,%d,%d,%.3f,%.4f,%.1f,%.1f,%.1f,%.1f,%.4f,%d,%.3f,%.2f,%.2f", policy, offered,
        admitted, completed, rejected, failed, goodputRps, sloAttainment, ttftP50Millis,
        ttftP90Millis, ttftP99Millis, e2eP99Millis, prefixHitRatio, recomputedTokens, imbalance,
        decisionMicrosP50, decisionMicrosP99);
  }

  /** {@return the policy's label, as {@link #relabeled} may have changed it} */
  public String policy() {
    return policy;
  }

  /** {@return the scenario's name} */
  public String scenario() {
    return scenario;
  }

  /** {@return requests in the workload: {@code completed + rejected + failed}} */
  public long offered() {
    return offered;
  }

  /** {@return requests routed at least once} */
  public long admitted() {
    return admitted;
  }

  /** {@return requests that completed} */
  public long completed() {
    return completed;
  }

  /** {@return requests ended by a routing or admission rejection} */
  public long rejected() {
    return rejected;
  }

  /** {@return requests ended by a fault} */
  public long failed() {
    return failed;
  }

  /** {@return requests offered per second of the arrival span (first to last arrival)} */
  public double offeredRps() {
    return offeredRps;
  }

  /** {@return completed requests that met their own deadline, per second of the arrival span} */
  public double goodputRps() {
    return goodputRps;
  }

  /**
   * {@return completed requests whose TTFT met their own deadline, over {@link #offered()}, in
   * {@code [0, 1]}}
   */
  public double sloAttainment() {
    return sloAttainment;
  }

  /**
   * {@return the median TTFT (first token minus arrival) of completed requests, in virtual
   * milliseconds; NaN when none completed}
   */
  public double ttftP50Millis() {
    return ttftP50Millis;
  }

  /**
   * {@return the 90th percentile TTFT of completed requests, in virtual milliseconds; NaN when none
   * completed}
   */
  public double ttftP90Millis() {
    return ttftP90Millis;
  }

  /**
   * {@return the 99th percentile TTFT of completed requests, in virtual milliseconds; NaN when none
   * completed}
   */
  public double ttftP99Millis() {
    return ttftP99Millis;
  }

  /**
   * {@return the 99th percentile end-to-end time (last token minus arrival) of completed requests,
   * in virtual milliseconds; NaN when none completed}
   */
  public double e2eP99Millis() {
    return e2eP99Millis;
  }

  /**
   * {@return prompt tokens the chosen replica had cached when the request's first prefill started,
   * over the prompt tokens of admitted requests}
   */
  public double prefixHitRatio() {
    return prefixHitRatio;
  }

  /** {@return prompt tokens computed on a replica while the same block was cached on another} */
  public long recomputedTokens() {
    return recomputedTokens;
  }

  /**
   * {@return max over mean, across replicas, of tokens computed (prefill plus generated); 1 is
   * perfectly even}
   */
  public double imbalance() {
    return imbalance;
  }

  /** {@return the median wall-clock time of one {@code Router.route()} call, in microseconds} */
  public double decisionMicrosP50() {
    return decisionMicrosP50;
  }

  /**
   * {@return the 99th percentile wall-clock time of one {@code Router.route()} call, in
   * microseconds}
   */
  public double decisionMicrosP99() {
    return decisionMicrosP99;
  }

  /**
   * {@return rejections by reason (the router's reject reason; "retry " prefixed for a retry's
   * rejection)}
   */
  public Map<String, Long> rejectedByReason() {
    return rejectedByReason;
  }

  /** {@return failures by reason ("replica crashed", "simulation time limit", ...)} */
  public Map<String, Long> failedByReason() {
    return failedByReason;
  }

  /** {@return a copy of the TTFT histogram of completed requests, in virtual microseconds} */
  public Histogram ttftHistogram() {
    return ttftMicros.copy();
  }

  /**
   * {@return the TTFT distribution as CDF points in increasing order, for a chart; empty if none
   * completed}
   */
  public List<CdfPoint> ttftCdf() {
    ImmutableList.Builder<CdfPoint> out = ImmutableList.builder();
    if (ttftMicros.getTotalCount() > 0) {
      for (HistogramIterationValue v : ttftMicros.percentiles(5)) {
        out.add(new CdfPoint(v.getValueIteratedTo() / 1000.0, v.getPercentileLevelIteratedTo() / 100.0));
      }
    }
    return out.build();
  }

  /** {@return tokens computed (prefill plus generated) per replica over the run} */
  public long[] tokensByReplica() {
    return tokensByReplica.clone();
  }

  /** {@return width of the {@link #replicaWork()} buckets, in virtual milliseconds} */
  public long workBucketMillis() {
    return workBucketMillis;
  }

  /**
   * {@return the work over time: per replica, tokens computed in each time bucket of
   * {@link #workBucketMillis()} from time zero (at most 100 buckets), for a per-replica
   * work-over-time chart} Copies.
   */
  public List<long[]> replicaWork() {
    ImmutableList.Builder<long[]> out = ImmutableList.builder();
    for (long[] row : workBuckets) {
      out.add(row.clone());
    }
    return out.build();
  }

  /** {@return sequences preempted (recompute) on every replica} */
  public long preemptions() {
    return preemptions;
  }

  /** {@return virtual time at the end of the run} */
  public double simulatedSeconds() {
    return simulatedSeconds;
  }

  /** {@return wall-clock time the run took} */
  public double wallSeconds() {
    return wallSeconds;
  }

  /** {@return simulated requests per second of wall time} */
  public double requestsPerWallSecond() {
    return wallSeconds <= 0 ? Double.NaN : offered / wallSeconds;
  }

  /** {@return the self-checks that passed and a few facts about the run, one line each} */
  public List<String> checks() {
    return checks;
  }

  /**
   * {@return router 0's prior and learnt prefill cost per token for each replica, beside the truth}
   */
  public List<Calibration> calibration() {
    return calibration;
  }

  /**
   * {@return what the run measured beyond the table's columns, one line each (KV transfers of a
   * disaggregated fleet, per-tier and per-tenant figures, hedges); empty when there is nothing of
   * the kind}
   */
  public List<String> notes() {
    return notes;
  }

  /**
   * {@return the canary comparison, for a scenario with a canary: both arms' TTFT (first token
   * minus arrival) by prefix hit, and whether their hit ratios differ by more than 0.1; empty
   * otherwise}
   */
  public java.util.Optional<io.github.kvroute.advisors.CanaryComparison.Report> canary() {
    return canary;
  }

  /**
   * This result under another policy label (for example {@code hybrid-cost+oracle}).
   *
   * @param label the new label; not blank
   * @return a copy labelled {@code label}
   */
  public SimulationResult relabeled(String label) {
    if (label == null || label.isBlank()) {
      throw new IllegalArgumentException("label: " + label + " (expected: non-blank)");
    }
    return new SimulationResult(this, label);
  }

  @Override
  public String toString() {
    return "SimulationResult{" + scenario + " / " + csvRow() + ", tokensByReplica="
        + Arrays.toString(tokensByReplica) + "}";
  }
}
