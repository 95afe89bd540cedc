package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;

/**
 * This router's own books for one replica: what it has in flight there, and what it sent after the
 * replica's last report was observed.
 *
 * <h2>Design notes</h2>
 * A report observed at {@code T} shows the queue as it was at {@code T}. The router knows every request
 * it sent after {@code T}, so it replays them onto the reported queue as a single server working at one
 * millisecond per millisecond: {@code q <- max(0, q - (t_k - t_{k-1})) + w_k} for each send {@code k},
 * then drains to now. This removes most of the {@code λ·d} staleness error for the traffic this router
 * sees.
 *
 * <p>Other routers are not independent noise: they run the same kind of policy on the same (equally
 * stale) reports, so when this router sends a replica work, its peers are sending it work too. Each of
 * this router's sends therefore counts {@code 1 + peers} times in the replay, where {@code peers} is
 * the other routers' traffic relative to this one's (configured, or measured from the replicas'
 * received-requests counters). Without it, N routers each see only their own share of a queue and
 * all pile onto whichever replica a stale report showed idle, then all leave it: load rotates around
 * the fleet. With it, each router backs off as fast as the fleet fills the replica. A report without
 * queue fields is not trusted to have absorbed
 * the router's earlier sends: then nothing is dropped from the books and the queue is estimated from
 * this router's in-flight work alone.
 *
 * <p><b>First tokens.</b> Once the host reports first tokens here ({@link #firstToken}), the replay
 * gives way to the pending-work estimate of {@link PendingPrefills} (whose notes say why, and what
 * it measured); the replay stays the estimate for hosts that do not stream.
 *
 * <p>The replay is kept in a {@link ReplayTree}, so with N sends unreported a dispatch, a first
 * token or a release costs O(log N), never a walk over all of them: a send that leaves the replay
 * keeps its leaf with no work (the result stays exact), and the tree is rebuilt from the live sends
 * when a report drops the sends it reflects, when dead leaves outnumber live ones, or when a send
 * arrives out of time order (rare: concurrent routes read the clock before taking the lock).
 *
 * <p><b>Reads take no lock.</b> Every decision reads every candidate's books, so {@link #read} is a
 * sequence lock's optimistic read ({@link SeqLock}): each writer makes the version odd before it
 * changes anything {@code read} copies and even again after; a reader copies the fields between two
 * reads of the version and keeps the copy only if both are the same even number, else it tries
 * again. A copy is arithmetic on plain fields (the only references it follows are final), so a torn
 * copy cannot throw and is discarded, never acted on. After {@value #OPTIMISTIC_READS} failed tries
 * (a writer keeps changing the books) the reader takes the lock, so a read always ends. A reading
 * that copied these books at a version still current copies nothing at all: it derives the values
 * that move with time again from what it holds ({@link LedgerReading}'s notes). So every write to
 * what {@code read} copies must move the version, {@link #decodeArrived} included.
 *
 * <p>Thread-safety: thread-safe. Writers are synchronized on the ledger (one per replica, so routes to
 * different replicas never contend); {@link #read} takes no monitor unless writers keep it retrying.
 */
