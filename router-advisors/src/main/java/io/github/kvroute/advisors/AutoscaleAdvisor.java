package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.Ticker;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Advises how many replicas the fleet should have, from what the router sees of the work (never CPU):
 * the work arriving, the queueing delay against the TTFT objective, the work waiting, and KV
 * pressure. It advises; the host's orchestrator acts.
 *
 * <pre>{@code
 * AutoscaleAdvisor advisor = AutoscaleAdvisor.create(AutoscaleConfig.defaults(),
 *     new WorkerThroughput(10_000, 800, "measured"), 4, ticker);
 * advisor.subscribe(a -> orchestrator.scaleTo(a.replicas(), a.removeReplica()));
 * // off the request path, every second or so
 * advisor.observe(signals);
 * }</pre>
 *
 * <h2>Design notes</h2>
 * <ul>
 *   <li><b>Units of work.</b> Arrived prompt and output tokens become replicas' worth of work
 *       (engine-seconds per second) through the per-worker {@link WorkerThroughput}, bucket by bucket,
 *       as {@link CapacityPlanner} sizes pools.
 *   <li><b>A forecast one cold start ahead.</b> A replica asked for now serves a cold start later,
 *       so the advice is for then. The level is the median load over the last two cold starts, which
 *       a burst shorter than one cold start cannot move (it covers under half the window); the trend
 *       is how far that level moved over the last cold start (so a short burst cannot move it either),
 *       carried forward two cold starts: from the level's centre, one cold start back, to one cold
 *       start ahead. On a steady ramp that lands on the rate one cold start ahead. Work already waiting adds what clearing it within one cold start takes.
 *   <li><b>Hysteresis.</b> Up when the forecast exceeds {@code upUtilization} of the advised
 *       replicas; down, by one, only when it fits one fewer at {@code downUtilization}, with queueing
 *       delay and KV usage low; nothing changes within {@code cooldown} of the last change; never
 *       below the warm pool or above the ceiling.
 *   <li><b>Scale-down names a replica</b>: the one whose warm cache is least valuable (fewest hot
 *       prefixes it alone holds, then least recently used).
 *   <li><b>Pressure without a forecast</b> (a burst) is reported in the advice's reason, not acted on.
 *   <li><b>History first.</b> No advice before one cold start of history, and no scale-down before
 *       two (a whole forecast window).
 * </ul>
 * Memory: three cold starts of history, {@code 3 x coldStart / bucket} numbers.
 *
 * <p>Thread-safety: thread-safe. {@link #observe} takes the advisor's lock; {@link #advice()} reads a
 * volatile snapshot. Listeners are called outside the lock.
 */
public final class AutoscaleAdvisor {
  private final AutoscaleConfig config;
  private final WorkerThroughput throughput;
  private final Ticker ticker;
  private final List<AutoscaleListener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLong listenerFailures = new AtomicLong();

  /** Load per closed bucket, newest at {@code (next - 1) mod length}. */
  @GuardedBy("this")
  private final double[] history;
  @GuardedBy("this")
  private int next;
  /** The level at each of the last one-cold-start-plus-one bucket closes, oldest at nextLevel. */
  @GuardedBy("this")
  private final double[] levels;
  @GuardedBy("this")
  private int nextLevel;
  @GuardedBy("this")
  private int levelsFilled;
  @GuardedBy("this")
  private int filled;
  @GuardedBy("this")
  private long bucketStartNanos;
  @GuardedBy("this")
  private double bucketPromptTokens;
  @GuardedBy("this")
  private double bucketOutputTokens;
  @GuardedBy("this")
  private int advised;
  @GuardedBy("this")
  private long lastChangeNanos = Long.MIN_VALUE;

  private volatile ScaleAdvice advice;

  private AutoscaleAdvisor(AutoscaleConfig config, WorkerThroughput throughput, int replicas,
      Ticker ticker) {
    this.config = config;
    this.throughput = throughput;
    this.ticker = ticker;
    this.history = new double[config.windowBuckets()];
    this.levels = new double[config.windowBuckets() / 2 + 1];
    this.bucketStartNanos = ticker.read();
    this.advised = replicas;
    this.advice = new ScaleAdvice(bucketStartNanos, replicas, replicas, Optional.empty(), 0, 0, 0, 0,
        "start: the fleet as it is");
  }

  /**
   * An advisor deciding by {@code config}, converting tokens into work by {@code throughput}, for a
   * fleet of {@code replicas} now.
   *
   * @param config the thresholds, horizon and pool bounds
   * @param throughput what one worker sustains, to turn arriving tokens into workers' worth of work
   * @param replicas serving replicas now; {@code >= 0}
   * @param ticker the clock that buckets arrivals and times the cooldown
   * @return the advisor; until its first observation it advises keeping {@code replicas}
   */
  public static AutoscaleAdvisor create(AutoscaleConfig config, WorkerThroughput throughput,
      int replicas, Ticker ticker) {
    checkNotNull(config, "config: null (expected: non-null)");
    checkNotNull(throughput, "throughput: null (expected: non-null)");
    checkNotNull(ticker, "ticker: null (expected: non-null)");
    checkArgument(replicas >= 0, "replicas: %s (expected: >= 0)", replicas);
    return new AutoscaleAdvisor(config, throughput, replicas, ticker);
  }

  /** {@return the configuration the advisor decides by} */
  public AutoscaleConfig config() {
    return config;
  }

  /**
   * Calls {@code listener} with every later change of advice.
   *
   * @param listener told each change, on the thread that calls {@link #observe}; not null
   */
  public void subscribe(AutoscaleListener listener) {
    listeners.add(checkNotNull(listener, "listener: null (expected: non-null)"));
  }

  /** {@return the latest advice; lock-free} */
  public ScaleAdvice advice() {
    return advice;
  }

  /** {@return listener calls that threw (contained)} */
  public long listenerFailures() {
    return listenerFailures.get();
  }

  /**
   * Takes one observation, moves the advice where the thresholds, hysteresis and cooldown allow, and
   * tells the subscribers if it changed. Call it off the request path, about once a second.
   *
   * @return the advice now
   * @param signals the fleet's arrivals since the last call and its state now
   */
  public ScaleAdvice observe(FleetSignals signals) {
    checkNotNull(signals, "signals: null (expected: non-null)");
    ScaleAdvice now;
    synchronized (this) {
      long t = ticker.read();
      roll(t);
      bucketPromptTokens += signals.arrivedPromptTokens();
      bucketOutputTokens += signals.arrivedOutputTokens();
      now = decide(t, signals);
      advice = now;
    }
    if (now.isChange()) {
      for (AutoscaleListener l : listeners) {
        try {
          l.onChange(now);
        } catch (RuntimeException e) {
          listenerFailures.incrementAndGet();
        }
      }
    }
    return now;
  }

  /**
   * Closes every bucket that ended before {@code now}; buckets nothing arrived in hold no work. An
   * observation at a bucket's end reports what arrived up to then, so it still counts in that bucket.
   */
  @GuardedBy("this")
  private void roll(long now) {
    long width = config.bucket().toNanos();
    double seconds = width / 1e9;
    while (now - bucketStartNanos > width) {
      history[next] = bucketPromptTokens / seconds / throughput.prefillTokensPerSecond()
          + bucketOutputTokens / seconds / throughput.decodeTokensPerSecond();
      next = (next + 1) % history.length;
      filled = Math.min(filled + 1, history.length);
      bucketPromptTokens = 0;
      bucketOutputTokens = 0;
      bucketStartNanos += width;
      levels[nextLevel] = median(0, Math.min(filled, history.length));
      nextLevel = (nextLevel + 1) % levels.length;
      levelsFilled = Math.min(levelsFilled + 1, levels.length);
    }
  }

  @GuardedBy("this")
  private ScaleAdvice decide(long now, FleetSignals s) {
    int window = config.windowBuckets();
    double horizonSeconds = config.coldStart().toNanos() / 1e9;
    double loadNow = filled == 0 ? 0 : history[(next - 1 + history.length) % history.length];
    double level = median(0, Math.min(filled, window));
    // the trend: how far the level moved over the last cold start
    int half = levels.length - 1;
    double trend = levelsFilled < levels.length ? 0
        : (levels[Math.floorMod(nextLevel - 1, levels.length)] - levels[nextLevel]) / (half
            * config.bucket().toNanos() / 1e9);
    // the level's median sits one cold start back; the advice is for one cold start ahead
    double backlog = s.queuedPromptTokens() / throughput.prefillTokensPerSecond() / horizonSeconds;
    double forecast = Math.max(0, level + trend * 2 * horizonSeconds) + backlog;
    int need = clamp((int) Math.ceil(forecast / config.upUtilization() - 1e-9));
    boolean pressure = s.queueDelayMillis() > config.upQueueFraction() * config.ttftSloMillis()
        || s.kvUtilization() > config.kvPressure();
    boolean coolingDown = lastChangeNanos != Long.MIN_VALUE
        && now - lastChangeNanos < config.cooldown().toNanos();
    String numbers = format("load %.2f, forecast %.2f at +%.0f s (%d needed at %.0f%%), queue %.0f"
        + " ms, KV %.0f%%", loadNow, forecast, horizonSeconds, need, 100 * config.upUtilization(),
        s.queueDelayMillis(), 100 * s.kvUtilization());
    int before = advised;
    Optional<String> remove = Optional.empty();
    String reason;
    if (filled < window / 2) {
      reason = format("hold: %d of %d buckets of history (one cold start) before any advice: ",
          filled, window / 2) + numbers;
    } else if (need > advised) {
      if (coolingDown) {
        reason = "hold (cooldown): " + numbers;
      } else {
        advised = need;
        reason = "up: " + numbers;
      }
    } else if (pressure) {
      reason = "hold: pressure now but not a cold start ahead (a burst shorter than the cold start"
          + " is not worth a replica): " + numbers;
    } else if (advised > config.minWarmReplicas() && filled >= window
        && forecast <= (advised - 1) * config.downUtilization()
        && s.queueDelayMillis() < config.downQueueFraction() * config.ttftSloMillis()) {
      if (coolingDown) {
        reason = "hold (cooldown): " + numbers;
      } else {
        advised--;
        remove = leastValuable(s.replicas());
        reason = "down: " + numbers;
      }
    } else {
      reason = "hold: " + numbers;
    }
    if (advised != before) {
      lastChangeNanos = now;
    }
    return new ScaleAdvice(now, advised, before, remove, loadNow, forecast, s.queueDelayMillis(),
        s.kvUtilization(), reason);
  }

  private int clamp(int replicas) {
    return Math.max(config.minWarmReplicas(), Math.min(config.maxReplicas(), replicas));
  }

  /** The median of {@code count} closed buckets, skipping the {@code skip} newest; 0 for none. */
  @GuardedBy("this")
  private double median(int skip, int count) {
    if (count <= 0) {
      return 0;
    }
    double[] values = new double[count];
    for (int i = 0; i < count; i++) {
      values[i] = history[Math.floorMod(next - 1 - skip - i, history.length)];
    }
    Arrays.sort(values);
    return count % 2 == 1 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
  }

  /** The replica whose warm cache loses least: fewest sole hot prefixes, then least recently used. */
  private static Optional<String> leastValuable(List<FleetSignals.ReplicaWarmth> replicas) {
    return replicas.stream()
        .min(Comparator.comparingInt(FleetSignals.ReplicaWarmth::soleHotPrefixes)
            .thenComparingLong(FleetSignals.ReplicaWarmth::lastUsedNanos))
        .map(FleetSignals.ReplicaWarmth::replicaId);
  }

  private static String format(String template, Object... args) {
    return String.format(Locale.ROOT, template, args);
  }

  @Override
  public String toString() {
    return "AutoscaleAdvisor{" + config + ", " + throughput + "}";
  }
}
