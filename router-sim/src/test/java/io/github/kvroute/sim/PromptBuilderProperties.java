package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Segment-built prompts share block {@code i} exactly when they share content through that block: the
 * same answer chained hashes of real tokens give. Checked against token arrays, where segment key
 * {@code k} stands for {@code length(k)} tokens all equal to {@code k}.
 */
class PromptBuilderProperties {
  private static final int[] LENGTHS = {5, 16, 23, 40, 64, 100};

  @Provide
  Arbitrary<List<Integer>> paths() {
    return Arbitraries.integers().between(0, LENGTHS.length - 1).list().ofMinSize(1).ofMaxSize(5);
  }

  @Property(tries = 300)
  void blocksMatchExactlyWhenTheirTokensDo(@ForAll("paths") List<Integer> a,
      @ForAll("paths") List<Integer> b, @ForAll @IntRange(min = 1, max = 32) int blockSize) {
    PromptKey ka = build(a, blockSize);
    PromptKey kb = build(b, blockSize);
    int[] ta = tokens(a);
    int[] tb = tokens(b);
    int n = Math.min(ka.blockCount(), kb.blockCount());
    for (int i = 0; i < n; i++) {
      boolean sameTokens = java.util.Arrays.equals(ta, 0, (i + 1) * blockSize, tb, 0,
          (i + 1) * blockSize);
      assertThat(ka.blockHash(i) == kb.blockHash(i)).as("block %s", i).isEqualTo(sameTokens);
    }
    assertThat(ka.blockCount()).isEqualTo(ta.length / blockSize);
    assertThat(ka.tokenCount()).isEqualTo(ta.length);
  }

  /**
   * A builder reused across prompts, whose shared segments' ids come from its memo once seen (and
   * whose memo entries collide and are replaced), gives each prompt the key a new builder gives.
   */
  @Property(tries = 200)
  void aReusedBuilderGivesTheKeysOfANewOne(@ForAll("prompts") List<List<Integer>> prompts,
      @ForAll @IntRange(min = 1, max = 32) int blockSize) {
    PromptBuilder reused = new PromptBuilder(blockSize, CacheNamespace.of("m"));
    for (List<Integer> path : prompts) {
      assertThat(build(reused, path)).isEqualTo(build(path, blockSize));
    }
  }

  @Provide
  Arbitrary<List<List<Integer>>> prompts() {
    return paths().list().ofMinSize(1).ofMaxSize(12);
  }

  private static PromptKey build(List<Integer> path, int blockSize) {
    return build(new PromptBuilder(blockSize, CacheNamespace.of("m")), path);
  }

  private static PromptKey build(PromptBuilder p, List<Integer> path) {
    p.reset();
    for (int k : path) {
      p.add(k, LENGTHS[k]);
    }
    return p.build();
  }

  private static int[] tokens(List<Integer> path) {
    return path.stream().flatMapToInt(k -> java.util.stream.IntStream.generate(() -> k)
        .limit(LENGTHS[k])).toArray();
  }
}
