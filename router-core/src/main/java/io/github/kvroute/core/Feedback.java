package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkNotNull;

import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Ticker;
import io.github.kvroute.api.UpdateResult;
import java.util.List;

/**
 * How attempts end and what the router learns from them: outcomes close leases, calibrate the replica's
 * prefill rate and cache reliability, roll back guesses the engine never acted on, and feed breakers;
 * expiry and orphaning close leases whose outcome will never come.
 *
 * <p>Every path takes the lease off the books exactly once: {@link LeaseTable#close} is the gate.
 * Feedback owns the lease table, so the table's expiry comes straight back here.
 *
 * <p>Thread-safety: thread-safe.
 */
final class Feedback {
  private final LeaseTable leases;
  private final PrefixIndex index;
  private final CapacityMirror mirror;
  private final RoutingPolicy policy;
  private final CostModel costModel;
  private final Ticker ticker;
  private final PluginGuard guard;
  private final RouterCounters counters;
  private final int blockSizeTokens;

  Feedback(RouterSettings settings, HostPlugins plugins, PrefixIndex index, CapacityMirror mirror,
      RouterCounters counters) {
    this.index = index;
    this.mirror = mirror;
    this.policy = plugins.policy();
    this.guard = plugins.guard();
    this.costModel = settings.costModel();
    this.ticker = settings.ticker();
    this.blockSizeTokens = settings.blockSizeTokens();
    this.counters = counters;
    // expiry fires from the table's clean-up, never before this constructor has returned
    this.leases = new LeaseTable(ticker, settings.leaseTimeout(), this::onExpired);
  }

  /** The open attempts, for the pipeline to add to and the router to count. */
  LeaseTable leases() {
    return leases;
  }

  UpdateResult onOutcome(Outcome outcome) {
    checkNotNull(outcome, "outcome: null (expected: non-null)");
    // looked up by id and attempt, not a RequestRef: an outcome's are valid, and every decision's
    // outcome would allocate one; one reading of the clock for all of it (some 25 ns each)
    long now = ticker.read();
    // pinned: not reused for another attempt until this outcome is done with it
    Lease lease = leases.hold(outcome.requestId(), outcome.attempt(), now);
    UpdateResult result;
    try {
      result = apply(lease, outcome, now);
    } finally {
      if (lease != null) {
        leases.unpin(lease);
      }
    }
    guard.listener().onOutcome(outcome, result);
    return result;
  }

  /** {@link #onOutcome} with its attempt's lease pinned ({@code null}: not open). */
  private UpdateResult apply(Lease lease, Outcome outcome, long now) {
    UpdateResult result;
    if (lease == null) {
      result = leases.wasClosed(outcome.requestId(), outcome.attempt()) ? UpdateResult.DUPLICATE
          : UpdateResult.UNKNOWN_REQUEST;
    } else if (!lease.replica.id.equals(outcome.replicaId()) || lease.epoch != outcome.epoch()) {
      result = UpdateResult.MISMATCHED_REPLICA;
    } else if (!leases.close(lease, now)) {
      result = UpdateResult.DUPLICATE;
    } else {
      release(lease);
      lease.prefillTarget().ledger.finished(lease, now);
      if (lease.prefillReplica != null) {
        lease.replica.ledger.finished(lease, now);
      }
      learn(lease, outcome, now);
      result = UpdateResult.APPLIED;
    }
    counters.outcome(result);
    if (result == UpdateResult.APPLIED) {
      try {
        policy.onOutcome(outcome);
      } catch (Throwable e) {
        guard.failed("policy " + policy.name(), "applied the outcome without telling the policy",
            e);
      }
      reportTtft(lease, outcome);
    }
    return result;
  }

  /**
   * The attempt's first token reached the host: its prefill no longer waits in the replica's queue
   * (the ledger stops replaying its work); everything else waits for the outcome.
   */
  UpdateResult onFirstToken(RequestRef ref, String replicaId, long epoch) {
    Lease lease = leases.hold(ref);
    if (lease == null) {
      return leases.wasClosed(ref) ? UpdateResult.DUPLICATE : UpdateResult.UNKNOWN_REQUEST;
    }
    try {
      return firstToken(lease, replicaId, epoch);
    } finally {
      leases.unpin(lease);
    }
  }

