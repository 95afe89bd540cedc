package io.github.kvroute.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.common.math.LongMath;
import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.Ticker;
import io.github.kvroute.api.UpdateResult;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Membership and telemetry: which replicas exist, in which epoch, with which latest report.
 *
 * <h2>Design notes</h2>
 * The routable membership is an array sorted by replica id, replaced copy-on-write when a replica
 * joins or leaves (Armeria's snapshot style): {@code route} reads one volatile reference and never
 * locks. Reports for one replica are applied under that replica's monitor.
 *
 * <p>Epochs: a report or event from an older epoch than the replica's is ignored (a delayed message
 * from a dead process must never make it current again); a newer epoch is a restart — the cache is
 * cold (the index slot is reset), the old process's attempts are orphaned and reported for retry,
 * and the replica is not routable until the new process reports READY. A removed replica's last
 * epoch is remembered for good (for the {@value #MAX_REMOVED_REMEMBERED} most recently removed
 * ids), so its old process's late reports cannot bring it back, however late; a newer epoch can.
 *
 * <p>An epoch may run ahead of the one known for the id (current, or last removed) by at most the
 * configured advance plus the ticker's nanoseconds since the router learnt that one: a restart counter
 * advances by one, and a start time by no more than the time that passed plus the old process's age
 * when first seen; anything further is a corrupted epoch ({@link UpdateResult#EPOCH_JUMP}), refused
 * before anything changes, so that it cannot make every real report stale.
 *
 * <p>Only reports introduce replicas: a KV event for an unknown id is dropped, so events cannot
 * grow the fleet. Report times are the replica's clock: one further in the future than the accepted
 * skew is ignored, one within it counts as observed now, and one older than a day as a day old, so
 * that no clock can make later reports look out of order or an ancient one look fresh.
 *
 * <p>KV-event sequence numbers (when the engine numbers its events) are per replica and epoch: a
 * number not above the last one applied is a duplicate or a late retransmission and is dropped
 * ({@link UpdateResult#OUT_OF_ORDER}); a number more than one above it means events were lost, so
 * the index no longer mirrors the replica and the replica is <em>degraded</em>: it goes back to
 * approximate mode (the router's own inserts and capacity mirror, beside what later events still
 * say) until a full resync, which is a new epoch (a fresh process, an empty cache) or a
 * {@code CLEARED} event (the engine dropped everything, so what follows is complete again).
 *
 * <p>Thread-safety: thread-safe.
 */
final class Fleet {
  static final double PEER_NOISE_FLOOR = 0.2;
  /** Weight of each report's mean TTFT in {@link ReplicaEntry#recentTtftMillis}. */
  static final double TTFT_SMOOTHING = 0.3;
  /**
   * Removed replica ids whose last epoch is remembered (the least recently removed are forgotten).
   */
  static final int MAX_REMOVED_REMEMBERED = 100_000;
  /** A report observed longer ago than this counts as observed this long ago. */
  static final long MAX_REPORT_AGE_NANOS = Duration.ofDays(1).toNanos();

  private final ConcurrentHashMap<String, ReplicaEntry> byId = new ConcurrentHashMap<>();
  private final Cache<String, RemovedEpoch> removedEpochs;
  /** Replaced (never mutated) while holding this fleet's monitor; read lock-free by decisions. */
  private volatile ReplicaEntry[] members = new ReplicaEntry[0];

  private final PrefixIndex index;
  private final CapacityMirror mirror;
  private final MeanWork meanWork;
  private final Feedback feedback;
  private final RouterListener listener;
  private final CostModel costModel;
  private final int peerRouters;
  private final Ticker ticker;
  private final BreakerConfig breakerConfig;
  private final long maxClockSkewNanos;
  private final long maxEpochAdvance;
  private final LongAdder kvEventGaps;
  /** The replicas' learnt prefill rates pooled, refreshed on reports. */
  private final FleetRate rates = new FleetRate();

  /**
   * @param meanWork the unit of a queue reported only as a waiting count
   * @param feedback told when a process's attempts can no longer complete
   * @param kvEventGaps counts the gaps found in replicas' KV-event sequence numbers
   */
  Fleet(RouterSettings settings, PrefixIndex index, CapacityMirror mirror, MeanWork meanWork,
      Feedback feedback, RouterListener listener, LongAdder kvEventGaps) {
    this.kvEventGaps = kvEventGaps;
    this.index = index;
    this.mirror = mirror;
    this.meanWork = meanWork;
    this.feedback = feedback;
    this.listener = listener;
    this.costModel = settings.costModel();
    this.peerRouters = settings.peerRouters();
    this.ticker = settings.ticker();
    this.breakerConfig = settings.breakerConfig();
    this.maxClockSkewNanos = settings.maxClockSkew().toNanos();
    this.maxEpochAdvance = settings.maxEpochAdvance();
    this.removedEpochs = Caffeine.newBuilder().executor(Runnable::run)
        .maximumSize(MAX_REMOVED_REMEMBERED).build();
  }

  /** Routable and non-routable known replicas, sorted by id. Never mutated; replaced on change. */
  ReplicaEntry[] members() {
    return members;
  }

  ReplicaEntry get(String replicaId) {
    return byId.get(replicaId);
  }

  /**
   * Prefill cost per token on {@code entry}: reported throughput, else its calibration drawn toward
   * the fleet's ({@link FleetRate}), else the default.
   */
  double msPerToken(ReplicaEntry entry, ReplicaSnapshot s) {
    if (s != null && s.prefillTokensPerSecond().isPresent()) {
      return 1000.0 / s.prefillTokensPerSecond().getAsDouble();
    }
    return learntMsPerToken(entry);
  }

  /**
   * {@link #msPerToken} of a replica whose report has no prefill throughput, or whose reported
   * rate {@code reportedMsPerToken} ({@code 1000 /} its throughput) was derived once per report;
   * NaN for none.
   */
  double msPerToken(ReplicaEntry entry, double reportedMsPerToken) {
    return Double.isNaN(reportedMsPerToken) ? learntMsPerToken(entry) : reportedMsPerToken;
  }

  private double learntMsPerToken(ReplicaEntry entry) {
    return entry.calibration.msPerToken(rates.pool(), costModel.prefillMillisPerToken());
  }

  /** Unseen (other routers') arrival rate at {@code entry}. */
  double unseenRatePerSecond(ReplicaEntry entry, double ownRatePerSecond) {
    double fromCounter = entry.unseenRatePerSecond;
    return Double.isNaN(fromCounter) ? ownRatePerSecond * Math.max(0, peerRouters)
        : Math.max(0, fromCounter);
  }

  /**
   * Other routers' traffic relative to this one's: the configured peer count when the host set one
   * (it usually knows how many gateway instances it runs), or else the fleet's unseen arrival rate over
   * this router's own rate, measured from the replicas' received-requests counters. A measured ratio
   * below {@value #PEER_NOISE_FLOOR} is taken as 0: a counter read a moment before or after a send
   * makes a lone router look shared by a few percent. Capped at 16; 0 when nothing can be measured.
   */
  double peers(long nowNanos) {
    if (peerRouters >= 0) {
      return peerRouters;
    }
    double unseen = 0;
    double own = 0;
    for (ReplicaEntry e : members) {
      double u = e.unseenRatePerSecond;
      if (!Double.isNaN(u)) {
        unseen += u;
        own += e.ledger.ownRatePerSecond(nowNanos);
      }
    }
    double ratio = own > 0 ? Math.min(16, unseen / own) : 0;
    return ratio < PEER_NOISE_FLOOR ? 0 : ratio;
  }

  UpdateResult onSnapshot(ReplicaSnapshot s) {
    long now = ticker.read();
    RemovedEpoch removedAt = removedEpochs.getIfPresent(s.replicaId());
    if (removedAt != null && s.epoch() <= removedAt.epoch()) {
      return UpdateResult.STALE_EPOCH;
    }
    if (removedAt != null && jumps(removedAt.epoch(), removedAt.learntAtNanos(), s.epoch(), now)) {
      return UpdateResult.EPOCH_JUMP;
    }
    long observedAt = s.observedAtNanos().orElse(now);
    if (LongMath.saturatedSubtract(observedAt, now) > maxClockSkewNanos) {
      return UpdateResult.CLOCK_SKEW;
    }
    observedAt = Math.max(Math.min(observedAt, now),
        LongMath.saturatedSubtract(now, MAX_REPORT_AGE_NANOS));
    ReplicaEntry entry = entryFor(s.replicaId());
    ReplicaState previous;
    long restartedFrom = -1;
    synchronized (entry) {
      if (entry.removed) {
        return UpdateResult.STALE_EPOCH;
      }
      if (s.epoch() < entry.epoch) {
        return UpdateResult.STALE_EPOCH;
      }
      if (s.epoch() == entry.epoch && observedAt < entry.observedAtNanos) {
        return UpdateResult.OUT_OF_ORDER;
      }
      if (s.epoch() > entry.epoch && entry.epoch >= 0
          && jumps(entry.epoch, entry.epochLearntAtNanos, s.epoch(), now)) {
        return UpdateResult.EPOCH_JUMP;
      }
      if (s.epoch() > entry.epoch && entry.epoch >= 0) {
        restartedFrom = entry.epoch;
        restart(entry);
      }
      previous = entry.state();
      if (s.epoch() != entry.epoch) {
        entry.epochLearntAtNanos = now;
      }
      entry.epoch = s.epoch();
      entry.snapshot = s;
      entry.observedAtNanos = observedAt;
      if (s.state() == ReplicaState.READY) {
        entry.readyObservedAtNanos = observedAt;
      }
      if (s.state() != ReplicaState.STOPPED && entry.indexGeneration < 0) {
        entry.indexGeneration = index.reset(entry.slot);
      }
      updateUnseenRate(entry, s, observedAt);
      updateRecentTtft(entry, s);
      entry.admission.onReport(s, observedAt);
      entry.admissionPerSecond = entry.admission.perSecond();
      entry.ledger.onReport(observedAt, reportedQueueMillis(entry, s),
          s.waitingRequests().orElse(-1), peers(observedAt));
      mirror.onReport(entry, s);
      if (s.state() == ReplicaState.STOPPED && previous != ReplicaState.STOPPED) {
        index.reset(entry.slot);
        entry.indexGeneration = -1;
        entry.exact = false;
        entry.degraded = false;
      }
    }
    if (restartedFrom >= 0) {
      restarted(entry, restartedFrom, s.epoch());
    }
    if (rates.claimRefresh(now)) {
      rates.refresh(members, peers(now) > 0);
    }
    if (previous != s.state()) {
      listener.onReplicaStateChanged(s.replicaId(), s.epoch(), previous, s.state());
      if (s.state() == ReplicaState.STOPPED) {
        feedback.onLost(entry, s.epoch());
      }
    }
    return UpdateResult.APPLIED;
  }

  UpdateResult onKvEvent(KvEvent e) {
    RemovedEpoch removedAt = removedEpochs.getIfPresent(e.replicaId());
    if (removedAt != null && e.epoch() <= removedAt.epoch()) {
      return UpdateResult.STALE_EPOCH;
    }
    ReplicaEntry entry = byId.get(e.replicaId());
    if (entry == null) {
      return UpdateResult.UNKNOWN_REPLICA;
    }
    long restartedFrom = -1;
    synchronized (entry) {
      if (entry.removed || e.epoch() < entry.epoch) {
        return UpdateResult.STALE_EPOCH;
      }
      if (e.epoch() > entry.epoch && entry.epoch >= 0
          && jumps(entry.epoch, entry.epochLearntAtNanos, e.epoch(), ticker.read())) {
        return UpdateResult.EPOCH_JUMP;
      }
      if (e.epoch() > entry.epoch) {
        if (entry.epoch >= 0) {
          restartedFrom = entry.epoch;
          restart(entry);
        }
        entry.epoch = e.epoch();
        entry.epochLearntAtNanos = ticker.read();
      }
      if (!acceptSequence(entry, e)) {
        return UpdateResult.OUT_OF_ORDER;
      }
      if (entry.indexGeneration < 0) {
        entry.indexGeneration = index.reset(entry.slot);
      }
      if (e.type() == KvEvent.Type.CLEARED) {
        entry.degraded = false;
      }
      boolean exact = !entry.degraded;
      entry.exact = exact;
      int gen = entry.indexGeneration;
      switch (e.type()) {
        case STORED -> index.kvStored(entry.slot, gen, e.blockKeys(), exact);
        case REMOVED -> index.kvRemoved(entry.slot, gen, e.blockKeys(), exact);
        case CLEARED -> index.kvCleared(entry.slot, gen);
      }
    }
    if (restartedFrom >= 0) {
      restarted(entry, restartedFrom, e.epoch());
    }
    return UpdateResult.APPLIED;
  }

  /**
   * Whether {@code epoch} runs further ahead of {@code known}, learnt at {@code learntAtNanos}, than
   * the configured advance plus the time since allows (saturating: no sum overflows).
   */
  private boolean jumps(long known, long learntAtNanos, long epoch, long nowNanos) {
    long elapsed = Math.max(0, LongMath.saturatedSubtract(nowNanos, learntAtNanos));
    return epoch > LongMath.saturatedAdd(LongMath.saturatedAdd(known, maxEpochAdvance), elapsed);
  }

  /** A removed id's last epoch and when the router had learnt it. */
  private record RemovedEpoch(long epoch, long learntAtNanos) {}

  /**
   * Called under the entry's monitor: whether {@code e}'s sequence number (if any) follows the last
   * one applied in this epoch; a gap degrades the replica (counted once per gap).
   */
  private boolean acceptSequence(ReplicaEntry entry, KvEvent e) {
    if (e.sequence().isEmpty()) {
      return true;
    }
    long seq = e.sequence().getAsLong();
    long last = entry.lastKvSequence;
    if (last >= 0 && seq <= last) {
      return false;
    }
    if (last >= 0 && seq > last + 1) {
      entry.degraded = true;
      kvEventGaps.increment();
    }
    entry.lastKvSequence = seq;
    return true;
  }

  /** Forgets a replica (the host's membership says it is gone); its attempts are orphaned. */
  boolean remove(String replicaId) {
    ReplicaEntry entry = byId.get(replicaId);
    if (entry == null) {
      return false;
    }
    long epoch;
    ReplicaState previous;
    // Mark and remember the removal under the entry's monitor before unpublishing it: a report racing
    // with the removal either sees the mark (STALE_EPOCH) or, once the entry is gone, the remembered
    // epoch; it can never create a fresh entry for the removed process.
    synchronized (entry) {
      if (entry.removed) {
        return false;
      }
      entry.removed = true;
      epoch = entry.epoch;
      previous = entry.state();
      removedEpochs.put(replicaId, new RemovedEpoch(epoch, entry.epochLearntAtNanos));
      entry.ledger.reset();
    }
    synchronized (this) {
      byId.remove(replicaId, entry);
      members = Arrays.stream(members).filter(m -> m != entry).toArray(ReplicaEntry[]::new);
    }
    index.release(entry.slot);
    feedback.onLost(entry, epoch);
    listener.onReplicaStateChanged(replicaId, epoch, previous, ReplicaState.STOPPED);
    return true;
  }

  /**
   * The queue a report shows, in milliseconds; {@code NaN} when the report carries no queue field.
   * Precedence: the replica's own delay estimate, then queued prefill tokens, then waiting requests at
   * the fleet's mean prefill cost.
   */
  double reportedQueueMillis(ReplicaEntry entry, ReplicaSnapshot s) {
    if (s.estimatedQueueDelayMillis().isPresent()) {
      return s.estimatedQueueDelayMillis().getAsDouble();
    }
    int waiting = s.waitingRequests().orElse(0);
    if (s.queuedPrefillTokens().isPresent()) {
      return waiting * costModel.prefillOverheadMillis()
          + s.queuedPrefillTokens().getAsLong() * msPerToken(entry, s);
    }
    if (s.waitingRequests().isPresent()) {
      return waiting * meanWork.millis();
    }
    return Double.NaN;
  }

  private ReplicaEntry entryFor(String replicaId) {
    ReplicaEntry existing = byId.get(replicaId);
    if (existing != null) {
      return existing;
    }
    synchronized (this) {
      existing = byId.get(replicaId);
      if (existing != null) {
        return existing;
      }
      int[] slotAndGen = index.allocateSlot();
      ReplicaBreaker.Transitions transitions =
          (BreakerState from, BreakerState to) -> listener.onBreakerStateChanged(replicaId, from, to);
      ReplicaEntry created =
          new ReplicaEntry(replicaId, slotAndGen[0], slotAndGen[1], transitions, breakerConfig);
      created.unseenRatePerSecond = Double.NaN;
      byId.put(replicaId, created);
      ReplicaEntry[] grown = Arrays.copyOf(members, members.length + 1);
      grown[members.length] = created;
      Arrays.sort(grown, Comparator.comparing((ReplicaEntry r) -> r.id));
      members = grown;
      return created;
    }
  }

  /**
   * Called under the entry's monitor: the process behind the id was replaced. What involves other
   * locks or the host (breaker, orphaned attempts, listener) follows in {@link #restarted}, after
   * the monitor is released.
   */
  private void restart(ReplicaEntry entry) {
    entry.indexGeneration = index.reset(entry.slot);
    entry.exact = false;
    entry.degraded = false;
    entry.lastKvSequence = -1;
    entry.snapshot = null;
    entry.observedAtNanos = Long.MIN_VALUE;
    entry.readyObservedAtNanos = Long.MIN_VALUE;
    entry.capacityBlocks = -1;
    entry.capacityScale = 1.0;
    entry.mirroredCapacityBlocks = -1;
    entry.previousReceivedTotal = -1;
    entry.unseenRatePerSecond = Double.NaN;
    entry.recentTtftMillis = OptionalDouble.empty();
    entry.admission.reset();
    entry.admissionPerSecond = Double.NaN;
    entry.previousTtftSumSeconds = -1;
    entry.previousTtftCount = -1;
    entry.ledger.reset();
    entry.calibration.onRestart();
  }

  /**
   * Called without the entry's monitor, after {@link #restart}: listeners never run under a lock.
   */
  private void restarted(ReplicaEntry entry, long oldEpoch, long newEpoch) {
    entry.breaker.reset();
    feedback.onLost(entry, oldEpoch);
    listener.onReplicaRestarted(entry.id, oldEpoch, newEpoch);
  }

  private void updateUnseenRate(ReplicaEntry entry, ReplicaSnapshot s, long observedAt) {
    long received = receivedTotal(s);
    if (received < 0) {
      return;
    }
    long own = entry.ledger.sentBy(observedAt);
    if (entry.previousReceivedTotal >= 0 && observedAt > entry.previousObservedAtNanos
        && received >= entry.previousReceivedTotal) {
      double seconds = (observedAt - entry.previousObservedAtNanos) / 1e9;
      // signed samples, averaged, clamped only when read: clamping each sample would turn noise
      // into phantom peers
      double sample = ((received - entry.previousReceivedTotal)
          - (own - entry.previousOwnTotal)) / seconds;
      double old = entry.unseenRatePerSecond;
      entry.unseenRatePerSecond = Double.isNaN(old) ? sample : old + 0.3 * (sample - old);
    }
    entry.previousReceivedTotal = received;
    entry.previousObservedAtNanos = observedAt;
    entry.previousOwnTotal = own;
  }

  /**
   * The mean of the TTFTs the replica's histogram recorded since its previous report, folded into a
   * running average (weight {@value #TTFT_SMOOTHING} per report with first tokens). A histogram that
   * went backwards (a restart the epoch did not show) starts the average over.
   */
  private static void updateRecentTtft(ReplicaEntry entry, ReplicaSnapshot s) {
    if (s.timeToFirstToken().isEmpty()) {
      return;
    }
    double sum = s.timeToFirstToken().get().sumSeconds();
    long count = s.timeToFirstToken().get().count();
    long firsts = count - entry.previousTtftCount;
    if (entry.previousTtftCount >= 0 && firsts > 0 && sum >= entry.previousTtftSumSeconds) {
      double sample = (sum - entry.previousTtftSumSeconds) * 1000.0 / firsts;
      OptionalDouble old = entry.recentTtftMillis;
      entry.recentTtftMillis = OptionalDouble.of(old.isEmpty() ? sample
          : old.getAsDouble() + TTFT_SMOOTHING * (sample - old.getAsDouble()));
    } else if (firsts < 0) {
      entry.recentTtftMillis = OptionalDouble.empty();
    }
    entry.previousTtftSumSeconds = sum;
    entry.previousTtftCount = count;
  }

  /**
   * The requests the replica has received, ever: its own counter when it has one; else every request
   * is finished, waiting or running, so the finished count (the count of a latency histogram observed
   * at completion: {@code vllm:request_queue_time_seconds_count}) plus the two gauges; -1 when neither
   * can be read. A stock vLLM has no arrivals counter, and without this a router behind several
   * gateways takes itself for the only one.
   */
  static long receivedTotal(ReplicaSnapshot s) {
    if (s.requestsReceivedTotal().isPresent()) {
      return s.requestsReceivedTotal().getAsLong();
    }
    if (s.queueTime().isEmpty() || s.waitingRequests().isEmpty() || s.runningRequests().isEmpty()) {
      return -1;
    }
    return s.queueTime().get().count() + s.waitingRequests().getAsInt()
        + s.runningRequests().getAsInt();
  }
}
