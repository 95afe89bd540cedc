package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;

import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import java.util.List;

/**
 * Stage 7 of {@link DecisionPipeline}: records a routed decision (its lease, the replicas' books, the
 * breaker probe, the optimistic index insert), and takes that back for a decision the host never saw.
 *
 * <p>Thread-safety: thread-safe; the tables and books it writes are, and it keeps no state of its own.
 */
final class AttemptRecorder {
  private final LeaseTable leases;
  private final PrefixIndex index;
  private final MeanWork meanWork;
  private final RouterCounters counters;
  private final PluginGuard guard;
  private final TransferBacklog backlog;

  AttemptRecorder(LeaseTable leases, PrefixIndex index, MeanWork meanWork, RouterCounters counters,
      PluginGuard guard, TransferBacklog backlog) {
    this.leases = leases;
    this.index = index;
    this.meanWork = meanWork;
    this.counters = counters;
    this.guard = guard;
    this.backlog = backlog;
  }

  /**
   * Records the routed decision {@code d} as of {@code now}: returns its lease pinned for the caller,
   * which {@linkplain LeaseTable#unpin unpins} it once the route is done with it.
   */
  Lease record(DecisionContext s, RoutingDecision d, long now) {
    Request request = s.request;
    MutableView chosen = s.mixed.find(d.replicaId(), d.epoch());
    MutableView prefillView = null;
    if (d.prefillReplicaId().isPresent()) {
      chosen = chosen != null ? chosen : s.decode.find(d.replicaId(), d.epoch());
      prefillView = s.prefill.find(d.prefillReplicaId().get(), d.prefillEpoch());
      if (prefillView == null) {
        prefillView = s.mixed.find(d.prefillReplicaId().get(), d.prefillEpoch());
      }
    }
    MutableView computeView = prefillView != null ? prefillView : chosen;
    double work = PrefillTerm.prefillMillis(request.promptTokens(), computeView);
    Lease lease = leases.acquire(request.id());
    lease.init(request.id(), request.attempt(), chosen.entry, d.epoch(),
        prefillView != null ? prefillView.entry : null, now, request.promptTokens(),
        request.plannedOutputTokens(), computeView.matchedTokens, d.costMillis(), work,
        computeView.estimatedQueueMillis, d.costTermMillis(CostTerm.QUEUE.termName(), Double.NaN));
    lease.prefixKey = PinnedPrefixes.key(request.prompt());
    if (prefillView != null) {
      lease.move = new Lease.Move(s.kvTransferMillis(prefillView, chosen),
          d.costTermMillis(PairSelection.TRANSFER_TERM, 0), backlog,
          TransferBacklog.key(prefillView.entry.slot, chosen.entry.slot),
          Math.round(s.moveMillis(prefillView, chosen) * 1000));
    }
    // the probe flag is set before the lease is visible: an expiry right after the add returns it
    lease.probe = chosen.probe;
    checkArgument(leases.add(lease, now),
        "request: %s#%s (expected: an attempt not already in flight; retry with nextAttempt())",
        request.id(), request.attempt());
    chosen.probe = false;
    ReplicaEntry computeEntry = computeView.entry;
    computeEntry.ledger.dispatch(lease);
    if (prefillView != null) {
      chosen.entry.ledger.holdDecode(lease);
    }
    Lease superseded = leases.supersede(lease, now);
    if (superseded != null) {
      // exactly one attempt is authoritative: the older one is taken off the books (its outcome, if
      // it comes, is a DUPLICATE); its guess stays, as it may have run
      takeOff(superseded);
      counters.orphaned.increment();
    }
    int gen = computeEntry.indexGeneration;
    // on an exact replica the insert is speculative: it lasts while this attempt is open
    if (gen >= 0 && request.prompt().blockCount() > 0) {
      IndexStore.Insert record = lease.insertRecord();
      if (index.insertRouted(record, computeEntry.slot, gen, request.prompt(),
          computeView.matchedBlocks, s.trace)) {
        lease.insert = record;
      }
    }
    meanWork.record(work);
    orphanIfGone(lease, chosen.entry, d.epoch());
    if (prefillView != null) {
      orphanIfGone(lease, prefillView.entry, d.prefillEpoch());
    }
    return lease;
  }

  /**
   * The replica's process restarted, stopped or was removed while this route ran: its attempts were
   * orphaned before this one was recorded, so this one is orphaned now, and no books outlive the
   * process. (If that happens after this check, the orphaning finds the lease.)
   */
  private void orphanIfGone(Lease lease, ReplicaEntry entry, long epoch) {
    boolean gone = entry.removed || entry.epoch != epoch || entry.state() == ReplicaState.STOPPED;
    if (gone && leases.close(lease)) {
      takeOff(lease);
      counters.orphaned.increment();
      guard.listener().onOrphaned(entry.id, epoch, List.of(lease.ref()));
    }
  }

  /** Takes back what {@link #record} did, for a decision that never reached the host. */
  void unrecord(Lease lease) {
    if (!leases.close(lease)) {
      return;
    }
    takeOff(lease);
    if (lease.insert != null) {
      index.rollback(lease.insert);
    }
  }

  /**
   * A closed attempt leaves its replicas' books, ends its speculative index entries and gives back
   * its breaker probe, if it had one.
   */
  private void takeOff(Lease lease) {
    Feedback.release(lease);
    Feedback.endSpeculation(index, lease);
    if (lease.probe) {
      lease.replica.breaker.releaseProbe();
    }
  }
}
