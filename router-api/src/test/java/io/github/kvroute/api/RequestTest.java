package io.github.kvroute.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestTest {
  private static final PromptKey PROMPT = PromptKey.unhashed(100);

  private static Request.Builder minimal() {
    return Request.newBuilder().id("req-1").model("llama").prompt(PROMPT);
  }

  private static Request full() {
    return Request.newBuilder()
        .id("req-9").attempt(2).model("llama").modelVersion("v2").adapter("sql").sessionId("s1")
        .tenant("acme").priority(Priority.BATCH).prompt(PromptKey.unhashed(77))
        .maxOutputTokens(500).expectedOutputTokens(120).ttftBudget(Duration.ofMillis(900))
        .upstreamElapsed(Duration.ofMillis(40)).arrivalNanos(12345L)
        .build();
  }

  /** Every accessor's value, to compare requests (Request has no equals). */
  private static List<Object> values(Request r) {
    return List.of(r.id(), r.attempt(), r.model(), r.modelVersion(), r.adapter(), r.sessionId(),
        r.tenant(), r.priority(), r.prompt(), r.maxOutputTokens(), r.expectedOutputTokens(),
        r.ttftBudget(), r.upstreamElapsed(), r.arrivalNanos());
  }

  @Test
  void minimalRequestHasDocumentedDefaults() {
    Request r = minimal().build();

    assertThat(r.attempt()).isEqualTo(1);
    assertThat(r.priority()).isEqualTo(Priority.STANDARD);
    assertThat(r.maxOutputTokens()).isEqualTo(256);
    assertThat(r.upstreamElapsed()).isEqualTo(Duration.ZERO);
    assertThat(r.promptTokens()).isEqualTo(PROMPT.tokenCount());
    assertThat(List.of(r.modelVersion(), r.adapter(), r.sessionId(), r.tenant(), r.ttftBudget()))
        .containsOnly(Optional.empty());
    assertThat(r.expectedOutputTokens()).isEqualTo(OptionalInt.empty());
    assertThat(r.arrivalNanos()).isEqualTo(OptionalLong.empty());
  }

  @Test
  void allOptionsAreKept() {
    Request r = full();

    assertThat(values(r)).containsExactly("req-9", 2, "llama", Optional.of("v2"), Optional.of("sql"),
        Optional.of("s1"), Optional.of("acme"), Priority.BATCH, PromptKey.unhashed(77), 500,
        OptionalInt.of(120), Optional.of(Duration.ofMillis(900)), Duration.ofMillis(40),
        OptionalLong.of(12345L));
    assertThat(r.toString()).contains("req-9", "llama");
  }

  static Stream<Arguments> missingRequired() {
    return Stream.of(
        Arguments.of("id", Request.newBuilder().model("m").prompt(PROMPT)),
        Arguments.of("model", Request.newBuilder().id("r").prompt(PROMPT)),
        Arguments.of("prompt", Request.newBuilder().id("r").model("m")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("missingRequired")
  void missingRequiredFieldIsNamed(String field, Request.Builder builder) {
    assertThatIllegalArgumentException().isThrownBy(builder::build)
        .withMessageStartingWith(field + ": null")
        .withMessageContaining("expected");
  }

  static Stream<Arguments> stringOptions() {
    return Stream.of(
        option("id", b -> b.id(" ")),
        option("model", b -> b.model("")),
        option("modelVersion", b -> b.modelVersion("\t")),
        option("adapter", b -> b.adapter(" ")),
        option("sessionId", b -> b.sessionId("")),
        option("tenant", b -> b.tenant("  ")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stringOptions")
  void blankStringsAreRejected(String name, Consumer<Request.Builder> setBlank) {
    assertThatIllegalArgumentException().isThrownBy(() -> setBlank.accept(Request.newBuilder()))
        .withMessageStartingWith(name + ": \"")
        .withMessageContaining("expected: non-blank");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1})
  void attemptBelowOneIsRejected(int attempt) {
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().attempt(attempt))
        .withMessageContaining("attempt: " + attempt)
        .withMessageContaining("expected: >= 1");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -5})
  void maxOutputTokensBelowOneIsRejected(int max) {
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().maxOutputTokens(max))
        .withMessageContaining("maxOutputTokens: " + max)
        .withMessageContaining("expected: >= 1");
  }

  @Test
  void negativeExpectedOutputTokensIsRejected() {
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().expectedOutputTokens(-1))
        .withMessageContaining("expectedOutputTokens: -1")
        .withMessageContaining("expected: >= 0");
  }

  @Test
  void expectedOutputTokensAboveMaximumIsRejected() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> minimal().maxOutputTokens(100).expectedOutputTokens(101).build())
        .withMessageContaining("expectedOutputTokens: 101")
        .withMessageContaining("expected: <= maxOutputTokens = 100");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> minimal().expectedOutputTokens(257).build())
        .withMessageContaining("<= maxOutputTokens = 256");
    assertThat(minimal().maxOutputTokens(100).expectedOutputTokens(100).build()
        .expectedOutputTokens()).hasValue(100);
  }

  @Test
  void negativeDurationsAreRejected() {
    Duration negative = Duration.ofMillis(-1);
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().ttftBudget(negative))
        .withMessageStartingWith("ttftBudget: " + negative)
        .withMessageContaining("expected: >= 0");
    assertThatIllegalArgumentException().isThrownBy(() -> minimal().upstreamElapsed(negative))
        .withMessageStartingWith("upstreamElapsed: " + negative)
        .withMessageContaining("expected: >= 0");
  }

  static Stream<Arguments> everyOption() {
    return Stream.of(
        option("id", b -> b.id("x")),
        option("attempt", b -> b.attempt(2)),
        option("model", b -> b.model("x")),
        option("modelVersion", b -> b.modelVersion("x")),
        option("adapter", b -> b.adapter("x")),
        option("sessionId", b -> b.sessionId("x")),
        option("tenant", b -> b.tenant("x")),
        option("priority", b -> b.priority(Priority.BATCH)),
        option("prompt", b -> b.prompt(PROMPT)),
        option("maxOutputTokens", b -> b.maxOutputTokens(10)),
        option("expectedOutputTokens", b -> b.expectedOutputTokens(5)),
        option("ttftBudget", b -> b.ttftBudget(Duration.ofMillis(5))),
        option("upstreamElapsed", b -> b.upstreamElapsed(Duration.ofMillis(5))),
        option("arrivalNanos", b -> b.arrivalNanos(5)));
  }

  private static Arguments option(String name, Consumer<Request.Builder> set) {
    return Arguments.of(name, set);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyOption")
  void settingAnOptionTwiceIsRejected(String name, Consumer<Request.Builder> set) {
    Request.Builder b = Request.newBuilder();
    set.accept(b);

    assertThatIllegalStateException().isThrownBy(() -> set.accept(b))
        .withMessageStartingWith(name + ": already set")
        .withMessageContaining("expected");
  }

  @ParameterizedTest(name = "budget {0} ms, upstream {1} ms -> {2} ms")
  @CsvSource({"600, 350, 250", "600, 400, 200", "600, 700, -100", "600, 0, 600", "0, 0, 0"})
  void remainingBudgetIsBudgetMinusUpstream(long budget, long upstream, long remaining) {
    Request r = minimal().ttftBudget(Duration.ofMillis(budget))
        .upstreamElapsed(Duration.ofMillis(upstream)).build();

    assertThat(r.remainingBudgetMillis()).hasValue(remaining);
  }

  @ParameterizedTest(name = "budget 600 ms, upstream 100 ms, arrival {0} ns, now {1} ns -> {2} ms")
  @CsvSource({"0, 0, 500", "0, 350000000, 150", "1000000000, 1700000000, -200",
      "1000000000, 0, 500"})
  void remainingBudgetAtANowCountsTheTimeSinceArrival(long arrival, long now, long remaining) {
    Request r = minimal().ttftBudget(Duration.ofMillis(600))
        .upstreamElapsed(Duration.ofMillis(100)).arrivalNanos(arrival).build();

    assertThat(r.remainingBudgetMillis(now)).hasValue(remaining);
  }

  @Test
  void remainingBudgetAtANowIsTheBudgetWithoutAnArrivalAndEmptyWithoutABudget() {
    Request noArrival = minimal().ttftBudget(Duration.ofMillis(600)).build();
    Request noBudget = minimal().arrivalNanos(0).build();
    Request spent = minimal().ttftBudget(Duration.ofMillis(0))
        .upstreamElapsed(Duration.ofSeconds(Long.MAX_VALUE / 2)).arrivalNanos(0).build();

    assertThat(noArrival.remainingBudgetMillis(5_000_000_000L)).hasValue(600);
    assertThat(noBudget.remainingBudgetMillis(5_000_000_000L)).isEmpty();
    assertThat(spent.remainingBudgetMillis(Long.MAX_VALUE)).hasValue(Long.MIN_VALUE);
  }

  @Test
  void noBudgetMeansNoRemainingBudget() {
    Request r = minimal().upstreamElapsed(Duration.ofMillis(300)).build();

    assertThat(r.remainingBudgetMillis()).isEmpty();
  }

  @Test
  void nextAttemptKeepsEverythingButTheAttempt() {
    Request first = full();
    Request second = first.nextAttempt();

    assertThat(second.attempt()).isEqualTo(first.attempt() + 1);
    assertThat(second.nextAttempt().attempt()).isEqualTo(first.attempt() + 2);
    assertThat(values(second).subList(2, 14)).isEqualTo(values(first).subList(2, 14));
    assertThat(second.id()).isEqualTo(first.id());
  }

  @Test
  void plannedOutputTokensPrefersTheExpectation() {
    assertThat(minimal().maxOutputTokens(400).expectedOutputTokens(50).build()
        .plannedOutputTokens()).isEqualTo(50);
    assertThat(minimal().maxOutputTokens(400).build().plannedOutputTokens()).isEqualTo(400);
    assertThat(minimal().maxOutputTokens(400).expectedOutputTokens(0).build()
        .plannedOutputTokens()).isZero();
  }

  @Test
  void toBuilderRoundTripKeepsAllValues() {
    Request full = full();
    Request minimal = minimal().build();

    assertThat(values(full.toBuilder().build())).isEqualTo(values(full));
    assertThat(values(minimal.toBuilder().build())).isEqualTo(values(minimal));
  }

  @Test
  void toBuilderAllowsChangingDefaultedOptions() {
    Request changed = full().toBuilder().attempt(5).priority(Priority.INTERACTIVE)
        .maxOutputTokens(1000).upstreamElapsed(Duration.ofMillis(1)).build();

    assertThat(changed.attempt()).isEqualTo(5);
    assertThat(changed.priority()).isEqualTo(Priority.INTERACTIVE);
    assertThat(changed.maxOutputTokens()).isEqualTo(1000);
    assertThat(changed.upstreamElapsed()).isEqualTo(Duration.ofMillis(1));
    assertThat(changed.id()).isEqualTo("req-9");
  }

  @Test
  void toBuilderStillChecksConsistency() {
    Request.Builder b = full().toBuilder().maxOutputTokens(100);

    assertThatIllegalArgumentException().isThrownBy(b::build)
        .withMessageContaining("expectedOutputTokens: 120")
        .withMessageContaining("<= maxOutputTokens = 100");
  }

  private static Request withEveryOption() {
    return Request.newBuilder().id("req-1").model("llama").modelVersion("v1")
        .prompt(PromptKey.unhashed(10)).ttftBudget(Duration.ofMillis(500)).expectedOutputTokens(10)
        .build();
  }

  @Test
  void toBuilderAllowsSettingEachOptionOnceMore() {
    assertThat(withEveryOption().toBuilder().model("other").build().model()).isEqualTo("other");
    assertThat(withEveryOption().toBuilder().ttftBudget(Duration.ofMillis(100)).build().ttftBudget())
        .contains(Duration.ofMillis(100));
    assertThat(withEveryOption().toBuilder().id("req-2").build().id()).isEqualTo("req-2");
  }

  // ------------------------------------------------------------------ the prompt's namespace

  private static final int[] TOKENS = new int[40];

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', nullValues = "-", value = {
      "another model      | other | -  | -    | m   | -  | -    | prompt namespace: other (expected: m, the request's model, version and adapter)",
      "another version    | m     | v1 | -    | m   | v2 | -    | prompt namespace: m@v1 (expected: m@v2, the request's model, version and adapter)",
      "a version missing  | m     | -  | -    | m   | v2 | -    | prompt namespace: m (expected: m@v2, the request's model, version and adapter)",
      "an adapter missing | m     | -  | -    | m   | -  | sql  | prompt namespace: m (expected: m+sql, the request's model, version and adapter)",
      "another adapter    | m     | v1 | chat | m   | v1 | sql  | prompt namespace: m@v1+chat (expected: m@v1+sql, the request's model, version and adapter)",
  })
  void aPromptHashedForAnotherNamespaceIsRefused(String what, String nsModel, String nsVersion,
      String nsAdapter, String model, String version, String adapter, String message) {
    Request.Builder b = Request.newBuilder().id("r").model(model)
        .prompt(PromptKey.ofTokens(TOKENS, CacheNamespace.of(nsModel, nsVersion, nsAdapter)));
    if (version != null) {
      b.modelVersion(version);
    }
    if (adapter != null) {
      b.adapter(adapter);
    }

    assertThatIllegalArgumentException().isThrownBy(b::build).withMessage(message);
  }

  @Test
  void aPromptInTheRequestsNamespaceIsAccepted_keyedOrNot_andAnUnhashedOneHasNone() {
    CacheNamespace ns = CacheNamespace.of("m", "v1", "sql");
    byte[] secret = new byte[32];
    for (PromptKey prompt : List.of(PromptKey.ofTokens(TOKENS, ns),
        PromptKey.ofText("a prompt of some length", ns.keyed(secret)),
        PromptKey.ofBlockHashes(new long[] {1, 2}, 16, 32, ns))) {
      Request r = Request.newBuilder().id("r").model("m").modelVersion("v1").adapter("sql")
          .prompt(prompt).build();
      assertThat(r.prompt().namespace()).isPresent();
    }
    Request unhashed = Request.newBuilder().id("r").model("anything").prompt(PROMPT).build();
    assertThat(unhashed.prompt().namespace()).isEmpty();
  }

  @Test
  void aVariationToAnotherModelMustBringItsPrompt() {
    Request base = Request.newBuilder().id("r").model("m")
        .prompt(PromptKey.ofTokens(TOKENS, CacheNamespace.of("m"))).build();

    assertThatIllegalArgumentException().isThrownBy(() -> base.toBuilder().model("n").build())
        .withMessageStartingWith("prompt namespace: m (expected: n,");
    assertThat(base.toBuilder().model("n")
        .prompt(PromptKey.ofTokens(TOKENS, CacheNamespace.of("n"))).build().model()).isEqualTo("n");
  }
}
