package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import com.google.common.testing.EqualsTester;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CacheNamespaceTest {

  @Test
  void accessors() {
    CacheNamespace full = CacheNamespace.of("llama", "v2", "sql-lora");
    CacheNamespace base = CacheNamespace.of("llama");

    assertThat(full.model()).isEqualTo("llama");
    assertThat(full.version()).contains("v2");
    assertThat(full.adapter()).contains("sql-lora");
    assertThat(base.version()).isEqualTo(Optional.empty());
    assertThat(base.adapter()).isEqualTo(Optional.empty());
    assertThat(full.toString()).contains("llama", "v2", "sql-lora");
  }

  @Test
  void equalsAndHashCode() {
    new EqualsTester()
        .addEqualityGroup(CacheNamespace.of("m"), CacheNamespace.of("m", null, null))
        .addEqualityGroup(CacheNamespace.of("m", "v1", null), CacheNamespace.of("m", "v1", null))
        .addEqualityGroup(CacheNamespace.of("m", "v2", null))
        .addEqualityGroup(CacheNamespace.of("m", null, "a"))
        .addEqualityGroup(CacheNamespace.of("m", "v1", "a"))
        .addEqualityGroup(CacheNamespace.of("n"))
        .testEquals();
  }

  @Test
  void seedIsStableAndDiffersAcrossModelVersionAndAdapter() {
    List<CacheNamespace> distinct = List.of(
        CacheNamespace.of("m"),
        CacheNamespace.of("m", "v1", null),
        CacheNamespace.of("m", "v2", null),
        CacheNamespace.of("m", null, "v1"),
        CacheNamespace.of("m", null, "a"),
        CacheNamespace.of("m", "v1", "a"),
        CacheNamespace.of("m", "v1", "b"),
        CacheNamespace.of("mv1"),
        CacheNamespace.of("n"));

    assertThat(distinct).extracting(CacheNamespace::seed).doesNotHaveDuplicates();
    assertThat(CacheNamespace.of("m", "v1", "a").seed())
        .isEqualTo(CacheNamespace.of("m", "v1", "a").seed());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "' '|v1|a|model",
      "m|''|a|version",
      "m|v1|'  '|adapter"})
  void blankPartsAreRejected(String model, String version, String adapter, String name) {
    assertThatIllegalArgumentException().isThrownBy(() -> CacheNamespace.of(model, version, adapter))
        .withMessageContaining(name + ": \"")
        .withMessageContaining("expected: non-blank");
  }

  @Test
  void nullModelIsRejected() {
    assertThatNullPointerException().isThrownBy(() -> CacheNamespace.of(null))
        .withMessageContaining("model: null");
  }
}
