package io.github.kvroute.testkit;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.RouterStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

/**
 * A concurrent stress of one {@link Router}, run in phases: in each, {@code routingThreads} threads
 * route requests and report an outcome for every routed attempt (some at once, some later, so that
 * leases expire and orphan under them), beside a thread sending load reports, one sending KV events
 * (stored, removed, cleared, and large batches of fresh keys), and one churning membership (restarts
 * into new epochs, drains, stops, removals and re-joins). Virtual time ({@link ManualTicker}) advances
 * as requests and churn flow. When every thread of a phase has finished, the router is quiescent and
 * {@link #runPhase()} checks its books:
 *
 * <ul>
 *   <li>nothing escaped {@code route}, {@code onSnapshot}, {@code onKvEvent}, {@code onOutcome} or
 *       {@code removeReplica} (every input is valid, so no exception is documented for it), and no
 *       plugin failure was reported;
 *   <li>offered = routed + rejected (+ failed, i.e. thrown), each as the host counted it, and
 *       {@code stats()} agrees reason by reason; the listener heard every decision;
 *   <li>every routed attempt has had its outcome, so {@code stats().inFlight() == 0}, every replica's
 *       {@code inFlightRequests} and {@code inFlightTokens} are 0, and
 *       {@code routed = inFlight + outcomes(APPLIED) + expired + orphaned}; outcome results, expiries and
 *       orphanings agree with what the host and the listener saw;
 *   <li>the index estimate is within its budget, no counter is negative, and the replicas' index entries
 *       add up to the index's;
 *   <li>no replica is known that the fleet never had (KV events for unknown ids are sent when
 *       {@link Config#ghostEvents()} is on).
 * </ul>
 *
 * <p>Bounded: each phase runs a fixed number of operations per thread, with no sleeps and no wall-clock
 * assertion; the only wall-clock figures ({@link Phase#elapsedNanos()}, {@link Phase#maxRouteNanos()})
 * are reported, not checked. A soak runs phases until its time is up.
 *
 * <pre>{@code
 * RouterStress.Config config = RouterStress.Config.bounded();
 * try (RouterStress stress = new RouterStress(config, b -> b.policy("least-request"))) {
 *   RouterStress.Phase phase = stress.runPhase();
 *   assertThat(phase.violations()).isEmpty();
 * }
 * }</pre>
 *
 * <p>Thread-safety: not thread-safe; one thread calls {@link #runPhase()}, which starts and joins its
 * own workers.
 */
public final class RouterStress implements AutoCloseable {

