package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import com.google.common.hash.Hashing;
import com.google.common.testing.EqualsTester;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class KeyedNamespaceTest {
  private static final byte[] SECRET_A =
      "0123456789abcdef-host-secret-A".getBytes(StandardCharsets.UTF_8);
  private static final byte[] SECRET_B =
      "0123456789abcdef-host-secret-B".getBytes(StandardCharsets.UTF_8);
  private static final String PROMPT =
      "You are a helpful assistant. Answer briefly and cite sources. ".repeat(8);

  @Test
  void sipHashMatchesGuavasReferenceImplementation() {
    long[] words = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0706050403020100L, 0xDEADBEEFL};
    long[][] keys = {{0, 0}, {0x0706050403020100L, 0x0F0E0D0C0B0A0908L}, {-1, 42}};
    for (long[] k : keys) {
      for (long w : words) {
        assertThat(NamespaceKey.sipHash24(k[0], k[1], w))
            .as("k=%s m=%s", Arrays.toString(k), w)
            .isEqualTo(Hashing.sipHash24(k[0], k[1]).hashLong(w).asLong());
      }
    }
  }

  @Test
  void sipHashMatchesThePapersTestVectorForEightBytes() {
    // key 00..0f, message 00..07: the reference implementation's vector 8 (62 24 93 9a 79 f5 f5 93)
    assertThat(NamespaceKey.sipHash24(0x0706050403020100L, 0x0F0E0D0C0B0A0908L, 0x0706050403020100L))
        .isEqualTo(0x93F5F5799A932462L);
  }

  @Test
  void twoSecretsGiveDisjointBlockKeysForTheSamePrompt() {
    CacheNamespace base = CacheNamespace.of("m", "v1", null);
    Set<Long> a = keys(PromptKey.ofText(PROMPT, base.keyed(SECRET_A)));
    Set<Long> b = keys(PromptKey.ofText(PROMPT, base.keyed(SECRET_B)));
    Set<Long> plain = keys(PromptKey.ofText(PROMPT, base));

    assertThat(a).hasSize(PromptKey.ofText(PROMPT, base).blockCount()).doesNotContainAnyElementsOf(b)
        .doesNotContainAnyElementsOf(plain);
    assertThat(b).doesNotContainAnyElementsOf(plain);
  }

  @Test
  void theSameSecretReproducesTheKeysInAnotherNamespaceInstance() {
    byte[] copy = SECRET_A.clone();
    PromptKey one = PromptKey.ofText(PROMPT, CacheNamespace.of("m").keyed(SECRET_A));
    PromptKey two = PromptKey.ofText(PROMPT, CacheNamespace.of("m").keyed(copy));

    assertThat(two).isEqualTo(one);
    assertThat(two.blockHashes()).containsExactly(one.blockHashes());
  }

  @Test
  void theSecretArrayIsNotKept() {
    byte[] secret = SECRET_A.clone();
    CacheNamespace ns = CacheNamespace.of("m").keyed(secret);
    long[] before = PromptKey.ofText(PROMPT, ns).blockHashes();
    Arrays.fill(secret, (byte) 0);

    assertThat(PromptKey.ofText(PROMPT, ns).blockHashes()).containsExactly(before);
  }

  @Test
  void everyKindOfPromptKeyIsKeyed() {
    CacheNamespace ns = CacheNamespace.of("m");
    CacheNamespace keyed = ns.keyed(SECRET_A);
    int[] tokens = new int[64];
    Arrays.setAll(tokens, i -> i * 31);
    long[] hashIds = {11, 12, 13};

    assertThat(keys(PromptKey.ofTokens(tokens, keyed)))
        .doesNotContainAnyElementsOf(keys(PromptKey.ofTokens(tokens, ns)));
    assertThat(keys(PromptKey.ofBlockHashes(hashIds, 16, 48, keyed)))
        .hasSize(3).doesNotContainAnyElementsOf(keys(PromptKey.ofBlockHashes(hashIds, 16, 48, ns)));
  }

  @Test
  void theSecretNeverAppearsInToStringOrErrors() {
    CacheNamespace keyed = CacheNamespace.of("m", "v1", "lora").keyed(SECRET_A);
    String secretText = new String(SECRET_A, StandardCharsets.UTF_8);
    String hex = HexFormat.of().formatHex(SECRET_A);
    PromptKey key = PromptKey.ofText(PROMPT, keyed);

    for (String printed : new String[] {keyed.toString(), key.toString(),
        Request.newBuilder().id("r").model("m").modelVersion("v1").adapter("lora").prompt(key)
            .build().toString(),
        message(() -> Request.newBuilder().id("r").model("m").prompt(key).build()),
        message(() -> keyed.keyed(SECRET_B)),
        message(() -> KvEvent.storedEngineHashes("r", 0, keyed, 1L))}) {
      assertThat(printed).doesNotContain(secretText).doesNotContain(hex)
          .doesNotContain("0123456789abcdef").doesNotContain(Arrays.toString(SECRET_A));
    }
    assertThat(keyed.toString()).isEqualTo("m@v1+lora (keyed)");
  }

  @Test
  void aShortSecretIsAClearErrorThatDoesNotPrintIt() {
    byte[] shortSecret = "hunter2".getBytes(StandardCharsets.UTF_8);
    assertThatIllegalArgumentException().isThrownBy(() -> CacheNamespace.of("m").keyed(shortSecret))
        .withMessage("secret: 7 bytes (expected: at least 16 bytes)");
    assertThatNullPointerException().isThrownBy(() -> CacheNamespace.of("m").keyed(null))
        .withMessage("secret: null (expected: non-null)");
  }

  @Test
  void aSecretIsMixedInOnce() {
    CacheNamespace keyed = CacheNamespace.of("m").keyed(SECRET_A);
    assertThatIllegalStateException().isThrownBy(() -> keyed.keyed(SECRET_B))
        .withMessage("namespace: m (keyed) "
            + "(expected: an unkeyed namespace; a secret is mixed in once)");
  }

  @Test
  void exactModePathsRefuseAKeyedNamespace() {
    CacheNamespace keyed = CacheNamespace.of("m").keyed(SECRET_A);
    String expected = "namespace: m (keyed) (expected: an unkeyed namespace: engine KV events carry "
        + "the engine's own unkeyed block hashes, so exact mode cannot use a keyed namespace)";

    assertThatIllegalArgumentException()
        .isThrownBy(() -> KvEvent.storedEngineHashes("r", 0, keyed, 1L)).withMessage(expected);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> KvEvent.removedEngineHashes("r", 0, keyed, 1L)).withMessage(expected);
    assertThatIllegalArgumentException()
        .isThrownBy(() -> PromptKey.namespacedHash(keyed, 1L)).withMessage(expected);
  }

  @Test
  void keyedNamespacesEqualOnlyUnderTheSameSecret() {
    CacheNamespace m = CacheNamespace.of("m");
    new EqualsTester()
        .addEqualityGroup(m, CacheNamespace.of("m"))
        .addEqualityGroup(m.keyed(SECRET_A), CacheNamespace.of("m").keyed(SECRET_A.clone()))
        .addEqualityGroup(m.keyed(SECRET_B))
        .addEqualityGroup(CacheNamespace.of("m", "v1", null).keyed(SECRET_A))
        .testEquals();
    assertThat(m.keyed(SECRET_A).seed()).isNotEqualTo(m.seed()).isNotEqualTo(m.keyed(SECRET_B).seed());
    assertThat(m.keyed(SECRET_A).isKeyed()).isTrue();
    assertThat(m.isKeyed()).isFalse();
  }

  private static Set<Long> keys(PromptKey key) {
    return Arrays.stream(key.blockHashes()).boxed().collect(Collectors.toSet());
  }

  private static String message(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      return e.getMessage();
    }
    throw new AssertionError("expected an exception");
  }
}
