package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.OptionalDouble;

/**
 * What outcomes taught the router about one replica: its prefill cost per token (an EWMA of
 * {@code (ttft - queue - overhead) / computed tokens}), how often its cache beliefs held (an EWMA of
 * reused over predicted matched tokens), and how fast its queue really drains (the queue factor).
 *
 * <h2>Design notes</h2>
 * A prefill-rate sample needs enough computed tokens to dominate timing noise (at least
 * {@value #MIN_TOKENS_FOR_RATE}), and samples are clamped to {@code [1/20, 20]} times the model default
 * so one pathological outcome (a GC pause, a preemption) cannot swing the estimate by orders of
 * magnitude. The rate is used once {@value #MIN_SAMPLES} samples agree; before that, the default.
 *
 * <p><b>Queue factor.</b> The ledger drains a replica's queue at one millisecond of predicted prefill
 * per millisecond, but a continuous-batching engine spends part of every step decoding the sequences it
 * already runs, so under load the work ahead of a request takes longer than its prefill time: the
 * queue estimate is low by a factor that grows with the batch. Each outcome whose predicted queue was
 * at least {@value #MIN_QUEUE_MILLIS} ms gives a sample {@code (ttft - predicted non-queue part) /
 * predicted queue}, clamped to {@code [0.5, 4]}; the factor is their EWMA (weight {@value #QUEUE_ALPHA},
 * starting from 1), and their spread an exponentially weighted standard deviation with the same
 * weight, so admission can ask how long the wait may be, not only how long it is on average. Short
 * queues teach nothing, so a replica that never queues keeps factor 1. The
 * factor is learnt on the replica the policy chose, so it also absorbs the low bias of choosing the
 * smallest of several noisy estimates.
 *
 * <p><b>Without queue times.</b> A stock engine's response says nothing of how long the request waited
 * inside the engine, so {@code ttft - queue} is unknown. An attempt sent when every earlier attempt of
 * this router on the replica had already streamed its first token found no prefill ahead of it (as far
 * as this router can know): its TTFT is its own prefill plus a step's fixed costs. Those samples are fit
 * as {@code ttft = a + b x computedTokens} by exponentially weighted least squares (weight
 * {@value #FIT_ALPHA}); the slope {@code b} is the rate, the intercept absorbs the prefill overhead
 * and the decode step together, so a wrong overhead prior does not bias it. The fit is used once
 * {@value #MIN_FIT_SAMPLES} samples spread over prompt sizes (a standard deviation of at least
 * {@value #MIN_FIT_SPREAD_TOKENS} computed tokens), clamped like the other samples. Dividing by a
 * fixed overhead instead overstated the rate several times on cached prompts (a few computed tokens
 * carry a whole decode step), and vLLM's {@code request_prefill_time_seconds} histogram, scheduled to
 * first token, counts the batch's other work: 3-20x the true rate on mixed-sizes.
 *
 * <p>The rate learnt here is this replica's evidence; what the router ranks by is that rate as
 * {@link FleetRate} judges it against the other replicas' (within a factor of 1.25 of the fleet's
 * median, the median), because each replica's samples come from the traffic the router chose for it.
 *
 * <p><b>Disaggregated attempts.</b> The lessons are the prefill replica's, so each is given the
 * attempt's TTFT as that replica served it ({@code Feedback.prefillTtftMillis}): a pair's TTFT also
 * holds the KV move to the decode replica, which, learnt as prefill, made a replica with a slow link
 * look slow to compute (on {@code pd-skewed-links} the fast prefill replica's 0.0325 ms/token was
 * learnt as 0.093) and its predicted move count twice.
 *
 * <p>The corrected queue ({@code CandidateView.calibratedQueueMillis}) is for absolute judgements: the
 * deadline admission compares it with the budget. Ranking keeps the uncorrected estimate: scaling every
 * queue by its factor shifted hybrid-cost from cache affinity toward balance and lost goodput on
 * hot-prefix (31.1 -> 30.6 req/s) and multi-turn-chat (19.9 -> 19.5), means of seeds 1-3, while
 * calibrated admission alone raised goodput on overload for every policy measured (at 90%
 * confidence: least-request 20.8 -> 23.6, preble-e2 21.5 -> 23.6, weighted-score 18.9 -> 23.0,
 * hybrid-cost 19.4 -> 22.6 req/s) and cut TTFT p99 by 45-60%, leaving every other scenario unchanged.
 *
 * <p>Thread-safety: thread-safe. Updates are synchronized; reads are lock-free (volatile fields),
 * because every routing decision reads them for every candidate. A reader may see one field updated
 * and another not yet, which is as good as reading a moment earlier or later.
 */
final class Calibration {
  static final int MIN_TOKENS_FOR_RATE = 64;
  static final int MIN_SAMPLES = 3;
  private static final double ALPHA = 0.2;
  static final double MIN_QUEUE_MILLIS = 50;
  static final double QUEUE_ALPHA = 0.05;
  static final double MIN_QUEUE_FACTOR = 0.5;
  static final double MAX_QUEUE_FACTOR = 4;
  static final double FIT_ALPHA = 0.05;
  static final int MIN_FIT_SAMPLES = 8;
  static final double MIN_FIT_SPREAD_TOKENS = 256;

