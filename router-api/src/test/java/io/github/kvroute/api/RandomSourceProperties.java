package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import net.jqwik.api.Assume;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class RandomSourceProperties {

  private static long[] draw(RandomSource r, int n) {
    return LongStream.generate(r::nextLong).limit(n).toArray();
  }

  @Property
  void sameSeedGivesTheSameSequence(@ForAll long seed) {
    RandomSource a = RandomSource.seeded(seed);
    RandomSource b = RandomSource.seeded(seed);

    assertThat(draw(a, 50)).containsExactly(draw(b, 50));
    assertThat(a.nextDouble()).isEqualTo(b.nextDouble());
    assertThat(a.nextInt(1000)).isEqualTo(b.nextInt(1000));
  }

  @Property
  void differentSeedsGiveDifferentSequences(@ForAll long seed1, @ForAll long seed2) {
    Assume.that(seed1 != seed2);

    assertThat(RandomSource.seeded(seed1).nextLong()).isNotEqualTo(RandomSource.seeded(seed2).nextLong());
  }

  @Property
  void nextIntStaysBelowTheBound(@ForAll long seed, @ForAll @IntRange(min = 1) int bound) {
    RandomSource r = RandomSource.seeded(seed);

    for (int i = 0; i < 20; i++) {
      assertThat(r.nextInt(bound)).isBetween(0, bound - 1);
    }
  }

  @Property
  void nextDoubleIsInTheUnitInterval(@ForAll long seed) {
    RandomSource r = RandomSource.seeded(seed);

    for (int i = 0; i < 20; i++) {
      assertThat(r.nextDouble()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
    }
  }

  @Property
  void defaultMethodsStayInRangeForExtremeLongs(@ForAll long value, @ForAll @IntRange(min = 1) int bound) {
    RandomSource constant = () -> value;

    assertThat(constant.nextInt(bound)).isBetween(0, bound - 1);
    assertThat(constant.nextDouble()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
  }

  @Property
  void nonPositiveBoundIsRejected(@ForAll @IntRange(min = Integer.MIN_VALUE, max = 0) int bound) {
    assertThatIllegalArgumentException().isThrownBy(() -> RandomSource.seeded(1).nextInt(bound))
        .withMessageContaining("bound: " + bound)
        .withMessageContaining("expected: >= 1");
  }

  @Example
  void nextIntCoversEveryValueRoughlyEvenly() {
    RandomSource r = RandomSource.seeded(42);
    int[] counts = new int[10];
    for (int i = 0; i < 10_000; i++) {
      counts[r.nextInt(10)]++;
    }

    for (int value = 0; value < counts.length; value++) {
      assertThat(counts[value]).as("count of %d", value).isBetween(850, 1150);
    }
  }

  @Example
  void threadLocalSourceStaysInRange() {
    RandomSource r = RandomSource.threadLocal();

    for (int i = 0; i < 1000; i++) {
      assertThat(r.nextInt(7)).isBetween(0, 6);
      assertThat(r.nextDouble()).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
    }
  }

  @Example
  void concurrentCallersShareOneSequenceWithoutLosingOrRepeatingValues() throws Exception {
    int threads = 4;
    int perThread = 5_000;
    Set<Long> sequential = new HashSet<>();
    for (long v : draw(RandomSource.seeded(7), threads * perThread)) {
      sequential.add(v);
    }
    RandomSource shared = RandomSource.seeded(7);
    Set<Long> concurrent = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            concurrent.add(shared.nextLong());
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(concurrent).hasSize(threads * perThread).isEqualTo(sequential);
  }
}
