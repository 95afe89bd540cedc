package io.github.kvroute.sim;

import io.github.kvroute.api.KvEvent;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
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
 * <p>{@link Faults} act here: a report made during a blackout of its replica is never delivered; a
 * KV event batch is lost with the scenario's probability (its numbers then skip); after a crash,
 * the dead process's last report and last batch arrive again late.
 *
 * <p>Telemetry also remembers what each router was told (the newest epoch and, for it, the state),
 * so that the simulation can check that no router routes to a replica it could know was not ready.
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
  private final Faults faults;
  private final SplittableRandom lossRandom;
  private final java.util.Map<String, Integer> indexById = new java.util.HashMap<>();
  /** Per replica: the last KV event batch published, replayed late after a crash. */
  private final List<List<KvEvent>> lastBatch = new java.util.ArrayList<>();
  /** Per router and replica: the newest epoch it was told of, and that epoch's last state. */
  private final long[][] knownEpoch;
  private final ReplicaState[][] knownState;

  private long snapshots;
  private long kvEvents;
  private long ignored;
  private long blackedOut;
  private long lostBatches;
  private long replayed;
  /** Each replica's model version, empty without a canary. */
  private final List<java.util.Optional<String>> versions = new java.util.ArrayList<>();

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
      indexById.put(replicas[i].id, i);
      lastBatch.add(List.of());
      versions.add(scenario.replicaVersion(i));
    }
    this.faults = scenario.faults();
    this.lossRandom = new SplittableRandom(scenario.seed() ^ 0x10557L);
    this.knownEpoch = new long[routers.length][replicas.length];
    this.knownState = new ReplicaState[routers.length][replicas.length];
    for (long[] row : knownEpoch) {
      java.util.Arrays.fill(row, -1);
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
    if (faults.blackedOut(r.index, events.read())) {
      blackedOut++;
    } else {
      events.schedule(events.read() + delayNanos, () -> deliver(s));
    }
    events.schedule(events.read() + intervalNanos, () -> tick(r));
  }

  /** KV events a replica published now (one batch), to be delivered D ms later unless lost. */
  void publish(ReplicaEngine r, List<KvEvent> published) {
    lastBatch.set(r.index, published);
    if (faults.kvEventBatchLoss() > 0 && lossRandom.nextDouble() < faults.kvEventBatchLoss()) {
      lostBatches++;
      return;
    }
    events.schedule(events.read() + delayNanos, () -> deliverEvents(published));
  }

  /**
   * {@code r} is about to crash: with a stale replay configured, its last report (made now, in the
   * dying epoch) and its last KV event batch arrive again that long after the crash.
   */
  void crashing(ReplicaEngine r) {
    if (faults.staleReplayMillis() == 0) {
      return;
    }
    ReplicaSnapshot last = snapshot(r);
    List<KvEvent> batch = lastBatch.get(r.index);
    events.schedule(events.read() + faults.staleReplayMillis() * 1_000_000L, () -> {
      replayed += 1 + batch.size();
      deliver(last);
      deliverEvents(batch);
    });
  }

  private void deliverEvents(List<KvEvent> batch) {
    for (KvEvent e : batch) {
      int replica = indexById.get(e.replicaId());
      for (int i = 0; i < routers.length; i++) {
        if (routers[i].onKvEvent(e) != UpdateResult.APPLIED) {
          ignored++;
        } else if (e.epoch() > knownEpoch[i][replica]) {
          knownEpoch[i][replica] = e.epoch();
          knownState[i][replica] = null;
        }
      }
      kvEvents++;
    }
  }

  private void deliver(ReplicaSnapshot s) {
    int replica = indexById.get(s.replicaId());
    for (int i = 0; i < routers.length; i++) {
      if (routers[i].onSnapshot(s) != UpdateResult.APPLIED) {
        ignored++;
      } else if (s.epoch() >= knownEpoch[i][replica]) {
        knownEpoch[i][replica] = s.epoch();
        knownState[i][replica] = s.state();
      }
    }
    snapshots++;
  }

  /**
   * Whether router {@code router} had been told, before routing to {@code replica}'s epoch
   * {@code epoch}, that this process was dead (a newer epoch) or not ready (its last report in that
   * epoch, or none yet in a newer epoch's events).
   */
  boolean knewUnroutable(int router, int replica, long epoch) {
    long known = knownEpoch[router][replica];
    return epoch < known || (epoch == known && knownState[router][replica] != ReplicaState.READY);
  }

  /** What {@code r} reports now under the scenario's profile. */
  ReplicaSnapshot snapshot(ReplicaEngine r) {
    long now = events.read();
    ReplicaSnapshot.Builder b = ReplicaSnapshot.newBuilder()
        .replicaId(r.id)
        .epoch(r.epoch())
        .observedAtNanos(now)
        .state(r.state())
        .role(r.role)
        .model(model);
    versions.get(r.index).ifPresent(b::modelVersion);
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

  /** Reports not delivered because their replica was in a blackout. */
  long blackedOut() {
    return blackedOut;
  }

  /** KV event batches lost on the way. */
  long lostBatches() {
    return lostBatches;
  }

  /** Reports and events of a dead epoch delivered again after its crash. */
  long replayed() {
    return replayed;
  }

  /** Reports and events the routers ignored (stale epoch, out of order). */
  long ignored() {
    return ignored;
  }
}
