package io.github.kvroute.examples.gateway;

/**
 * The gateway's totals: every client request ends in exactly one of {@link #completed},
 * {@link #rejected}, {@link #unavailable}, {@link #failed} or {@link #cancelled}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param requests client requests received with a valid body
 * @param completed answered by a replica (2xx, or a replica's 4xx passed through)
 * @param retries attempts after the first, over all requests
 * @param rejected answered 429 because admission said no (overload, deadline, policy)
 * @param unavailable answered 503: no replica could take the request
 * @param failed attempts exhausted, or a stream broken after its first token
 * @param cancelled the client went away first
 */
public record GatewayStats(long requests, long completed, long retries, long rejected,
    long unavailable, long failed, long cancelled) {}
