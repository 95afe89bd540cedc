package io.github.kvroute.sim;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.UpdateResult;
import io.github.kvroute.core.Router;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What the routers learn about the fleet, and when.
 *
 * <h2>Design notes</h2>
 * Each replica reports every {@code P} ms, starting at its own phase in {@code (0, P]} drawn from the
 * seed (replicas are not synchronized, so a router never sees the whole fleet refreshed at once). A
 * report is a {@link ReplicaSnapshot} observed now and delivered to every router {@code D} ms later; KV
 * events (when the scenario has them) travel the same way, in the order they happened. At time zero
 * every router receives one report per replica immediately: the host knows its fleet before traffic
 * starts, so the first requests are not rejected for lack of candidates.
 *
 * <p>Not thread-safe: one simulation, one thread.
 */
final class Telemetry {
  private final EventQueue events;
  private final Router[] routers;
  private final ReplicaEngine[] replicas;
  private final String model;
  private final long intervalNanos;
  private final long delayNanos;
  private final long[] phaseNanos;

  private long snapshots;
  private long kvEvents;
  private long ignored;

  Telemetry(Scenario scenario, EventQueue events, Router[] routers, ReplicaEngine[] replicas,
      String model, SplittableRandom random) {
    this.events = events;
    this.routers = routers;
    this.replicas = replicas;
    this.model = model;
    this.intervalNanos = scenario.telemetryIntervalMillis() * 1_000_000L;
    this.delayNanos = scenario.telemetryDelayMillis() * 1_000_000L;
    this.phaseNanos = new long[replicas.length];
    for (int i = 0; i < replicas.length; i++) {
      phaseNanos[i] = 1 + random.nextLong(intervalNanos);
    }
  }

  /** Delivers the initial reports and schedules the periodic ones. */
  void start() {
    for (ReplicaEngine r : replicas) {
      deliver(snapshot(r));
    }
    for (int i = 0; i < replicas.length; i++) {
      ReplicaEngine r = replicas[i];
      events.schedule(events.read() + phaseNanos[i], () -> tick(r));
    }
  }

  private void tick(ReplicaEngine r) {
    ReplicaSnapshot s = snapshot(r);
    events.schedule(events.read() + delayNanos, () -> deliver(s));
    events.schedule(events.read() + intervalNanos, () -> tick(r));
  }

  /** KV events a replica published now, to be delivered D ms later. */
  void publish(List<KvEvent> published) {
    events.schedule(events.read() + delayNanos, () -> {
      for (KvEvent e : published) {
        for (Router router : routers) {
          if (router.onKvEvent(e) != UpdateResult.APPLIED) {
            ignored++;
          }
        }
        kvEvents++;
      }
    });
  }

  private void deliver(ReplicaSnapshot s) {
    for (Router router : routers) {
      if (router.onSnapshot(s) != UpdateResult.APPLIED) {
        ignored++;
      }
    }
    snapshots++;
  }

  ReplicaSnapshot snapshot(ReplicaEngine r) {
    ReplicaModel m = r.model;
    return ReplicaSnapshot.newBuilder()
        .replicaId(r.id)
        .epoch(r.epoch())
        .observedAtNanos(events.read())
        .state(r.state())
        .model(model)
        .waitingRequests(r.waitingCount())
        .runningRequests(r.runningCount())
        .queuedPrefillTokens(r.queuedPrefillTokens())
        .outstandingDecodeTokens(r.outstandingDecodeTokens())
        .kvBlocks(r.kv.usedBlocks(), r.kv.totalBlocks())
        .kvBlockSizeTokens(r.kv.blockSize())
        .residentAdapters(r.adapters.residentSet())
        .prefillTokensPerSecond(1000.0 / m.prefillMillisPerToken())
        .decodeStepMillis(m.decodeBaseMillis()
            + m.decodePerSequenceMillis() * Math.max(1, r.runningCount()))
        .requestsReceivedTotal(r.requestsReceived())
        .build();
  }

  long snapshotsDelivered() {
    return snapshots;
  }

  long kvEventsDelivered() {
    return kvEvents;
  }

  /** Reports and events the routers ignored (stale epoch, out of order). */
  long ignored() {
    return ignored;
  }
}
