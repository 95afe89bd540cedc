package io.github.kvroute.core;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaState;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What one router knows about one replica right now, for hosts' admin endpoints and dashboards.
 *
 * @param replicaId the replica
 * @param epoch its current epoch, or -1 before any report
 * @param state its reported lifecycle state, empty before a report in the current epoch
 * @param role its reported role, empty before a report in the current epoch
 * @param breaker its circuit breaker
 * @param reportAgeMillis age of its latest report, or -1 before any
 * @param inFlightRequests this router's attempts on it without an outcome
 * @param inFlightTokens prompt plus planned output tokens of those
 * @param estimatedQueueMillis this router's queue estimate (the report replayed with its own sends)
 * @param exactIndex whether its prefix-index entries come from KV events (exact) or routing (guesses)
 * @param degradedIndex whether a gap in its KV-event sequence numbers put its index back in
 *     approximate mode until a resync (a {@code CLEARED} event or a new epoch); {@code exactIndex} is
 *     then false
 * @param indexEntries blocks the index believes it holds
 * @param cacheHitReliability how far outcomes confirmed those beliefs, in [0, 1]
 * @param queueFactor how much longer than estimated its queues have taken to drain, learnt from
 *     outcomes (1 until they say otherwise); admission judges deadlines by the estimate times this
 * @param prefillMillisPerToken the prefill cost per computed token the router uses for it now: the
 *     reported throughput, else the one learnt from its outcomes as the fleet judges it (the median
 *     of the replicas' learnt rates unless this one's differs from it by more than a factor of 1.25;
 *     docs/cost-model.md, "Calibration"), else the cost model's configured prior
 * @param learntPrefillMillisPerToken the prefill cost per computed token learnt from this replica's
 *     own outcomes (TTFTs), empty until enough samples agree
 *
 * <p>Immutable and thread-safe.
 */
public record ReplicaStatus(
    String replicaId,
    long epoch,
    Optional<ReplicaState> state,
    Optional<ReplicaRole> role,
    BreakerState breaker,
    double reportAgeMillis,
    int inFlightRequests,
    long inFlightTokens,
    double estimatedQueueMillis,
    boolean exactIndex,
    boolean degradedIndex,
    int indexEntries,
    double cacheHitReliability,
    double queueFactor,
    double prefillMillisPerToken,
    OptionalDouble learntPrefillMillisPerToken) {}
