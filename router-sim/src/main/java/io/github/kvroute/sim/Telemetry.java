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
 * <p>What a report contains is the scenario's {@link TelemetryProfile}: a scrape of a stock engine's
 * metrics, or an instrumented engine's internals. The one rate a profile reports from the engine
 * itself (SGLang's {@code gen_throughput}) is the tokens generated since the replica's previous report
 * over the time between them.
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
  private final TelemetryProfile profile;
  /** Per replica: generated tokens and time at the previous report, for rate gauges. */
  private final long[] lastGenerated;
  private final long[] lastAtNanos;
  private final long[] lastEpoch;

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
    this.profile = scenario.telemetry();
    this.lastGenerated = new long[replicas.length];
    this.lastAtNanos = new long[replicas.length];
    this.lastEpoch = new long[replicas.length];
    java.util.Arrays.fill(lastAtNanos, -1);
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

  /** What {@code r} reports now under the scenario's profile. */
  ReplicaSnapshot snapshot(ReplicaEngine r) {
    long now = events.read();
    ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder()
        .replicaId(r.id)
        .epoch(r.epoch())
        .observedAtNanos(now)
        .state(r.state())
        .model(model);
    profile.report(r, b, generationRate(r, now));
    return b.build();
  }

  /** Tokens per second generated since the replica's previous report in this epoch; NaN if none. */
  private double generationRate(ReplicaEngine r, long now) {
    long generated = r.generationTokensTotal();
    int i = r.index;
    double rate = lastAtNanos[i] >= 0 && lastEpoch[i] == r.epoch() && now > lastAtNanos[i]
        ? (generated - lastGenerated[i]) / ((now - lastAtNanos[i]) / 1e9) : Double.NaN;
    lastGenerated[i] = generated;
    lastAtNanos[i] = now;
    lastEpoch[i] = r.epoch();
    return rate;
  }

  TelemetryProfile profile() {
    return profile;
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
