package io.github.kvroute.core;

import static io.github.kvroute.core.TestData.outcome;
import static io.github.kvroute.core.TestData.prompt;
import static io.github.kvroute.core.TestData.queued;
import static io.github.kvroute.core.TestData.ready;
import static io.github.kvroute.core.TestData.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A router with several listeners tells each of them every event; a throwing one is contained. */
class RouterListenersTest {
  private final ManualTicker ticker = new ManualTicker();

  /** Records every event as a line prefixed with its name; optionally throws after recording. */
  private static final class Listener implements RouterListener {
    final String name;
    final List<String> log;
    final boolean throwing;
    final List<String> failures = new CopyOnWriteArrayList<>();

    Listener(String name, List<String> log, boolean throwing) {
      this.name = name;
      this.log = log;
      this.throwing = throwing;
    }

    private void hear(String event) {
      log.add(name + " " + event);
      if (throwing) {
        throw new IllegalStateException(name + " bug");
      }
    }

    @Override
    public void onDecision(Request request, RoutingDecision decision) {
      hear("decision " + request.id());
    }

    @Override
    public void onOutcome(Outcome outcome, UpdateResult result) {
      hear("outcome " + outcome.requestId() + " " + result);
    }

    @Override
    public void onTtftObserved(
        RequestRef attempt, String replicaId, double predictedMillis, double actualMillis) {
      hear("ttft " + attempt);
    }

    @Override
    public void onReplicaStateChanged(
        String replicaId, long epoch, ReplicaState previous, ReplicaState current) {
      hear("state " + replicaId + " " + current);
    }

    @Override
    public void onPluginFailure(String plugin, Throwable error) {
      failures.add(plugin + ": " + error.getMessage());
    }
  }

  @Test
  void everyListenerHearsEveryEventInTheOrderTheyWereAdded() {
    List<String> log = new CopyOnWriteArrayList<>();
    Listener a = new Listener("a", log, false);
    Listener b = new Listener("b", log, false);
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .listener(a).listener(b).build();

    router.onSnapshot(queued("r0", 0));
    Request r = request("q-1", prompt(256, 1)).build();
    RoutingDecision d = router.route(r);
    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).ttft(Duration.ofMillis(50)).build());

    assertThat(log).containsExactly(
        "a state r0 READY", "b state r0 READY",
        "a decision q-1", "b decision q-1",
        "a ttft q-1#1", "b ttft q-1#1",
        "a outcome q-1 APPLIED", "b outcome q-1 APPLIED");
  }

  @Test
  void aThrowingListenerIsContainedCountedAndReportedToTheOthersWhoStillHearTheEvent() {
    List<String> log = new CopyOnWriteArrayList<>();
    Listener first = new Listener("first", log, true);
    Listener second = new Listener("second", log, false);
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .listener(first).listener(second).build();

    router.onSnapshot(queued("r0", 0));
    Request r = request("q-1", prompt(256, 1)).build();
    RoutingDecision d = router.route(r);
    UpdateResult result = router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build());

    assertThat(d.isRouted()).isTrue();
    assertThat(result).isEqualTo(UpdateResult.APPLIED);
    assertThat(log).containsExactly(
        "first state r0 READY", "second state r0 READY",
        "first decision q-1", "second decision q-1",
        "first outcome q-1 APPLIED", "second outcome q-1 APPLIED");
    // three events, each contained once
    assertThat(router.stats().pluginFailures()).isEqualTo(3);
    String name = PluginGuard.listenerName(first);
    assertThat(second.failures).containsExactly(
        name + ": first bug", name + ": first bug", name + ": first bug");
    assertThat(first.failures).isEmpty();
  }

  @Test
  void otherPluginsFailuresReachEveryListener() {
    List<String> log = new CopyOnWriteArrayList<>();
    Listener a = new Listener("a", log, false);
    Listener b = new Listener("b", log, false);
    RoutingPolicy throwing = new RoutingPolicy() {
      @Override
      public String name() {
        return "thrower";
      }

      @Override
      public RoutingDecision route(RoutingContext context) {
        throw new IllegalStateException("policy bug");
      }
    };
    Router router = Router.newBuilder().policy(throwing).ticker(ticker)
        .listener(a).listener(b).build();
    router.onSnapshot(queued("r0", 0));

    router.route(request("q-1", prompt(256, 1)).build());

    assertThat(a.failures).containsExactly("policy thrower: policy bug");
    assertThat(b.failures).isEqualTo(a.failures);
  }

  @Test
  void theTtftEventCarriesTheOutcomesTtftBesideThePrediction() {
    List<double[]> seen = new CopyOnWriteArrayList<>();
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .listener(ttftRecorder(seen)).build();
    router.onSnapshot(queued("r0", 120));
    Request r = request("q-1", prompt(256, 1)).build();
    RoutingDecision d = router.route(r);

    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).ttft(Duration.ofMillis(400)).build());

    assertThat(seen).hasSize(1);
    assertThat(seen.get(0)[0]).isEqualTo(d.cost().totalMillis());
    assertThat(seen.get(0)[1]).isEqualTo(400.0);
  }

  @Test
  void withoutAnOutcomeTtftTheFirstTokenReportIsTheActualTtft() {
    List<double[]> seen = new CopyOnWriteArrayList<>();
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .listener(ttftRecorder(seen)).build();
    router.onSnapshot(queued("r0", 0));
    Request r = request("q-1", prompt(256, 1)).build();
    RoutingDecision d = router.route(r);
    ticker.advanceMillis(75);
    router.onFirstToken("q-1", 1, d.replicaId(), d.epoch());
    ticker.advanceMillis(500);

    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build());

    assertThat(seen).hasSize(1);
    assertThat(seen.get(0)[1]).isCloseTo(75.0, within(1e-9));
  }

  @Test
  void anAttemptWithNoTtftAndNoFirstTokenIsNotReported() {
    List<double[]> seen = new CopyOnWriteArrayList<>();
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy()).ticker(ticker)
        .listener(ttftRecorder(seen)).build();
    router.onSnapshot(queued("r0", 0));
    Request r = request("q-1", prompt(256, 1)).build();
    RoutingDecision d = router.route(r);
    Outcome o = outcome(r, d, OutcomeStatus.SUCCESS).ttft(Duration.ofMillis(10)).build();

    router.onOutcome(outcome(r, d, OutcomeStatus.SUCCESS).build());
    router.onOutcome(o); // a duplicate with a TTFT: not applied, not reported

    assertThat(seen).isEmpty();
  }

  @Test
  void listenerIsAddedNotReplaced() {
    List<String> log = new CopyOnWriteArrayList<>();
    Router router = Router.newBuilder().policy(new LeastEstimatePolicy())
        .listener(new Listener("a", log, false))
        .listener(new Listener("b", log, false)).listener(new Listener("c", log, false)).build();

    router.onSnapshot(ready("r0").build());

    assertThat(log).containsExactly("a state r0 READY", "b state r0 READY", "c state r0 READY");
  }

  private static RouterListener ttftRecorder(List<double[]> seen) {
    return new RouterListener() {
      @Override
      public void onTtftObserved(
          RequestRef attempt, String replicaId, double predictedMillis, double actualMillis) {
        seen.add(new double[] {predictedMillis, actualMillis});
      }
    };
  }
}
