package io.github.kvroute.benchmarks;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.core.PrefixIndexProbe;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * One prefix-index walk: per-replica leading-match lengths for a {@code blocks}-block prompt (64 by
 * default), against an index
 * holding {@code entries} (replica, block) entries spread over {@code replicas} replicas. Target:
 * p50 at most 250 ns, p99 at most 5 us at 10M entries over 256 replicas. Sample mode reports
 * percentiles. Reaches the index through {@link PrefixIndexProbe}, core's unsupported door for
 * benchmarks.
 *
 * <pre>java -jar router-benchmarks/target/benchmarks.jar IndexMatch -p entries=10000000
 * java -jar router-benchmarks/target/benchmarks.jar IndexMatch -p blocks=64,128,4096 -p replicas=4,64,256</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx8g"})
public class IndexMatchBenchmark {
  static final int BLOCKS = 64;

  /** Blocks per prompt (16 tokens each): 64 is the target's prompt; 128 and 4096 show the curve. */
  @Param({"64"})
  int blocks;

  @Param({"1000000"})
  int entries;

  @Param({"256"})
  int replicas;

  PrefixIndexProbe index;
  PromptKey[] prompts;
  int next;

  @Setup(Level.Trial)
  public void setUp() {
    index = new PrefixIndexProbe(64L << 30, replicas);
    // Families of 64-block prompts; each prompt lives on a few replicas (prefix replication),
    // sharing a first block with others (a system prompt), like real traffic.
    CacheNamespace ns = CacheNamespace.of("m");
    int perPrompt = 4;
    int promptCount = Math.max(1, entries / (blocks * perPrompt));
    prompts = new PromptKey[promptCount];
    SplittableRandom rnd = new SplittableRandom(7);
    for (int p = 0; p < promptCount; p++) {
      int[] tokens = new int[blocks * 16];
      for (int i = 0; i < tokens.length; i++) {
        tokens[i] = i < 16 ? (p % 8) : rnd.nextInt(100_000);
      }
      prompts[p] = PromptKey.ofTokens(tokens, ns);
      for (int k = 0; k < perPrompt; k++) {
        int r = rnd.nextInt(replicas);
        index.stored(r, prompts[p]);
      }
    }
    index.flush();
  }

  @Benchmark
  public int match() {
    PromptKey p = prompts[next++ % prompts.length];
    return index.match(p)[0];
  }
}