  /**
   * The size of each phase.
   *
   * @param routingThreads threads calling {@code route} and {@code onOutcome}
   * @param replicas the fleet
   * @param routesPerThread routes per routing thread per phase
   * @param reportsPerPhase load reports per phase
   * @param kvEventsPerPhase KV events per phase
   * @param churnPerPhase membership changes per phase
   * @param largeBatchEvery one KV event in this many is a large batch
   * @param largeBatchKeys keys in a large batch
   * @param ghostEvents whether one KV event in 50 names a replica the fleet never had
   * @param indexBudgetBytes the router's index budget
   * @param leaseTimeout the router's lease timeout, in virtual time (which advances 1 ms per 4 routes
   *     per thread and per churn step)
   * @param seed the workload's seed (thread interleaving is not reproducible)
   */
  public record Config(int routingThreads, int replicas, int routesPerThread, int reportsPerPhase,
      int kvEventsPerPhase, int churnPerPhase, int largeBatchEvery, int largeBatchKeys,
      boolean ghostEvents, long indexBudgetBytes, Duration leaseTimeout, long seed) {

    /**
     * Checks the sizes: at least one routing thread, replica, large-batch period and key, no
     * negative count, and a lease timeout.
     *
     * @param routingThreads threads calling {@code route} and {@code onOutcome}
     * @param replicas the fleet
     * @param routesPerThread routes per routing thread per phase
     * @param reportsPerPhase load reports per phase
     * @param kvEventsPerPhase KV events per phase
     * @param churnPerPhase membership changes per phase
     * @param largeBatchEvery one KV event in this many is a large batch
     * @param largeBatchKeys keys in a large batch
     * @param ghostEvents whether one KV event in 50 names a replica the fleet never had
     * @param indexBudgetBytes the router's index budget
     * @param leaseTimeout the router's lease timeout, in virtual time (which advances 1 ms per 4
     *     routes per thread and per churn step)
     * @param seed the workload's seed (thread interleaving is not reproducible)
     */
    public Config {
      check(routingThreads >= 1, "routingThreads", routingThreads, ">= 1");
      check(replicas >= 1, "replicas", replicas, ">= 1");
      check(routesPerThread >= 0, "routesPerThread", routesPerThread, ">= 0");
      check(reportsPerPhase >= 0, "reportsPerPhase", reportsPerPhase, ">= 0");
      check(kvEventsPerPhase >= 0, "kvEventsPerPhase", kvEventsPerPhase, ">= 0");
      check(churnPerPhase >= 0, "churnPerPhase", churnPerPhase, ">= 0");
      check(largeBatchEvery >= 1, "largeBatchEvery", largeBatchEvery, ">= 1");
      check(largeBatchKeys >= 1, "largeBatchKeys", largeBatchKeys, ">= 1");
      Objects.requireNonNull(leaseTimeout, "leaseTimeout: null (expected: non-null)");
    }

    /**
     * {@return the thread-safety check of {@link RoutingPolicyContract}: 4 routing threads x 250
     * routes, 6 replicas, 300 churn steps, 100 KV events, a 10-minute lease (nothing expires)}
     */
    public static Config contract() {
      return new Config(4, 6, 250, 250, 100, 300, 25, 1_024, false, 1L << 20,
          Duration.ofMinutes(10), 99);
    }

    /**
     * {@return a few seconds on two cores: 4 routing threads x 1,500 routes, 6 replicas, 256 KiB
     * budget, KV events for unknown replicas among the rest}
     */
    public static Config bounded() {
      return new Config(4, 6, 1_500, 1_500, 600, 300, 40, 2_048, true, 256 << 10,
          Duration.ofMillis(200), 1);
    }

    /**
     * {@return a soak phase: 8 routing threads x 20,000 routes, 8 replicas, 8 MiB budget, 16k-key
     * batches}
     */
    public static Config soak() {
      return new Config(8, 8, 20_000, 20_000, 4_000, 2_000, 25, 16_384, true, 8L << 20,
          Duration.ofMillis(200), 1);
    }

    /**
     * This configuration with another number of routing threads.
     *
     * @param threads routing threads; {@code >= 1}
     * @return a copy with {@code routingThreads = threads}
     */
    public Config withRoutingThreads(int threads) {
      return new Config(threads, replicas, routesPerThread, reportsPerPhase, kvEventsPerPhase,
          churnPerPhase, largeBatchEvery, largeBatchKeys, ghostEvents, indexBudgetBytes, leaseTimeout,
          seed);
    }

    /**
     * This configuration with KV events for unknown replicas on or off.
     *
     * @param on whether one KV event in 50 names a replica the fleet never had
     * @return a copy with {@code ghostEvents = on}
     */
    public Config withGhostEvents(boolean on) {
      return new Config(routingThreads, replicas, routesPerThread, reportsPerPhase, kvEventsPerPhase,
          churnPerPhase, largeBatchEvery, largeBatchKeys, on, indexBudgetBytes, leaseTimeout, seed);
    }

    /**
     * This configuration with another seed.
     *
     * @param newSeed the workload's seed
     * @return a copy with {@code seed = newSeed}
     */
    public Config withSeed(long newSeed) {
      return new Config(routingThreads, replicas, routesPerThread, reportsPerPhase, kvEventsPerPhase,
          churnPerPhase, largeBatchEvery, largeBatchKeys, ghostEvents, indexBudgetBytes, leaseTimeout,
          newSeed);
    }

    private static void check(boolean ok, String name, Object value, String expected) {
      if (!ok) {
        throw new IllegalArgumentException(name + ": " + value + " (expected: " + expected + ")");
      }
    }
  }

  /**
   * One phase's result; counts are cumulative since the stress began.
   *
   * @param number 1 for the first phase
   * @param offered route calls
   * @param routed routed decisions
   * @param rejected rejections, all reasons
   * @param failed route calls that threw
   * @param outcomes outcome reports
   * @param reports load reports
   * @param kvEvents KV events
   * @param kvEventKeys keys in those events
   * @param churn membership changes
   * @param elapsedNanos wall-clock time of this phase's traffic (reported, never checked)
   * @param maxRouteNanos the slowest single {@code route} call of this phase, wall clock
   * @param stats the router's stats at quiescence
   * @param violations what broke, empty when the books balanced
   */
  public record Phase(int number, long offered, long routed, long rejected, long failed,
      long outcomes, long reports, long kvEvents, long kvEventKeys, long churn, long elapsedNanos,
      long maxRouteNanos, RouterStats stats, List<String> violations) {
    /**
     * Copies {@code violations} into an unmodifiable list.
     *
     * @param number 1 for the first phase
     * @param offered route calls
     * @param routed routed decisions
     * @param rejected rejections, all reasons
     * @param failed route calls that threw
     * @param outcomes outcome reports
     * @param reports load reports
     * @param kvEvents KV events
     * @param kvEventKeys keys in those events
     * @param churn membership changes
     * @param elapsedNanos wall-clock time of this phase's traffic (reported, never checked)
     * @param maxRouteNanos the slowest single {@code route} call of this phase, wall clock
     * @param stats the router's stats at quiescence
     * @param violations what broke, empty when the books balanced
     */
    public Phase {
      violations = List.copyOf(violations);
    }
  }

