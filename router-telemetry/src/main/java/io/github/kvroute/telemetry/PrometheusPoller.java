package io.github.kvroute.telemetry;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.TelemetrySink;
import io.github.kvroute.api.TelemetrySource;
import io.github.kvroute.api.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scrapes replicas' Prometheus {@code /metrics} on a schedule and delivers each scrape as a
 * {@link io.github.kvroute.api.ReplicaSnapshot} to a {@link TelemetrySink} (the router).
 *
 * <pre>{@code
 * PrometheusPoller poller = PrometheusPoller.builder()
 *     .replica(ReplicaTarget.of("r0", "llama-3-8b", URI.create("http://10.0.0.5:8000"), EngineMetrics.VLLM))
 *     .replica(ReplicaTarget.of("r1", "llama-3-8b", URI.create("http://10.0.0.6:8000"), EngineMetrics.VLLM))
 *     .interval(Duration.ofMillis(500))
 *     .build();
 * Router router = Router.newBuilder().telemetrySources(List.of(poller)).build(); // subscribes
 * ...
 * router.close();  // closes the subscription; poller.close() also stops an owned scheduler
 * }</pre>
 *
 * <p><b>Schedule.</b> Each replica is scraped every {@link Builder#interval} (fixed delay: a slow
 * replica's scrapes never overlap, and never delay another replica's), the first scrapes staggered
 * over one interval. Each GET waits at most {@link Builder#timeout}. Snapshots are stamped with the
 * {@link Builder#ticker}'s time when the metrics response arrived: give the poller the router's ticker.
 *
 * <p><b>Failures are states.</b> A scrape that fails (connection refused, timeout, non-2xx, a body
 * with no sample) delivers nothing and is recorded in {@link #status}: {@link ScrapeHealth#FAILING},
 * the error, the consecutive failures. After {@link Builder#reportStoppedAfter} consecutive failures of
 * a replica that reported before, the sink is sent one snapshot with state STOPPED (same epoch), so the
 * router stops routing there until a scrape succeeds again; with {@link Builder#reportStoppedOnRefusal}
 * a refused connection (nothing listens at the address any more) reports it at once. Malformed exposition lines are skipped and
 * counted; an exception thrown by the sink is contained and counted. Nothing the replicas send can
 * stop the schedule.
 *
 * <p><b>Lifecycle.</b> {@link #subscribe} starts the schedule (one subscription at a time); closing the
 * returned handle stops it. {@link #close} stops it too and shuts down the scheduler if the poller
 * owns it (one made when none was given: at most four daemon threads). An injected scheduler is never
 * shut down by the poller.
 *
 * <p><b>Scrapes on demand.</b> {@link #scrapeNow} scrapes on the calling thread; {@link #scrapeAsync}
 * on the poller's scheduler, for a caller that must not block (a gateway's event loop that wants the
 * router told at once that a replica refused a connection, before it routes a retry).
 *
 * <p>Thread-safety: thread-safe. {@link #status}, {@link #statuses} and {@link #epoch} never wait for
 * a scrape in flight; {@link #scrapeNow} and {@link #scrapeAsync} may run beside the schedule (one
 * replica's scrapes are serialised).
 */
public final class PrometheusPoller implements TelemetrySource, AutoCloseable {
  /** Default time between two scrapes of one replica. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
  /** Default limit on one GET. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(800);
  /** Default consecutive failures after which a replica is reported STOPPED. */
  public static final int DEFAULT_REPORT_STOPPED_AFTER = 3;

  private final Map<String, ReplicaScraper> scrapers;
  private final Duration interval;
  private final ScheduledExecutorService scheduler;
  private final boolean ownsScheduler;
  private final Object lock = new Object();
  @GuardedBy("lock")
  private List<ScheduledFuture<?>> running;
  @GuardedBy("lock")
  private boolean closed;

  private PrometheusPoller(Builder b) {
    Map<String, ReplicaScraper> m = new LinkedHashMap<>();
    for (ReplicaTarget t : b.targets) {
      m.put(t.replicaId(), new ReplicaScraper(t, b.client, b.timeout, b.ticker, b.reportStoppedAfter,
          b.reportStoppedOnRefusal));
    }
    this.scrapers = m;
    this.interval = b.interval;
    this.ownsScheduler = b.scheduler == null;
    this.scheduler = ownsScheduler ? ownedScheduler(Math.min(4, m.size())) : b.scheduler;
  }

  /** {@return a builder with the defaults: no replica yet, scraped every second} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts scraping every replica on the schedule, delivering to {@code sink}; closing the returned
   * handle stops it (idempotent).
   *
   * @throws NullPointerException if {@code sink} is null
   * @throws IllegalStateException if already subscribed, or closed
   */
  @Override
  public AutoCloseable subscribe(TelemetrySink sink) {
    Objects.requireNonNull(sink, "sink: null (expected: the router)");
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("poller: closed (expected: open to subscribe)");
      }
      if (running != null) {
        throw new IllegalStateException("poller: already subscribed (expected: one subscription at a time)");
      }
      List<ScheduledFuture<?>> futures = new ArrayList<>();
      long periodNanos = interval.toNanos();
      int i = 0;
      for (ReplicaScraper s : scrapers.values()) {
        long stagger = periodNanos * i++ / scrapers.size();
        // scrape() contains everything but Errors; an Error cancels this replica's schedule
        futures.add(scheduler.scheduleWithFixedDelay(() -> s.scrape(sink), stagger,
            periodNanos, TimeUnit.NANOSECONDS));
      }
      running = futures;
      List<ScheduledFuture<?>> mine = futures;
      return () -> stop(mine);
    }
  }

  /**
   * Scrapes {@code replicaId} now, on the calling thread, delivering to {@code sink}; returns the
   * resulting status. For tests, tools and a first scrape before traffic.
   *
   * @param replicaId one of the poller's replicas
   * @param sink where the snapshot (or a STOPPED report) goes: the router
   * @return the replica's status after the scrape
   * @throws IllegalArgumentException if the replica is not one of this poller's
   */
  public ScrapeStatus scrapeNow(String replicaId, TelemetrySink sink) {
    Objects.requireNonNull(sink, "sink: null (expected: the router)");
    return scraper(replicaId).scrape(sink);
  }

  /**
   * Scrapes {@code replicaId} on the poller's scheduler, delivering to {@code sink}; the future
   * completes with the resulting status once the sink has the snapshot (or the failure is recorded).
   * It never completes exceptionally: when the scheduler no longer takes work (the poller is closed),
   * it completes at once with the status as it is.
   *
   * @param replicaId one of the poller's replicas
   * @param sink where the snapshot (or a STOPPED report) goes: the router
   * @return the replica's status after the scrape
   * @throws IllegalArgumentException if the replica is not one of this poller's
   */
  public CompletableFuture<ScrapeStatus> scrapeAsync(String replicaId, TelemetrySink sink) {
    Objects.requireNonNull(sink, "sink: null (expected: the router)");
    ReplicaScraper scraper = scraper(replicaId);
    CompletableFuture<ScrapeStatus> done = new CompletableFuture<>();
    try {
      // scrape() contains everything but Errors; an Error fails the scheduler's task, so finish here
      scheduler.execute(() -> {
        try {
          done.complete(scraper.scrape(sink));
        } finally {
          done.complete(scraper.status());
        }
      });
    } catch (RejectedExecutionException e) {
      done.complete(scraper.status());
    }
    return done;
  }

  /**
   * {@return the scrape status of {@code replicaId}}
   *
   * @param replicaId one of the poller's replicas
   * @throws IllegalArgumentException if the replica is not one of this poller's
   */
  public ScrapeStatus status(String replicaId) {
    return scraper(replicaId).status();
  }

  /** {@return every replica's scrape status by replica id, in the order the replicas were added} */
  public Map<String, ScrapeStatus> statuses() {
    Map<String, ScrapeStatus> m = new LinkedHashMap<>();
    scrapers.forEach((id, s) -> m.put(id, s.status()));
    return m;
  }

  /**
   * The epoch of {@code replicaId}'s last successful scrape, empty before one; what a KV-event
   * subscriber stamps on the replica's events (see
   * {@link io.github.kvroute.telemetry.vllm.VllmKvEventSubscriber}).
   *
   * @param replicaId one of the poller's replicas
   * @return the epoch in nanoseconds ({@code process_start_time_seconds}), empty before a success
   * @throws IllegalArgumentException if the replica is not one of this poller's
   */
  public OptionalLong epoch(String replicaId) {
    return scraper(replicaId).status().lastSnapshot()
        .map(s -> OptionalLong.of(s.epoch())).orElse(OptionalLong.empty());
  }

  /** Stops the schedule, and the scheduler when the poller owns it. Idempotent. */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      if (running != null) {
        running.forEach(f -> f.cancel(false));
        running = null;
      }
    }
    if (ownsScheduler) {
      scheduler.shutdownNow();
    }
  }

  private void stop(List<ScheduledFuture<?>> futures) {
    synchronized (lock) {
      futures.forEach(f -> f.cancel(false));
      if (running == futures) {
        running = null;
      }
    }
  }

  private ReplicaScraper scraper(String replicaId) {
    ReplicaScraper s = scrapers.get(Objects.requireNonNull(replicaId, "replicaId"));
    if (s == null) {
      throw new IllegalArgumentException("replicaId: " + replicaId + " (expected: one of "
          + scrapers.keySet() + ")");
    }
    return s;
  }

  private static ScheduledExecutorService ownedScheduler(int threads) {
    AtomicInteger n = new AtomicInteger();
    ThreadFactory factory = r -> {
      Thread t = new Thread(r, "kvroute-prometheus-poller-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    return Executors.newScheduledThreadPool(Math.max(1, threads), factory);
  }

  /** Builds a {@link PrometheusPoller}. Not thread-safe. */
  public static final class Builder {
    private final List<ReplicaTarget> targets = new ArrayList<>();
    private Duration interval = DEFAULT_INTERVAL;
    private Duration timeout = DEFAULT_TIMEOUT;
    private Ticker ticker = Ticker.system();
    private ScrapeClient client;
    private ScheduledExecutorService scheduler;
    private int reportStoppedAfter = DEFAULT_REPORT_STOPPED_AFTER;
    private boolean reportStoppedOnRefusal;

    private Builder() {}

    /**
     * Adds a replica to scrape.
     *
     * @param target the replica, its engine and its endpoints
     * @return this builder
     * @throws IllegalArgumentException if a replica with the same id was added
     */
    public Builder replica(ReplicaTarget target) {
      Objects.requireNonNull(target, "target: null (expected: a ReplicaTarget)");
      for (ReplicaTarget t : targets) {
        if (t.replicaId().equals(target.replicaId())) {
          throw new IllegalArgumentException("replicaId: " + target.replicaId()
              + " (expected: each replica added once)");
        }
      }
      targets.add(target);
      return this;
    }

    /**
     * Adds every target, as {@link #replica} does.
     *
     * @param targets the replicas, each id once
     * @return this builder
     */
    public Builder replicas(Collection<ReplicaTarget> targets) {
      Objects.requireNonNull(targets, "targets").forEach(this::replica);
      return this;
    }

    /**
     * Time between two scrapes of one replica; default {@link #DEFAULT_INTERVAL}.
     *
     * @param interval positive; the end of one scrape to the start of the next
     * @return this builder
     */
    public Builder interval(Duration interval) {
      this.interval = positive(interval, "interval");
      return this;
    }

    /**
     * Limit on each GET; default {@link #DEFAULT_TIMEOUT}.
     *
     * @param timeout positive; a GET still unanswered then fails the scrape
     * @return this builder
     */
    public Builder timeout(Duration timeout) {
      this.timeout = positive(timeout, "timeout");
      return this;
    }

    /**
     * The clock snapshots are stamped with: the router's. Default {@link Ticker#system()}.
     *
     * @param ticker the router's ticker, so that report ages are measured on one clock
     * @return this builder
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker: null (expected: the router's ticker)");
      return this;
    }

    /**
     * The HTTP client; default {@link ScrapeClient#jdk()}.
     *
     * @param client called concurrently, once per GET
     * @return this builder
     */
    public Builder client(ScrapeClient client) {
      this.client = Objects.requireNonNull(client, "client: null (expected: a ScrapeClient)");
      return this;
    }

    /**
     * The scheduler to run scrapes on; the poller never shuts it down. Default: one of its own (at
     * most four daemon threads), shut down by {@link PrometheusPoller#close}.
     *
     * @param scheduler runs every replica's schedule and {@link PrometheusPoller#scrapeAsync}
     * @return this builder
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler: null (expected: a scheduler)");
      return this;
    }

    /**
     * Consecutive failed scrapes after which a replica that reported before is reported STOPPED once
     * per failure streak; 0 never reports it. Default {@value #DEFAULT_REPORT_STOPPED_AFTER}.
     *
     * @param failures consecutive failures, {@code >= 0}
     * @return this builder
     * @throws IllegalArgumentException if {@code failures < 0}
     */
    public Builder reportStoppedAfter(int failures) {
      if (failures < 0) {
        throw new IllegalArgumentException("reportStoppedAfter: " + failures + " (expected: >= 0)");
      }
      this.reportStoppedAfter = failures;
      return this;
    }

    /**
     * Whether a scrape whose connection is refused reports a replica that reported before STOPPED at
     * once, instead of after {@link #reportStoppedAfter} failures: on loopback or a stable network a
     * refused connection means the process is gone, and a gateway retrying its requests wants the
     * router to know before it routes the retry. Off by default: behind a load balancer or during a
     * rolling restart a refusal can be brief.
     *
     * @param enabled whether a refused connection reports the replica STOPPED at once
     * @return this builder
     */
    public Builder reportStoppedOnRefusal(boolean enabled) {
      this.reportStoppedOnRefusal = enabled;
      return this;
    }

    /**
     * Builds the poller; nothing is scraped until {@link PrometheusPoller#subscribe}.
     *
     * @return the poller, which owns its scheduler unless one was given
     * @throws IllegalStateException if no replica was added
     */
    public PrometheusPoller build() {
      if (targets.isEmpty()) {
        throw new IllegalStateException("replicas: none (expected: at least one replica(...))");
      }
      if (client == null) {
        client = ScrapeClient.jdk();
      }
      return new PrometheusPoller(this);
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name + ": null (expected: a positive duration)");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + ": " + d + " (expected: > 0)");
      }
      return d;
    }
  }
}
