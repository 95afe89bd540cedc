package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.UniqueElements;
import net.jqwik.api.statistics.Statistics;

class PromptKeyProperties {
  private static final CacheNamespace NS = CacheNamespace.of("m", "v1", null);

  /** Token ids over the whole int range. */
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
  Arbitrary<String> text() {
    return Arbitraries.strings().all().ofMaxLength(120);
  }

  @Property
  void firstBlocksDoNotDependOnWhatFollows(
      @ForAll("tokens") int[] a, @ForAll("tokens") int[] b,
      @ForAll @IntRange(min = 1, max = 9) int blockSize) {
    PromptKey prefix = PromptKey.ofTokens(a, blockSize, NS);
    PromptKey whole = PromptKey.ofTokens(concat(a, b), blockSize, NS);
    int k = a.length / blockSize;

    assertThat(prefix.blockCount()).isEqualTo(k);
    assertThat(Arrays.copyOf(whole.blockHashes(), k)).containsExactly(prefix.blockHashes());
  }

  @Property
  void aChangeInBlockJChangesEveryHashFromJOnAndNoneBefore(
      @ForAll("tokens") int[] a, @ForAll @IntRange(min = 1, max = 9) int blockSize,
      @ForAll @IntRange(min = 0) int anyPosition, @ForAll int replacement) {
    Assume.that(a.length > 0);
    int position = anyPosition % a.length;
    Assume.that(a[position] != replacement);
    int[] b = a.clone();
    b[position] = replacement;
    PromptKey ka = PromptKey.ofTokens(a, blockSize, NS);
    PromptKey kb = PromptKey.ofTokens(b, blockSize, NS);
    int j = position / blockSize;

    for (int i = 0; i < ka.blockCount(); i++) {
      if (i < j) {
        assertThat(kb.blockHash(i)).as("block %d before the change", i).isEqualTo(ka.blockHash(i));
      } else {
        assertThat(kb.blockHash(i)).as("block %d from the change on", i).isNotEqualTo(ka.blockHash(i));
      }
    }
  }

  @Property
  void hashOfBlockKMatchesExactlyWhenTheFirstKBlocksMatch(
      @ForAll("binaryTokens") int[] a, @ForAll("binaryTokens") int[] b,
      @ForAll @IntRange(min = 1, max = 3) int blockSize) {
    PromptKey ka = PromptKey.ofTokens(a, blockSize, NS);
    PromptKey kb = PromptKey.ofTokens(b, blockSize, NS);
    int shared = Math.min(ka.blockCount(), kb.blockCount());

    for (int k = 1; k <= shared; k++) {
      int len = k * blockSize;
      boolean prefixesEqual = Arrays.equals(a, 0, len, b, 0, len);
      Statistics.collect(prefixesEqual);
      assertThat(ka.blockHash(k - 1) == kb.blockHash(k - 1)).as("first %d blocks", k)
          .isEqualTo(prefixesEqual);
    }
    Statistics.coverage(checker -> {
      checker.check(true).count(n -> n > 0);
      checker.check(false).count(n -> n > 0);
    });
  }

  @Property
  void namespacesNeverShareABlockHash(
      @ForAll("tokens") int[] tokens, @ForAll @IntRange(min = 1, max = 9) int blockSize) {
    List<CacheNamespace> namespaces = List.of(
        CacheNamespace.of("m", "v1", null),
        CacheNamespace.of("m", "v2", null),
        CacheNamespace.of("m", "v1", "adapter"),
        CacheNamespace.of("m", null, null));
    List<PromptKey> keys = namespaces.stream()
        .map(ns -> PromptKey.ofTokens(tokens, blockSize, ns)).toList();

    for (int i = 0; i < tokens.length / blockSize; i++) {
      Set<Long> hashesOfBlock = new HashSet<>();
      for (PromptKey key : keys) {
        hashesOfBlock.add(key.blockHash(i));
      }
      assertThat(hashesOfBlock).as("block %d", i).hasSize(namespaces.size());
    }
  }

  @Property
  void partialLastBlockIsNotHashed(
      @ForAll("tokens") int[] tokens, @ForAll @IntRange(min = 1, max = 9) int blockSize) {
    int full = tokens.length / blockSize * blockSize;
    PromptKey key = PromptKey.ofTokens(tokens, blockSize, NS);
    PromptKey fullBlocksOnly = PromptKey.ofTokens(Arrays.copyOf(tokens, full), blockSize, NS);

    assertThat(key.blockCount()).isEqualTo(tokens.length / blockSize);
    assertThat(key.tokenCount()).isEqualTo(tokens.length);
    assertThat(key.blockSizeTokens()).isEqualTo(blockSize);
    assertThat(key.blockHashes()).containsExactly(fullBlocksOnly.blockHashes());
  }

  @Property
  void tokensInBlocksCountsOnlyHashedBlocks(
      @ForAll("tokens") int[] tokens, @ForAll @IntRange(min = 1, max = 9) int blockSize) {
    PromptKey key = PromptKey.ofTokens(tokens, blockSize, NS);

    for (int k = 0; k <= key.blockCount() + 2; k++) {
      int hashed = Math.min(k, key.blockCount());
      assertThat(key.tokensInBlocks(k)).isEqualTo(Math.min(hashed * blockSize, tokens.length));
    }
    assertThat(key.tokensInBlocks(Integer.MAX_VALUE))
        .isEqualTo(key.blockCount() * blockSize);
  }

