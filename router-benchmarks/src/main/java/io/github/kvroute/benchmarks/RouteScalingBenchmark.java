package io.github.kvroute.benchmarks;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.core.Router;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Routing throughput with one and with two routing threads on one {@link Router}, while a writer
 * thread applies KV events (64-block stored and removed events, paced to {@code writerBlocksPerSec}).
 * Each decision is {@code route()} then {@code onOutcome()} for a pre-hashed 8k-token prompt over 64
 * replicas with the default policy. Target: {@code twoRouters:route} at least 1.8x
 * {@code oneRouters:route} (both groups run in the same invocation, one after the other); the
 * {@code blocks} counter shows the writer kept its pace.
 *
 * <pre>java -jar router-benchmarks/target/benchmarks.jar RouteScaling -f 1 -wi 2 -i 3</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class RouteScalingBenchmark {
  static final String MODEL = "llama-3-70b";
  static final int REPLICAS = 64;
  static final int PROMPT_TOKENS = 8192;
  static final int EVENT_BLOCKS = 64;

  /** The shared router, its prompts and the writer's pre-built events. */
  @State(Scope.Group)
  public static class Shared {
    @Param({"1000000"})
    long writerBlocksPerSec;

    Router router;
    PromptKey[] prompts;
    KvEvent[] stores;
    KvEvent[] removes;
    final AtomicInteger threads = new AtomicInteger();

    @Setup(Level.Trial)
    public void setUp() {
      router = Router.newBuilder().seed(1).build();
      for (int r = 0; r < REPLICAS; r++) {
        router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("r" + r).model(MODEL)
            .waitingRequests(r % 5).runningRequests(8).queuedPrefillTokens(1000L * (r % 7))
            .kvBlocks(1000, 100_000).kvBlockSizeTokens(16).build());
      }
      CacheNamespace ns = CacheNamespace.of(MODEL);
      SplittableRandom rnd = new SplittableRandom(3);
      prompts = new PromptKey[32];
      for (int f = 0; f < prompts.length; f++) {
        int[] tokens = new int[PROMPT_TOKENS];
        for (int i = 0; i < tokens.length; i++) {
          tokens[i] = i < tokens.length / 2 ? (f % 4) * 1000 + i : rnd.nextInt(100_000);
        }
        prompts[f] = PromptKey.ofTokens(tokens, ns);
        router.onKvEvent(KvEvent.stored("r" + (f % REPLICAS), 0, prompts[f].blockHashes()));
      }
      stores = new KvEvent[1024];
      removes = new KvEvent[1024];
      for (int e = 0; e < stores.length; e++) {
        long[] keys = new long[EVENT_BLOCKS];
        for (int i = 0; i < keys.length; i++) {
          keys[i] = rnd.nextLong();
        }
        String replica = "r" + (e % REPLICAS);
        stores[e] = KvEvent.stored(replica, 0, keys);
        removes[e] = KvEvent.removed(replica, 0, keys);
      }
    }
  }

  /** One routing thread's request ids. */
  @State(Scope.Thread)
  public static class Caller {
    String prefix;
    long seq;

    @Setup(Level.Trial)
    public void setUp(Shared shared) {
      prefix = "t" + shared.threads.incrementAndGet() + "-";
    }
  }

  /** The writer's pace and the blocks it applied (reported as a counter). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Writer {
    int step;
    long dueNanos;
    public long blocks;

    @Setup(Level.Iteration)
    public void setUp() {
      dueNanos = System.nanoTime();
      blocks = 0;
    }
  }

  static Object decide(Shared s, Caller c) {
    String id = c.prefix + c.seq++;
    RoutingDecision d = s.router.route(Request.newBuilder().id(id).model(MODEL)
        .prompt(s.prompts[(int) (c.seq & 31)]).maxOutputTokens(128).build());
    if (d.isRouted()) {
      s.router.onOutcome(Outcome.newBuilder().requestId(id).replicaId(d.replicaId())
          .epoch(d.epoch()).status(OutcomeStatus.SUCCESS).build());
    }
    return d;
  }

  /** One 64-block event (stores, then the matching removes half a cycle later), at the set pace. */
  static void write(Shared s, Writer w) {
    int e = w.step++ & 1023;
    s.router.onKvEvent((w.step & 1) == 0 ? s.stores[e] : s.removes[(e + 512) & 1023]);
    w.blocks += EVENT_BLOCKS;
    w.dueNanos += EVENT_BLOCKS * 1_000_000_000L / s.writerBlocksPerSec;
    long now = System.nanoTime();
    // behind by more than a millisecond: the debt is forgiven, not burst
    w.dueNanos = Math.max(w.dueNanos, now - 1_000_000);
    while (now < w.dueNanos) {
      LockSupport.parkNanos(w.dueNanos - now);
      now = System.nanoTime();
    }
  }

  @Benchmark
  @Group("oneRouter")
  @GroupThreads(1)
  public Object route1(Shared s, Caller c) {
    return decide(s, c);
  }

  @Benchmark
  @Group("oneRouter")
  @GroupThreads(1)
  public void events1(Shared s, Writer w) {
    write(s, w);
  }

  @Benchmark
  @Group("twoRouters")
  @GroupThreads(2)
  public Object route2(Shared s, Caller c) {
    return decide(s, c);
  }

  @Benchmark
  @Group("twoRouters")
  @GroupThreads(1)
  public void events2(Shared s, Writer w) {
    write(s, w);
  }
}
