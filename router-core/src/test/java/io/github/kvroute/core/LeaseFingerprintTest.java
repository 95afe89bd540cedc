package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.RequestRef;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The closed-attempt fingerprint tells apart ids and attempts that differ in one character or one. */
class LeaseFingerprintTest {
  @Test
  void sequentialIdsAndAttemptsNeverCollide() {
    Set<Long> seen = new HashSet<>();
    int n = 0;
    for (int i = 0; i < 100_000; i++) {
      for (int attempt = 1; attempt <= 3; attempt++) {
        seen.add(LeaseTable.fingerprint(new RequestRef("req-" + i, attempt)));
        n++;
      }
    }
    assertThat(seen).hasSize(n);
  }

  @Test
  void anIdThatIsAPrefixOfAnotherHashesApart() {
    assertThat(LeaseTable.fingerprint(new RequestRef("ab", 1)))
        .isNotEqualTo(LeaseTable.fingerprint(new RequestRef("abc", 1)))
        .isNotEqualTo(LeaseTable.fingerprint(new RequestRef("ba", 1)));
  }
}
