/**
 * Telemetry adapters that connect a kvroute router to a real fleet: {@link
 * io.github.kvroute.telemetry.PrometheusPoller} scrapes vLLM and SGLang {@code /metrics} into
 * replica snapshots, and {@link io.github.kvroute.telemetry.vllm.VllmKvEventSubscriber} consumes
 * vLLM's KV-event stream. Both are {@link io.github.kvroute.api.TelemetrySource}s: give them to
 * {@code Router.Builder.telemetrySources} or subscribe a sink yourself. Nothing here logs or prints;
 * what went wrong is in each source's status.
 */
package io.github.kvroute.telemetry;