  /** {@link #onFirstToken} with the attempt's open lease pinned. */
  private UpdateResult firstToken(Lease lease, String replicaId, long epoch) {
    if (!lease.replica.id.equals(replicaId) || lease.epoch != epoch) {
      return UpdateResult.MISMATCHED_REPLICA;
    }
    long now = ticker.read();
    if (lease.prefillReplica != null) {
      // a pair's prefill may have left its replica's books already (onPrefillDone): the lease is the
      // gate
      synchronized (lease) {
        if (lease.firstTokenAtNanos != Long.MIN_VALUE) {
          return UpdateResult.DUPLICATE;
        }
        lease.firstTokenAtNanos = now;
      }
      lease.replica.ledger.decodeArrived(lease);
      lease.prefillReplica.ledger.firstToken(lease, now);
      return UpdateResult.APPLIED;
    }
    if (!lease.replica.ledger.firstToken(lease, now)) {
      return UpdateResult.DUPLICATE;
    }
    lease.firstTokenAtNanos = now;
    return UpdateResult.APPLIED;
  }

  /**
   * A disaggregated attempt's prefill replica answered: the prefill's work leaves that replica's
   * queue estimate (as a first token does for a whole-request attempt); the decode side waits for
   * the first token.
   */
  UpdateResult onPrefillDone(RequestRef ref, String prefillReplicaId, long prefillEpoch) {
    Lease lease = leases.hold(ref);
    if (lease == null) {
      return leases.wasClosed(ref) ? UpdateResult.DUPLICATE : UpdateResult.UNKNOWN_REQUEST;
    }
    try {
      ReplicaEntry prefill = lease.prefillReplica;
      if (prefill == null || !prefill.id.equals(prefillReplicaId)
          || prefill.epoch != prefillEpoch) {
        return UpdateResult.MISMATCHED_REPLICA;
      }
      return prefill.ledger.firstToken(lease, ticker.read()) ? UpdateResult.APPLIED
          : UpdateResult.DUPLICATE;
    } finally {
      leases.unpin(lease);
    }
  }

  /**
   * Tells the listeners the attempt's actual TTFT beside its prediction: the outcome's, else the time
   * from the route to the host's first-token report, else nothing.
   */
  private void reportTtft(Lease lease, Outcome outcome) {
    double actualMillis;
    if (outcome.ttft().isPresent()) {
      actualMillis = Durations.millis(outcome.ttft().get());
    } else if (lease.firstTokenAtNanos != Long.MIN_VALUE) {
      actualMillis = Math.max(0, lease.firstTokenAtNanos - lease.dispatchedAtNanos) / 1e6;
    } else {
      return;
    }
    guard.listener().onTtftObserved(lease.ref(), lease.replica.id, lease.predictedCostMillis,
        actualMillis);
  }

  /**
   * A lease timed out: its books are released; its guess stays (the request may have run), unless it
   * was speculative.
   */
  void onExpired(Lease lease) {
    release(lease);
    endSpeculation(index, lease);
    if (lease.probe) {
      lease.replica.breaker.releaseProbe();
    }
    counters.expired.increment();
    guard.listener().onLeaseExpired(lease.ref(), lease.replica.id);
  }

  /** The process {@code epoch} of {@code entry} is gone: its attempts are reported for retry. */
  void onLost(ReplicaEntry entry, long epoch) {
    List<Lease> lost = leases.closeAll(l -> (l.replica == entry && l.epoch == epoch)
        || l.prefillReplica == entry);
    if (lost.isEmpty()) {
      return;
    }
    for (Lease l : lost) {
      release(l);
      endSpeculation(index, l);
      if (l.probe) {
        l.replica.breaker.releaseProbe();
      }
    }
    counters.orphaned.add(lost.size());
    guard.listener().onOrphaned(entry.id, epoch, lost.stream().map(Lease::ref).toList());
  }

