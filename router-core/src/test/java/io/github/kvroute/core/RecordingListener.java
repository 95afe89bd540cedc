package io.github.kvroute.core;

import io.github.kvroute.api.BreakerState;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.RouterListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps the lifecycle events a router reports, as readable lines. Thread-safe. */
final class RecordingListener implements RouterListener {
  final List<String> events = new CopyOnWriteArrayList<>();
  final List<RequestRef> orphaned = new CopyOnWriteArrayList<>();
  final List<RequestRef> expired = new CopyOnWriteArrayList<>();

  @Override
  public void onReplicaStateChanged(
      String replicaId, long epoch, ReplicaState previous, ReplicaState current) {
    events.add("state " + replicaId + "#" + epoch + " " + previous + "->" + current);
  }

  @Override
  public void onReplicaRestarted(String replicaId, long previousEpoch, long epoch) {
    events.add("restarted " + replicaId + " " + previousEpoch + "->" + epoch);
  }

  @Override
  public void onOrphaned(String replicaId, long epoch, List<RequestRef> attempts) {
    events.add("orphaned " + replicaId + "#" + epoch + " " + attempts);
    orphaned.addAll(attempts);
  }

  @Override
  public void onLeaseExpired(RequestRef attempt, String replicaId) {
    events.add("expired " + attempt + " on " + replicaId);
    expired.add(attempt);
  }

  @Override
  public void onBreakerStateChanged(String replicaId, BreakerState previous, BreakerState current) {
    events.add("breaker " + replicaId + " " + previous + "->" + current);
  }
}
