package io.github.kvroute.core;

import com.google.common.math.LongMath;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The router's reusable {@link CandidateView}: one per candidate slot in a thread's decision
 * context, refilled for every decision so that routing allocates no view objects.
 *
 * <h2>Design notes</h2>
 * The views live as long as their context, so under G1 every store of a reference into one that
 * points into another region pays the collector's card-marking barrier, a {@code StoreLoad} fence
 * (JFR put about a sixth of a 64-replica decision on the lines storing the entry, the snapshot and
 * the request into the views; without those stores the decision measured 5-7% faster). So the
 * reference fields are written only when they change ({@link #entry} and {@link #snapshot} stay
 * from one decision to the next while the fleet does), and the request the view was filled for is
 * not stored at all: it is its {@link #owner}'s request of the moment.
 *
 * <p>A view keeps what it can from one decision to the next, each part behind what would change
 * it: the facts of its report (derived in {@link #report} when the report changes), its reading of
 * the replica's books (kept while their version stands: {@link LedgerReading}), and, for a policy
 * that declares a {@link StandardRanking}, that ranking's per-candidate part, computed with the
 * fill. Nothing here is shared: a view belongs to one thread, and what it keeps from shared state
 * is validated by that state's own version or identity on every decision.
 *
 * <p>Not thread-safe: owned by one thread's {@link DecisionContext}.
 */
final class MutableView implements CandidateView {
  /** The context whose pool holds this view; its request is the one the view is filled for. */
  final DecisionContext owner;
  /**
   * The replica and its report as of the latest decision that had this view among its candidates;
   * kept after it (written again only when they change: see the class notes).
   */
  ReplicaEntry entry;
  /** Written only through {@link #report}, which derives the fields below from it. */
  ReplicaSnapshot snapshot;
  /**
   * What every fill reads of {@link #snapshot}, derived once per report rather than through its
   * {@code Optional}s for every candidate of every decision: whether it reports queued work, and
   * its queued prefill plus outstanding decode tokens (saturated); whether it reports KV use with
   * a positive capacity, that capacity and its used tokens (saturated); whether it is a decode
   * replica.
   */
  boolean reportsWork;
  long reportedWorkTokens;
  boolean reportsKv;
  long kvCapacityTokens;
  long reportedKvTokens;
  boolean decodeRole;
  /** The step term's value, {@code 1.5 x} the reported decode step (0 without one). */
  double stepTermMillis;
  /** {@code 1000 / } the reported prefill throughput, NaN when the report has none. */
  double reportedMillisPerToken;
  /** The report's waiting requests, 0 when it has none. */
  int waitingRequests;
  /** The report's epoch and role. */
  long reportEpoch;
  ReplicaRole reportRole;
  /**
   * The model name (the very string) of a request without a model version or an adapter that this
   * view's report was found eligible for, null for none: a later such request naming the same
   * string is eligible on the same report without reading it again (only whether the replica was
   * removed since, which the entry says). Reset by {@link #report}.
   */
  String eligibleModel;
  long epoch;
  double snapshotAgeMillis;
  /**
   * The standard estimate for its owner's request, NaN until computed in the decision in progress
   * (set to NaN when the view becomes a candidate).
   */
  double standardMillis = Double.NaN;
  /** The standard estimate's terms when {@link #standardMillis} was computed, in the terms' order. */
  double[] termMillis = new double[0];
  /**
   * {@link #termMillis} holds the standard terms in their standard order, each the value its term
   * returned (none was replaced as a failure), so that {@link CostTerms#prefillMillis} can answer
   * from it while the view is filled for its request.
   */
  boolean standardFilled;
  boolean telemetryStale;
  int inFlightRequests;
  long inFlightTokens;
  long inFlightPromptTokens;
  int dispatchedSinceSnapshot;
  double estimatedQueueMillis;
  /** The learnt queue factor ({@link #calibratedQueueMillis()} over the estimate) and its spread. */
  double queueFactor = 1;
  double queueFactorSpread;
  long estimatedOutstandingTokens;
  int matchedBlocks;
  int matchedTokens;
  long cachedBlocks;
  long cacheCapacityBlocks;
  double prefillMillisPerToken;
  double prefillOverheadMillis;
  double adapterLoadMillis;
  double kvTransferMillis;
  /** Negative when unknown; {@code Optional}s are built only when a policy asks. */
  double kvUtilization = -1;
  long freeKvTokens = -1;
  double unseenArrivalsPerSecond;
  double arrivalsPerSecond;
  double meanRequestCostMillis;
  double cacheHitReliability;
  boolean cacheFromEvents;
  /** The entry's, shared: built once per report, never per decision. */
  OptionalDouble recentTtftMillis = OptionalDouble.empty();
  /** {@link #recentTtftMillis}'s presence and value, taken when it changes (NaN when empty). */
  boolean hasRecentTtft;
  double recentTtftValue = Double.NaN;
  /**
   * A {@link StandardRanking}'s per-candidate part, set by its {@code prepare} with the view's fill
   * and read by its {@code scores} (declared together, so that they share a cache line or two):
   * the weighted estimate plus pollution; the candidate's utilisation share; its steady-state
   * requests in system (when it reports a TTFT) and its queued requests; its prefill term.
   */
  double rankPartialMillis;
  double rankUtilisation;
  double rankSteady;
  double rankQueued;
  double rankPrefillMillis;
  boolean rankHasSteady;
  /** A half-open probe place reserved for this decision; given back unless the attempt uses it. */
  boolean probe;
  /** Taken out of the candidates: it holds the request's earlier attempt ({@link AttemptPlacement}). */
  boolean avoided;
  final LedgerReading reading = new LedgerReading();

  MutableView(DecisionContext owner) {
    this.owner = owner;
  }

  /** Takes {@code snap} as the view's report, with the facts derived from it (see above). */
  void report(ReplicaSnapshot snap) {
    snapshot = snap;
    reportsWork =
        snap.queuedPrefillTokens().isPresent() || snap.outstandingDecodeTokens().isPresent();
    // reported counts are host input: sums saturate rather than wrap to negative
    reportedWorkTokens = reportsWork ? LongMath.saturatedAdd(snap.queuedPrefillTokens().orElse(0),
        snap.outstandingDecodeTokens().orElse(0)) : 0;
    OptionalLong capacity = snap.kvCapacityTokens();
    reportsKv =
        capacity.isPresent() && snap.kvBlocksUsed().isPresent() && capacity.getAsLong() > 0;
    kvCapacityTokens = reportsKv ? capacity.getAsLong() : 0;
    reportedKvTokens = reportsKv ? LongMath.saturatedMultiply(snap.kvBlocksUsed().getAsLong(),
        snap.kvBlockSizeTokens().getAsInt()) : 0;
    decodeRole = snap.role() == ReplicaRole.DECODE;
    // the same arithmetic as StepTerm and Fleet.msPerToken, once per report instead of per decision
    stepTermMillis = StepTerm.STEPS * snap.decodeStepMillis().orElse(0);
    waitingRequests = snap.waitingRequests().orElse(0);
    reportEpoch = snap.epoch();
    reportRole = snap.role();
    eligibleModel = null;
    reportedMillisPerToken = snap.prefillTokensPerSecond().isPresent()
        ? 1000.0 / snap.prefillTokensPerSecond().getAsDouble() : Double.NaN;
  }

  /**
   * Whether this view is filled for {@code request} in the decision in progress: its owner is
   * deciding that request and the standard estimate is computed.
   */
  boolean filledFor(Request request) {
    return owner.request == request && request != null && !Double.isNaN(standardMillis);
  }

  /** KV tokens freed here per second by finishing sends (for a decode replica's readiness). */
  double freedKvTokensPerSecond() {
    return reading.freedTokensPerSecond();
  }

  @Override
  public String replicaId() {
    return entry.id;
  }

  @Override
  public long epoch() {
    return epoch;
  }

  @Override
  public ReplicaRole role() {
    return snapshot.role();
  }

  @Override
  public ReplicaSnapshot snapshot() {
    return snapshot;
  }

  @Override
  public double snapshotAgeMillis() {
    return snapshotAgeMillis;
  }

  @Override
  public boolean telemetryStale() {
    return telemetryStale;
  }

  @Override
  public int inFlightRequests() {
    return inFlightRequests;
  }

  @Override
  public long inFlightTokens() {
    return inFlightTokens;
  }

  @Override
  public long inFlightPromptTokens() {
    return inFlightPromptTokens;
  }

  @Override
  public int dispatchedSinceSnapshot() {
    return dispatchedSinceSnapshot;
  }

  @Override
  public double estimatedQueueMillis() {
    return estimatedQueueMillis;
  }

  @Override
  public double calibratedQueueMillis() {
    return estimatedQueueMillis * queueFactor;
  }

  @Override
  public double queueUncertaintyMillis() {
    return estimatedQueueMillis * queueFactorSpread;
  }

  @Override
  public long estimatedOutstandingTokens() {
    return estimatedOutstandingTokens;
  }

  @Override
  public int matchedBlocks() {
    return matchedBlocks;
  }

  @Override
  public int matchedTokens() {
    return matchedTokens;
  }

  @Override
  public long cachedBlocks() {
    return cachedBlocks;
  }

  @Override
  public long cacheCapacityBlocks() {
    return cacheCapacityBlocks;
  }

  @Override
  public double prefillMillisPerToken() {
    return prefillMillisPerToken;
  }

  @Override
  public double prefillOverheadMillis() {
    return prefillOverheadMillis;
  }

  @Override
  public double adapterLoadMillis() {
    return adapterLoadMillis;
  }

  @Override
  public double kvTransferMillis() {
    return kvTransferMillis;
  }

  @Override
  public OptionalDouble kvUtilization() {
    return kvUtilization < 0 ? OptionalDouble.empty() : OptionalDouble.of(kvUtilization);
  }

  @Override
  public OptionalLong freeKvTokens() {
    return freeKvTokens < 0 ? OptionalLong.empty() : OptionalLong.of(freeKvTokens);
  }

  @Override
  public double unseenArrivalsPerSecond() {
    return unseenArrivalsPerSecond;
  }

  @Override
  public double arrivalsPerSecond() {
    return arrivalsPerSecond;
  }

  @Override
  public double meanRequestCostMillis() {
    return meanRequestCostMillis;
  }

  @Override
  public double cacheHitReliability() {
    return cacheHitReliability;
  }

  @Override
  public boolean cacheFromEvents() {
    return cacheFromEvents;
  }

  @Override
  public OptionalDouble recentTtftMillis() {
    return recentTtftMillis;
  }

  @Override
  public String toString() {
    return "CandidateView{" + entry.id + "#" + epoch + ", queue=" + estimatedQueueMillis
        + "ms, matched=" + matchedTokens + "t, age=" + snapshotAgeMillis + "ms}";
  }
}
