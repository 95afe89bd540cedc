package io.github.kvroute.sim;

import static io.github.kvroute.sim.SimFixtures.concat;
import static io.github.kvroute.sim.SimFixtures.ids;
import static io.github.kvroute.sim.SimFixtures.nanos;
import static io.github.kvroute.sim.SimFixtures.oneReplica;
import static io.github.kvroute.sim.SimFixtures.request;
import static io.github.kvroute.sim.SimFixtures.runRecorded;
import static io.github.kvroute.sim.SimFixtures.stepMillis;
import static io.github.kvroute.sim.SimFixtures.unique;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.Priority;
import io.github.kvroute.api.PromptKey;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The replica model against timelines computed by hand from the step formula
 * {@code 8 + 0.06 x sequences + 20 x prefillsStarting + 0.035 x prefillTokens} ms (defaults).
 */
class ReplicaTimelineTest {

  @Test
  void lonePromptGetsItsFirstTokenAfterOneStep() {
    // 20 + 0.035 x 1,000 = 55 ms of prefill plus one decode step (docs/cost-model.md)
    var run = runRecorded(oneReplica(List.of(unique("a", 0, 1_000, 1, 1))).build(), "round-robin");

    assertThat(run.get("a").ttftNanos()).isEqualTo(nanos(63.06));
    assertThat(stepMillis(1, 1, 1_000)).isCloseTo(55 + 8.06, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(run.get("a").cachedTokens()).isZero();
    assertThat(run.get("a").queueNanos()).as("admitted at once").isZero();
    assertThat(run.get("a").predicted().millis("prefill")).as("the router's prediction, kept")
        .hasValue(55.0);
    assertThat(run.get("a").predicted().millis("queue")).hasValue(0.0);
  }

  @Test
  void secondRequestReusesTheSharedPrefix() {
    // A: 1,000 tokens (62 full blocks) at 0 ms, one output token: done at 63.06 ms, blocks cached.
    // B at 100 ms shares A's first 50 blocks (800 tokens): computes 200, then decodes 2 more tokens.
    long[] shared = ids(7, 0, 50);
    SimRequest a = request("a", 0, 1_000, concat(shared, ids(8, 50, 12)), 1);
    SimRequest b = request("b", 100, 1_000, concat(shared, ids(9, 50, 12)), 3);

    var run = runRecorded(oneReplica(List.of(a, b)).build(), "round-robin");

    double prefill = stepMillis(1, 1, 200);
    double decode = stepMillis(1, 0, 0);
    assertThat(run.get("b").cachedTokens()).isEqualTo(800);
    assertThat(run.get("b").ttftNanos()).isEqualTo(nanos(prefill)).isEqualTo(nanos(35.06));
    assertThat(run.get("b").e2eNanos()).isEqualTo(nanos(prefill) + 2 * nanos(decode));
    assertThat(run.result().prefixHitRatio()).isEqualTo(800 / 2_000.0);
  }

  @Test
  void fullyCachedPromptStillComputesItsLastToken() {
    long[] blocks = ids(3, 0, 40);
    var run = runRecorded(oneReplica(List.of(request("a", 0, 640, blocks, 1),
        request("b", 100, 640, blocks, 1))).build(), "round-robin");

    assertThat(run.get("b").cachedTokens()).isEqualTo(639);
    assertThat(run.get("b").ttftNanos()).isEqualTo(nanos(stepMillis(1, 1, 1)));
  }

  @Test
  void leastRecentlyUsedPromptIsEvictedAndMissedLater() {
    // 100 blocks of KV, no watermark. X and Y (40 blocks each) fit together; Z (60) evicts all of X,
    // the least recently used; Y, used again at 300 ms, hits; X at 400 ms misses completely.
    ReplicaModel small = ReplicaModel.newBuilder().kvCapacityTokens(1_600).kvWatermark(0).build();
    List<SimRequest> requests = List.of(
        unique("x", 0, 640, 1, 1),
        unique("y", 100, 640, 2, 1),
        unique("z", 200, 960, 3, 1),
        unique("y-again", 300, 640, 2, 1),
        unique("x-again", 400, 640, 1, 1));

    var run = runRecorded(oneReplica(requests, small).build(), "round-robin");

    assertThat(run.get("y-again").cachedTokens()).isEqualTo(639);
    assertThat(run.get("x-again").cachedTokens()).isZero();
    assertThat(run.get("x-again").ttftNanos()).isEqualTo(nanos(stepMillis(1, 1, 640)));
    assertThat(run.result().completed()).isEqualTo(5);
  }

  @Test
  void evictionTrimsAPromptFromItsTail() {
    // Z needs 60 of 100 blocks with 80 cached: the 20 evicted are X's last ones (deepest first, as
    // vLLM's free queue), so X's first 20 blocks survive.
    ReplicaModel small = ReplicaModel.newBuilder().kvCapacityTokens(1_600).kvWatermark(0).build();
    List<SimRequest> requests = List.of(
        unique("x", 0, 640, 1, 1),
        unique("y", 100, 640, 2, 1),
        unique("z", 200, 640, 3, 1),
        unique("x-again", 300, 640, 1, 1));

    var run = runRecorded(oneReplica(requests, small).build(), "round-robin");

    assertThat(run.get("x-again").cachedTokens()).isEqualTo(20 * 16);
  }

  @Test
  void fullKvDuringDecodePreemptsTheLatestAdmittedWhichRecomputesAndFinishes() {
    // 64 blocks; two requests of 20 prompt blocks each growing by 25 blocks: they cannot both finish
    // side by side, so the second admitted is preempted, re-prefills later and still completes.
    ReplicaModel small = ReplicaModel.newBuilder().kvCapacityTokens(1_024).kvWatermark(0).build();
    List<SimRequest> requests = List.of(unique("a", 0, 320, 1, 400), unique("b", 0, 320, 2, 400));

    var run = runRecorded(oneReplica(requests, small).build(), "round-robin");

    assertThat(run.result().preemptions()).isGreaterThanOrEqualTo(1);
    assertThat(run.result().completed()).isEqualTo(2);
    assertThat(run.result().failed()).isZero();
    // both prefilled together in the first step: same first token time
    assertThat(run.get("a").ttftNanos()).isEqualTo(run.get("b").ttftNanos())
        .isEqualTo(nanos(stepMillis(2, 2, 640)));
    assertThat(run.get("b").e2eNanos()).isGreaterThan(run.get("a").e2eNanos());
    assertThat(run.result().checks()).anyMatch(l -> l.startsWith("ok: KV blocks: 0 pinned"));
  }

  @Test
  void chunkedPrefillCostsADecodingRequestOneStepPerChunk() {
    // D (100-token prompt, 20 tokens out) decodes while L (10,000 tokens) prefills in chunks of
    // 4,096 + 4,096 + 1,808: D gets one token at the end of each chunk's step.
    List<SimRequest> requests = List.of(unique("d", 0, 100, 1, 20), unique("l", 30, 10_000, 2, 1));

    var run = runRecorded(oneReplica(requests).build(), "round-robin");

    long dPrefill = nanos(stepMillis(1, 1, 100));
    long chunk1 = nanos(stepMillis(2, 1, 4_096));
    long chunk2 = nanos(stepMillis(2, 0, 4_096));
    long chunk3 = nanos(stepMillis(2, 0, 1_808));
    long decodeAlone = nanos(stepMillis(1, 0, 0));
    long lFirstToken = dPrefill + chunk1 + chunk2 + chunk3;
    assertThat(run.get("d").ttftNanos()).isEqualTo(dPrefill);
    assertThat(run.get("l").ttftNanos()).isEqualTo(lFirstToken - nanos(30));
    // D: 1 token after its prefill, 3 during L's chunks, 16 alone after L finished
    assertThat(run.get("d").e2eNanos()).isEqualTo(lFirstToken + 16 * decodeAlone)
        .isEqualTo(nanos(554.88));
  }

  @Test
  void adapterNotResidentStallsTheStepForItsLoadTime() {
    SimRequest plain = unique("a", 0, 1_000, 1, 1);
    SimRequest withAdapter = SimRequest.newBuilder().id("b").arrivalNanos(nanos(100))
        .model(SimFixtures.MODEL).adapter("sql-lora")
        .prompt(PromptKey.ofBlockHashes(ids(2, 0, 62), 16, 1_000,
            io.github.kvroute.api.CacheNamespace.of(SimFixtures.MODEL, null, "sql-lora")))
        .outputTokens(1).build();
    SimRequest again = SimRequest.newBuilder().id("c").arrivalNanos(nanos(2_000))
        .model(SimFixtures.MODEL).adapter("sql-lora")
        .prompt(PromptKey.ofBlockHashes(ids(3, 0, 62), 16, 1_000,
            io.github.kvroute.api.CacheNamespace.of(SimFixtures.MODEL, null, "sql-lora")))
        .outputTokens(1).build();

    var run = runRecorded(oneReplica(List.of(plain, withAdapter, again)).build(), "round-robin");

    assertThat(run.get("a").ttftNanos()).isEqualTo(nanos(63.06));
    assertThat(run.get("b").ttftNanos()).isEqualTo(nanos(63.06 + 800));
    assertThat(run.get("c").ttftNanos()).isEqualTo(nanos(63.06));
  }

  @Test
  void interactiveRequestsAreAdmittedBeforeBatchWork() {
    // one running slot: while "first" runs, a batch and then an interactive request queue up; the
    // interactive one is admitted first although it arrived later.
    ReplicaModel oneSlot = ReplicaModel.newBuilder().maxRunningSequences(1).build();
    SimRequest first = unique("first", 0, 160, 1, 10);
    SimRequest batch = prioritized(unique("batch", 10, 160, 2, 1), Priority.BATCH);
    SimRequest interactive = prioritized(unique("interactive", 20, 160, 3, 1), Priority.INTERACTIVE);

    var run = runRecorded(oneReplica(List.of(first, batch, interactive), oneSlot)
        .build(), "round-robin");

    long interactiveFirstToken = run.get("interactive").ttftNanos() + nanos(20);
    long batchFirstToken = run.get("batch").ttftNanos() + nanos(10);
    assertThat(interactiveFirstToken).isLessThan(batchFirstToken);
  }

  private static SimRequest prioritized(SimRequest r, Priority p) {
    return SimRequest.newBuilder().id(r.id()).arrivalNanos(r.arrivalNanos()).model(r.model())
        .prompt(r.prompt()).outputTokens(r.outputTokens()).priority(p).build();
  }
}
