package io.github.kvroute.sim;

import io.github.kvroute.api.CostBreakdown;

/**
 * How one request ended, kept when a run is asked to record requests (tests check timelines with it).
 *
 * @param id the request id
 * @param end how it ended
 * @param reason why it was rejected or failed; empty when completed
 * @param ttftNanos first token minus arrival, or -1
 * @param e2eNanos last token minus arrival, or -1
 * @param cachedTokens prompt tokens reused at the last attempt's first prefill
 * @param replica the replica of the last attempt, or empty
 * @param attempts attempts made
 * @param queueNanos time in the replica's waiting queue at the last attempt, or -1
 * @param predicted the router's cost breakdown for the last routed attempt (empty if never routed):
 *     what it predicted, for comparison with what happened
 */
record RequestRecord(String id, RequestState.End end, String reason, long ttftNanos, long e2eNanos,
    int cachedTokens, String replica, int attempts, long queueNanos, CostBreakdown predicted) {}
