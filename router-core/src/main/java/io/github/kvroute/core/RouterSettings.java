package io.github.kvroute.core;

import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Ticker;
import java.time.Duration;

/**
 * What the builder fixed for the router's life: the cost model, the index geometry, the peers, the
 * breaker and lease timeout, and the injected time and randomness.
 *
 * @param defaultCapacityBlocks the cache size, in index blocks, assumed for a replica that does not
 *     report its KV capacity
 * @param peerRouters other routers sending to the same fleet, or -1 to measure them
 * @param maxClockSkew how far in the future a report may be stamped before it is ignored
 * @param maxEpochAdvance how far a replica's epoch may run ahead of the known one, beyond the
 *     nanoseconds elapsed since the router learnt that one, before a report or event is ignored
 * @param topology where replicas sit, for pricing a disaggregated pair's KV transfer
 */
record RouterSettings(CostModel costModel, int blockSizeTokens, long defaultCapacityBlocks,
    int peerRouters, BreakerConfig breakerConfig, Duration leaseTimeout, Duration maxClockSkew,
    long maxEpochAdvance, Ticker ticker,
    RandomSource random, Topology topology) {}
