package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableMap;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.Ticker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Advises which prefixes to hold on more than one replica: promote a prefix when its sustained hit
 * rate makes the copies pay back, demote it on sustained absence, with hysteresis so that the advice
 * does not thrash memory and invalidation traffic. It advises; the host (or
 * {@link ReplicatedPrefixPolicy}) acts.
 *
 * <pre>{@code
 * HotPrefixAdvisor advisor = HotPrefixAdvisor.create(ReplicationConfig.defaults(), ticker);
 * advisor.subscribe(change -> log.info("replication: {}", change));
 * // per request (cheap): the prefix, and what recomputing it costs
 * advisor.record(prefixHash, prefillMillis);
 * // off the request path, every second or so
 * advisor.evaluate();
 * int k = advisor.advice().replicasFor(prefixHash);
 * }</pre>
 *
 * <h2>Design notes</h2>
 * <ul>
 *   <li><b>Bounded memory.</b> A prefix's hits are counted in a count-min sketch ({@link HitSketch},
 *       {@code 4 x sketchWidth} counters) until it reaches {@code admitHits} within one evaluation
 *       interval; only then does it take one of {@code maxTrackedPrefixes} slots in the table of
 *       tracked prefixes, evicting the slowest unreplicated one when the table is full. A flood of
 *       one-off prefixes never reaches the table.
 *   <li><b>Rate.</b> Each evaluation folds the interval's hits into an exponential average with time
 *       constant {@code rateWindow}; an absent prefix's rate decays toward 0, which is what demotes
 *       it.
 *   <li><b>Hysteresis.</b> Promotion and demotion use different thresholds (the demotion band is
 *       {@code demoteFraction} of the promotion's), different delays ({@code promoteAfter},
 *       {@code demoteAfter}), and a demoted prefix waits out {@code repromoteHoldoff} before it may
 *       be promoted again.
 * </ul>
 *
 * <p>Thread-safety: thread-safe. {@link #record} and {@link #evaluate} take one lock (record holds it
 * for a few sketch updates); {@link #advice()} reads a volatile snapshot without locking. Listeners
 * are called outside the lock.
 */
public final class HotPrefixAdvisor {
  /** A tracked prefix: its rate, its advice, and the timers of the hysteresis. */
  private static final class Tracked {
    final long prefixHash;
    double prefillMillis;
    long hits;
    double rate;
    int replicas = 1;
    long higherSince = -1;
    long lowerSince = -1;
    long holdoffUntil = Long.MIN_VALUE;

    Tracked(long prefixHash) {
      this.prefixHash = prefixHash;
    }
  }

  /** Below this averaged rate an unreplicated prefix gives its slot back. */
  private static final double FORGET_BELOW_HITS_PER_SECOND = 1e-3;

  private final ReplicationConfig config;
  private final Ticker ticker;
  private final List<ReplicationListener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLong listenerFailures = new AtomicLong();

  @GuardedBy("this")
  private final HitSketch sketch;
  @GuardedBy("this")
  private final Map<Long, Tracked> tracked = new HashMap<>();
  @GuardedBy("this")
  private long lastEvaluationNanos;

  private volatile ReplicationAdvice advice = ReplicationAdvice.NONE;

  private HotPrefixAdvisor(ReplicationConfig config, Ticker ticker) {
    this.config = config;
    this.ticker = ticker;
    this.sketch = new HitSketch(config.sketchWidth());
    this.lastEvaluationNanos = ticker.read();
  }

  /**
   * An advisor deciding by {@code config}, reading time from {@code ticker}.
   *
   * @param config the thresholds and bounds
   * @param ticker the clock that averages hit rates and times promotions
   * @return the advisor, with nothing tracked
   */
  public static HotPrefixAdvisor create(ReplicationConfig config, Ticker ticker) {
    checkNotNull(config, "config: null (expected: non-null)");
    checkNotNull(ticker, "ticker: null (expected: non-null)");
    return new HotPrefixAdvisor(config, ticker);
  }

  /** {@return the configuration the advisor decides by} */
  public ReplicationConfig config() {
    return config;
  }

  /**
   * Calls {@code listener} with every later change of advice.
   *
   * @param listener told each change, on the thread that calls {@link #evaluate()}; not null
   */
  public void subscribe(ReplicationListener listener) {
    listeners.add(checkNotNull(listener, "listener: null (expected: non-null)"));
  }

  /**
   * One hit of the prefix {@code prefixHash}, whose prefill on one replica takes
   * {@code prefillMillis}: what a copy costs, and what each hit would cost recomputed.
   *
   * @param prefixHash the prefix's hash
   * @param prefillMillis milliseconds to prefill it once; finite, {@code >= 0}
   * @throws IllegalArgumentException if {@code prefillMillis} is negative or not finite
   */
  public void record(long prefixHash, double prefillMillis) {
    checkArgument(prefillMillis >= 0 && Double.isFinite(prefillMillis),
        "prefillMillis: %s (expected: finite and >= 0)", prefillMillis);
    synchronized (this) {
      Tracked t = tracked.get(prefixHash);
      if (t == null) {
        if (sketch.increment(prefixHash) < config.admitHits() || !makeRoom()) {
          return;
        }
        t = new Tracked(prefixHash);
        // the hits the sketch counted in this interval
        t.hits = sketch.estimate(prefixHash) - 1;
        tracked.put(prefixHash, t);
      }
      t.hits++;
      t.prefillMillis = prefillMillis;
    }
  }

  /** A free slot in the table, evicting the slowest unreplicated prefix if need be. */
  @GuardedBy("this")
  private boolean makeRoom() {
    if (tracked.size() < config.maxTrackedPrefixes()) {
      return true;
    }
    Tracked slowest = null;
    for (Tracked t : tracked.values()) {
      if (t.replicas == 1 && (slowest == null || t.rate < slowest.rate)) {
        slowest = t;
      }
    }
    if (slowest == null) {
      return false;
    }
    tracked.remove(slowest.prefixHash);
    return true;
  }

  /**
   * Folds the hits since the last evaluation into each tracked prefix's rate, moves the advice where
   * the hysteresis allows, publishes it and tells the subscribers. Call it off the request path, every
   * second or so; its cost is linear in the tracked prefixes ({@code maxTrackedPrefixes} at most).
   *
   * @return the advice now
   */
  public ReplicationAdvice evaluate() {
    List<ReplicationChange> changes = new ArrayList<>();
    synchronized (this) {
      long now = ticker.read();
      double seconds = (now - lastEvaluationNanos) / 1e9;
      if (seconds <= 0) {
        return advice;
      }
      lastEvaluationNanos = now;
      double keep = Math.exp(-seconds / (config.rateWindow().toNanos() / 1e9));
      ImmutableMap.Builder<Long, HotPrefix> hot = ImmutableMap.builder();
      for (Iterator<Tracked> it = tracked.values().iterator(); it.hasNext(); ) {
        Tracked t = it.next();
        t.rate = keep * t.rate + (1 - keep) * (t.hits / seconds);
        t.hits = 0;
        int before = t.replicas;
        decide(t, now);
        if (t.replicas != before) {
          changes.add(new ReplicationChange(now, t.prefixHash, before, t.replicas, t.rate,
              t.prefillMillis));
        }
        if (t.replicas > 1) {
          hot.put(t.prefixHash, new HotPrefix(t.prefixHash, t.replicas, t.rate, t.prefillMillis));
        } else if (t.rate < FORGET_BELOW_HITS_PER_SECOND && now >= t.holdoffUntil) {
          it.remove();
        }
      }
      sketch.reset();
      advice = new ReplicationAdvice(now, hot.buildOrThrow());
    }
    for (ReplicationChange c : changes) {
      for (ReplicationListener l : listeners) {
        try {
          l.onChange(c);
        } catch (RuntimeException e) {
          listenerFailures.incrementAndGet();
        }
      }
    }
    return advice;
  }

  /** The hysteresis: promote or demote {@code t} when its target has held long enough. */
  @GuardedBy("this")
  private void decide(Tracked t, long now) {
    double bill = t.rate * t.prefillMillis;
    int up = config.promotionTarget(bill);
    int down = config.demotionTarget(bill);
    boolean paysBack = (up - t.replicas) * t.prefillMillis
        <= bill * config.paybackWindow().toNanos() / 1e9;
    if (up > t.replicas && now >= t.holdoffUntil && paysBack) {
      t.higherSince = t.higherSince < 0 ? now : t.higherSince;
      if (now - t.higherSince >= config.promoteAfter().toNanos()) {
        t.replicas = up;
        t.higherSince = -1;
      }
    } else {
      t.higherSince = -1;
    }
    if (down < t.replicas) {
      t.lowerSince = t.lowerSince < 0 ? now : t.lowerSince;
      if (now - t.lowerSince >= config.demoteAfter().toNanos()) {
        t.replicas = down;
        t.lowerSince = -1;
        t.holdoffUntil = now + config.repromoteHoldoff().toNanos();
      }
    } else {
      t.lowerSince = -1;
    }
  }

  /**
   * {@return the latest advice (from the last {@link #evaluate()}); lock-free, for the request
   * path}
   */
  public ReplicationAdvice advice() {
    return advice;
  }

  /**
   * Prefixes whose rate is tracked now, at most {@code maxTrackedPrefixes}.
   *
   * @return the number of tracked prefixes
   */
  public synchronized int trackedPrefixes() {
    return tracked.size();
  }

  /**
   * The averaged hit rate of {@code prefixHash}, 0 when it is not tracked.
   *
   * @param prefixHash the prefix's hash
   * @return hits per second
   */
  public synchronized double hitsPerSecond(long prefixHash) {
    Tracked t = tracked.get(prefixHash);
    return t == null ? 0 : t.rate;
  }

  /** {@return listener calls that threw (contained)} */
  public long listenerFailures() {
    return listenerFailures.get();
  }

  @Override
  public String toString() {
    return "HotPrefixAdvisor{" + config + "}";
  }
}
