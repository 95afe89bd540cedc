package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import com.google.common.testing.EqualsTester;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestRefTest {

  @Test
  void holdsIdAndAttempt() {
    RequestRef ref = new RequestRef("req-1", 2);

    assertThat(ref.requestId()).isEqualTo("req-1");
    assertThat(ref.attempt()).isEqualTo(2);
    assertThat(ref.toString()).contains("req-1", "2");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
  void attemptBelowOneIsRejected(int attempt) {
    assertThatIllegalArgumentException().isThrownBy(() -> new RequestRef("req", attempt))
        .withMessageContaining("attempt: " + attempt)
        .withMessageContaining("expected: >= 1");
  }

  @Test
  void blankOrNullIdIsRejected() {
    assertThatIllegalArgumentException().isThrownBy(() -> new RequestRef("", 1))
        .withMessageContaining("requestId: \"\"")
        .withMessageContaining("expected: non-blank");
    assertThatNullPointerException().isThrownBy(() -> new RequestRef(null, 1))
        .withMessageContaining("requestId: null");
  }

  @Test
  void equalsAndHashCode() {
    new EqualsTester()
        .addEqualityGroup(new RequestRef("a", 1), new RequestRef("a", 1))
        .addEqualityGroup(new RequestRef("a", 2))
        .addEqualityGroup(new RequestRef("b", 1))
        .testEquals();
  }
}
