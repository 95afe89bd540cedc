package io.github.kvroute.core;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fleet's prefill cost per token: the median of the replicas' learnt rates, and the rule that a
 * replica ranks by its own rate only where that differs from the median by more than learning can
 * explain.
 *
 * <h2>Design notes</h2>
 * Each replica learns its rate from its own outcomes ({@link Calibration}), a few dozen samples deep,
 * and those samples depend on the traffic the router gave it (how long its prompts were, how much of
 * each was cached, how busy its batch was). Ranking by the learnt rates closes a loop: a replica whose
 * estimate came out slow gets less of the traffic that would correct it, and one that came out fast
 * gets more. On the Mooncake conversation trace (16 identical replicas, one router, stock vLLM
 * telemetry, seed 1) the rates spread from 0.064 to 0.083 ms per token, about three times what their
 * own fits' standard errors explain, and the four that looked fastest took 1,300-1,500 requests each
 * against 44 for the slowest-looking: an imbalance of 2.07 and a prefix hit ratio of 0.16. Shrinking
 * each rate toward the mean by its standard error against the measured spread (empirical Bayes)
 * hardly moved them, because the spread is real: it is the loop's, not the hardware's.
 *
 * <p>So a replica's learnt rate counts only beyond a dead zone of a factor of
 * {@value #SAME_SPEED_RATIO} around the fleet's median, in log space: within it, the replica ranks
 * by the median; beyond it, by its rate divided (or multiplied) by that factor, so that a replica
 * twice as slow ranks 1.6 times slower and one five times slower 4 times. The edge is continuous on
 * purpose: with a step there (inside the zone the median, outside the replica's own rate) the loop
 * simply moved to the edge, and a replica just past it lost its traffic for good (Mooncake, 16
 * replicas: imbalance 1.39 against 1.20). With a single learnt rate there is nothing to judge it by,
 * and it counts as it is. The median, not the mean, so that a few slow replicas do not make the rest
 * look slow. The factor was chosen from a sweep (docs/cost-model.md, "Calibration").
 *
 * <p>A replica still learning keeps the configured prior rather than taking the median. On a busy
 * fleet few attempts find their replica idle, so few replicas learn a rate at all, and a learnt rate
 * is biased by what the fit cannot see (other routers' prefills ahead, attention growing with long
 * prompts): on {@code rag-long-docs} with three routers one replica learnt 0.052 ms per token against
 * a true 0.0325, and giving that to the three still learning halved goodput on one seed (5.52 to
 * 2.98 requests per second).
 *
 * <p><b>With other routers on the fleet</b> every replica with a learnt rate ranks by the median
 * (and one still learning by the prior, as above). A router fits a replica's rate from its own
 * requests' first tokens, and what delays them there that the fit cannot see (the other routers'
 * prefills ahead of them, admitted between two reports) differs from replica to replica with the
 * others' traffic, not with the hardware: on {@code overload} with three routers and reports a
 * second late the rates one router learnt for four identical replicas (true 0.0325 ms per token)
 * spread from 0.0024 to 0.070, and the one that looked 13 times too fast drew its traffic. Ranked
 * by the median, three routers with reports a second late (capacity_rps, seeds 1-10, in
 * docs/cost-model.md, "The fleet judges each learnt rate") gained on stale-telemetry (+2.9 to +5.4
 * req/s over its four delays), multi-tenant, multi-turn-chat, rag-long-docs and mixed-sizes, and
 * lost on hot-prefix (-1.56, se 0.79).
 *
 * <p>The pool is recomputed from the members at most once per {@value #REFRESH_MILLIS} ms, on a
 * report (off the decision path), and published as one immutable {@link Pool}; whether other
 * routers share the fleet is read then too.
 *
 * <p>Thread-safety: thread-safe. {@link #claimRefresh} elects one refreshing thread by a CAS on the
 * next refresh time; the pool is read lock-free through a volatile field.
 */
final class FleetRate {
  static final double SAME_SPEED_RATIO = 1.25;
  static final long REFRESH_MILLIS = 1_000;
  private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(REFRESH_MILLIS);

  /** The fleet's learnt rates summarised; {@link #NONE} until a replica has learnt one. */
  record Pool(double medianMsPerToken, int replicas, boolean shared) {
    static final Pool NONE = new Pool(Double.NaN, 0, false);

    /** The rate to rank a replica by whose learnt rate is {@code own}. */
    double judge(double own) {
      if (replicas < 2 || !(own > 0)) {
        return own;
      }
      if (shared) {
        return medianMsPerToken;
      }
      // in log space: the median within the zone, the rate less the zone beyond it (no log per call)
      if (own > medianMsPerToken * SAME_SPEED_RATIO) {
        return own / SAME_SPEED_RATIO;
      }
      if (own * SAME_SPEED_RATIO < medianMsPerToken) {
        return own * SAME_SPEED_RATIO;
      }
      return medianMsPerToken;
    }
  }

  private final AtomicLong nextRefreshNanos = new AtomicLong(Long.MIN_VALUE);
  private volatile Pool pool = Pool.NONE;

  Pool pool() {
    return pool;
  }

  /**
   * Whether the pool is due for a refresh at {@code nowNanos}; true to one caller per interval,
   * which then calls {@link #refresh}.
   */
  boolean claimRefresh(long nowNanos) {
    long next = nextRefreshNanos.get();
    if (next != Long.MIN_VALUE && nowNanos - next < 0) {
      return false;
    }
    return nextRefreshNanos.compareAndSet(next, nowNanos + REFRESH_NANOS);
  }

  /**
   * Recomputes the pool from {@code members}; {@code shared}: other routers send to the fleet (then
   * every learnt rate ranks as the median).
   */
  void refresh(ReplicaEntry[] members, boolean shared) {
    pool = pooled(members, shared);
  }

  /** The pool of {@code members}' learnt rates (unlearnt and removed replicas left out). */
  static Pool pooled(ReplicaEntry[] members, boolean shared) {
    double[] rates = new double[members.length];
    int n = 0;
    for (ReplicaEntry e : members) {
      if (!e.removed && e.calibration.rateLearnt()) {
        rates[n++] = e.calibration.msPerToken(Double.NaN);
      }
    }
    if (n == 0) {
      return Pool.NONE;
    }
    Arrays.sort(rates, 0, n);
    double median = n % 2 == 1 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
    return new Pool(median, n, shared);
  }
}
