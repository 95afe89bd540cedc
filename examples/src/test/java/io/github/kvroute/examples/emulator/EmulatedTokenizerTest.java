package io.github.kvroute.examples.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class EmulatedTokenizerTest {
  private static final EngineModel MODEL = EngineModel.scaledDown();

  @Test
  void tokensAreFourCharactersAndOnlyFullBlocksAreHashed() {
    assertThat(EmulatedTokenizer.tokenCount("", 4)).isZero();
    assertThat(EmulatedTokenizer.tokenCount("abcde", 4)).isEqualTo(2);
    assertThat(EmulatedTokenizer.blockHashes("a".repeat(60), MODEL)).isEmpty(); // 15 tokens
    assertThat(EmulatedTokenizer.blockHashes("a".repeat(64), MODEL)).hasSize(1);
    assertThat(EmulatedTokenizer.blockHashes("a".repeat(124), MODEL)).hasSize(1); // 31 tokens
    assertThat(EmulatedTokenizer.blockHashes("a".repeat(128), MODEL)).hasSize(2);
  }

  /** Block i's hash covers blocks 0..i: equal leading blocks, equal leading hashes, and no more. */
  @Property(tries = 200)
  void aBlockHashDependsOnItsPrefixOnly(
      @ForAll @StringLength(min = 64, max = 64) String block,
      @ForAll @StringLength(min = 64, max = 64) String a,
      @ForAll @StringLength(min = 64, max = 64) String b) {
    long[] first = EmulatedTokenizer.blockHashes(block + a, MODEL);
    long[] second = EmulatedTokenizer.blockHashes(block + b, MODEL);

    assertThat(first[0]).isEqualTo(second[0]);
    // different token ids in the second block (different text, bar a token-id collision)
    if (!java.util.Arrays.equals(EmulatedTokenizer.tokenIds(block + a, 4, 16, 32),
        EmulatedTokenizer.tokenIds(block + b, 4, 16, 32))) {
      assertThat(first[1]).isNotEqualTo(second[1]);
    }
  }

  @Test
  void equalTextGivesEqualTokenIdsWithinTheVocabulary() {
    int[] ids = EmulatedTokenizer.tokenIds("abcdabcdxyz", 4, 0, 3);
    assertThat(ids[0]).isEqualTo(ids[1]).isNotEqualTo(ids[2]);
    assertThat(java.util.Arrays.stream(ids).boxed().toList())
        .allSatisfy(id -> assertThat(id).isBetween(0, EmulatedTokenizer.VOCABULARY - 1));
  }
}
