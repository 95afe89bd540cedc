package io.github.kvroute.examples.gateway;

import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gateway's attempts in flight, so that the router can say which to retry: when a replica stops
 * or restarts, the router reports its attempts as orphaned ({@link RouterListener#onOrphaned}), and
 * the gateway abandons each one that has not streamed a token yet and routes it again. That covers a
 * replica that stops answering without closing its connections, which no connection error would
 * reveal.
 *
 * <p>Give the same instance to {@code Router.Builder.listener} and {@code OpenAiGateway.Builder.attempts}
 * (a host with a listener of its own calls {@link #onOrphaned} from it). Bounded: one entry per attempt
 * in flight, removed when the attempt ends.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class InFlightAttempts implements RouterListener {
  private final Map<RequestRef, Runnable> abandon = new ConcurrentHashMap<>();

  /** Records an attempt in flight and what abandons it. */
  void add(RequestRef attempt, Runnable abandonIt) {
    abandon.put(attempt, abandonIt);
  }

  /** Forgets an attempt that ended. */
  void remove(RequestRef attempt) {
    abandon.remove(attempt);
  }

  /** {@return the attempts in flight now} */
  public int size() {
    return abandon.size();
  }

  @Override
  public void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {
    for (RequestRef a : attempts) {
      Runnable r = abandon.remove(a);
      if (r != null) {
        r.run();
      }
    }
  }
}
