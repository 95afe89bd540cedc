package io.github.kvroute.testkit;

import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.UpdateResult;
import java.util.HashMap;
import java.util.Map;

/**
 * The contract's own, independent account of which replica may serve which request: the latest report
 * the router applied per replica (reports it ignored, such as older epochs, change nothing), minus
 * removed replicas. Eligible: READY, the request's model, its version when pinned, its adapter
 * resident or loadable, and a role that fits. Breakers are not modelled: the router may exclude more
 * replicas than this model, never fewer.
 *
 * <p>Not thread-safe.
 */
final class EligibilityModel {
  private final Map<String, ReplicaSnapshot> current = new HashMap<>();

  void reported(ReplicaSnapshot s, UpdateResult result) {
    if (result == UpdateResult.APPLIED) {
      current.put(s.replicaId(), s);
    }
  }

  void removed(String replicaId) {
    current.remove(replicaId);
  }

  /** Null when {@code d} is a rejection or names eligible replicas; otherwise what is wrong. */
  String violation(Request r, RoutingDecision d) {
    if (!d.isRouted()) {
      return null;
    }
    if (d.prefillReplicaId().isPresent()) {
      String p = why(r, d.prefillReplicaId().get(), d.prefillEpoch(), ReplicaRole.PREFILL);
      return p != null ? "prefill " + p : why(r, d.replicaId(), d.epoch(), ReplicaRole.DECODE);
    }
    return why(r, d.replicaId(), d.epoch(), ReplicaRole.MIXED);
  }

  /**
   * Whether some placement exists for {@code r}: a replica that serves it whole, or a prefill replica
   * and a decode replica (a policy may route the pair). Without one, a rejection must be
   * {@code NO_CANDIDATES}.
   */
  boolean anyPlacement(Request r) {
    boolean prefill = false;
    boolean decode = false;
    for (ReplicaSnapshot s : current.values()) {
      prefill |= why(r, s.replicaId(), s.epoch(), ReplicaRole.PREFILL) == null;
      decode |= why(r, s.replicaId(), s.epoch(), ReplicaRole.DECODE) == null;
    }
    return prefill && decode;
  }

  private String why(Request r, String id, long epoch, ReplicaRole role) {
    ReplicaSnapshot s = current.get(id);
    if (s == null) {
      return id + " is not a known replica (never reported, or removed)";
    }
    if (s.epoch() != epoch) {
      return id + "#" + epoch + " is a stale epoch (current " + s.epoch() + ")";
    }
    if (s.state() != ReplicaState.READY) {
      return id + " is " + s.state();
    }
    if (!s.model().equals(r.model())) {
      return id + " serves " + s.model() + ", not " + r.model();
    }
    if (r.modelVersion().isPresent() && !r.modelVersion().equals(s.modelVersion())) {
      return id + " serves version " + s.modelVersion().orElse("(none)") + ", not "
          + r.modelVersion().get();
    }
    if (r.adapter().isPresent() && !s.canServeAdapter(r.adapter().get())) {
      return id + " cannot serve adapter " + r.adapter().get();
    }
    if (s.role() != role && s.role() != ReplicaRole.MIXED) {
      return id + " has role " + s.role() + " (needed " + role + ")";
    }
    return null;
  }
}