final class DispatchLedger {
  /** Optimistic copies {@link #read} tries before it takes the lock. */
  static final int OPTIMISTIC_READS = 8;
  /** The books' version: odd while a writer changes them, written under this lock. */
  private final SeqLock seq = new SeqLock();
  @GuardedBy("this")
  private int inFlightRequests;
  @GuardedBy("this")
  private long inFlightTokens;
  @GuardedBy("this")
  private long inFlightPromptTokens;
  @GuardedBy("this")
  private Lease head;
  @GuardedBy("this")
  private Lease tail;
  @GuardedBy("this")
  private int sinceCount;
  @GuardedBy("this")
  private long sinceOutstandingTokens;
  /** The KV the sends since take ({@link Lease#newKvTokens}). */
  @GuardedBy("this")
  private long sinceKvTokens;
  /**
   * KV tokens of disaggregated attempts held here whose KV has not arrived yet (no first token):
   * reserved, but in no report of the replica's.
   */
  @GuardedBy("this")
  private long decodeReservedTokens;
  @GuardedBy("this")
  private double baseQueueMillis;
  @GuardedBy("this")
  private long baseAtNanos;
  @GuardedBy("this")
  private double queueAtLast;
  @GuardedBy("this")
  private long lastNanos;
  @GuardedBy("this")
  private long dispatchedTotal;
  /** Dispatch times of the latest sends (a ring indexed by the send count), to count sends by a time. */
  @GuardedBy("this")
  private final long[] sendTimes = new long[1024];
  /** How many times each own send counts in the replay: {@code 1 + peers}. */
  @GuardedBy("this")
  private double sendWeight = 1.0;
  @GuardedBy("this")
  private final RateEstimator ownRate = new RateEstimator(10.0);
  /** KV tokens this router's finished sends freed here, per second. */
  @GuardedBy("this")
  private final RateEstimator freedTokens = new RateEstimator(10.0);
  private final ReplayTree tree = new ReplayTree();
  /** The latest dispatch time among the tree's leaves (live or dead), or the base time. */
  private long lastLeafNanos;
  /** Sends walked by tree rebuilds, ever: what tests use to see that per-attempt work stays small. */
  private long replaySteps;
  /** Whether the host reports first tokens here (then the pending-work estimate is used). */
  @GuardedBy("this")
  private boolean streaming;
  /** The sends without a first token yet, and the estimate with first tokens; under this lock. */
  private final PendingPrefills pending = new PendingPrefills();
  /** The prefixes this router's sends in flight hold here; written under this lock. */
  private final PinnedPrefixes pinned = new PinnedPrefixes();

  /**
   * Whether a send of this router with the prompt key {@code prefixKey} ({@link PinnedPrefixes#key})
   * may be in flight here; lock-free, as of the last {@link #read} or later.
   */
  boolean holds(long prefixKey) {
    return pinned.held(prefixKey);
  }

  /**
   * Copies the books as of {@code nowNanos} into {@code out}, lock-free (see the class notes). When
   * {@code out} last copied these books and their version has not moved since, nothing is copied:
   * only the parts that depend on the time are derived again, from what {@code out} holds.
   */
  void read(long nowNanos, LedgerReading out) {
    read(nowNanos, out, null);
  }

  /**
   * {@link #read(long, LedgerReading)}, the own send rate decayed through {@code clock} (set to
   * {@code nowNanos}) when one is given: one multiplication instead of an exponential
   * ({@link DecayClock}'s notes say by how little the two differ).
   */
  void read(long nowNanos, LedgerReading out, DecayClock clock) {
    // the version through the reading's own reference to it: a kept reading then touches the
    // version's cache line and not the ledger's
    if (out.books == this && out.booksVersion.beginRead() == out.version) {
      // the version only grows and a copy is remembered only at an even one: the same version
      // means no writer has changed or begun to change the books since that copy
      out.at(nowNanos, clock);
      return;
    }
    for (int i = 0; i < OPTIMISTIC_READS; i++) {
      long before = seq.beginRead();
      if ((before & 1) == 0) {
        copy(out);
        if (seq.unchanged(before)) {
          out.copied(this, seq, before, nowNanos, clock);
          return;
        }
      }
      Thread.onSpinWait();
    }
    synchronized (this) {
      copy(out);
      // writers hold this lock while the version is odd, so here it is even and stays so
      out.copied(this, seq, seq.beginRead(), nowNanos, clock);
    }
  }

