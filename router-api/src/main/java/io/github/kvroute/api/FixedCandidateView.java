package io.github.kvroute.api;

import java.util.OptionalDouble;
import java.util.OptionalLong;

/** The immutable {@link CandidateView} built by {@link CandidateView.Builder}. */
final class FixedCandidateView implements CandidateView {
  private final String replicaId;
  private final long epoch;
  private final ReplicaRole role;
  private final ReplicaSnapshot snapshot;
  private final double snapshotAgeMillis;
  private final boolean telemetryStale;
  private final int inFlightRequests;
  private final long inFlightTokens;
  private final long inFlightPromptTokens;
  private final int dispatchedSinceSnapshot;
  private final double estimatedQueueMillis;
  private final double calibratedQueueMillis;
  private final double queueUncertaintyMillis;
  private final long estimatedOutstandingTokens;
  private final int matchedBlocks;
  private final int matchedTokens;
  private final long cachedBlocks;
  private final long cacheCapacityBlocks;
  private final double prefillMillisPerToken;
  private final double prefillOverheadMillis;
  private final double adapterLoadMillis;
  private final double kvTransferMillis;
  private final OptionalDouble kvUtilization;
  private final OptionalLong freeKvTokens;
  private final double unseenArrivalsPerSecond;
  private final double arrivalsPerSecond;
  private final double meanRequestCostMillis;
  private final double cacheHitReliability;
  private final boolean cacheFromEvents;
  private final OptionalDouble recentTtftMillis;

  FixedCandidateView(CandidateView.Builder b, ReplicaSnapshot snapshot) {
    replicaId = b.replicaId;
    epoch = b.epoch;
    role = b.role;
    this.snapshot = snapshot;
    snapshotAgeMillis = b.snapshotAgeMillis;
    telemetryStale = b.telemetryStale;
    inFlightRequests = b.inFlightRequests;
    inFlightTokens = b.inFlightTokens;
    inFlightPromptTokens = b.inFlightPromptTokens;
    dispatchedSinceSnapshot = b.dispatchedSinceSnapshot;
    estimatedQueueMillis = b.estimatedQueueMillis;
    calibratedQueueMillis = Double.isNaN(b.calibratedQueueMillis)
        ? b.estimatedQueueMillis : b.calibratedQueueMillis;
    queueUncertaintyMillis = b.queueUncertaintyMillis;
    estimatedOutstandingTokens = b.estimatedOutstandingTokens;
    matchedBlocks = b.matchedBlocks;
    matchedTokens = b.matchedTokens;
    cachedBlocks = b.cachedBlocks;
    cacheCapacityBlocks = b.cacheCapacityBlocks;
    prefillMillisPerToken = b.prefillMillisPerToken;
    prefillOverheadMillis = b.prefillOverheadMillis;
    adapterLoadMillis = b.adapterLoadMillis;
    kvTransferMillis = b.kvTransferMillis;
    kvUtilization = b.kvUtilization;
    freeKvTokens = b.freeKvTokens;
    unseenArrivalsPerSecond = b.unseenArrivalsPerSecond;
    arrivalsPerSecond = b.arrivalsPerSecond;
    meanRequestCostMillis = b.meanRequestCostMillis;
    cacheHitReliability = b.cacheHitReliability;
    cacheFromEvents = b.cacheFromEvents;
    recentTtftMillis = b.recentTtftMillis;
  }

  @Override public String replicaId() { return replicaId; }
  @Override public long epoch() { return epoch; }
  @Override public ReplicaRole role() { return role; }
  @Override public ReplicaSnapshot snapshot() { return snapshot; }
  @Override public double snapshotAgeMillis() { return snapshotAgeMillis; }
  @Override public boolean telemetryStale() { return telemetryStale; }
  @Override public int inFlightRequests() { return inFlightRequests; }
  @Override public long inFlightTokens() { return inFlightTokens; }
  @Override public long inFlightPromptTokens() { return inFlightPromptTokens; }
  @Override public int dispatchedSinceSnapshot() { return dispatchedSinceSnapshot; }
  @Override public double estimatedQueueMillis() { return estimatedQueueMillis; }
  @Override public double calibratedQueueMillis() { return calibratedQueueMillis; }
  @Override public double queueUncertaintyMillis() { return queueUncertaintyMillis; }
  @Override public long estimatedOutstandingTokens() { return estimatedOutstandingTokens; }
  @Override public int matchedBlocks() { return matchedBlocks; }
  @Override public int matchedTokens() { return matchedTokens; }
  @Override public long cachedBlocks() { return cachedBlocks; }
  @Override public long cacheCapacityBlocks() { return cacheCapacityBlocks; }
  @Override public double prefillMillisPerToken() { return prefillMillisPerToken; }
  @Override public double prefillOverheadMillis() { return prefillOverheadMillis; }
  @Override public double adapterLoadMillis() { return adapterLoadMillis; }
  @Override public double kvTransferMillis() { return kvTransferMillis; }
  @Override public OptionalDouble kvUtilization() { return kvUtilization; }
  @Override public OptionalLong freeKvTokens() { return freeKvTokens; }
  @Override public double unseenArrivalsPerSecond() { return unseenArrivalsPerSecond; }
  @Override public double arrivalsPerSecond() { return arrivalsPerSecond; }
  @Override public double meanRequestCostMillis() { return meanRequestCostMillis; }
  @Override public double cacheHitReliability() { return cacheHitReliability; }
  @Override public boolean cacheFromEvents() { return cacheFromEvents; }
  @Override public OptionalDouble recentTtftMillis() { return recentTtftMillis; }

  @Override
  public String toString() {
    return "CandidateView{" + replicaId + "#" + epoch + ", queue=" + estimatedQueueMillis
        + "ms, matched=" + matchedTokens + "t}";
  }
}
