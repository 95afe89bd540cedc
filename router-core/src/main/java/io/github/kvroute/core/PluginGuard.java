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
 * Contains host plugins: a failure is counted, reported to the listeners, and logged, naming the
 * fallback the caller then uses ({@code kvroute plugin 'policy p' failed; used the least-cost
 * replica instead}): at WARN the first time for each plugin and fallback, then at DEBUG. The log goes
 * through SLF4J, so a host sees it only with a binding on its class path. Also fans the router's events out
 * to the host's listeners, so that a throwing listener can break neither routing nor the other
 * listeners: each listener is called in registration order, and one that throws is contained, counted
 * and reported to the others' {@link RouterListener#onPluginFailure} (never to itself, so a failing
 * listener cannot recurse).
 *
 * <p>Every {@link Throwable} is contained (errors such as {@link AssertionError},
 * {@link StackOverflowError} or {@link LinkageError}, and checked exceptions thrown sneakily),
 * except the {@link VirtualMachineError}s a thread cannot recover from: {@link OutOfMemoryError},
 * {@link InternalError} and {@link UnknownError} are rethrown (see {@link #rethrowIfFatal}), and then
 * the listeners after the one that threw do not hear of the event. A contained
 * {@link InterruptedException} re-asserts the thread's interrupt flag.
 *
 * <p>Thread-safety: thread-safe.
 */
final class PluginGuard {
  private static final RouterListener NONE = new RouterListener() {};
  /** What a throwing listener costs: the event it threw on. */
  static final String LISTENER_FALLBACK = "skipped that event for the listener";

  private final Logger log;
  /**
   * Plugin and fallback pairs already logged at WARN. Bounded by the router's plugins (one policy,
   * one admission controller, its scorers, telemetry sources, the listeners) times the few fallbacks
   * each has.
   */
  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  private final LongAdder failures = new LongAdder();
  /** The host's listeners, in registration order; an array so that events allocate nothing. */
  private final RouterListener[] hostListeners;
  private final RouterListener safeListener;

  PluginGuard(List<RouterListener> hostListeners) {
    this(hostListeners, LoggerFactory.getLogger(PluginGuard.class));
  }

  PluginGuard(List<RouterListener> hostListeners, Logger log) {
    this.log = log;
    this.hostListeners = hostListeners.toArray(new RouterListener[0]);
    this.safeListener = this.hostListeners.length == 0 ? NONE : new SafeListeners();
  }

  /** The listener to call: calls every host listener, never throws (except fatal errors). */
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
    tellOthers(null, plugin, error);
  }

  /** Reports a failure to every listener but {@code failed} (a listener, or null for none). */
  private void tellOthers(RouterListener failed, String plugin, Throwable error) {
    for (RouterListener l : hostListeners) {
      if (l == failed) {
        continue;
      }
      try {
        l.onPluginFailure(plugin, error);
      } catch (Throwable e) {
        // not reported on: a listener failing to hear of a failure must not start a cascade
        contain(e);
        record(listenerName(l), LISTENER_FALLBACK, e);
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


  private static void contain(Throwable e) {
    rethrowIfFatal(e);
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
  }

  /** How a failing listener is named in logs and to the other listeners. */
  static String listenerName(RouterListener listener) {
    return "listener " + listener.getClass().getName();
  }

  /** A listener of the router threw: contained, counted, and reported to the other listeners. */
  private void listenerFailed(RouterListener listener, Throwable e) {
    contain(e);
    String name = listenerName(listener);
    record(name, LISTENER_FALLBACK, e);
    tellOthers(listener, name, e);
  }

  /**
   * Calls every host listener in turn. Written out per event, without lambdas, so that an event
   * allocates nothing.
   */
  private final class SafeListeners implements RouterListener {
    @Override
    public void onDecision(Request request, RoutingDecision decision) {
      for (RouterListener l : hostListeners) {
        try {
          l.onDecision(request, decision);
        } catch (Throwable e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void onOutcome(Outcome outcome, UpdateResult result) {
      for (RouterListener l : hostListeners) {
        try {
          l.onOutcome(outcome, result);
        } catch (Throwable e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void onTtftObserved(
        RequestRef attempt, String replicaId, double predictedMillis, double actualMillis) {
      for (RouterListener l : hostListeners) {
        try {
          l.onTtftObserved(attempt, replicaId, predictedMillis, actualMillis);
        } catch (Throwable e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void onReplicaStateChanged(
        String replicaId, long epoch, ReplicaState previous, ReplicaState current) {
      for (RouterListener l : hostListeners) {
        try {
          l.onReplicaStateChanged(replicaId, epoch, previous, current);
        } catch (Throwable e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void onReplicaRestarted(String replicaId, long previousEpoch, long epoch) {
      for (RouterListener l : hostListeners) {
        try {
          l.onReplicaRestarted(replicaId, previousEpoch, epoch);
        } catch (Throwable e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {
      for (RouterListener l : hostListeners) {
        try {
          l.onOrphaned(replicaId, epoch, attempts);
        } catch (Throwable e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void onLeaseExpired(RequestRef attempt, String replicaId) {
      for (RouterListener l : hostListeners) {
        try {
          l.onLeaseExpired(attempt, replicaId);
        } catch (Throwable e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void onBreakerStateChanged(String replicaId, BreakerState previous, BreakerState current) {
      for (RouterListener l : hostListeners) {
        try {
          l.onBreakerStateChanged(replicaId, previous, current);
        } catch (Throwable e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void onPluginFailure(String plugin, Throwable error) {
      tellOthers(null, plugin, error);
    }
  }
}
