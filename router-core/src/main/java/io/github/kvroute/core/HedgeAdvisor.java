package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import java.util.Optional;

/**
 * Hedging advice priced in the router's milliseconds: whether, when and how a second attempt of a
 * routed request should start, given its predicted TTFT and the spread of prediction errors learnt
 * from outcomes.
 *
 * <h2>Design notes</h2>
 * A hedge duplicates the request's prefill somewhere else, so it pays only against a tail: requests
 * that, once late, stay late for much longer than a second attempt takes. The advisor learns that
 * tail from outcomes ({@link #onOutcome}): the spread of {@code actual - predicted} TTFT (a decayed
 * mean and deviation), the share of requests still unanswered at the hedge delay, and how late those
 * were. The delay for a request is its predicted TTFT plus {@code z(confidence)} deviations of the
 * spread, and at least {@link Builder#minDelay} after it was routed. A hedge is advised when a request
 * unanswered by then is expected to wait longer than a second attempt's predicted TTFT plus the
 * duplicate prefill it costs: {@code meanLate - (delay - predicted) > 2 x predicted}.
 *
 * <p>The break-even, from the router's design figures: 1% of requests strand on a slow path for 3
 * extra seconds; hedging after 500 ms spends one duplicate prefill per 100 requests (only the stranded
 * ones are unanswered by then) and cuts their TTFT from about 3 s to about 0.5 s plus a second
 * attempt, which is the 99th percentile. With no slow tail no request is unanswered at the delay, the
 * learnt late share is 0 and nothing is hedged.
 *
 * <p>A hedge is a later attempt of the same request ({@link Request#nextAttempt()}), routed like a
 * retry: routing it ends the router's record of the first and places it on another replica (or
 * pair) than the first's unless none other is eligible, and the host keeps whichever returns a token
 * first, cancelling the other. Hedges are rationed by a budget: every advised request adds
 * {@code budget} to an allowance and a hedge spends 1, so hedges never exceed {@code budget} times
 * the requests advised. Outcomes of hedged requests count as late (they were), but their measured TTFT
 * is the hedge's, so they do not teach how long the stranded wait would have been.
 *
 * <p>Thread-safety: thread-safe; one lock for the learnt statistics and the allowance.
 */
public final class HedgeAdvisor {
  /** The decay of the learnt statistics: about the last thousand outcomes. */
  private static final double ALPHA = 0.001;

  private final double budget;
  private final double minDelayMillis;
  private final double z;

  @GuardedBy("this")
  private double meanError;
  @GuardedBy("this")
  private double errorVariance;
  @GuardedBy("this")
  private double lateShare;
  @GuardedBy("this")
  private double meanLateMillis;
  @GuardedBy("this")
  private boolean learnt;
  @GuardedBy("this")
  private double allowance;
  @GuardedBy("this")
  private long advised;
  @GuardedBy("this")
  private long hedges;

  private HedgeAdvisor(Builder b) {
    budget = b.budget;
    minDelayMillis = b.minDelayMillis;
    z = NormalQuantile.of(b.confidence);
  }

  /**
   * {@return a builder: a 2% budget, a 500 ms minimum delay and 0.99 confidence unless set, each
   * option once}
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * The advice for a routed decision: a hedge delay when a second attempt is worth its duplicate
   * prefill, otherwise none (a reason says why). Counts the request towards the budget.
   *
   * @param routed a routed decision
   * @return the advice
   */
  public synchronized Advice advise(RoutingDecision routed) {
    checkNotNull(routed, "routed: null (expected: a routed decision)");
    checkArgument(routed.isRouted(), "routed: %s (expected: a routed decision)", routed);
    advised++;
    allowance = Math.min(allowance + budget, Math.max(1, budget * 100));
    double predicted = routed.costMillis();
    double delay = delayMillis(predicted);
    if (!learnt || lateShare <= 0) {
      return Advice.none("no slow tail learnt");
    }
    double expectedWait = meanLateMillis - (delay - predicted);
    double cost = 2 * predicted; // the second attempt's TTFT and its duplicate prefill
    if (expectedWait <= cost) {
      return Advice.none(String.format("a late request waits %.0f ms more, a hedge costs %.0f ms",
          expectedWait, cost));
    }
    return new Advice(true, Duration.ofMillis((long) Math.ceil(delay)),
        String.format("unanswered at %.0f ms: expected %.0f ms more, a hedge costs %.0f ms", delay,
            expectedWait, cost));
  }