  /** Takes an attempt off its replicas' books (idempotent per ledger). */
  static void release(Lease lease) {
    lease.prefillTarget().ledger.release(lease);
    if (lease.prefillReplica != null) {
      lease.replica.ledger.releaseDecode(lease);
    }
  }

  /**
   * An attempt ended: a speculative insert of its prefix (made on an exact replica) ends with it,
   * keeping only what KV events confirmed.
   */
  static void endSpeculation(PrefixIndex index, Lease lease) {
    IndexStore.Insert insert = lease.insert;
    if (insert != null) {
      index.endSpeculation(insert);
    }
  }

  /**
   * The attempt's TTFT as its prefill replica served it, in ms, or NaN if the outcome tells none.
   * A whole-request attempt's TTFT is its prefill's. A disaggregated attempt's TTFT also holds the KV
   * move to the decode replica (over a slow link longer than the prefill itself), which calibration
   * must not charge to the prefill replica: so the prefill time the gateway saw, else the TTFT less
   * the move as this router priced it when routing (never below the reported queue time).
   */
  static double prefillTtftMillis(Lease lease, Outcome outcome) {
    if (lease.prefillReplica != null && outcome.prefillTime().isPresent()) {
      return Durations.millis(outcome.prefillTime().get());
    }
    if (outcome.ttft().isEmpty()) {
      return Double.NaN;
    }
    double ttft = Durations.millis(outcome.ttft().get());
    if (lease.prefillReplica == null) {
      return ttft;
    }
    double floor = outcome.queueTime().map(Durations::millis).orElse(0.0);
    return Math.max(floor, ttft - lease.transferMillis());
  }

  /** What the outcome teaches, {@code now} being when it arrived on the router's ticker. */
  private void learn(Lease lease, Outcome outcome, long now) {
    ReplicaEntry computed = lease.prefillTarget();
    if (outcome.prefillStarted()) {
      endSpeculation(index, lease);
      if (outcome.cachedTokens().isPresent()) {
        int reused = outcome.cachedTokens().getAsInt();
        computed.calibration.recordReuse(lease.predictedMatchedTokens, reused);
        if (lease.predictedMatchedTokens > 0) {
          // a shortfall of a whole block or more means the mirror believed in evicted blocks (less
          // can be the engine recomputing the last token, or counting in its own block size)
          mirror.correct(computed,
              lease.predictedMatchedTokens - reused >= blockSizeTokens);
        }
      }
      double ttft = prefillTtftMillis(lease, outcome);
      if (!Double.isNaN(ttft) && outcome.queueTime().isPresent()) {
        int reused = outcome.cachedTokens().orElse(lease.predictedMatchedTokens);
        double prefillMillis = ttft - Durations.millis(outcome.queueTime().get());
        computed.calibration.recordPrefill(prefillMillis, costModel.prefillOverheadMillis(),
            lease.promptTokens - reused, costModel.prefillMillisPerToken());
      } else if (!Double.isNaN(ttft) && lease.dispatchedIdle) {
        // a stock engine tells no queue time; an attempt with no prefill of ours ahead of it had none
        int reused = outcome.cachedTokens().orElse(lease.predictedMatchedTokens);
        computed.calibration.recordUnqueuedTtft(ttft, lease.promptTokens - reused,
            costModel.prefillMillisPerToken());
      }
      if (!Double.isNaN(ttft)) {
        // what the decision predicted besides the queue (and the move): its cost without those terms
        computed.calibration.recordQueue(lease.predictedQueueMillis,
            lease.predictedCostMillis - lease.queueTermMillis - lease.transferTermMillis(), ttft);
      }
    } else if (lease.insert != null) {
      index.rollback(lease.insert);
    }
    OutcomeStatus status = outcome.status();
    if (status.countsAgainstReplica() || status.isSuccess()) {
      lease.replica.breaker.onOutcome(status.countsAgainstReplica(), lease.probe, now);
    } else if (lease.probe) {
      lease.replica.breaker.releaseProbe();
    }
  }
}
