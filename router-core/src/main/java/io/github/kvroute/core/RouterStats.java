package io.github.kvroute.core;

import com.google.common.collect.ImmutableMap;
import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.UpdateResult;
import java.util.Map;

/**
 * A point-in-time reading of a router's totals. The numbers add up: every {@code route} call is counted
 * once as routed or as rejected with a reason; every routed attempt is, at any moment, in flight, or
 * ended by an applied outcome, expiry or orphaning:
 * {@code routed = inFlight + outcomes(APPLIED) + expired + orphaned}.
 *
 * <p>Immutable and thread-safe. Counters are read one by one, so under concurrent traffic a reading may
 * be off by the requests in progress while it was taken.
 *
 * @param routed route calls that returned a routed decision
 * @param rejectedByReason route calls that returned a rejection, by reason
 * @param outcomesByResult outcome reports, by what the router did with them
 * @param inFlight open leases
 * @param expired leases that timed out without an outcome
 * @param orphaned leases ended because their replica stopped, restarted or was removed, or because
 * a
 *     later attempt of the same request was routed (exactly one attempt is authoritative)
 * @param indexEntries (replica, block) entries in the prefix index
 * @param indexBlocks distinct blocks in the prefix index
 * @param indexBytes the prefix index's memory accounting, which its budget bounds: an upper
 *     bound of the heap its arrays retain
 * @param indexBudgetBytes the prefix index's hard budget
 * @param droppedIndexHints optimistic inserts dropped because the index's write buffer was full
 * @param indexCompactions compactions of the prefix index's arrays (on its compaction executor or
 *     inside the writes that called for them)
 * @param pluginFailures exceptions contained from host plugins
 * @param droppedKvEvents KV events dropped because their replica was unknown
 *     ({@link UpdateResult#UNKNOWN_REPLICA})
 * @param skewedReports reports ignored because they were observed too far in the router's future
 *     ({@link UpdateResult#CLOCK_SKEW})
 * @param kvEventGaps gaps found in replicas' KV-event sequence numbers (events lost in transit);
 *     each degrades its replica's index until a resync (see {@link Router#onKvEvent})
 * @param outOfOrderKvEvents KV events dropped because their sequence number was not above the last
 *     one applied for their replica and epoch (duplicates, late retransmissions)
 */
public record RouterStats(
    long routed,
    Map<RejectReason, Long> rejectedByReason,
    Map<UpdateResult, Long> outcomesByResult,
    long inFlight,
    long expired,
    long orphaned,
    long indexEntries,
    long indexBlocks,
    long indexBytes,
    long indexBudgetBytes,
    long droppedIndexHints,
    long indexCompactions,
    long pluginFailures,
    long droppedKvEvents,
    long skewedReports,
    long kvEventGaps,
    long outOfOrderKvEvents) {

  /**
   * Copies both maps into immutable maps.
   *
   * @param routed route calls that returned a routed decision
   * @param rejectedByReason route calls that returned a rejection, by reason
   * @param outcomesByResult outcome reports, by what the router did with them
   * @param inFlight open leases
   * @param expired leases that timed out without an outcome
   * @param orphaned leases ended because their replica stopped, restarted or was removed, or
   *     because a later attempt of the same request was routed (exactly one attempt is
   *     authoritative)
   * @param indexEntries (replica, block) entries in the prefix index
   * @param indexBlocks distinct blocks in the prefix index
   * @param indexBytes the prefix index's memory accounting, which its budget bounds: an upper
   *     bound of the heap its arrays retain
   * @param indexBudgetBytes the prefix index's hard budget
   * @param droppedIndexHints optimistic inserts dropped because the index's write buffer was full
   * @param indexCompactions compactions of the prefix index's arrays (on its compaction executor
   *     or inside the writes that called for them)
   * @param pluginFailures exceptions contained from host plugins
   * @param droppedKvEvents KV events dropped because their replica was unknown
   *     ({@link UpdateResult#UNKNOWN_REPLICA})
   * @param skewedReports reports ignored because they were observed too far in the router's future
   *     ({@link UpdateResult#CLOCK_SKEW})
   * @param kvEventGaps gaps found in replicas' KV-event sequence numbers (events lost in transit);
   *     each degrades its replica's index until a resync (see {@link Router#onKvEvent})
   * @param outOfOrderKvEvents KV events dropped because their sequence number was not above the
   *     last one applied for their replica and epoch (duplicates, late retransmissions)
   */
  public RouterStats {
    rejectedByReason = ImmutableMap.copyOf(rejectedByReason);
    outcomesByResult = ImmutableMap.copyOf(outcomesByResult);
  }

  /** {@return rejections of every reason, summed} */
  public long rejected() {
    return rejectedByReason.values().stream().mapToLong(Long::longValue).sum();
  }

  /** {@return every route call: {@code routed + rejected}} */
  public long decisions() {
    return routed + rejected();
  }

  /** {@return outcomes that closed a lease} */
  public long outcomesApplied() {
    return outcomesByResult.getOrDefault(UpdateResult.APPLIED, 0L);
  }
}