  /**
   * Racy outside the lock: {@link #read} keeps the result only if no writer ran meanwhile. Copies
   * the books as they stand, never a value of the time: {@link LedgerReading#at} derives those.
   */
  private void copy(LedgerReading out) {
    out.inFlightRequests = inFlightRequests;
    out.inFlightTokens = inFlightTokens;
    out.inFlightPromptTokens = inFlightPromptTokens;
    out.sinceCount = sinceCount;
    out.sinceOutstandingTokens = sinceOutstandingTokens;
    out.sinceKvTokens = sinceKvTokens;
    out.decodeReservedTokens = decodeReservedTokens;
    out.queueAtLast = queueAtLast;
    out.queueLastNanos = lastNanos;
    out.streaming = streaming;
    if (streaming) {
      pending.copyTo(out);
      out.baseAtNanos = baseAtNanos;
    }
    out.ownRate = ownRate.rateAtLast();
    out.ownLastNanos = ownRate.lastNanos();
    out.ownTauNanos = ownRate.tauNanos();
    out.peers = sendWeight - 1.0;
    out.freedRate = freedTokens.rateAtLast();
    out.freedLastNanos = freedTokens.lastNanos();
    out.freedTauNanos = freedTokens.tauNanos();
    out.sendWeight = sendWeight;
  }

  /** A send of this router's finished here at {@code nowNanos}: its KV is free again. */
  synchronized void finished(Lease lease, long nowNanos) {
    beginWrite();
    try {
      finishedLocked(lease, nowNanos);
    } finally {
      endWrite();
    }
  }

  @GuardedBy("this")
  private void finishedLocked(Lease lease, long nowNanos) {
    freedTokens.record(nowNanos, lease.outstandingTokens());
  }

  /**
   * Puts {@code lease} on the books, unless it was already released: an attempt can expire or be
   * orphaned between being recorded and being dispatched, and its release must win.
   */
  synchronized void dispatch(Lease lease) {
    beginWrite();
    try {
      dispatchLocked(lease);
    } finally {
      endWrite();
    }
  }

  @GuardedBy("this")
  private void dispatchLocked(Lease lease) {
    if (lease.released || lease.ledger != null) {
      return;
    }
    // with peers their requests hold prefixes this router cannot see (PinnedPrefixes)
    lease.idleHitTokens = sendWeight > 1.0 || pinned.held(lease.prefixKey) ? 0
        : Math.max(0, Math.min(lease.predictedMatchedTokens, lease.promptTokens));
    pinned.add(lease.prefixKey);
    lease.dispatchedIdle = pending.add(lease);
    inFlightRequests++;
    inFlightTokens += lease.outstandingTokens();
    inFlightPromptTokens += lease.promptTokens;
    lease.ledger = this;
    // it is one of the sends since the report once it has a leaf, which both branches below give it
    sinceCount++;
    sinceOutstandingTokens += lease.outstandingTokens();
    sinceKvTokens += lease.newKvTokens();
    long t = lease.dispatchedAtNanos;
    // Concurrent routes read the clock before they get here, so a send can arrive out of time order;
    // the list stays sorted by time (usually an append) so that reports drop exactly what they saw.
    Lease after = tail;
    while (after != null && after.dispatchedAtNanos > t) {
      after = after.prev;
    }
    lease.prev = after;
    lease.next = after == null ? head : after.next;
    if (lease.next != null) {
      lease.next.prev = lease;
    } else {
      tail = lease;
    }
    if (after != null) {
      after.next = lease;
    } else {
      head = lease;
    }
    if (lease == tail && t >= lastLeafNanos && !tree.isFull()) {
      lease.leaf = tree.append(lease.workMillis * sendWeight, millis(t - lastLeafNanos));
      lastLeafNanos = Math.max(lastLeafNanos, t);
      refresh();
    } else {
      replay();
    }
    ownRate.record(t);
    sendTimes[(int) (dispatchedTotal % sendTimes.length)] = t;
    dispatchedTotal++;
  }

  /**
   * This router's sends to the replica dispatched at or before {@code nanos}: the count to compare
   * with a report observed then (sends after it are not in the replica's counter yet). Exact while the
   * sends since {@code nanos} fit in the ring (1,024); beyond that, an upper bound.
   */
  synchronized long sentBy(long nanos) {
    long count = dispatchedTotal;
    long oldest = Math.max(0, dispatchedTotal - sendTimes.length);
    while (count > oldest && sendTimes[(int) ((count - 1) % sendTimes.length)] > nanos) {
      count--;
    }
    return count;
  }

