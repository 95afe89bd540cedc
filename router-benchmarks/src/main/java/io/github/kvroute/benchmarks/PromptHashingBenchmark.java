package io.github.kvroute.benchmarks;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Hashing a prompt into its chained block keys. Target (docs/architecture.md, "Performance
 * targets"): at most 3 ns per token and no allocation per block. Divide the score by {@code tokens}
 * for ns/token; run with {@code -prof gc} to see allocation per operation (one {@code long[]} per
 * prompt plus the key object).
 *
 * {@code keyed=true} hashes in a {@linkplain CacheNamespace#keyed keyed} namespace (one SipHash-2-4
 * per published block key on top).
 *
 * <pre>java -jar router-benchmarks/target/benchmarks.jar PromptHashing -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PromptHashingBenchmark {
  @Param({"1024", "8192"})
  int tokens;

  @Param({"false", "true"})
  boolean keyed;

  int[] prompt;
  CacheNamespace ns;

  @Setup
  public void setUp() {
    CacheNamespace base = CacheNamespace.of("llama-3-70b");
    ns = keyed ? base.keyed("a benchmark's 32-byte host secret".getBytes(StandardCharsets.UTF_8)) : base;
    SplittableRandom r = new SplittableRandom(1);
    prompt = new int[tokens];
    for (int i = 0; i < tokens; i++) {
      prompt[i] = r.nextInt(128_000);
    }
  }

  @Benchmark
  public PromptKey ofTokens() {
    return PromptKey.ofTokens(prompt, ns);
  }
}
