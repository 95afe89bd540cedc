package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.RequestRef;

/**
 * One routed attempt awaiting its outcome: what the router predicted and what it added to the replica's
 * books, so both can be taken back exactly when the outcome (or expiry, or orphaning) arrives.
 *
 * <p>The linkage fields form the {@link DispatchLedger}'s list and are guarded by that ledger's lock.
 *
 * <h2>Design notes: recycling</h2>
 * Every decision opened one lease and its outcome dropped it, 152 bytes a decision, so a lease whose
 * attempt has ended is reused for a later one ({@link LeaseTable#acquire}, {@link #init}). Reusing an
 * object that a thread still holds would make that thread act on another attempt (close it, mark its
 * first token, release its books): so a lease is reused only when no thread can hold it.
 *
 * <p>Who can hold a lease, and when each lets go:
 * <ul>
 *   <li>its stripe of the {@link LeaseTable}, while it is open: closing or expiring it takes it out
 *       of both tables and the list of open leases, under the stripe's monitor;
 *   <li>its replicas' {@link DispatchLedger}s, from its dispatch to its release: every path that
 *       closes a lease releases it from its ledgers before it lets go ({@link Feedback#release}), and
 *       a dispatch or hold after the release adds nothing ({@link #released},
 *       {@link #decodeReleased}). The ledgers' lock-free reads copy the ledgers' own numbers and
 *       never follow a lease;
 *   <li>a thread that got it from the table: the routing thread that opened it
 *       ({@link LeaseTable#acquire} pins it until the route returns) and a thread that looked it up
 *       to act on it ({@link LeaseTable#hold}: an outcome, a first token, a prefill's end) each
 *       <em>pin</em> it, and unpin it when done ({@link LeaseTable#unpin}). Every other lookup that
 *       lets a lease out of the table without a pin (an open attempt found by {@code get}, a newer
 *       or older attempt, a superseded one, the leases of a lost replica, an expired one) marks it
 *       {@link #shared}: such a lease is never reused, and the collector takes it as before;
 *   <li>the prefix index never holds a lease, only its {@link IndexStore.Insert} record, which has
 *       its own rule ({@link IndexStore.Insert#reusable}); listeners get a new
 *       {@link RequestRef} ({@link #ref}).
 * </ul>
 * The pins and the mark are counted under the stripe's monitor. A pin is taken only on an open lease
 * (found in the table) or on one not yet published ({@code acquire}), so once a lease is closed and
 * its pins are gone, no thread can reach it again: the last unpin then puts it on its stripe's free
 * list, under the same monitor, and the next {@code acquire} on that stripe takes it. Every holder's
 * accesses happen before its unpin (a monitor exit), which happens before the reuse (a monitor
 * entry on the same stripe), so a reused lease's new fields are never mixed with a reader's view of
 * its old ones. A holder that forgets to unpin only keeps the lease from being reused.
 *
 * <p>Thread-safety: not thread-safe. Its attempt's fields are written by {@link #init} before the
 * lease is published through its stripe's monitor ({@link LeaseTable#add}) and never after, while
 * it is reachable; the rest are guarded as each says.
 */
final class Lease {
  /**
   * The attempt: its request's id and attempt number, kept apart rather than as a
   * {@link RequestRef}, which would be one more object per decision; {@link #ref()} builds one for
   * the listeners that are given it.
   */
  String requestId;
  int attempt;
  ReplicaEntry replica;
  long epoch;
  ReplicaEntry prefillReplica;
  long dispatchedAtNanos;
  int promptTokens;
  int plannedOutputTokens;
  int predictedMatchedTokens;
  double predictedCostMillis;
  /** Prefill time this attempt adds to the replica's queue. */
  double workMillis;
  /** The compute replica's queue estimate, and the queue term of the decision's cost (NaN if none). */
  double predictedQueueMillis;
  double queueTermMillis;
  /**
   * A disaggregated attempt's KV move; null for a whole-request attempt (kept apart so that those,
   * nearly every lease, do not carry its fields). Written before the lease is published.
   */
  Move move;
  /** The insert of its prompt into the index, if one was made; null if not. */
  volatile IndexStore.Insert insert;
  /**
   * The insert record this lease reuses for its attempts' inserts (null before its first): kept
   * across recycling while {@linkplain IndexStore.Insert#reusable reusable}.
   */
  IndexStore.Insert insertRecord;
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
  /** The next lease in its stripe's bucket, or in its stripe's free list while it is there. */
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
  /** Threads that hold it pinned (see the notes): it is not reused while any does. */
  @GuardedBy("stripe")
  int pins;
  /** Let out of the table without a pin (see the notes): never reused. */
  @GuardedBy("stripe")
  boolean shared;