  /** A disaggregated attempt decodes here: it holds a slot and KV, but adds no prefill work. */
  synchronized void holdDecode(Lease lease) {
    beginWrite();
    try {
      holdDecodeLocked(lease);
    } finally {
      endWrite();
    }
  }

  @GuardedBy("this")
  private void holdDecodeLocked(Lease lease) {
    if (lease.decodeReleased || lease.decodeHeld) {
      return;
    }
    lease.decodeHeld = true;
    lease.decodeReserved = true;
    decodeReservedTokens += lease.outstandingTokens();
    Lease.Move move = lease.move;
    if (move != null) {
      move.backlog.add(move.link, move.moveMicros);
    }
    inFlightRequests++;
    inFlightTokens += lease.outstandingTokens();
    inFlightPromptTokens += lease.promptTokens;
  }

  /**
   * Takes a disaggregated attempt's decode hold off the books; idempotent, and wins over a late
   * hold.
   */
  synchronized void releaseDecode(Lease lease) {
    beginWrite();
    try {
      releaseDecodeLocked(lease);
    } finally {
      endWrite();
    }
  }

  @GuardedBy("this")
  private void releaseDecodeLocked(Lease lease) {
    lease.decodeReleased = true;
    if (!lease.decodeHeld) {
      return;
    }
    lease.decodeHeld = false;
    decodeArrivedLocked(lease);
    inFlightRequests--;
    inFlightTokens -= lease.outstandingTokens();
    inFlightPromptTokens -= lease.promptTokens;
  }

  /**
   * A disaggregated attempt's first token: its KV has arrived here, so the replica's own reports count
   * it from now on and the reservation ends (idempotent).
   */
  synchronized void decodeArrived(Lease lease) {
    beginWrite();
    try {
      decodeArrivedLocked(lease);
    } finally {
      endWrite();
    }
  }

  /**
   * {@link #decodeArrived} inside a write already begun: readers that kept a copy by the version
   * must see that the reservation changed.
   */
  @GuardedBy("this")
  private void decodeArrivedLocked(Lease lease) {
    if (lease.decodeReserved) {
      lease.decodeReserved = false;
      decodeReservedTokens -= lease.outstandingTokens();
      Lease.Move move = lease.move;
      if (move != null) {
        move.backlog.remove(move.link, move.moveMicros);
      }
    }
  }

  /**
   * The host saw {@code lease}'s first token at {@code nowNanos}: its prefill work leaves the
   * replay and the pending work, and the replica is taken to work on the next pending send from now.
   *
   * @return false when already told, or when the lease is no longer on these books
   */
  synchronized boolean firstToken(Lease lease, long nowNanos) {
    beginWrite();
    try {
      return firstTokenLocked(lease, nowNanos);
    } finally {
      endWrite();
    }
  }

  @GuardedBy("this")
  private boolean firstTokenLocked(Lease lease, long nowNanos) {
    if (lease.ledger != this || lease.firstToken) {
      return false;
    }
    lease.firstToken = true;
    streaming = true;
    pending.firstToken(lease, nowNanos);
    if (lease.sinceSnapshot()) {
      tree.setWork(lease.leaf, 0);
      refresh();
    }
    return true;
  }

  /**
   * Takes a finished (or abandoned) attempt off the books; idempotent. A release that comes before
   * the dispatch marks the lease so that the dispatch adds nothing.
   */
  synchronized void release(Lease lease) {
    beginWrite();
    try {
      releaseLocked(lease);
    } finally {
      endWrite();
    }
  }

  @GuardedBy("this")
  private void releaseLocked(Lease lease) {
    lease.released = true;
    if (lease.ledger != this) {
      return;
    }
    lease.ledger = null;
    if (!lease.firstToken) {
      pending.released(lease);
    }
    pinned.remove(lease.prefixKey);
    inFlightRequests--;
    inFlightTokens -= lease.outstandingTokens();
    inFlightPromptTokens -= lease.promptTokens;
    if (lease.sinceSnapshot()) {
      tree.setWork(lease.leaf, 0);
      unlink(lease);
      if (tree.size() > 32 && sinceCount * 2 < tree.size()) {
        replay();
      } else {
        refresh();
      }
    }
  }