  private final Config config;
  private final ManualTicker ticker = new ManualTicker();
  private final StressBooks books = new StressBooks();
  private final Router router;
  /** The newest epoch each replica was given; written by the churn thread only. */
  private final AtomicLongArray epochs;
  private int phases;
  private final SplittableRandom random;

  /** How a host or a contract builds the router under stress. */
  @FunctionalInterface
  public interface RouterFactory {
    /**
     * A router on {@code ticker}, seeded with {@code seed}, reporting to {@code listener}.
     *
     * @param ticker the stress's virtual clock, which the router must use
     * @param seed the workload's seed
     * @param listener the stress's books, which the router must report to
     * @return the router
     */
    Router create(ManualTicker ticker, long seed, RouterListener listener);
  }

  /**
   * Builds the router with this stress's ticker, seed, listener, and the config's index budget and
   * lease timeout; {@code policy} sets the rest (at least the policy).
   *
   * @param config the phase sizes, seed, index budget and lease timeout
   * @param policy configures the router builder's policy (and anything else)
   */
  public RouterStress(Config config, Consumer<Router.Builder> policy) {
    this(config, (ticker, seed, listener) -> {
      Router.Builder b = Router.newBuilder().ticker(ticker).seed(seed).listener(listener)
          .indexBudgetBytes(config.indexBudgetBytes()).leaseTimeout(config.leaseTimeout());
      policy.accept(b);
      return b.build();
    });
  }

  /**
   * Stresses the router {@code factory} builds (which must use the ticker and listener it is given;
   * the config's index budget and lease timeout are then the factory's business).
   *
   * @param config the phase sizes and seed
   * @param factory builds the router under stress
   */
  public RouterStress(Config config, RouterFactory factory) {
    this.config = Objects.requireNonNull(config, "config: null (expected: non-null)");
    this.router = factory.create(ticker, config.seed(), books);
    this.epochs = new AtomicLongArray(config.replicas());
    this.random = new SplittableRandom(config.seed());
    for (int k = 0; k < config.replicas(); k++) {
      router.onSnapshot(StressLoad.report(StressLoad.replicaId(k), 0, ReplicaState.READY, random));
    }
  }

  /** {@return the router under stress} */
  public Router router() {
    return router;
  }

  /**
   * Runs one phase to quiescence and checks the books.
   *
   * @return the phase's counts and the violations found
   * @throws InterruptedException if the calling thread is interrupted while waiting for the phase's
   *     threads
   */
  public Phase runPhase() throws InterruptedException {
    int phase = ++phases;
    books.maxRouteNanos.reset();
    List<Runnable> bodies = new ArrayList<>();
    for (int t = 0; t < config.routingThreads(); t++) {
      bodies.add(new RoutingLoop(phase, t, random.split()));
    }
    SplittableRandom reports = random.split();
    bodies.add(() -> reports(reports));
    SplittableRandom events = random.split();
    bodies.add(() -> kvEvents(events));
    SplittableRandom churn = random.split();
    bodies.add(() -> churn(churn));
    long elapsed = runTogether(bodies);
    StressChecks.atQuiescence(router, books, config);
    List<String> found = books.takeViolations();
    return new Phase(phase, books.offered.sum(), books.routed.sum(), StressBooks.sum(books.rejected),
        books.failed.sum(), StressBooks.sum(books.outcomes), StressBooks.sum(books.snapshots),
        StressBooks.sum(books.kvEvents), books.kvEventKeys.sum(), books.churn.sum(), elapsed,
        books.maxRouteNanos.get(), router.stats(), found);
  }

  @Override
  public void close() {
    router.close();
  }

