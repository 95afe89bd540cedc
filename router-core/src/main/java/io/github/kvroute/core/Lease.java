package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.RequestRef;

/**
 * One routed attempt awaiting its outcome: what the router predicted and what it added to the replica's
 * books, so both can be taken back exactly when the outcome (or expiry, or orphaning) arrives.
 *
 * <p>The linkage fields form the {@link DispatchLedger}'s list and are guarded by that ledger's lock.
 */
final class Lease {
  /**
   * The attempt: its request's id and attempt number, kept apart rather than as a
   * {@link RequestRef}, which would be one more object per decision; {@link #ref()} builds one for
   * the listeners that are given it.
   */
  final String requestId;
  final int attempt;
  final ReplicaEntry replica;
  final long epoch;
  final ReplicaEntry prefillReplica;
  final long dispatchedAtNanos;
  final int promptTokens;
  final int plannedOutputTokens;
  final int predictedMatchedTokens;
  final double predictedCostMillis;
  /** Prefill time this attempt adds to the replica's queue. */
  final double workMillis;
  /** The compute replica's queue estimate, and the queue term of the decision's cost (NaN if none). */
  final double predictedQueueMillis;
  final double queueTermMillis;
  /**
   * A disaggregated attempt's KV move; null for a whole-request attempt (kept apart so that those,
   * nearly every lease, do not carry its fields). Written before the lease is published.
   */
  Move move;
  volatile IndexStore.Insert insert;
  volatile boolean probe;
  /**
   * When the host reported the first token, on the router's ticker; {@code Long.MIN_VALUE} before.
   * A disaggregated attempt's is set under this lease's monitor, the gate of its first token (its
   * prefill may have left the prefill replica's books before, at {@code onPrefillDone}).
   */
  volatile long firstTokenAtNanos = Long.MIN_VALUE;

  // DispatchLedger list, guarded by the ledger that holds the lease
  @GuardedBy("ledger")
  Lease prev;
  @GuardedBy("ledger")
  Lease next;
  // LeaseTable's links, guarded by the table's stripe that holds the lease (see LeaseTable's notes)
  /** When the table opened it, on the router's ticker: its timeout runs from here. */
  @GuardedBy("stripe")
  long openedAtNanos;
  /** The next lease in its stripe's bucket. */
  @GuardedBy("stripe")
  Lease nextByRef;
  /** The next lease in its stripe's latest-attempt bucket. */
  @GuardedBy("stripe")
  Lease nextLatest;
  /** Its neighbours in its stripe's list of open leases, oldest first. */
  @GuardedBy("stripe")
  Lease olderOpen;
  @GuardedBy("stripe")
  Lease newerOpen;
  /** In its stripe's open table (and so in its list of open leases). */
  @GuardedBy("stripe")
  boolean open;

  /** Set by the ledger under its own lock when the lease joins its list. */
  DispatchLedger ledger;
  /**
   * Its leaf in the ledger's replay tree while it is one of the sends since the replica's last
   * report ({@link #sinceSnapshot()}), else -1. Guarded by the ledger; its only flag: a separate
   * boolean would take the lease from 152 to 160 bytes.
   */
  @GuardedBy("ledger")
  int leaf = -1;
  /** The host saw its first token: its prefill work has left the queue. */
  @GuardedBy("ledger")
  boolean firstToken;
  /**
   * Every earlier send of this router to the replica had its first token when this one left. Written
   * under the ledger's lock at dispatch; read by feedback after the ledger's release, which takes the
   * same lock.
   */
  boolean dispatchedIdle;
  /** Released before (or instead of) its dispatch: a late dispatch must add nothing. */
  boolean released;
  // the decode replica's books (disaggregated attempts), guarded by that replica's ledger
  boolean decodeHeld;
  boolean decodeReleased;
  /** Its KV is reserved on the decode replica until its first token says the KV arrived. */
  boolean decodeReserved;

  Lease(String requestId, int attempt, ReplicaEntry replica, long epoch,
      ReplicaEntry prefillReplica, long dispatchedAtNanos, int promptTokens,
      int plannedOutputTokens, int predictedMatchedTokens, double predictedCostMillis,
      double workMillis, double predictedQueueMillis, double queueTermMillis) {
    this.requestId = requestId;
    this.attempt = attempt;
    this.replica = replica;
    this.epoch = epoch;
    this.prefillReplica = prefillReplica;
    this.dispatchedAtNanos = dispatchedAtNanos;
    this.promptTokens = promptTokens;
    this.plannedOutputTokens = plannedOutputTokens;
    this.predictedMatchedTokens = predictedMatchedTokens;
    this.predictedCostMillis = predictedCostMillis;
    this.workMillis = workMillis;
    this.predictedQueueMillis = predictedQueueMillis;
    this.queueTermMillis = queueTermMillis;
  }

  /**
   * A disaggregated attempt's KV move, as the router priced it and booked it on the pair's link.
   * Immutable.
   */
  static final class Move {
    /**
     * The move as this router priced it when routing (the move and the link's backlog), and the
     * decision cost's {@value PairSelection#TRANSFER_TERM} term (0 if none). Calibration takes them
     * out of the TTFT and the prediction, so that only the prefill replica's own work teaches its
     * rates.
     */
    final double transferMillis;
    final double transferTermMillis;
    /**
     * Its place on the pair's link while {@link Lease#decodeReserved}: whose books, where, how long.
     */
    final TransferBacklog backlog;
    final long link;
    final long moveMicros;

    Move(double transferMillis, double transferTermMillis, TransferBacklog backlog, long link,
        long moveMicros) {
      this.transferMillis = transferMillis;
      this.transferTermMillis = transferTermMillis;
      this.backlog = backlog;
      this.link = link;
      this.moveMicros = moveMicros;
    }
  }

  /** As above, for an attempt named by {@code ref} (tests). */
  Lease(RequestRef ref, ReplicaEntry replica, long epoch, ReplicaEntry prefillReplica,
      long dispatchedAtNanos, int promptTokens, int plannedOutputTokens, int predictedMatchedTokens,
      double predictedCostMillis, double workMillis, double predictedQueueMillis,
      double queueTermMillis) {
    this(ref.requestId(), ref.attempt(), replica, epoch, prefillReplica, dispatchedAtNanos,
        promptTokens, plannedOutputTokens, predictedMatchedTokens, predictedCostMillis, workMillis,
        predictedQueueMillis, queueTermMillis);
  }

  /** {@return the attempt as a {@link RequestRef}: a new one each call, for the listeners} */
  RequestRef ref() {
    return new RequestRef(requestId, attempt);
  }

  /** Whether it is one of its ledger's sends since the replica's last report. */
  @GuardedBy("ledger")
  boolean sinceSnapshot() {
    return leaf >= 0;
  }

  /** {@link Move#transferMillis}, 0 for a whole-request attempt. */
  double transferMillis() {
    return move == null ? 0 : move.transferMillis;
  }

  /** {@link Move#transferTermMillis}, 0 for a whole-request attempt. */
  double transferTermMillis() {
    return move == null ? 0 : move.transferTermMillis;
  }

  /** The replica whose cache and queue the prefill used. */
  ReplicaEntry prefillTarget() {
    return prefillReplica != null ? prefillReplica : replica;
  }

  long outstandingTokens() {
    return (long) promptTokens + plannedOutputTokens;
  }
}