  /**
   * A report observed at {@code observedAtNanos} arrived. With a queue reading, sends it already
   * reflects are dropped from the replay; without one ({@code NaN}), everything stays.
   */
  synchronized void onReport(long observedAtNanos, double reportedQueueMillis, double peers) {
    onReport(observedAtNanos, reportedQueueMillis, -1, peers);
  }

  /**
   * As {@link #onReport(long, double, double)}, with the report's waiting-request count
   * ({@code -1} when it has none), from which the share of the queue that is not this router's own
   * pending sends is estimated.
   */
  synchronized void onReport(long observedAtNanos, double reportedQueueMillis, int waiting,
      double peers) {
    beginWrite();
    try {
      onReportLocked(observedAtNanos, reportedQueueMillis, waiting, peers);
    } finally {
      endWrite();
    }
  }

  @GuardedBy("this")
  private void onReportLocked(long observedAtNanos, double reportedQueueMillis, int waiting,
      double peers) {
    this.sendWeight = 1.0 + Math.max(0, peers);
    if (Double.isNaN(reportedQueueMillis)) {
      replay();
      return;
    }
    while (head != null && head.dispatchedAtNanos <= observedAtNanos) {
      pending.reported(head);
      unlink(head);
    }
    pending.rebase(reportedQueueMillis, waiting);
    baseQueueMillis = reportedQueueMillis;
    baseAtNanos = observedAtNanos;
    replay();
  }

  /** Forgets everything (the replica restarted or stopped); leases are released by the caller. */
  synchronized void reset() {
    beginWrite();
    try {
      resetLocked();
    } finally {
      endWrite();
    }
  }

  @GuardedBy("this")
  private void resetLocked() {
    while (head != null) {
      unlink(head);
    }
    pending.reset();
    pinned.clear();
    baseQueueMillis = 0;
    replay();
  }

  /** Makes the version odd: readers that overlap what follows discard their copies. */
  @GuardedBy("this")
  private void beginWrite() {
    seq.beginWrite();
  }

  /** Makes the version even again, after (release) every change. */
  @GuardedBy("this")
  private void endWrite() {
    seq.endWrite();
  }

  synchronized long replaySteps() {
    return replaySteps;
  }

  synchronized long dispatchedTotal() {
    return dispatchedTotal;
  }

  synchronized int inFlightRequests() {
    return inFlightRequests;
  }

  private void unlink(Lease l) {
    if (l.prev != null) {
      l.prev.next = l.next;
    } else {
      head = l.next;
    }
    if (l.next != null) {
      l.next.prev = l.prev;
    } else {
      tail = l.prev;
    }
    l.prev = null;
    l.next = null;
    l.leaf = -1;
    sinceCount--;
    sinceOutstandingTokens -= l.outstandingTokens();
    sinceKvTokens -= l.newKvTokens();
  }

  /** Rebuilds the tree from the live unreported sends, in time order from the report's queue. */
  private void replay() {
    tree.reset(2 * sinceCount);
    long t = baseAtNanos;
    for (Lease l = head; l != null; l = l.next) {
      replaySteps++;
      double work = l.firstToken ? 0 : l.workMillis * sendWeight;
      l.leaf = tree.appendUnbuilt(work, millis(l.dispatchedAtNanos - t));
      t = Math.max(t, l.dispatchedAtNanos);
    }
    tree.build();
    lastLeafNanos = t;
    refresh();
  }

  private void refresh() {
    queueAtLast = Math.max(0, tree.apply(baseQueueMillis));
    lastNanos = lastLeafNanos;
  }

  synchronized double ownRatePerSecond(long nowNanos) {
    return ownRate.perSecond(nowNanos);
  }

  private static double millis(long nanos) {
    return Math.max(0, nanos) / 1e6;
  }
}
