package io.github.kvroute.core;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Contains host plugins: a failure is counted, reported to the listener, and logged, naming the
 * fallback the caller then uses ({@code kvroute plugin 'policy p' failed; used the least-cost
 * replica instead}): at WARN the first time for each plugin and fallback, then at DEBUG. The log goes
 * through SLF4J, so a host sees it only with a binding on its class path. Also wraps the host's
 * listener so that a throwing listener cannot break routing.
 *
 * <p>Every {@link Throwable} is contained (errors such as {@link AssertionError},
 * {@link StackOverflowError} or {@link LinkageError}, and checked exceptions thrown sneakily),
 * except the {@link VirtualMachineError}s a thread cannot recover from: {@link OutOfMemoryError},
 * {@link InternalError} and {@link UnknownError} are rethrown (see {@link #rethrowIfFatal}). A
 * contained {@link InterruptedException} re-asserts the thread's interrupt flag.
 *
 * <p>Thread-safety: thread-safe.
 */
final class PluginGuard {
  /** What a throwing listener costs: the event it threw on. */
  static final String LISTENER_FALLBACK = "skipped that event for the listener";

  private final Logger log;
  /**
   * Plugin and fallback pairs already logged at WARN. Bounded by the router's plugins (one policy,
   * one admission controller, its scorers, telemetry sources, the listener) times the few fallbacks
   * each has.
   */
  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  private final LongAdder failures = new LongAdder();
  private final RouterListener hostListener;
  private final RouterListener safeListener;

  PluginGuard(RouterListener hostListener) {
    this(hostListener, LoggerFactory.getLogger(PluginGuard.class));
  }

  PluginGuard(RouterListener hostListener, Logger log) {
    this.log = log;
    this.hostListener = hostListener;
    this.safeListener = hostListener == null ? new RouterListener() {} : new SafeListener();
  }

  /** The listener to call: never throws. */
  RouterListener listener() {
    return safeListener;
  }

  long failures() {
    return failures.sum();
  }

  /**
   * Rethrows {@code error} if the JVM cannot be trusted after it: a {@link VirtualMachineError}
   * other than {@link StackOverflowError} (whose stack is unwound by the time it is caught).
   */
  static void rethrowIfFatal(Throwable error) {
    if (error instanceof VirtualMachineError && !(error instanceof StackOverflowError)) {
      throw (VirtualMachineError) error;
    }
  }

  /**
   * Records a contained failure of {@code plugin}; rethrows it if it is fatal.
   *
   * @param fallback what the caller does instead, as the log says it: "used the least-cost replica
   *     instead"
   */
  void failed(String plugin, String fallback, Throwable error) {
    rethrowIfFatal(error);
    if (error instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    record(plugin, fallback, error);
    if (hostListener != null) {
      try {
        hostListener.onPluginFailure(plugin, error);
      } catch (Throwable e) {
        rethrowIfFatal(e);
        record("listener", LISTENER_FALLBACK, e);
      }
    }
  }

  private void record(String plugin, String fallback, Throwable error) {
    failures.increment();
    if (warned.add(plugin + '\n' + fallback)) {
      log.warn("kvroute plugin '" + plugin + "' failed; " + fallback
          + " (logged at WARN once for this plugin and fallback, then at DEBUG)", error);
    } else if (log.isDebugEnabled()) {
      log.debug("kvroute plugin '" + plugin + "' failed; " + fallback, error);
    }
  }

  private final class SafeListener implements RouterListener {
    private void run(Runnable call) {
      try {
        call.run();
      } catch (Throwable e) {
        rethrowIfFatal(e);
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        record("listener", LISTENER_FALLBACK, e);
      }
    }

    @Override
    public void onDecision(Request request, RoutingDecision decision) {
      run(() -> hostListener.onDecision(request, decision));
    }

    @Override
    public void onOutcome(Outcome outcome, UpdateResult result) {
      run(() -> hostListener.onOutcome(outcome, result));
    }

    @Override
    public void onReplicaStateChanged(
        String replicaId, long epoch, ReplicaState previous, ReplicaState current) {
      run(() -> hostListener.onReplicaStateChanged(replicaId, epoch, previous, current));
    }

    @Override
    public void onReplicaRestarted(String replicaId, long previousEpoch, long epoch) {
      run(() -> hostListener.onReplicaRestarted(replicaId, previousEpoch, epoch));
    }

    @Override
    public void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {
      run(() -> hostListener.onOrphaned(replicaId, epoch, attempts));
    }

    @Override
    public void onLeaseExpired(RequestRef attempt, String replicaId) {
      run(() -> hostListener.onLeaseExpired(attempt, replicaId));
    }

    @Override
    public void onBreakerStateChanged(String replicaId, BreakerState previous, BreakerState current) {
      run(() -> hostListener.onBreakerStateChanged(replicaId, previous, current));
    }

    @Override
    public void onPluginFailure(String plugin, Throwable error) {
      run(() -> hostListener.onPluginFailure(plugin, error));
    }
  }
}
