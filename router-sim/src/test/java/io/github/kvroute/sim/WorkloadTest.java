package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class WorkloadTest {

  static Stream<String> named() {
    return Scenarios.all().stream().map(Scenario::name);
  }

  static List<SimRequest> take(Workload w, long seed, int n, double rateScale) {
    List<SimRequest> out = new ArrayList<>();
    w.requests(seed, n, rateScale, 16).forEachRemaining(out::add);
    return out;
  }

  @ParameterizedTest
  @MethodSource("named")
  void streamsAreDeterministicSortedUniqueAndInTheBlockSize(String name) {
    Workload w = Scenarios.named(name).orElseThrow().workload();
    List<SimRequest> a = take(w, 5, 500, 1.0);
    List<SimRequest> b = take(w, 5, 500, 1.0);
    List<SimRequest> c = take(w, 6, 500, 1.0);

    assertThat(a).hasSize(500);
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < a.size(); i++) {
      SimRequest r = a.get(i);
      assertThat(ids.add(r.id())).as("unique id %s", r.id()).isTrue();
      assertThat(r.prompt().blockSizeTokens()).isEqualTo(16);
      assertThat(r.prompt().blockCount()).isEqualTo(r.promptTokens() / 16);
      assertThat(r.toString()).isEqualTo(b.get(i).toString());
      assertThat(r.prompt()).isEqualTo(b.get(i).prompt());
      if (i > 0) {
        assertThat(r.arrivalNanos()).isGreaterThanOrEqualTo(a.get(i - 1).arrivalNanos());
      }
    }
    assertThat(a.stream().map(SimRequest::toString).toList())
        .isNotEqualTo(c.stream().map(SimRequest::toString).toList());
  }

  @ParameterizedTest
  @MethodSource("named")
  void rateScaleMovesTheSameRequestsInTime(String name) {
    Workload w = Scenarios.named(name).orElseThrow().workload();
    List<SimRequest> normal = take(w, 3, 200, 1.0);
    List<SimRequest> doubled = take(w, 3, 200, 2.0);
    for (int i = 0; i < normal.size(); i++) {
      assertThat(doubled.get(i).prompt()).isEqualTo(normal.get(i).prompt());
      assertThat((double) doubled.get(i).arrivalNanos())
          .isCloseTo(normal.get(i).arrivalNanos() / 2.0, org.assertj.core.data.Offset.offset(2.0));
    }
  }

  @Test
  void tenantsShareTheirSystemPromptAndNothingElse() {
    List<SimRequest> rs = take(Scenarios.named("multi-tenant").orElseThrow().workload(), 1, 300, 1);
    for (SimRequest a : rs) {
      for (SimRequest b : rs.subList(0, 50)) {
        if (a == b) {
          continue;
        }
        int shared = sharedLeadingBlocks(a, b);
        if (a.tenant().equals(b.tenant())) {
          int systemBlocks = systemTokens(a) / 16;
          assertThat(shared).isEqualTo(systemBlocks);
        } else {
          assertThat(shared).isZero();
        }
      }
    }
  }

  private static int systemTokens(SimRequest r) {
    int t = Integer.parseInt(r.tenant().orElseThrow().substring("tenant-".length()));
    return new int[] {3_000, 2_800, 2_600, 3_000, 2_800, 2_600}[t];
  }

  static int sharedLeadingBlocks(SimRequest a, SimRequest b) {
    int n = Math.min(a.prompt().blockCount(), b.prompt().blockCount());
    int i = 0;
    while (i < n && a.prompt().blockHash(i) == b.prompt().blockHash(i)) {
      i++;
    }
    return i;
  }

  @Test
  void eachChatTurnExtendsThePreviousTurnsPrompt() {
    List<SimRequest> rs = take(Scenarios.named("multi-turn-chat").orElseThrow().workload(), 1, 600, 1);
    java.util.Map<String, SimRequest> lastTurn = new java.util.HashMap<>();
    int checked = 0;
    for (SimRequest r : rs) {
      SimRequest previous = lastTurn.put(r.sessionId().orElseThrow(), r);
      if (previous != null) {
        assertThat(r.arrivalNanos()).isGreaterThan(previous.arrivalNanos() + 1_999_999_999L);
        assertThat(r.promptTokens()).isGreaterThan(previous.promptTokens() + previous.outputTokens());
        // every full block of the previous prompt is a full block of this one
        assertThat(sharedLeadingBlocks(r, previous)).isEqualTo(previous.prompt().blockCount());
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(200);
  }

  @Test
  void hotPrefixGrowsOverTheRun() {
    List<SimRequest> rs = take(Scenarios.named("hot-prefix").orElseThrow().workload(), 1, 2_000, 1);
    long early = rs.subList(0, 400).stream().filter(r -> r.tenant().orElseThrow().equals("hot")).count();
    long late = rs.subList(1_600, 2_000).stream().filter(r -> r.tenant().orElseThrow().equals("hot"))
        .count();
    assertThat(early).isLessThan(80);
    assertThat(late).isGreaterThan(220);
  }

  @Test
  void ragOutputsAreNineteenToFortySevenTimesShorterThanPrompts() {
    for (SimRequest r : take(Scenarios.named("rag-long-docs").orElseThrow().workload(), 1, 500, 1)) {
      double ratio = (double) r.promptTokens() / r.outputTokens();
      assertThat(ratio).isBetween(18.9, 47.1);
    }
  }

  @Test
  void overloadRequestsCarryPrioritiesAndBudgets() {
    List<SimRequest> rs = take(Scenarios.named("overload").orElseThrow().workload(), 1, 1_000, 1);
    assertThat(rs).anyMatch(r -> r.priority() == io.github.kvroute.api.Priority.INTERACTIVE
        && r.ttftBudget().orElseThrow().toMillis() == 1_000);
    assertThat(rs).anyMatch(r -> r.priority() == io.github.kvroute.api.Priority.BATCH
        && r.ttftBudget().isEmpty());
    assertThat(rs.stream().mapToInt(SimRequest::promptTokens).max().orElseThrow())
        .isGreaterThan(50 * rs.stream().mapToInt(SimRequest::promptTokens).min().orElseThrow());
  }

  @Test
  void fixedWorkloadChecksItsInput() {
    SimRequest late = SimFixtures.unique("late", 10, 100, 1, 1);
    SimRequest early = SimFixtures.unique("early", 5, 100, 2, 1);
    assertThatThrownBy(() -> Workload.fixed(List.of(late, early)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("requests[1].arrivalNanos: 5000000 (expected: >= the previous request's"
            + " 10000000)");
    assertThatThrownBy(() -> Workload.fixed(List.of()))
        .hasMessage("requests: [] (expected: at least one request)");
    assertThatThrownBy(() -> Workload.fixed(List.of(early)).requests(1, 1, 1, 32))
        .hasMessage("early.prompt.blockSizeTokens: 16 (expected: the scenario's 32)");
    assertThatThrownBy(() -> Workload.fixed(List.of(early)).requests(1, 0, 1, 16))
        .hasMessage("count: 0 (expected: >= 1)");
  }

  @Test
  void simRequestValidatesAndConvertsToARouterRequest() {
    SimRequest r = SimFixtures.unique("a", 1, 100, 1, 7);
    io.github.kvroute.api.Request q = r.toRouterRequest();
    assertThat(q.id()).isEqualTo("a");
    assertThat(q.maxOutputTokens()).isEqualTo(7);
    assertThat(q.arrivalNanos()).hasValue(1_000_000);
    assertThat(q.promptTokens()).isEqualTo(100);
    assertThatThrownBy(() -> SimRequest.newBuilder().id("x").outputTokens(0))
        .hasMessage("outputTokens: 0 (expected: >= 1)");
    assertThatThrownBy(() -> SimRequest.newBuilder().id("x").id("y"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("id: already set (expected: each builder option set once)");
    assertThatThrownBy(() -> SimRequest.newBuilder().id("x").build())
        .hasMessage("arrivalNanos: unset (expected: set before build)");
  }
}
