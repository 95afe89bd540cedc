package io.github.kvroute.telemetry;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.TelemetrySink;
import io.github.kvroute.api.Ticker;
import io.github.kvroute.api.UpdateResult;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One replica's scrapes: fetch, parse, map, deliver, and the resulting {@link ScrapeStatus}. Scrapes of
 * one replica are serialised by a lock; the status is published as an immutable value, so reading it
 * never waits for a scrape in flight.
 */
final class ReplicaScraper {
  private final ReplicaTarget target;
  private final ScrapeClient client;
  private final Duration timeout;
  private final Ticker ticker;
  private final int reportStoppedAfter;
  private final boolean stopOnRefusal;
  private final ReentrantLock scrapeLock = new ReentrantLock();

  @GuardedBy("scrapeLock")
  private long scrapes;
  @GuardedBy("scrapeLock")
  private long failures;
  @GuardedBy("scrapeLock")
  private int consecutiveFailures;
  @GuardedBy("scrapeLock")
  private long malformedTotal;
  @GuardedBy("scrapeLock")
  private long sinkFailures;
  @GuardedBy("scrapeLock")
  private boolean reportedStopped;
  /** Epoch used when the engine exports no process start time: bumped when a counter goes down. */
  @GuardedBy("scrapeLock")
  private long fallbackEpoch;

  private volatile ScrapeStatus status;

