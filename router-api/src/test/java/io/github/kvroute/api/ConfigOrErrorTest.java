package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ConfigOrErrorTest {

  @Test
  void valueIsOkWithAnEmptyError() {
    ConfigOrError<String> ok = ConfigOrError.of("policy");

    assertThat(ok.isOk()).isTrue();
    assertThat(ok.value()).isEqualTo("policy");
    assertThat(ok.error()).isEmpty();
    assertThat(ok.toString()).contains("policy");
  }

  @Test
  void valueOfAnErrorThrowsCarryingTheMessage() {
    ConfigOrError<String> error = ConfigOrError.error("weight: -1 (expected: a number in [0, 10])");

    assertThat(error.isOk()).isFalse();
    assertThat(error.error()).isEqualTo("weight: -1 (expected: a number in [0, 10])");
    assertThatIllegalStateException().isThrownBy(error::value)
        .withMessage("weight: -1 (expected: a number in [0, 10])");
    assertThat(error.toString()).contains("weight: -1");
  }

  @Test
  void mapTransformsAValue() {
    assertThat(ConfigOrError.of(21).map(x -> x * 2).value()).isEqualTo(42);
  }

  @Test
  void mapPassesAnErrorThroughWithoutCallingTheFunction() {
    AtomicBoolean called = new AtomicBoolean();
    ConfigOrError<Integer> mapped = ConfigOrError.<String>error("k: v (expected: w)").map(s -> {
      called.set(true);
      return s.length();
    });

    assertThat(called).isFalse();
    assertThat(mapped.isOk()).isFalse();
    assertThat(mapped.error()).isEqualTo("k: v (expected: w)");
  }

  @Test
  void nullValueAndBlankErrorAreRejected() {
    assertThatNullPointerException().isThrownBy(() -> ConfigOrError.of(null))
        .withMessageContaining("value: null");
    assertThatIllegalArgumentException().isThrownBy(() -> ConfigOrError.error(" "))
        .withMessageContaining("error: \" \"")
        .withMessageContaining("expected: non-blank");
  }
}
