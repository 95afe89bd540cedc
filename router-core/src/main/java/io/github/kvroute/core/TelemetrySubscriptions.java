package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.TelemetrySink;
import io.github.kvroute.api.TelemetrySource;
import java.util.ArrayList;
import java.util.List;

/**
 * A router's subscriptions to its telemetry sources, held until {@link Router#close}. A source that
 * throws is contained like any host plugin: routing goes on without it.
 *
 * <p>Thread-safety: thread-safe; the handles are guarded by their list.
 */
final class TelemetrySubscriptions {
  private final PluginGuard guard;
  @GuardedBy("subscriptions")
  private final List<AutoCloseable> subscriptions = new ArrayList<>();

  TelemetrySubscriptions(PluginGuard guard) {
    this.guard = guard;
  }

  /** Subscribes {@code sink} to each of {@code sources}, keeping the handles they return. */
  void subscribe(List<TelemetrySource> sources, TelemetrySink sink) {
    for (TelemetrySource source : sources) {
      try {
        AutoCloseable handle = source.subscribe(sink);
        if (handle != null) {
          synchronized (subscriptions) {
            subscriptions.add(handle);
          }
        }
      } catch (Throwable e) {
        guard.failed("telemetry source", "routing goes on without its reports", e);
      }
    }
  }

  /** Closes every handle, each contained: one that throws is dropped anyway. */
  void close() {
    synchronized (subscriptions) {
      for (AutoCloseable c : subscriptions) {
        try {
          c.close();
        } catch (Throwable e) {
          guard.failed("telemetry source", "dropped its subscription anyway", e);
        }
      }
      subscriptions.clear();
    }
  }
}