  ReplicaScraper(ReplicaTarget target, ScrapeClient client, Duration timeout, Ticker ticker,
      int reportStoppedAfter, boolean stopOnRefusal) {
    this.target = target;
    this.client = client;
    this.timeout = timeout;
    this.ticker = ticker;
    this.reportStoppedAfter = reportStoppedAfter;
    this.stopOnRefusal = stopOnRefusal;
    this.status = new ScrapeStatus(target.replicaId(), ScrapeHealth.UNKNOWN, 0, 0, 0,
        Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), 0, 0, List.of(),
        Optional.empty(), Optional.empty(), Optional.empty(), 0, false);
  }

  ReplicaTarget target() {
    return target;
  }

  ScrapeStatus status() {
    return status;
  }

  /** Scrapes once and delivers to {@code sink}; never throws but for {@link Error}s. */
  ScrapeStatus scrape(TelemetrySink sink) {
    scrapeLock.lock();
    try {
      scrapes++;
      ScrapeStatus before = status;
      Scraped scraped;
      try {
        scraped = fetch();
      } catch (IOException | RuntimeException e) {
        return failed(sink, before, describe(e), stopOnRefusal && refused(e));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return failed(sink, before, "interrupted", false);
      }
      consecutiveFailures = 0;
      reportedStopped = false;
      malformedTotal += scraped.exposition.malformedLines();
      ReplicaSnapshot snapshot = scraped.snapshot;
      Optional<UpdateResult> result = Optional.empty();
      try {
        result = Optional.of(sink.onSnapshot(snapshot));
      } catch (RuntimeException e) {
        sinkFailures++;
        scraped.problems.add("sink: " + describe(e));
      }
      Optional<CounterRates> rates = before.lastSnapshot()
          .flatMap(previous -> CounterRates.between(previous, snapshot));
      status = new ScrapeStatus(target.replicaId(), ScrapeHealth.UP, 0, scrapes, failures,
          before.lastError(), OptionalLong.of(ticker.read()),
          snapshot.observedAtNanos(), scraped.exposition.malformedLines(), malformedTotal,
          bounded(scraped.problems), Optional.of(snapshot), rates, result, sinkFailures, false);
      return status;
    } finally {
      scrapeLock.unlock();
    }
  }

  /**
   * Records a failed scrape; reports the replica STOPPED once per failure streak when the streak
   * reaches {@code reportStoppedAfter}, or at once when {@code stopNow} (its connection was refused).
   */
  @GuardedBy("scrapeLock")
  private ScrapeStatus failed(TelemetrySink sink, ScrapeStatus before, String error,
      boolean stopNow) {
    failures++;
    consecutiveFailures++;
    Optional<UpdateResult> result = before.lastResult();
    boolean streakLongEnough = reportStoppedAfter > 0 && consecutiveFailures >= reportStoppedAfter;
    if ((stopNow || streakLongEnough) && !reportedStopped && before.lastSnapshot().isPresent()) {
      ReplicaSnapshot last = before.lastSnapshot().get();
      ReplicaSnapshot stopped = ReplicaSnapshot.newBuilder()
          .replicaId(target.replicaId())
          .model(target.model())
          .epoch(last.epoch())
          .observedAtNanos(ticker.read())
          .state(ReplicaState.STOPPED)
          .build();
      try {
        result = Optional.of(sink.onSnapshot(stopped));
        reportedStopped = true;
      } catch (RuntimeException e) {
        sinkFailures++;
      }
    }
    status = new ScrapeStatus(target.replicaId(), ScrapeHealth.FAILING, consecutiveFailures,
        scrapes, failures, Optional.of(error), OptionalLong.of(ticker.read()),
        before.lastSuccessNanos(), before.malformedLines(), malformedTotal, before.problems(),
        before.lastSnapshot(), before.rates(), result, sinkFailures, reportedStopped);
    return status;
  }

  /** The fetched and mapped scrape. */
  private record Scraped(Exposition exposition, ReplicaSnapshot snapshot, List<String> problems) {}

  @GuardedBy("scrapeLock")
  private Scraped fetch() throws IOException, InterruptedException {
    ReplicaState state = ReplicaState.READY;
    List<String> problems = new ArrayList<>();
    Optional<URI> health = target.healthUri();
    if (health.isPresent()) {
      ScrapeClient.Response h = client.get(health.get(), timeout);
      if (h.status() == 404) {
        // a proxy or an engine without the endpoint: not a sign of ill health
        problems.add("GET " + health.get() + ": HTTP 404 (taken as no health endpoint: READY)");
      } else if (!h.isSuccess()) {
        state = ReplicaState.STARTING;
      }
    }
    URI metricsUri = target.metricsUri();
    ScrapeClient.Response m = client.get(metricsUri, timeout);
    long observedAt = ticker.read();
    if (!m.isSuccess()) {
      throw new IOException("GET " + metricsUri + ": HTTP " + m.status() + " (expected: 2xx)");
    }
    Exposition exposition = PrometheusText.parse(m.body());
    if (exposition.sampleCount() == 0) {
      throw new IOException("GET " + metricsUri + ": no sample in " + m.body().length()
          + " characters, " + exposition.malformedLines() + " malformed lines"
          + (exposition.problems().isEmpty() ? "" : ", first " + exposition.problems().get(0)));
    }
    problems.addAll(exposition.problems());
    EngineMetrics.FieldProblems fieldProblems = new EngineMetrics.FieldProblems();
    ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder()
        .replicaId(target.replicaId())
        .model(target.model())
        .epoch(epoch(exposition))
        .observedAtNanos(observedAt)
        .state(state);
    target.engine().apply(exposition, b, fieldProblems);
    problems.addAll(fieldProblems.list());
    Optional<URI> models = target.modelsUri();
    if (models.isPresent()) {
      try {
        ScrapeClient.Response r = client.get(models.get(), timeout);
        if (r.isSuccess()) {
          b.residentAdapters(ModelList.adapters(r.body()));
        } else {
          problems.add("GET " + models.get() + ": HTTP " + r.status());
        }
      } catch (IOException | IllegalArgumentException e) {
        problems.add(describe(e));
      }
    }
    return new Scraped(exposition, b.build(), problems);
  }

  @GuardedBy("scrapeLock")
  private long epoch(Exposition exposition) {
    OptionalLong start = EngineMetrics.epochNanos(exposition);
    if (start.isPresent()) {
      return start.getAsLong();
    }
    Optional<ReplicaSnapshot> last = status.lastSnapshot();
    if (last.isPresent()) {
      OptionalLong before = last.get().promptTokensTotal();
      OptionalLong now = EngineMetrics.count(exposition,
          target.engine() == EngineMetrics.VLLM ? "vllm:prompt_tokens_total" : "sglang:prompt_tokens_total",
          new EngineMetrics.FieldProblems());
      if (before.isPresent() && now.isPresent() && now.getAsLong() < before.getAsLong()) {
        fallbackEpoch++;
      }
    }
    return fallbackEpoch;
  }

  /** Whether {@code e} (or a cause) is a refused connection: nothing listens at the address. */
  private static boolean refused(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  private static List<String> bounded(List<String> problems) {
    return problems.size() <= 32 ? problems : problems.subList(0, 32);
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }
}
