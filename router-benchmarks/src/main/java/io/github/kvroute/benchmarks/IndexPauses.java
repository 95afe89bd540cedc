package io.github.kvroute.benchmarks;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.core.PrefixIndexProbe;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * How long the index's writer stalls, write by write, once a full budget churns: unrelated 64-block
 * prompts, each written for one of {@code REPLICAS} replicas, timed one by one after the budget has
 * filled and the arrays have reached their steady length. Most writes append; the one that finds
 * the garbage past its bound compacts the whole index first (every live block moved, the key
 * table filled again), unless the index hands its compactions to an executor. Prints one line; not
 * a JMH benchmark (it times single rare operations, which JMH's batches would average away).
 *
 * <p>{@code MODE}: {@code stored} (default) writes KV "stored" events, each applied at once and
 * flushed, compactions inside the writes; {@code routed} writes the router's optimistic inserts
 * (applied at once when the write lock is free, else buffered), compactions inside the writes, as
 * a router with {@code indexCompactionExecutor(Runnable::run)}; {@code routed-apart} the same with
 * compactions on a thread of their own, as a router with its default executor. One writing thread,
 * flat out, or at {@code WRITES_PER_SECOND} (a router's inserts come one per decision: flat out,
 * a writer that only writes outruns the thread that applies what it buffers, and the buffer drops).
 *
 * <pre>java -Xms2g -Xmx2g -XX:+AlwaysPreTouch -cp router-benchmarks/target/benchmarks.jar \
 *     io.github.kvroute.benchmarks.IndexPauses [BUDGET_MIB [REPLICAS [WRITES [MODE [WRITES_PER_SECOND]]]]]</pre>
 */
public final class IndexPauses {
  /** Writes over this long count as stalls. */
  static final long STALL_NANOS = 1_000_000L;
  /** Stalls over this long count as long ones. */
  static final long LONG_STALL_NANOS = 10_000_000L;

  private IndexPauses() {}

  public static void main(String[] args) {
    long budget = (args.length > 0 ? Long.parseLong(args[0]) : 64) << 20;
    int replicas = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int writes = args.length > 2 ? Integer.parseInt(args[2]) : 200_000;
    String mode = args.length > 3 ? args[3] : "stored";
    if (!List.of("stored", "routed", "routed-apart").contains(mode)) {
      throw new IllegalArgumentException(
          "mode: " + mode + " (expected: stored, routed or routed-apart)");
    }
    ExecutorService compactor = mode.equals("routed-apart")
        ? Executors.newSingleThreadExecutor(r -> {
          Thread t = new Thread(r, "index-compactions");
          t.setDaemon(true);
          return t;
        })
        : null;
    // a pace: a router's writes come between its decisions, not back to back
    long gapNanos = args.length > 4 ? 1_000_000_000L / Long.parseLong(args[4]) : 0;
    boolean routed = !mode.equals("stored");
    PrefixIndexProbe index = new PrefixIndexProbe(budget, replicas, compactor);
    CacheNamespace ns = CacheNamespace.of("m");
    SplittableRandom rnd = new SplittableRandom(11);
    int[] tokens = new int[IndexMatchBenchmark.BLOCKS * 16];
    // fill the budget, then as many writes again so that the arrays reach their steady lengths
    long fill = 0;
    long before = -1;
    while (fill < 2 * writes && before != index.entries()) {
      before = index.entries();
      for (int i = 0; i < 1_000; i++, fill++) {
        store(index, ns, rnd, tokens, replicas);
      }
    }
    for (int i = 0; i < writes; i++) {
      store(index, ns, rnd, tokens, replicas);
    }
    long[] nanos = new long[writes];
    int compactions = index.compactions();
    int inPlace = index.compactionsInPlace();
    long next = 0;
    for (int i = 0; i < writes; i++) {
      PromptKey prompt = prompt(ns, rnd, tokens);
      int replica = rnd.nextInt(replicas);
      long start = System.nanoTime();
      if (gapNanos > 0) {
        while (start < next) {
          Thread.onSpinWait();
          start = System.nanoTime();
        }
        next = start + gapNanos;
      }
      if (routed) {
        index.routed(replica, prompt);
      } else {
        index.stored(replica, prompt);
        index.flush();
      }
      nanos[i] = System.nanoTime() - start;
    }
    index.flush();
    compactions = index.compactions() - compactions;
    inPlace = index.compactionsInPlace() - inPlace;
    long stalls = 0;
    long stallNanos = 0;
    long longStalls = 0;
    long longStallNanos = 0;
    for (long n : nanos) {
      if (n > STALL_NANOS) {
        stalls++;
        stallNanos += n;
      }
      if (n > LONG_STALL_NANOS) {
        longStalls++;
        longStallNanos += n;
      }
    }
    Arrays.sort(nanos);
    System.out.printf(Locale.ROOT,
        "budgetMiB=%d replicas=%d entries=%d writes=%d p50=%.1f us p99=%.1f us p99.9=%.1f us "
            + "max=%.2f ms stallsOver1ms=%d (one write in %d, mean %.2f ms) over10ms=%d "
            + "(mean %.2f ms) compactions=%d (in place %d) mode=%s perSecond=%s droppedHints=%d%n",
        budget >> 20, replicas, index.entries(), writes, nanos[writes / 2] / 1e3,
        nanos[(int) (writes * 0.99)] / 1e3, nanos[(int) (writes * 0.999)] / 1e3,
        nanos[writes - 1] / 1e6, stalls, stalls == 0 ? 0 : writes / stalls,
        stalls == 0 ? 0 : stallNanos / 1e6 / stalls, longStalls,
        longStalls == 0 ? 0 : longStallNanos / 1e6 / longStalls, compactions, inPlace, mode,
        gapNanos > 0 ? String.valueOf(1_000_000_000L / gapNanos) : "max", index.droppedHints());
  }

  private static void store(PrefixIndexProbe index, CacheNamespace ns, SplittableRandom rnd,
      int[] tokens, int replicas) {
    index.stored(rnd.nextInt(replicas), prompt(ns, rnd, tokens));
    index.flush();
  }

  private static PromptKey prompt(CacheNamespace ns, SplittableRandom rnd, int[] tokens) {
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = rnd.nextInt(100_000);
    }
    return PromptKey.ofTokens(tokens, ns);
  }
}