  private long runTogether(List<Runnable> bodies) throws InterruptedException {
    CyclicBarrier start = new CyclicBarrier(bodies.size() + 1);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < bodies.size(); i++) {
      Runnable body = bodies.get(i);
      Thread thread = new Thread(() -> {
        try {
          start.await();
          body.run();
        } catch (Throwable e) {
          books.violation("stress thread " + Thread.currentThread().getName() + " died: " + e);
        }
      }, "stress-" + phases + "-" + i);
      thread.start();
      threads.add(thread);
    }
    long began;
    try {
      start.await();
      began = System.nanoTime();
    } catch (java.util.concurrent.BrokenBarrierException e) {
      throw new IllegalStateException("stress: barrier broken (expected: every thread to start)", e);
    }
    for (Thread t : threads) {
      t.join();
    }
    return System.nanoTime() - began;
  }

  /** Routes, and reports an outcome for every routed attempt: half at once, half a little later. */
  private final class RoutingLoop implements Runnable {
    private record Open(Request request, RoutingDecision decision) {}

    private final int phase;
    private final int thread;
    private final SplittableRandom random;
    private final List<Open> open = new ArrayList<>();

    RoutingLoop(int phase, int thread, SplittableRandom random) {
      this.phase = phase;
      this.thread = thread;
      this.random = random;
    }

    @Override
    public void run() {
      for (int i = 0; i < config.routesPerThread(); i++) {
        if (i % 4 == 0) {
          ticker.advanceMillis(1);
        }
        Request request = StressLoad.request("p" + phase + "-t" + thread + "-" + i, random);
        RoutingDecision d = route(request);
        if (d != null && d.isRouted()) {
          if (random.nextBoolean()) {
            report(new Open(request, d));
          } else {
            open.add(new Open(request, d));
          }
        }
        if (open.size() > 48) {
          report(open.remove(random.nextInt(open.size())));
        }
      }
      open.forEach(this::report);
      open.clear();
    }

    private RoutingDecision route(Request request) {
      books.offered.increment();
      long began = System.nanoTime();
      try {
        RoutingDecision d = router.route(request);
        books.maxRouteNanos.accumulate(System.nanoTime() - began);
        if (d.isRouted()) {
          books.routed.increment();
        } else {
          books.rejected.get(d.reason()).increment();
        }
        return d;
      } catch (Throwable e) {
        books.failed.increment();
        books.escaped("route", request, e);
        return null;
      }
    }

    private void report(Open o) {
      Outcome outcome = StressLoad.outcome(o.request(), o.decision(), random);
      try {
        UpdateResult result = router.onOutcome(outcome);
        books.outcomes.get(result).increment();
      } catch (Throwable e) {
        books.escaped("onOutcome", outcome, e);
      }
    }
  }

  private void reports(SplittableRandom random) {
    for (int i = 0; i < config.reportsPerPhase(); i++) {
      int k = random.nextInt(config.replicas());
      ReplicaSnapshot s = StressLoad.report(StressLoad.replicaId(k), epochs.get(k),
          random.nextInt(10) == 0 ? ReplicaState.DRAINING : ReplicaState.READY, random);
      try {
        books.snapshots.get(router.onSnapshot(s)).increment();
      } catch (Throwable e) {
        books.escaped("onSnapshot", s, e);
      }
    }
  }

  private void kvEvents(SplittableRandom random) {
    for (int i = 0; i < config.kvEventsPerPhase(); i++) {
      boolean ghost = config.ghostEvents() && random.nextInt(50) == 0;
      int k = random.nextInt(config.replicas());
      String id = ghost ? "ghost-" + random.nextInt(1_000_000) : StressLoad.replicaId(k);
      var event = StressLoad.kvEvent(id, ghost ? 0 : epochs.get(k),
          i % config.largeBatchEvery() == config.largeBatchEvery() - 1, config.largeBatchKeys(),
          random);
      try {
        books.kvEvents.get(router.onKvEvent(event)).increment();
        books.kvEventKeys.add(event.blockCount());
      } catch (Throwable e) {
        books.escaped("onKvEvent", event, e);
      }
    }
  }

  /** Restarts into new epochs, drains, stops, removals and re-joins, one replica at a time. */
  private void churn(SplittableRandom random) {
    for (int i = 0; i < config.churnPerPhase(); i++) {
      ticker.advanceMillis(1);
      int k = random.nextInt(config.replicas());
      String id = StressLoad.replicaId(k);
      try {
        switch (random.nextInt(6)) {
          case 0 -> {
            long epoch = epochs.incrementAndGet(k);
            send(StressLoad.report(id, epoch, ReplicaState.STARTING, random));
            send(StressLoad.report(id, epoch, ReplicaState.READY, random));
          }
          case 1 -> send(StressLoad.report(id, epochs.get(k), ReplicaState.DRAINING, random));
          case 2 -> send(StressLoad.report(id, epochs.get(k), ReplicaState.STOPPED, random));
          case 3 -> {
            router.removeReplica(id);
            long epoch = epochs.incrementAndGet(k);
            send(StressLoad.report(id, epoch, ReplicaState.READY, random));
          }
          default -> send(StressLoad.report(id, epochs.get(k), ReplicaState.READY, random));
        }
        books.churn.increment();
      } catch (Throwable e) {
        books.escaped("churn", id, e);
      }
    }
    // leave the fleet routable for the next phase
    for (int k = 0; k < config.replicas(); k++) {
      send(StressLoad.report(StressLoad.replicaId(k), epochs.get(k), ReplicaState.READY, random));
    }
  }

  private void send(ReplicaSnapshot s) {
    try {
      books.snapshots.get(router.onSnapshot(s)).increment();
    } catch (Throwable e) {
      books.escaped("onSnapshot", s, e);
    }
  }
}
