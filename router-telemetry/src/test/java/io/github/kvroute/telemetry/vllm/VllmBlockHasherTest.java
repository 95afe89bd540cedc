package io.github.kvroute.telemetry.vllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Golden values: vLLM's formula ({@code sha256(cbor2.dumps((parent, tuple(tokens), extra_keys),
 * canonical=True))}, {@code NONE_HASH = sha256_cbor(PYTHONHASHSEED)}, low 64 bits) computed with
 * Python's cbor2 5.4.6 (Debian's python3-cbor2) and hashlib:
 *
 * <pre>
 * def H(x): return hashlib.sha256(cbor2.dumps(x, canonical=True)).digest()
 * parent = H("0")
 * for each full block: parent = H((parent, tuple(block), extra or None)); publish low 64 bits
 * </pre>
 */
class VllmBlockHasherTest {
  /** 33 tokens: two full blocks of 16 and one partial token. */
  static final int[] PROMPT = {151644, 872, 198, 9064, 374, 279, 6722, 315, 5616, 30, 151645, 198,
      151644, 77091, 198, 151667, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 99};

  @Test
  void matchesVllmsSha256CborHashes() {
    VllmBlockHasher h = VllmBlockHasher.sha256Cbor(16, "0");
    assertThat(h.blockHashes(PROMPT)).containsExactly(-3312509955037617139L, 96069275356138911L);
    assertThat(Long.toUnsignedString(h.blockHashes(PROMPT)[0])).isEqualTo("15134234118671934477");
  }

  @Test
  void theLoraNameKeysEveryBlockAndTheCacheSaltTheFirst() {
    VllmBlockHasher h = VllmBlockHasher.sha256Cbor(16, "0");
    assertThat(h.blockHashes(PROMPT, "sql-lora", "tenant-a"))
        .containsExactly(-5491623246752729641L, -2327416603567816290L);
  }

  @Test
  void largeTokenIdsAndAnotherSeedAndBlockSize() {
    int[] tokens = {100000, 100001, 100002, 100003, 100004, 100005, 100006, 100007};
    assertThat(VllmBlockHasher.sha256Cbor(4, "42").blockHashes(tokens))
        .containsExactly(-1041053304492350193L, -3683123486437923965L);
  }

  @Test
  void aBlocksHashDependsOnlyOnItsPrefix() {
    VllmBlockHasher h = VllmBlockHasher.sha256Cbor(16, "0");
    int[] other = PROMPT.clone();
    other[20] = 7; // second block differs
    long[] a = h.blockHashes(PROMPT);
    long[] b = h.blockHashes(other);
    assertThat(b[0]).isEqualTo(a[0]);
    assertThat(b[1]).isNotEqualTo(a[1]);
    assertThat(h.blockHashes(Arrays.copyOf(PROMPT, 15))).isEmpty();
    assertThat(VllmBlockHasher.sha256Cbor(16, "1").blockHashes(PROMPT)[0]).isNotEqualTo(a[0]);
  }

  @Test
  void rejectsWhatCannotReproduceVllm() {
    assertThatThrownBy(() -> VllmBlockHasher.sha256Cbor(0, "0"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("blockSize: 0 (expected: >= 1)");
    assertThatThrownBy(() -> VllmBlockHasher.sha256Cbor(16, null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("PYTHONHASHSEED");
  }
}