  /** Set by the ledger under its own lock when the lease joins its list. */
  DispatchLedger ledger;
  /**
   * Its leaf in the ledger's replay tree while it is one of the sends since the replica's last
   * report ({@link #sinceSnapshot()}), else -1. Guarded by the ledger; its only flag: a separate
   * boolean would make the lease 8 bytes larger.
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

  /** Its prompt's {@link PinnedPrefixes#key}; set after {@link #init} by the routing thread. */
  long prefixKey;
  /**
   * The predicted cached tokens no request of this router held on its replica when it was sent
   * (set by the ledger's dispatch): the engine takes them from its free KV (see
   * {@link PinnedPrefixes}).
   */
  int idleHitTokens;

  /** A blank lease, for {@link LeaseTable#acquire} to hand out and its caller to {@link #init}. */
  Lease() {}

  Lease(String requestId, int attempt, ReplicaEntry replica, long epoch,
      ReplicaEntry prefillReplica, long dispatchedAtNanos, int promptTokens,
      int plannedOutputTokens, int predictedMatchedTokens, double predictedCostMillis,
      double workMillis, double predictedQueueMillis, double queueTermMillis) {
    init(requestId, attempt, replica, epoch, prefillReplica, dispatchedAtNanos, promptTokens,
        plannedOutputTokens, predictedMatchedTokens, predictedCostMillis, workMillis,
        predictedQueueMillis, queueTermMillis);
  }

  /**
   * Makes this lease the new attempt given, every other field as a new lease has it but its pins
   * and its insert record (a new lease's or a recycled one's: see the notes). Called by the routing
   * thread that acquired it, before it is published.
   */
  void init(String requestId, int attempt, ReplicaEntry replica, long epoch,
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
    this.prefixKey = 0;
    this.idleHitTokens = 0;
    this.move = null;
    this.insert = null;
    this.probe = false;
    this.firstTokenAtNanos = Long.MIN_VALUE;
    this.prev = null;
    this.next = null;
    this.openedAtNanos = 0;
    this.nextByRef = null;
    this.nextLatest = null;
    this.olderOpen = null;
    this.newerOpen = null;
    this.open = false;
    this.shared = false;
    this.ledger = null;
    this.leaf = -1;
    this.firstToken = false;
    this.dispatchedIdle = false;
    this.released = false;
    this.decodeHeld = false;
    this.decodeReleased = false;
    this.decodeReserved = false;
  }

  /**
   * Lets go of everything the ended attempt referenced (its request's id, replicas, move, insert's
   * prompt), so that a lease on the free list keeps nothing alive; a record that is not
   * {@linkplain IndexStore.Insert#reusable reusable} is dropped. Under its stripe's monitor.
   */
  void forget() {
    requestId = null;
    replica = null;
    prefillReplica = null;
    move = null;
    insert = null;
    ledger = null;
    IndexStore.Insert record = insertRecord;
    if (record != null) {
      if (record.reusable()) {
        record.clear();
      } else {
        insertRecord = null;
      }
    }
  }

  /**
   * The record for this attempt's insert: its own, reused, or a new one it keeps.
   */
  IndexStore.Insert insertRecord() {
    IndexStore.Insert record = insertRecord;
    if (record == null || !record.reusable()) {
      record = new IndexStore.Insert();
      insertRecord = record;
    }
    return record;
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

  /**
   * The KV this attempt takes where it runs: its prompt's unmatched part, its output, and the
   * cached part no request of this router held there when it was sent ({@link #idleHitTokens}).
   */
  long newKvTokens() {
    return (long) Math.max(0, promptTokens - predictedMatchedTokens) + plannedOutputTokens
        + idleHitTokens;
  }
}
