package io.github.kvroute.examples;

import io.github.kvroute.api.ManualTicker;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateExplanation;
import io.github.kvroute.api.DecisionExplanation;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import io.github.kvroute.core.CostModel;
import io.github.kvroute.core.Router;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;

/**
 * Routes the worked examples of docs/cost-model.md through the real router and prints every
 * decision with the cost breakdown of every candidate: partial locality wins (R2 at 220 ms), a
 * longer queue flips it (R1), an adapter load sends R1 to last place, and admission turns a tight
 * budget into a rejection with a retry-after. The breakdowns come from
 * {@link Router#routeExplained}: the decision actually made, with the router's own seed and no
 * wrapper around the policy.
 */
final class Demo {
  private static final String MODEL = "llama-3-70b";
  private static final CacheNamespace NS = CacheNamespace.of(MODEL);

  private final PrintStream out;

  Demo(PrintStream out) {
    this.out = out;
  }

  void run() {
    out.println("kvroute demo: the cost model's placement example through the real Router");
    out.println("(0.06 ms per missing token, no prefill overhead; R0 holds the whole 4,000-token"
        + " prompt, R2 half of it, R1 nothing)");
    int[] doc = tokens(4_000, 7);
    PromptKey prompt = PromptKey.ofTokens(doc, NS);

    scene("1. queues R0 300 / R1 0 / R2 100 ms: partial locality wins", prompt, 300, 0, 100,
        Set.of(), null, Duration.ZERO);
    scene("2. R2's queue grows to 150 ms: R1 wins (240 < 270)", prompt, 300, 0, 150, Set.of(),
        null, Duration.ZERO);
    scene("3. R0's queue falls to 200 ms: R0 wins (below 220)", prompt, 200, 0, 100, Set.of(),
        null, Duration.ZERO);
    scene("4. the request needs adapter 'sql-lora', resident on R0 and R2 only: R1 costs 1,040 ms",
        prompt, 300, 0, 100, Set.of("sql-lora"), "sql-lora", Duration.ZERO);
    scene("5. 350 ms already spent upstream of a 600 ms TTFT SLO: budget 250, R2 admitted", prompt,
        300, 0, 100, Set.of(), null, Duration.ofMillis(350));
    scene("6. 400 ms spent upstream: budget 200, nothing fits, rejected with a retry-after", prompt,
        300, 0, 100, Set.of(), null, Duration.ofMillis(400));
    roundRobinExample();
  }

  private void scene(String title, PromptKey prompt, double q0, double q1, double q2,
      Set<String> adapters, String adapter, Duration upstream) {
    out.println();
    out.println(title);
    ManualTicker ticker = new ManualTicker();
    CostModel model = CostModel.newBuilder().prefillOverheadMillis(0).prefillMillisPerToken(0.06)
        .build();
    try (Router router = Router.newBuilder().policy("hybrid-cost").costModel(model).ticker(ticker)
        .seed(42).build()) {
      String[] ids = {"R0", "R1", "R2"};
      double[] queues = {q0, q1, q2};
      for (int i = 0; i < 3; i++) {
        ReplicaSnapshot.Builder s = ReplicaSnapshot.newBuilder().replicaId(ids[i]).model(MODEL)
            .observedAtNanos(ticker.read()).estimatedQueueDelayMillis(queues[i]);
        if (i != 1) {
          s.residentAdapters(adapters);
        }
        router.onSnapshot(s.build());
      }
      ns(router, "R0", prompt, prompt.blockCount());
      ns(router, "R2", prompt, prompt.blockCount() / 2);
      Request.Builder r = Request.newBuilder().id("req-1").model(MODEL).prompt(prompt)
          .maxOutputTokens(256).ttftBudget(Duration.ofMillis(600)).upstreamElapsed(upstream);
      if (adapter != null) {
        r.adapter(adapter);
      }
      DecisionExplanation e = router.routeExplained(r.build());
      print(e, 3);
      out.println("   -> " + e.decision());
    }
  }

  private void roundRobinExample() {
    out.println();
    out.println("7. the round-robin example (default cost model: 20 ms + 0.035 ms/token):"
        + " a 1,000-token prompt, one replica idle, one behind a queued 40,000-token prompt");
    ManualTicker ticker = new ManualTicker();
    try (Router router = Router.newBuilder().policy("round-robin").ticker(ticker).seed(1).build()) {
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("busy").model(MODEL)
          .waitingRequests(1).queuedPrefillTokens(40_000).observedAtNanos(0).build());
      router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("idle").model(MODEL)
          .waitingRequests(0).queuedPrefillTokens(0).observedAtNanos(0).build());
      PromptKey p = PromptKey.ofTokens(tokens(1_000, 3), NS);
      for (int i = 1; i <= 2; i++) {
        DecisionExplanation e = router.routeExplained(Request.newBuilder().id("rr-" + i)
            .model(MODEL).prompt(p).build());
        print(e, 4);
        out.println("   -> round-robin: " + e.decision());
      }
    }
  }

  /** Every replica's predicted TTFT by term, as the policy saw it (or why it was left out). */
  private void print(DecisionExplanation e, int idWidth) {
    for (CandidateExplanation c : e.candidates()) {
      out.printf("   %-" + idWidth + "s %s%n", c.replicaId(),
          c.verdict() == CandidateExplanation.Verdict.INELIGIBLE ? c.reason() : c.estimate());
    }
  }

  private static void ns(Router router, String replica, PromptKey prompt, int blocks) {
    long[] keys = Arrays.copyOf(prompt.blockHashes(), blocks);
    router.onKvEvent(KvEvent.stored(replica, 0, keys));
  }

  private static int[] tokens(int n, int seed) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = (i * 31 + seed) % 50_000;
    }
    return t;
  }
}