  private volatile double msPerToken;
  private volatile int rateSamples;
  private volatile double reliability = 1.0;
  private volatile double queueFactor = 1.0;
  @GuardedBy("this")
  private double queueFactorVariance;
  /**
   * The square root of {@link #queueFactorVariance}, taken when it changes: every decision reads it
   * for every candidate, and a variance changes once per outcome at most.
   */
  private volatile double queueFactorSpread;
  // weighted sums of the no-queue fit: weight, x, y, xx, xy (x = computed tokens, y = ttft ms)
  private double fitW;
  private double fitX;
  private double fitY;
  private double fitXx;
  private double fitXy;
  private int fitSamples;

  synchronized void recordPrefill(double prefillMillis, double overheadMillis, int computedTokens,
      double defaultMsPerToken) {
    if (computedTokens < MIN_TOKENS_FOR_RATE || prefillMillis < 0) {
      return;
    }
    double sample = Math.max(0, prefillMillis - overheadMillis) / computedTokens;
    sample = Math.max(defaultMsPerToken / 20, Math.min(defaultMsPerToken * 20, sample));
    msPerToken = rateSamples == 0 ? sample : msPerToken + ALPHA * (sample - msPerToken);
    rateSamples++;
  }

  /**
   * An attempt's TTFT with no prefill known to be ahead of it and {@code computedTokens} computed:
   * one point of the {@code a + b x tokens} fit.
   */
  synchronized void recordUnqueuedTtft(double ttftMillis, int computedTokens,
      double defaultMsPerToken) {
    if (computedTokens < MIN_TOKENS_FOR_RATE || !(ttftMillis >= 0) || Double.isInfinite(ttftMillis)) {
      return;
    }
    double x = computedTokens;
    double keep = fitSamples == 0 ? 0 : 1 - FIT_ALPHA;
    fitW = keep * fitW + 1;
    fitX = keep * fitX + x;
    fitY = keep * fitY + ttftMillis;
    fitXx = keep * fitXx + x * x;
    fitXy = keep * fitXy + x * ttftMillis;
    fitSamples++;
    double varX = fitXx / fitW - (fitX / fitW) * (fitX / fitW);
    if (fitSamples < MIN_FIT_SAMPLES || varX < MIN_FIT_SPREAD_TOKENS * MIN_FIT_SPREAD_TOKENS) {
      return;
    }
    double slope = (fitXy / fitW - (fitX / fitW) * (fitY / fitW)) / varX;
    msPerToken = Math.max(defaultMsPerToken / 20, Math.min(defaultMsPerToken * 20, slope));
    rateSamples = Math.max(rateSamples, MIN_SAMPLES);
  }

  synchronized void recordReuse(int predictedTokens, int reusedTokens) {
    if (predictedTokens <= 0) {
      return;
    }
    double sample = Math.min(1.0, (double) reusedTokens / predictedTokens);
    reliability += ALPHA * (sample - reliability);
  }

  /**
   * One routed attempt's queue lesson: it was predicted to wait {@code predictedQueueMillis} (before
   * the factor) and to cost {@code predictedOtherMillis} besides, and its first token came after
   * {@code ttftMillis}.
   */
  synchronized void recordQueue(double predictedQueueMillis, double predictedOtherMillis,
      double ttftMillis) {
    if (!(predictedQueueMillis >= MIN_QUEUE_MILLIS) || !(ttftMillis >= 0)
        || !Double.isFinite(predictedOtherMillis)) {
      return;
    }
    double sample = (ttftMillis - predictedOtherMillis) / predictedQueueMillis;
    sample = Math.max(MIN_QUEUE_FACTOR, Math.min(MAX_QUEUE_FACTOR, sample));
    // exponentially weighted mean and variance (West's incremental form)
    double diff = sample - queueFactor;
    queueFactor += QUEUE_ALPHA * diff;
    queueFactorVariance = (1 - QUEUE_ALPHA) * (queueFactorVariance + QUEUE_ALPHA * diff * diff);
    queueFactorSpread = Math.sqrt(queueFactorVariance);
  }

  /** How much longer than the ledger's estimate this replica's queue takes to drain. */
  double queueFactor() {
    return queueFactor;
  }

  /** The standard deviation of the samples around {@link #queueFactor()}. */
  double queueFactorSpread() {
    return queueFactorSpread;
  }

  /** The learnt cost per token, or {@code fallback} until enough samples agree. */
  double msPerToken(double fallback) {
    return rateSamples >= MIN_SAMPLES ? msPerToken : fallback;
  }

  /**
   * The cost per token to rank by: the learnt one as the fleet judges it
   * ({@link FleetRate.Pool#judge}), or {@code fallback} until enough samples agree.
   */
  double msPerToken(FleetRate.Pool fleet, double fallback) {
    return rateSamples >= MIN_SAMPLES ? fleet.judge(msPerToken) : fallback;
  }

  /** The learnt cost per token, empty until enough samples agree. */
  OptionalDouble learntMsPerToken() {
    return rateSamples >= MIN_SAMPLES ? OptionalDouble.of(msPerToken) : OptionalDouble.empty();
  }

  /** Whether enough samples agree for {@link #msPerToken(double)} to be this replica's own. */
  boolean rateLearnt() {
    return rateSamples >= MIN_SAMPLES;
  }

  double reliability() {
    return reliability;
  }

  /** A new process: its cache is new, but the hardware (and so the prefill rate) is the same. */
  synchronized void onRestart() {
    reliability = 1.0;
  }
}
