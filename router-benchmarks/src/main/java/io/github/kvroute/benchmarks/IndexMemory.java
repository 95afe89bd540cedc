package io.github.kvroute.benchmarks;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.core.PrefixIndexProbe;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Retained heap of the prefix index, measured: the heap in use after full collections with the index
 * loaded, less the same without it, over its (replica, block) entries. Loads the index as
 * {@link IndexMatchBenchmark} does (64-block prompts, each on 4 of {@code replicas} replicas, a
 * shared first block per family), keeping no prompt alive. Prints one line; not a JMH benchmark (it
 * measures bytes, not time).
 *
 * <p>With {@code BUDGET_MIB}, the index has that budget instead of one nothing reaches: the line
 * then says how many of the {@code ENTRIES} offered the budget holds, its accounting
 * ({@code estimatedBytes}) and the heap it really retains. {@code singles} loads the worst case
 * for runs instead: unrelated single-block prompts, each on one replica and every third on a second.
 *
 * <pre>java -XX:+UseSerialGC -Xmx6g -cp router-benchmarks/target/benchmarks.jar \
 *     io.github.kvroute.benchmarks.IndexMemory ENTRIES [REPLICAS [BUDGET_MIB [singles]]]</pre>
 */
public final class IndexMemory {
  private IndexMemory() {}

  public static void main(String[] args) {
    long entries = Long.parseLong(args[0].replace("_", ""));
    int replicas = args.length > 1 ? Integer.parseInt(args[1]) : 256;
    long budget = args.length > 2 ? Long.parseLong(args[2]) << 20 : 64L << 30;
    long before = settledHeap();
    PrefixIndexProbe index = new PrefixIndexProbe(budget, replicas);
    if (args.length > 3 && args[3].equals("singles")) {
      loadSingles(index, entries, replicas);
    } else {
      load(index, entries, replicas);
    }
    long held = index.entries();
    long blocks = index.blocks();
    long arrays = index.footprintBytes();
    long estimated = index.estimatedBytes();
    long after = settledHeap();
    long retained = after - before;
    System.out.printf(Locale.ROOT,
        "entries=%d blocks=%d replicas=%d retainedBytes=%d bytesPerEntry=%.1f arrayBytes=%d "
            + "arrayBytesPerEntry=%.1f estimatedBytes=%d%s%n",
        held, blocks, replicas, retained, (double) retained / held, arrays, (double) arrays / held,
        estimated, args.length > 2 ? String.format(Locale.ROOT,
            " budgetBytes=%d offered=%d retainedOfBudget=%.2f", budget, entries,
            (double) retained / budget) : "");
    // keeps the index reachable until after the measurement
    if (index.entries() != held) {
      throw new AssertionError("the index changed while measured");
    }
  }

  static void load(PrefixIndexProbe index, long entries, int replicas) {
    int blocks = IndexMatchBenchmark.BLOCKS;
    int perPrompt = 4;
    long promptCount = Math.max(1, entries / (blocks * perPrompt));
    CacheNamespace ns = CacheNamespace.of("m");
    SplittableRandom rnd = new SplittableRandom(7);
    int[] tokens = new int[blocks * 16];
    for (long p = 0; p < promptCount; p++) {
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = i < 16 ? (int) (p % 8) : rnd.nextInt(100_000);
      }
      PromptKey prompt = PromptKey.ofTokens(tokens, ns);
      for (int k = 0; k < perPrompt; k++) {
        index.stored(rnd.nextInt(replicas), prompt);
      }
      if (p % 1024 == 0) {
        index.flush();
      }
    }
    index.flush();
  }

  /** Unrelated one-block prompts, so that every block is a run of its own. */
  static void loadSingles(PrefixIndexProbe index, long entries, int replicas) {
    CacheNamespace ns = CacheNamespace.of("m");
    SplittableRandom rnd = new SplittableRandom(3);
    int[] tokens = new int[16];
    for (long p = 0; p * 4 < entries * 3; p++) {
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = rnd.nextInt();
      }
      PromptKey prompt = PromptKey.ofTokens(tokens, ns);
      index.stored(rnd.nextInt(replicas), prompt);
      if (p % 3 == 0) {
        index.stored(rnd.nextInt(replicas), prompt);
      }
    }
    index.flush();
  }

  /** Heap in use after full collections, once it stops falling. */
  static long settledHeap() {
    Runtime rt = Runtime.getRuntime();
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      long used = rt.totalMemory() - rt.freeMemory();
      if (used >= best) {
        return best;
      }
      best = used;
    }
    return best;
  }
}
