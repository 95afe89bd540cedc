package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/** Keyed namespaces keep every property the index relies on, under any secret. */
class KeyedNamespaceProperties {

  @Provide
  Arbitrary<int[]> tokens() {
    return Arbitraries.integers().array(int[].class).ofMaxSize(80);
  }

  /** Token ids from a two-letter alphabet, so that random prompts often share leading blocks. */
  @Provide
  Arbitrary<int[]> binaryTokens() {
    return Arbitraries.integers().between(0, 1).array(int[].class).ofMaxSize(12);
  }

  @Provide
  Arbitrary<byte[]> secrets() {
    return Arbitraries.bytes().array(byte[].class).ofMinSize(16).ofMaxSize(64);
  }

  @Property
  void firstBlocksDoNotDependOnWhatFollows(
      @ForAll("tokens") int[] a, @ForAll("tokens") int[] b, @ForAll("secrets") byte[] secret,
      @ForAll @IntRange(min = 1, max = 9) int blockSize) {
    CacheNamespace ns = CacheNamespace.of("m", "v1", null).keyed(secret);
    PromptKey prefix = PromptKey.ofTokens(a, blockSize, ns);
    PromptKey whole = PromptKey.ofTokens(concat(a, b), blockSize, ns);
    int k = a.length / blockSize;

    assertThat(prefix.blockCount()).isEqualTo(k);
    assertThat(Arrays.copyOf(whole.blockHashes(), k)).containsExactly(prefix.blockHashes());
  }

  @Property
  void hashOfBlockKMatchesExactlyWhenTheFirstKBlocksMatch(
      @ForAll("binaryTokens") int[] a, @ForAll("binaryTokens") int[] b,
      @ForAll("secrets") byte[] secret, @ForAll @IntRange(min = 1, max = 3) int blockSize) {
    CacheNamespace ns = CacheNamespace.of("m").keyed(secret);
    PromptKey ka = PromptKey.ofTokens(a, blockSize, ns);
    PromptKey kb = PromptKey.ofTokens(b, blockSize, ns);
    int shared = Math.min(ka.blockCount(), kb.blockCount());

    for (int k = 1; k <= shared; k++) {
      int len = k * blockSize;
      boolean prefixesEqual = Arrays.equals(a, 0, len, b, 0, len);
      Statistics.collect(prefixesEqual);
      assertThat(ka.blockHash(k - 1) == kb.blockHash(k - 1)).as("first %d blocks", k)
          .isEqualTo(prefixesEqual);
    }
  }

  @Property
  void ofTextIsPrefixStable(
      @ForAll @Size(max = 200) String a, @ForAll @Size(max = 200) String b,
      @ForAll("secrets") byte[] secret) {
    CacheNamespace ns = CacheNamespace.of("m").keyed(secret);
    PromptKey prefix = PromptKey.ofText(a, 2, 2, ns);
    PromptKey whole = PromptKey.ofText(a + b, 2, 2, ns);

    assertThat(Arrays.copyOf(whole.blockHashes(), prefix.blockCount()))
        .containsExactly(prefix.blockHashes());
  }

  @Property
  void twoSecretsShareNoBlockKey(
      @ForAll("tokens") int[] tokens, @ForAll("secrets") byte[] s1, @ForAll("secrets") byte[] s2,
      @ForAll @IntRange(min = 1, max = 4) int blockSize) {
    Assume.that(!Arrays.equals(s1, s2));
    PromptKey k1 = PromptKey.ofTokens(tokens, blockSize, CacheNamespace.of("m").keyed(s1));
    PromptKey k2 = PromptKey.ofTokens(tokens, blockSize, CacheNamespace.of("m").keyed(s2));
    PromptKey plain = PromptKey.ofTokens(tokens, blockSize, CacheNamespace.of("m"));
    Set<Long> seen = new HashSet<>();
    for (PromptKey k : new PromptKey[] {k1, k2, plain}) {
      for (long h : k.blockHashes()) {
        assertThat(seen.add(h)).as("block key %s appears under two keys", h).isTrue();
      }
    }
  }

  @Property
  void theSameSecretReproducesTheKeys(
      @ForAll("tokens") int[] tokens, @ForAll("secrets") byte[] secret) {
    PromptKey first = PromptKey.ofTokens(tokens, CacheNamespace.of("m").keyed(secret));
    PromptKey second = PromptKey.ofTokens(tokens.clone(), CacheNamespace.of("m").keyed(secret.clone()));

    assertThat(second.blockHashes()).containsExactly(first.blockHashes());
    assertThat(second).isEqualTo(first);
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
