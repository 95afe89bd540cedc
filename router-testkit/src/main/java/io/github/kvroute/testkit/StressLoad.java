package io.github.kvroute.testkit;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * The valid inputs {@link RouterStress} sends: requests over a few shared system prompts (so the
 * prefix index matters), load reports, KV events (mostly the blocks those prompts hash to, sometimes
 * large batches of fresh keys) and outcomes of every status. Everything here builds without throwing;
 * the router must accept all of it.
 *
 * <p>Thread-safety: stateless; each thread passes its own {@link SplittableRandom}.
 */
final class StressLoad {
  static final String MODEL = KvrouteArbitraries.MODEL;
  private static final CacheNamespace NAMESPACE = CacheNamespace.of(MODEL);
  private static final int PROMPT_TOKENS = 1_024;
  private static final OutcomeStatus[] STATUSES = OutcomeStatus.values();

  private StressLoad() {}

  static String replicaId(int k) {
    return "replica-" + k;
  }

  static Request request(String id, SplittableRandom random) {
    int system = random.nextInt(KvrouteArbitraries.SYSTEM_PROMPTS);
    int shared = 16 * random.nextInt(PROMPT_TOKENS / 16);
    int[] tokens = new int[shared + random.nextInt(256)];
    System.arraycopy(KvrouteArbitraries.systemPrompt(system, shared), 0, tokens, 0, shared);
    for (int i = shared; i < tokens.length; i++) {
      tokens[i] = random.nextInt(50_000);
    }
    Request.Builder b = Request.newBuilder().id(id).model(MODEL)
        .prompt(PromptKey.ofTokens(tokens, NAMESPACE)).maxOutputTokens(1 + random.nextInt(1_024))
        .priority(Priority.values()[random.nextInt(Priority.values().length)]);
    if (random.nextInt(3) == 0) {
      b.sessionId("session-" + random.nextInt(64));
    }
    if (random.nextInt(4) == 0) {
      b.ttftBudget(Duration.ofMillis(50 + random.nextInt(5_000)));
    }
    return b.build();
  }

  /** An outcome of any status, with the usage fields a real host reports for it. */
  static Outcome outcome(Request request, RoutingDecision decision, SplittableRandom random) {
    OutcomeStatus status = random.nextInt(4) != 0 ? OutcomeStatus.SUCCESS
        : STATUSES[random.nextInt(STATUSES.length)];
    Outcome.Builder b = Outcome.newBuilder().requestId(request.id()).attempt(request.attempt())
        .replicaId(decision.replicaId()).epoch(decision.epoch()).status(status);
    if (status.isSuccess() || random.nextBoolean()) {
      int ttftMillis = random.nextInt(10_000);
      b.ttft(Duration.ofMillis(ttftMillis)).queueTime(Duration.ofMillis(random.nextInt(ttftMillis + 1)))
          .cachedTokens(random.nextInt(request.prompt().tokenCount() + 1))
          .outputTokens(random.nextInt(request.maxOutputTokens() + 1));
    }
    return b.build();
  }

  static ReplicaSnapshot report(String id, long epoch, ReplicaState state, SplittableRandom random) {
    ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder().replicaId(id).epoch(epoch).state(state)
        .model(MODEL).waitingRequests(random.nextInt(16)).runningRequests(random.nextInt(128))
        .queuedPrefillTokens(random.nextLong(20_000)).outstandingDecodeTokens(random.nextLong(100_000))
        .kvBlockSizeTokens(16);
    long total = 1 + random.nextLong(100_000);
    b.kvBlocks(random.nextLong(total + 1), total);
    if (random.nextBoolean()) {
      b.prefillTokensPerSecond(1_000 + random.nextInt(40_000)).decodeStepMillis(5 + random.nextInt(100));
    }
    return b.build();
  }

  /**
   * A KV event for {@code id}: mostly the blocks of a shared system prompt stored or removed, sometimes
   * a clear, and {@code largeBatchKeys} fresh keys when {@code large}.
   */
  static KvEvent kvEvent(String id, long epoch, boolean large, int largeBatchKeys,
      SplittableRandom random) {
    if (large) {
      long[] keys = new long[largeBatchKeys];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = random.nextLong();
      }
      return KvEvent.stored(id, epoch, keys);
    }
    int pick = random.nextInt(20);
    if (pick == 0) {
      return KvEvent.cleared(id, epoch);
    }
    int blocks = 1 + random.nextInt(PROMPT_TOKENS / 16);
    long[] keys = PromptKey.ofTokens(KvrouteArbitraries.systemPrompt(
        random.nextInt(KvrouteArbitraries.SYSTEM_PROMPTS), blocks * 16), NAMESPACE).blockHashes();
    return pick < 5 ? KvEvent.removed(id, epoch, keys) : KvEvent.stored(id, epoch, keys);
  }
}