  @Property
  void hashingIsDeterministic(
      @ForAll("tokens") int[] tokens, @ForAll("text") String text,
      @ForAll @IntRange(min = 1, max = 9) int blockSize) {
    PromptKey first = PromptKey.ofTokens(tokens, blockSize, CacheNamespace.of("m", "v1", null));
    PromptKey second = PromptKey.ofTokens(tokens.clone(), blockSize, CacheNamespace.of("m", "v1", null));

    assertThat(second.blockHashes()).containsExactly(first.blockHashes());
    assertThat(second).isEqualTo(first).hasSameHashCodeAs(first);
    assertThat(PromptKey.ofText(new StringBuilder(text), blockSize, 2, NS))
        .isEqualTo(PromptKey.ofText(text, blockSize, 2, NS));
  }

  @Property
  void ofTextCutsBlocksOfBlockSizeTimesCharsPerToken(
      @ForAll("text") String text, @ForAll @IntRange(min = 1, max = 6) int blockSize,
      @ForAll @IntRange(min = 1, max = 5) int charsPerToken) {
    PromptKey key = PromptKey.ofText(text, blockSize, charsPerToken, NS);

    assertThat(key.blockCount()).isEqualTo(text.length() / (blockSize * charsPerToken));
    assertThat(key.tokenCount())
        .isEqualTo((int) Math.ceil(text.length() / (double) charsPerToken));
    assertThat(key.blockSizeTokens()).isEqualTo(blockSize);
  }

  @Property
  void ofTextIsPrefixStable(
      @ForAll("text") String a, @ForAll("text") String b,
      @ForAll @IntRange(min = 1, max = 6) int blockSize,
      @ForAll @IntRange(min = 1, max = 5) int charsPerToken) {
    PromptKey prefix = PromptKey.ofText(a, blockSize, charsPerToken, NS);
    PromptKey whole = PromptKey.ofText(a + b, blockSize, charsPerToken, NS);
    int k = a.length() / (blockSize * charsPerToken);

    assertThat(prefix.blockCount()).isEqualTo(k);
    assertThat(Arrays.copyOf(whole.blockHashes(), k)).containsExactly(prefix.blockHashes());
  }

  @Property
  void ofTextChangeInBlockJChangesEveryHashFromJOn(
      @ForAll("text") String text, @ForAll @IntRange(min = 1, max = 4) int blockSize,
      @ForAll @IntRange(min = 1, max = 4) int charsPerToken,
      @ForAll @IntRange(min = 0) int anyPosition, @ForAll char replacement) {
    Assume.that(!text.isEmpty());
    int position = anyPosition % text.length();
    Assume.that(text.charAt(position) != replacement);
    StringBuilder changed = new StringBuilder(text);
    changed.setCharAt(position, replacement);
    PromptKey ka = PromptKey.ofText(text, blockSize, charsPerToken, NS);
    PromptKey kb = PromptKey.ofText(changed, blockSize, charsPerToken, NS);
    int j = position / (blockSize * charsPerToken);

    for (int i = 0; i < ka.blockCount(); i++) {
      assertThat(kb.blockHash(i) == ka.blockHash(i)).as("block %d (changed block %d)", i, j)
          .isEqualTo(i < j);
    }
  }

  @Property
  void ofBlockHashesMapsEachHashIntoTheNamespace(
      @ForAll @UniqueElements long[] engineHashes, @ForAll @IntRange(min = 1, max = 64) int blockSize) {
    int tokenCount = engineHashes.length * blockSize;
    PromptKey key = PromptKey.ofBlockHashes(engineHashes, blockSize, tokenCount, NS);
    KvEvent stored = KvEvent.storedEngineHashes("r1", 0, NS, engineHashes);

    assertThat(key.blockCount()).isEqualTo(engineHashes.length);
    assertThat(key.tokenCount()).isEqualTo(tokenCount);
    assertThat(key.namespaceSeed()).isEqualTo(NS.seed());
    assertThat(key.blockHashes()).doesNotHaveDuplicates().containsExactly(stored.blockKeys());
    for (int i = 0; i < engineHashes.length; i++) {
      assertThat(key.blockHash(i)).isEqualTo(PromptKey.namespacedHash(NS, engineHashes[i]));
    }
  }

  @Property
  void namespacedHashIsInjectiveAndNamespaceDependent(@ForAll long x, @ForAll long y) {
    Assume.that(x != y);
    CacheNamespace other = CacheNamespace.of("m", "v2", null);

    assertThat(PromptKey.namespacedHash(NS, x)).isNotEqualTo(PromptKey.namespacedHash(NS, y));
    assertThat(PromptKey.namespacedHash(NS, x)).isNotEqualTo(PromptKey.namespacedHash(other, x));
  }

  @Property
  void ofBlockHashesAcceptsUpToCeilTokensOverBlockSize(
      @ForAll @IntRange(min = 0, max = 200) int tokenCount,
      @ForAll @IntRange(min = 1, max = 32) int blockSize) {
    int max = (tokenCount + blockSize - 1) / blockSize;

    assertThat(PromptKey.ofBlockHashes(new long[max], blockSize, tokenCount, NS).blockCount())
        .isEqualTo(max);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> PromptKey.ofBlockHashes(new long[max + 1], blockSize, tokenCount, NS))
        .withMessageContaining("blockHashes.length: " + (max + 1))
        .withMessageContaining("expected")
        .withMessageContaining("= " + max);
  }

  private static int[] concat(int[] a, int[] b) {
    int[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }
}