  /** When a request predicted at {@code predictedMillis} should be hedged if still unanswered. */
  synchronized double delayMillis(double predictedMillis) {
    return Math.max(minDelayMillis,
        predictedMillis + Math.max(0, meanError) + z * Math.sqrt(errorVariance));
  }

  /**
   * The hedge attempt of {@code request} (its next attempt, routed like a retry) if the budget allows
   * one now; empty otherwise. Call it when an advised delay passed without a first token.
   *
   * @param request the request whose first attempt is late
   * @return the next attempt to route; empty when the budget is spent
   */
  public synchronized Optional<Request> startHedge(Request request) {
    checkNotNull(request, "request: null (expected: the request to hedge)");
    if (allowance < 1) {
      return Optional.empty();
    }
    allowance -= 1;
    hedges++;
    return Optional.of(request.nextAttempt());
  }

  /**
   * What happened: the TTFT predicted at routing and the TTFT the client saw (from the first
   * attempt's send), and whether a hedge was started for it.
   *
   * @param predictedMillis the TTFT predicted at routing, in milliseconds; finite
   * @param actualTtftMillis the TTFT the client saw, in milliseconds; finite
   * @param hedged whether a hedge was started for the request
   */
  public synchronized void onOutcome(double predictedMillis, double actualTtftMillis,
      boolean hedged) {
    checkArgument(Double.isFinite(predictedMillis) && Double.isFinite(actualTtftMillis),
        "ttft: predicted %s, actual %s (expected: finite)", predictedMillis, actualTtftMillis);
    double delay = delayMillis(predictedMillis);
    double error = actualTtftMillis - predictedMillis;
    boolean late = hedged || actualTtftMillis > delay;
    if (!learnt) {
      meanError = hedged ? 0 : error;
      learnt = true;
    } else if (!late) {
      double d = error - meanError;
      meanError += ALPHA * d;
      errorVariance = (1 - ALPHA) * (errorVariance + ALPHA * d * d);
    }
    lateShare += ALPHA * ((late ? 1 : 0) - lateShare);
    if (late && !hedged) {
      meanLateMillis = meanLateMillis == 0 ? error : meanLateMillis + 0.05 * (error - meanLateMillis);
    }
  }

  /**
   * Hedges started, ever.
   *
   * @return the number of hedges started
   */
  public synchronized long hedges() {
    return hedges;
  }

  /** {@return requests advised, ever} */
  public synchronized long advised() {
    return advised;
  }

  /**
   * Advice for one request.
   *
   * @param hedge whether to start a second attempt if no first token came within {@code after}
   * @param after the delay from routing; zero when {@code hedge} is false
   * @param reason why, in the router's milliseconds
   */
  public record Advice(boolean hedge, Duration after, String reason) {
    static Advice none(String reason) {
      return new Advice(false, Duration.ZERO, reason);
    }
  }

  /** Builds a {@link HedgeAdvisor}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private double budget = 0.02;
    private double minDelayMillis = 500;
    private double confidence = 0.99;
    private long set;

    private enum Option {
      BUDGET, MIN_DELAY, CONFIDENCE
    }

    private Builder() {}

    /**
     * The most hedges per advised request, in (0, 0.5]. Default 0.02.
     *
     * @param share hedges per advised request, in {@code (0, 0.5]}
     * @return this builder
     */
    public Builder budget(double share) {
      set = SetOnce.mark(set, Option.BUDGET);
      checkArgument(share > 0 && share <= 0.5, "budget: %s (expected: in (0, 0.5])", share);
      budget = share;
      return this;
    }

    /**
     * The least delay from routing before a hedge. Default 500 ms.
     *
     * @param delay the least delay; not negative
     * @return this builder
     */
    public Builder minDelay(Duration delay) {
      set = SetOnce.mark(set, Option.MIN_DELAY);
      checkArgument(delay != null && !delay.isNegative(), "minDelay: %s (expected: >= 0)", delay);
      minDelayMillis = Durations.millis(delay);
      return this;
    }

    /**
     * How sure the delay is that an on-time request has answered. In [0.5, 0.999]; default 0.99.
     *
     * @param c the confidence, in {@code [0.5, 0.999]}
     * @return this builder
     */
    public Builder confidence(double c) {
      set = SetOnce.mark(set, Option.CONFIDENCE);
      checkArgument(c >= 0.5 && c <= 0.999, "confidence: %s (expected: in [0.5, 0.999])", c);
      confidence = c;
      return this;
    }

    /** {@return the advisor, with nothing learnt} */
    public HedgeAdvisor build() {
      return new HedgeAdvisor(this);
    }
  }
}
