package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.core.ReplicaBreaker.Permit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The per-replica breaker's state machine, driven directly with explicit times. */
class ReplicaBreakerTest {
  private static final long SECOND = 1_000_000_000L;
  private static final long OPENED_AT = 100 * SECOND;

  private final List<String> transitions = new ArrayList<>();

  private ReplicaBreaker breaker(BreakerConfig config) {
    return new ReplicaBreaker(config, (from, to) -> transitions.add(from + "->" + to));
  }

  /** Opened at {@link #OPENED_AT} by consecutive failures; 10 s open; {@code probes} probes. */
  private ReplicaBreaker opened(int probes) {
    ReplicaBreaker b = breaker(BreakerConfig.newBuilder().consecutiveFailures(1)
        .openDuration(Duration.ofSeconds(10)).halfOpenProbes(probes).build());
    b.onOutcome(true, false, OPENED_AT);
    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    return b;
  }

  /** Half-open: waited and READY seen after opening; no probe place taken. */
  private ReplicaBreaker halfOpen(int probes) {
    ReplicaBreaker b = opened(probes);
    assertThat(b.acquire(OPENED_AT + 10 * SECOND, OPENED_AT + 1)).isEqualTo(Permit.PROBE);
    assertThat(b.state()).isEqualTo(BreakerState.HALF_OPEN);
    b.releaseProbe();
    return b;
  }

  private static void feed(ReplicaBreaker b, String outcomes) {
    long t = 0;
    for (char c : outcomes.toCharArray()) {
      b.onOutcome(c == 'F', false, t += SECOND);
    }
  }

  // -------------------------------------------------------------------------------- opening

  @ParameterizedTest(name = "window {0}, min {1}, rate {2}, consecutive {3}: {4} -> {5}")
  @CsvSource({
      // consecutive failures, the rate out of reach
      "20, 20, 1.0, 3, FF,               CLOSED",
      "20, 20, 1.0, 3, FFF,              OPEN",
      "20, 20, 1.0, 3, FFSFF,            CLOSED",
      "20, 20, 1.0, 3, FFSFFF,           OPEN",
      // failure rate over the window, once the minimum number of calls is in
      "10,  4, 0.5, 99, FSF,             CLOSED",
      "10,  4, 0.5, 99, FSFS,            OPEN",
      "10,  4, 0.5, 99, FSSS,            CLOSED",
      "10,  4, 0.5, 99, SSSFF,           CLOSED",
      "10,  4, 0.5, 99, SSSFFF,          OPEN",
      // the window slides: old successes fall out of it
      "10, 10, 0.5, 99, SSSSSSSSSSFFFF,  CLOSED",
      "10, 10, 0.5, 99, SSSSSSSSSSFFFFF, OPEN",
      // a window of 64 outcomes (the widest)
      "64, 64, 0.5, 99, SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF, CLOSED",
      "64, 64, 0.5, 99, SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF, OPEN",
  })
  void opensOnConsecutiveFailuresOrOnTheFailureRate(int window, int minimumCalls, double rate,
      int consecutive, String outcomes, BreakerState expected) {
    ReplicaBreaker b = breaker(BreakerConfig.newBuilder().windowSize(window)
        .minimumCalls(minimumCalls).failureRateThreshold(rate).consecutiveFailures(consecutive)
        .build());

    feed(b, outcomes);

    assertThat(b.state()).isEqualTo(expected);
    assertThat(transitions).containsExactlyElementsOf(
        expected == BreakerState.OPEN ? List.of("CLOSED->OPEN") : List.of());
  }

  @Test
  void closedBreakerPermitsWithoutAnyReadyReport() {
    ReplicaBreaker b = breaker(BreakerConfig.defaults());

    assertThat(b.acquire(0, Long.MIN_VALUE)).as("free, not a probe").isEqualTo(Permit.FREE);
  }

  // ------------------------------------------------------------------------- open to half-open

  @ParameterizedTest(name = "{0} ms after opening, READY observed {1} ms after opening -> {2}")
  @CsvSource({
      // open: no traffic, whatever the readiness signal says
      "0,     1,    false",
      "9999,  5000, false",
      // waited, but no READY observed since opening (a stale READY from before does not count)
      "10000, -1,   false",
      "60000, 0,    false",
      // waited and a fresh READY
      "10000, 1,    true",
      "60000, 59000, true",
  })
  void halfOpensOnlyAfterTheOpenDurationAndAFreshReadyReport(
      long elapsedMillis, long readyAfterOpenMillis, boolean permits) {
    ReplicaBreaker b = opened(1);
    long ready = readyAfterOpenMillis < 0 ? Long.MIN_VALUE : OPENED_AT + readyAfterOpenMillis * 1_000_000;

    assertThat(b.acquire(OPENED_AT + elapsedMillis * 1_000_000, ready))
        .isEqualTo(permits ? Permit.PROBE : Permit.DENIED);
    assertThat(b.state()).isEqualTo(permits ? BreakerState.HALF_OPEN : BreakerState.OPEN);
  }

  @ParameterizedTest(name = "at most {0} probes in flight")
  @CsvSource({"1", "2", "3"})
  void halfOpenAdmitsAtMostHalfOpenProbesInFlight(int probes) {
    ReplicaBreaker b = halfOpen(probes);
    long now = OPENED_AT + 11 * SECOND;

    for (int i = 0; i < probes; i++) {
      assertThat(b.acquire(now, OPENED_AT + 1)).as("probe %d", i + 1).isEqualTo(Permit.PROBE);
    }

    assertThat(b.acquire(now, OPENED_AT + 1)).isEqualTo(Permit.DENIED);
    b.releaseProbe();
    assertThat(b.acquire(now, OPENED_AT + 1)).as("a released probe frees its place")
        .isEqualTo(Permit.PROBE);
  }

