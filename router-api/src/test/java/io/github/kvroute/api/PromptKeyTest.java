package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.testing.EqualsTester;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PromptKeyTest {
  private static final CacheNamespace NS = CacheNamespace.of("llama", "v1", null);
  private static final int[] TOKENS_40 = IntStream.range(0, 40).toArray();

  @Test
  void ofTokensUsesTheDefaultBlockSize() {
    PromptKey key = PromptKey.ofTokens(TOKENS_40, NS);

    assertThat(key).isEqualTo(PromptKey.ofTokens(TOKENS_40, PromptKey.DEFAULT_BLOCK_SIZE_TOKENS, NS));
    assertThat(key.blockCount()).isEqualTo(40 / PromptKey.DEFAULT_BLOCK_SIZE_TOKENS);
    assertThat(key.tokenCount()).isEqualTo(40);
    assertThat(key.namespaceSeed()).isEqualTo(NS.seed());
  }

  @Test
  void ofTextUsesTheDefaultBlockSizeAndCharsPerToken() {
    String text = "x".repeat(150);
    PromptKey key = PromptKey.ofText(text, NS);

    assertThat(key).isEqualTo(PromptKey.ofText(text, PromptKey.DEFAULT_BLOCK_SIZE_TOKENS,
        PromptKey.DEFAULT_CHARS_PER_TOKEN, NS));
    assertThat(key.blockCount()).isEqualTo(2); // 150 chars / 64 chars per block
    assertThat(key.tokenCount()).isEqualTo(38); // ceil(150 / 4)
  }

  @Test
  void shorterThanOneBlockHasNoHashesButKeepsItsLength() {
    PromptKey key = PromptKey.ofTokens(new int[] {1, 2, 3}, 4, NS);

    assertThat(key.blockCount()).isZero();
    assertThat(key.blockHashes()).isEmpty();
    assertThat(key.tokenCount()).isEqualTo(3);
    assertThat(key.tokensInBlocks(0)).isZero();
    assertThat(key.tokensInBlocks(1)).as("no hashed block covers anything").isZero();
  }

  @Test
  void ofBlockHashesAllowsAPartialLastBlock() {
    PromptKey key = PromptKey.ofBlockHashes(new long[] {11, 22, 33}, 16, 33, NS);

    assertThat(key.blockCount()).isEqualTo(3);
    assertThat(key.tokensInBlocks(2)).isEqualTo(32);
    assertThat(key.tokensInBlocks(3)).isEqualTo(33);
  }

  @Test
  void unhashedHasALengthAndNoBlocks() {
    PromptKey key = PromptKey.unhashed(1000);

    assertThat(key.blockCount()).isZero();
    assertThat(key.blockHashes()).isEmpty();
    assertThat(key.tokenCount()).isEqualTo(1000);
    assertThat(PromptKey.unhashed(0).tokenCount()).isZero();
  }

  @Test
  void blockHashesReturnsADefensiveCopy() {
    PromptKey key = PromptKey.ofTokens(TOKENS_40, 8, NS);
    long first = key.blockHash(0);

    long[] copy = key.blockHashes();
    copy[0] = ~copy[0];

    assertThat(key.blockHash(0)).isEqualTo(first);
    assertThat(key.blockHashes()).isNotSameAs(key.blockHashes());
  }

  @Test
  void inputArraysAreNotRetained() {
    int[] tokens = TOKENS_40.clone();
    long[] engine = {1, 2, 3};
    PromptKey fromTokens = PromptKey.ofTokens(tokens, 8, NS);
    PromptKey fromEngine = PromptKey.ofBlockHashes(engine, 8, 24, NS);
    PromptKey tokensBefore = PromptKey.ofTokens(tokens.clone(), 8, NS);
    PromptKey engineBefore = PromptKey.ofBlockHashes(engine.clone(), 8, 24, NS);

    tokens[0] = 99;
    engine[0] = 99;

    assertThat(fromTokens).isEqualTo(tokensBefore);
    assertThat(fromEngine).isEqualTo(engineBefore);
  }

  @Test
  void blockHashOutsideTheBlocksThrows() {
    PromptKey key = PromptKey.ofTokens(TOKENS_40, 16, NS);

    assertThatThrownBy(() -> key.blockHash(2)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> key.blockHash(-1)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  static Stream<Arguments> badSizes() {
    return Stream.of(
        bad("blockSizeTokens: 0", () -> PromptKey.ofTokens(TOKENS_40, 0, NS)),
        bad("blockSizeTokens: -1", () -> PromptKey.ofTokens(TOKENS_40, -1, NS)),
        bad("blockSizeTokens: 0", () -> PromptKey.ofText("abc", 0, 4, NS)),
        bad("charsPerToken: 0", () -> PromptKey.ofText("abc", 16, 0, NS)),
        bad("charsPerToken: -3", () -> PromptKey.ofText("abc", 16, -3, NS)),
        bad("blockSizeTokens x charsPerToken: 4294967296",
            () -> PromptKey.ofText("abc", 65536, 65536, NS)),
        bad("blockSizeTokens: 0", () -> PromptKey.ofBlockHashes(new long[0], 0, 10, NS)),
        bad("tokenCount: -1", () -> PromptKey.ofBlockHashes(new long[0], 16, -1, NS)),
        bad("tokenCount: -1", () -> PromptKey.unhashed(-1)),
        bad("blockHashes.length: 2", () -> PromptKey.ofBlockHashes(new long[2], 16, 16, NS)),
        bad("blockHashes.length: 1", () -> PromptKey.ofBlockHashes(new long[1], 16, 0, NS)));
  }

  private static Arguments bad(String message, ThrowingCallable call) {
    return Arguments.of(message, call);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSizes")
  void badSizesAreRejectedWithNameValueAndExpectation(String message, ThrowingCallable call) {
    assertThatIllegalArgumentException().isThrownBy(call)
        .withMessageContaining(message)
        .withMessageContaining("(expected: ");
  }

  @Test
  void nullArgumentsAreRejectedByName() {
    assertThatNullPointerException().isThrownBy(() -> PromptKey.ofTokens(null, NS))
        .withMessageContaining("tokenIds: null");
    assertThatNullPointerException().isThrownBy(() -> PromptKey.ofTokens(TOKENS_40, null))
        .withMessageContaining("namespace: null");
    assertThatNullPointerException().isThrownBy(() -> PromptKey.ofText(null, NS))
        .withMessageContaining("text: null");
    assertThatNullPointerException().isThrownBy(() -> PromptKey.ofBlockHashes(null, 16, 0, NS))
        .withMessageContaining("blockHashes: null");
    assertThatNullPointerException().isThrownBy(() -> PromptKey.namespacedHash(null, 1))
        .withMessageContaining("namespace: null");
  }

  @Test
  void equalsAndHashCode() {
    int[] withPartial = IntStream.range(0, 41).toArray();
    new EqualsTester()
        .addEqualityGroup(PromptKey.ofTokens(TOKENS_40, 8, NS), PromptKey.ofTokens(TOKENS_40.clone(), 8, NS))
        .addEqualityGroup(PromptKey.ofTokens(TOKENS_40, 4, NS))
        .addEqualityGroup(PromptKey.ofTokens(withPartial, 8, NS))
        .addEqualityGroup(PromptKey.ofTokens(TOKENS_40, 8, CacheNamespace.of("llama", "v2", null)))
        .addEqualityGroup(PromptKey.ofTokens(new int[3], 8, NS))
        .addEqualityGroup(PromptKey.ofTokens(new int[3], 8, CacheNamespace.of("other")))
        .addEqualityGroup(PromptKey.unhashed(40), PromptKey.unhashed(40))
        .addEqualityGroup(PromptKey.unhashed(41))
        .addEqualityGroup(PromptKey.ofBlockHashes(new long[] {1, 2}, 8, 16, NS),
            PromptKey.ofBlockHashes(new long[] {1, 2}, 8, 16, NS))
        .testEquals();
  }

  @Test
  void toStringShowsSizes() {
    assertThat(PromptKey.ofTokens(TOKENS_40, 16, NS).toString()).contains("40", "2x16");
  }
}
