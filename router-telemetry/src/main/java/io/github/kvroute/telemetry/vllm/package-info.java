/**
 * vLLM's KV-event stream: {@link io.github.kvroute.telemetry.vllm.VllmKvEventSubscriber} consumes it
 * (ZeroMQ PUB/SUB, msgpack batches, replay of missed batches) into the router's
 * {@code onKvEvent}, numbered for gap detection; {@link io.github.kvroute.telemetry.vllm.VllmKvEvents}
 * is the wire format; {@link io.github.kvroute.telemetry.vllm.VllmBlockHasher} computes vLLM's block
 * hashes so that requests keyed with them match what the events stored;
 * {@link io.github.kvroute.telemetry.vllm.VllmKvEventPublisher} publishes the stream as vLLM does, for
 * emulated engines and tests.
 */
package io.github.kvroute.telemetry.vllm;