  @Test
  void closesAfterHalfOpenProbesSuccessfulProbes_withAFreshWindow() {
    ReplicaBreaker b = halfOpen(2);
    long now = OPENED_AT + 11 * SECOND;
    b.acquire(now, OPENED_AT + 1);
    b.acquire(now, OPENED_AT + 1);

    b.onOutcome(false, true, now);
    assertThat(b.state()).isEqualTo(BreakerState.HALF_OPEN);
    b.onOutcome(false, true, now);

    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
    assertThat(b.acquire(now, Long.MIN_VALUE)).isEqualTo(Permit.FREE);
  }

  @Test
  void successesThatAreNotProbesDoNotCloseAHalfOpenBreaker() {
    ReplicaBreaker b = halfOpen(1);

    b.onOutcome(false, false, OPENED_AT + 11 * SECOND);

    assertThat(b.state()).isEqualTo(BreakerState.HALF_OPEN);
  }

  @ParameterizedTest(name = "failure after {0} successful probes reopens")
  @CsvSource({"0", "1", "2"})
  void anyProbeFailureReopens_andTheWaitStartsAgain(int successes) {
    ReplicaBreaker b = halfOpen(3);
    long now = OPENED_AT + 11 * SECOND;
    for (int i = 0; i < 3; i++) {
      b.acquire(now, OPENED_AT + 1);
    }
    for (int i = 0; i < successes; i++) {
      b.onOutcome(false, true, now);
    }

    b.onOutcome(true, true, now);

    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
    assertThat(transitions).endsWith("HALF_OPEN->OPEN");
    assertThat(b.acquire(now + 9 * SECOND, now + 1)).as("a new open period")
        .isEqualTo(Permit.DENIED);
    assertThat(b.acquire(now + 10 * SECOND, now)).as("READY must follow the reopening")
        .isEqualTo(Permit.DENIED);
    assertThat(b.acquire(now + 10 * SECOND, now + 1)).isEqualTo(Permit.PROBE);
  }

  @Test
  void outcomesWhileOpenAreIgnored() {
    ReplicaBreaker b = opened(1);

    b.onOutcome(false, false, OPENED_AT + SECOND);

    assertThat(b.state()).isEqualTo(BreakerState.OPEN);
  }

  @Test
  void resetClosesTheBreaker_forANewProcess() {
    ReplicaBreaker b = opened(1);

    b.reset();

    assertThat(b.state()).isEqualTo(BreakerState.CLOSED);
    assertThat(transitions).containsExactly("CLOSED->OPEN", "OPEN->CLOSED");
    assertThat(b.acquire(OPENED_AT, Long.MIN_VALUE)).isEqualTo(Permit.FREE);
  }

  // ------------------------------------------------------------------------ what counts

  @ParameterizedTest
  @EnumSource(OutcomeStatus.class)
  void onlyServerErrorsTimeoutsAndConnectionFailuresCountAgainstAReplica(OutcomeStatus status) {
    boolean expected = switch (status) {
      case REPLICA_ERROR, TIMEOUT, CONNECTION_FAILED -> true;
      case SUCCESS, REJECTED_BY_REPLICA, CANCELLED, CLIENT_ERROR -> false;
    };

    assertThat(status.countsAgainstReplica()).isEqualTo(expected);
  }

  // ------------------------------------------------------------------------------ config

  @Test
  void configDefaultsAreDocumented() {
    BreakerConfig c = BreakerConfig.defaults();

    assertThat(c.windowSize()).isEqualTo(20);
    assertThat(c.minimumCalls()).isEqualTo(10);
    assertThat(c.failureRateThreshold()).isEqualTo(0.5);
    assertThat(c.consecutiveFailures()).isEqualTo(5);
    assertThat(c.openDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.halfOpenProbes()).isEqualTo(3);
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(delimiter = '|', value = {
      "windowSize 65     | windowSize: 65 (expected: in [1, 64])",
      "windowSize 0      | windowSize: 0 (expected: in [1, 64])",
      "minimumCalls 0    | minimumCalls: 0 (expected: >= 1)",
      "threshold 0       | failureRateThreshold: 0.0 (expected: in (0, 1])",
      "consecutive 0     | consecutiveFailures: 0 (expected: >= 1)",
      "probes 0          | halfOpenProbes: 0 (expected: >= 1)",
      "minimumCalls 30   | minimumCalls: 30 (expected: <= windowSize = 20)",
  })
  void badConfigValuesAreRejectedWithTheExpectedRange(String option, String message) {
    String[] parts = option.split(" ");
    int v = Integer.parseInt(parts[1]);
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> {
      BreakerConfig.Builder b = BreakerConfig.newBuilder();
      switch (parts[0]) {
        case "windowSize" -> b.windowSize(v);
        case "minimumCalls" -> b.minimumCalls(v);
        case "threshold" -> b.failureRateThreshold(v);
        case "consecutive" -> b.consecutiveFailures(v);
        case "probes" -> b.halfOpenProbes(v);
        default -> throw new AssertionError(option);
      }
      b.build();
    }).withMessage(message);
  }
}
