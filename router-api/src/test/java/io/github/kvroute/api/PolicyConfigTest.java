package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PolicyConfigTest {
  private static final Set<String> MODES = Set.of("exact", "approx");

  @Test
  void typedReadsParseTrimmedValues() {
    PolicyConfig c = PolicyConfig.of(Map.of(
        "threshold", " 0.25 ", "count", "42", "big", "9000000000", "flag", " TRUE", "mode", "approx "));

    assertThat(c.doubleIn("threshold", 0.5, 0, 1)).isEqualTo(0.25);
    assertThat(c.intIn("count", 1, 0, 100)).isEqualTo(42);
    assertThat(c.longIn("big", 1, 0, Long.MAX_VALUE)).isEqualTo(9_000_000_000L);
    assertThat(c.bool("flag", false)).isTrue();
    assertThat(c.oneOf("mode", "exact", MODES)).isEqualTo("approx");
    assertThat(c.errors()).isEmpty();
  }

  @Test
  void absentKeysGiveTheDefaults() {
    PolicyConfig c = PolicyConfig.of(Map.of());

    assertThat(c.doubleIn("threshold", 0.5, 0, 1)).isEqualTo(0.5);
    assertThat(c.intIn("count", 7, 0, 100)).isEqualTo(7);
    assertThat(c.longIn("big", 8L, 0, 100)).isEqualTo(8L);
    assertThat(c.bool("flag", true)).isTrue();
    assertThat(c.oneOf("mode", "exact", MODES)).isEqualTo("exact");
    assertThat(c.finish(() -> "ok").value()).isEqualTo("ok");
  }

  static Stream<Arguments> badValues() {
    return Stream.of(
        read("threshold", "1.5", c -> c.doubleIn("threshold", 0.5, 0, 1), "a number in [0, 1]"),
        read("threshold", "-0.1", c -> c.doubleIn("threshold", 0.5, 0, 1), "a number in [0, 1]"),
        read("threshold", "NaN", c -> c.doubleIn("threshold", 0.5, 0, 1), "a number in [0, 1]"),
        read("threshold", "abc", c -> c.doubleIn("threshold", 0.5, 0.5, 2.5), "a number in [0.5, 2.5]"),
        read("count", "101", c -> c.intIn("count", 7, 0, 100), "an integer in [0, 100]"),
        read("count", "1.5", c -> c.intIn("count", 7, 0, 100), "an integer in [0, 100]"),
        read("count", "", c -> c.intIn("count", 7, 0, 100), "an integer in [0, 100]"),
        read("count", "3000000000", c -> c.intIn("count", 7, 0, Integer.MAX_VALUE),
            "an integer in [0, " + Integer.MAX_VALUE + "]"),
        read("big", "-1", c -> c.longIn("big", 8L, 0, 100), "an integer in [0, 100]"),
        read("flag", "yes", c -> c.bool("flag", true), "true or false"),
        read("mode", "fuzzy", c -> c.oneOf("mode", "exact", MODES), "one of [approx, exact]"));
  }

  private static Arguments read(
      String key, String value, Function<PolicyConfig, Object> read, String expected) {
    return Arguments.of(key, value, read, expected);
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("badValues")
  void badValuesAreErrorsNamingKeyValueAndExpectationAndYieldTheDefault(
      String key, String value, Function<PolicyConfig, Object> read, String expected) {
    PolicyConfig c = PolicyConfig.of(Map.of(key, value));
    Object defaultValue = read.apply(PolicyConfig.of(Map.of()));

    assertThat(read.apply(c)).isEqualTo(defaultValue);
    assertThat(c.errors()).containsExactly(key + ": " + value + " (expected: " + expected + ")");
  }

  @Test
  void unknownKeysAreErrorsListingTheKnownOptions() {
    PolicyConfig c = PolicyConfig.of(Map.of("cache_treshold", "0.3", "weight", "2"));
    c.doubleIn("weight", 1, 0, 10);
    c.doubleIn("cache_threshold", 0.3, 0, 1);

    assertThat(c.errors()).singleElement().asString()
        .startsWith("cache_treshold: unknown option")
        .contains("expected", "cache_threshold", "weight");
  }

  @Test
  void finishJoinsAllErrorsAndDoesNotBuild() {
    PolicyConfig c = PolicyConfig.of(Map.of("a", "x", "b", "2", "c", "1"));
    c.intIn("a", 0, 0, 10);
    c.intIn("b", 0, 5, 10);
    c.addError("a and b: inconsistent (expected: a < b)");
    AtomicBoolean built = new AtomicBoolean();

    ConfigOrError<String> result = c.finish(() -> {
      built.set(true);
      return "never";
    });

    assertThat(result.isOk()).isFalse();
    assertThat(built).isFalse();
    assertThat(result.error().split("; ")).containsExactly(
        "a: x (expected: an integer in [0, 10])",
        "b: 2 (expected: an integer in [5, 10])",
        "a and b: inconsistent (expected: a < b)",
        "c: unknown option (expected: one of [a, b])");
  }

  @Test
  void finishBuildsWhenEverythingWasReadAndValid() {
    PolicyConfig c = PolicyConfig.of(Map.of("weight", "3"));
    double weight = c.doubleIn("weight", 1, 0, 10);

    assertThat(c.finish(() -> weight * 2).value()).isEqualTo(6.0);
  }

  @Test
  void nullsAndBlankMessagesAreRejected() {
    Map<String, String> nullValue = new HashMap<>();
    nullValue.put("k", null);
    Map<String, String> nullKey = new HashMap<>();
    nullKey.put(null, "v");

    assertThatNullPointerException().isThrownBy(() -> PolicyConfig.of(null))
        .withMessageContaining("config: null");
    assertThatNullPointerException().isThrownBy(() -> PolicyConfig.of(nullValue))
        .withMessageContaining("config[k]: null");
    assertThatNullPointerException().isThrownBy(() -> PolicyConfig.of(nullKey))
        .withMessageContaining("config key: null");
    assertThatIllegalArgumentException().isThrownBy(() -> PolicyConfig.of(Map.of()).addError(" "))
        .withMessageContaining("message");
  }

  @Test
  void theRawMapIsCopied() {
    Map<String, String> raw = new HashMap<>(Map.of("weight", "3"));
    PolicyConfig c = PolicyConfig.of(raw);
    raw.put("weight", "4");
    raw.put("extra", "1");

    assertThat(c.doubleIn("weight", 1, 0, 10)).isEqualTo(3.0);
    assertThat(c.errors()).isEmpty();
  }
}
