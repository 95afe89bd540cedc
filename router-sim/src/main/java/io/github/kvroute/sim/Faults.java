package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * What goes wrong in a scenario beyond replica crashes ({@link Scenario#restarts()}): reports that
 * stop for a while, KV event batches lost on the way, one replica slower than the others, and the
 * dead process's last report and events arriving again after its replica restarted.
 *
 * <p>Immutable and thread-safe.
 *
 * @param blackouts periods during which a replica's reports are not delivered (it keeps serving)
 * @param kvEventBatchLoss the probability that a replica's KV event batch never reaches the routers,
 *     drawn per batch from the seed, in [0, 1); the events carry sequence numbers, so the routers see
 *     the gap
 * @param slowReplica the replica (index from 0) whose engine is slower, or -1 for none
 * @param slowFactor how many times longer that replica's prefill and decode steps take (its reports
 *     stay what the profile reports); 1 when none is slow
 * @param staleReplayMillis when positive, after every crash the dead epoch's last report and its last
 *     KV event batch are delivered again this long after the crash (late messages from the old
 *     process, which the routers must ignore); 0 for none
 */
public record Faults(List<Blackout> blackouts, double kvEventBatchLoss, int slowReplica,
    double slowFactor, long staleReplayMillis) {

  /** Nothing goes wrong. */
  public static final Faults NONE = new Faults(List.of(), 0, -1, 1, 0);

  /** Reports of {@code replica} stop from {@code fromMillis} to {@code toMillis} (virtual time). */
  public record Blackout(int replica, long fromMillis, long toMillis) {
    /**
     * @param replica the replica's index, from 0
     * @param fromMillis the start, in virtual milliseconds
     * @param toMillis the end, excluded
     * @throws IllegalArgumentException if a value is negative or the period is empty
     */
    public Blackout {
      checkArgument(replica >= 0, "replica: %s (expected: >= 0)", replica);
      checkArgument(fromMillis >= 0 && toMillis > fromMillis,
          "blackout: [%s, %s) ms (expected: 0 <= from < to)", fromMillis, toMillis);
    }

    boolean covers(int r, long atNanos) {
      return r == replica && atNanos >= fromMillis * 1_000_000L && atNanos < toMillis * 1_000_000L;
    }
  }

  /**
   * @param blackouts periods during which a replica's reports are not delivered (it keeps serving);
   *     copied
   * @param kvEventBatchLoss the probability that a replica's KV event batch never reaches the
   *     routers, drawn per batch from the seed, in [0, 1)
   * @param slowReplica the replica (index from 0) whose engine is slower, or -1 for none
   * @param slowFactor how many times longer that replica's prefill and decode steps take; finite, 1
   *     when none is slow
   * @param staleReplayMillis when positive, how long after every crash the dead epoch's last report
   *     and KV event batch are delivered again; 0 for none
   * @throws IllegalArgumentException if a value is out of range
   */
  public Faults {
    blackouts = ImmutableList.copyOf(checkNotNull(blackouts, "blackouts: null (expected: a list)"));
    checkArgument(kvEventBatchLoss >= 0 && kvEventBatchLoss < 1,
        "kvEventBatchLoss: %s (expected: in [0, 1))", kvEventBatchLoss);
    checkArgument(slowReplica >= -1, "slowReplica: %s (expected: >= -1)", slowReplica);
    checkArgument(slowFactor >= 1 && Double.isFinite(slowFactor),
        "slowFactor: %s (expected: finite and >= 1)", slowFactor);
    checkArgument(staleReplayMillis >= 0, "staleReplayMillis: %s (expected: >= 0)",
        staleReplayMillis);
  }

  /**
   * These faults plus reports of {@code replica} stopping over {@code [from, to)} ms.
   *
   * @param replica the replica's index, from 0
   * @param fromMillis the start, in virtual milliseconds; {@code >= 0}
   * @param toMillis the end (excluded); after {@code fromMillis}
   * @return a copy with one more blackout
   */
  public Faults withBlackout(int replica, long fromMillis, long toMillis) {
    ImmutableList<Blackout> more = ImmutableList.<Blackout>builder().addAll(blackouts)
        .add(new Blackout(replica, fromMillis, toMillis)).build();
    return new Faults(more, kvEventBatchLoss, slowReplica, slowFactor, staleReplayMillis);
  }

  /**
   * These faults with KV event batches lost with probability {@code p}.
   *
   * @param p the loss probability, in {@code [0, 1)}
   * @return a copy with {@code kvEventBatchLoss = p}
   */
  public Faults withKvEventBatchLoss(double p) {
    return new Faults(blackouts, p, slowReplica, slowFactor, staleReplayMillis);
  }

  /**
   * These faults with replica {@code replica}'s steps {@code factor} times longer.
   *
   * @param replica the replica's index, from 0
   * @param factor how many times longer its steps take; finite, {@code >= 1}
   * @return a copy with that replica slowed
   */
  public Faults withSlowReplica(int replica, double factor) {
    checkArgument(replica >= 0, "slowReplica: %s (expected: >= 0)", replica);
    return new Faults(blackouts, kvEventBatchLoss, replica, factor, staleReplayMillis);
  }

  /**
   * These faults with the dead epoch's last messages replayed {@code millis} after each crash.
   *
   * @param millis the replay's delay after each crash, in virtual milliseconds; 0 for none
   * @return a copy with {@code staleReplayMillis = millis}
   */
  public Faults withStaleReplay(long millis) {
    return new Faults(blackouts, kvEventBatchLoss, slowReplica, slowFactor, millis);
  }

  /** Whether report of {@code replica} made at {@code atNanos} is lost in a blackout. */
  boolean blackedOut(int replica, long atNanos) {
    for (Blackout b : blackouts) {
      if (b.covers(replica, atNanos)) {
        return true;
      }
    }
    return false;
  }

  /** The highest replica index named, or -1. */
  int maxReplica() {
    int max = slowReplica;
    for (Blackout b : blackouts) {
      max = Math.max(max, b.replica());
    }
    return max;
  }
}
