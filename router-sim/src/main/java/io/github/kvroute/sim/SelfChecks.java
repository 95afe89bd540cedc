package io.github.kvroute.sim;

import com.google.common.collect.ImmutableList;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.RouterStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The end-of-run checks that make a simulation result trustworthy: the request accounting balances,
 * agrees with what the routers themselves counted, nothing is left in flight, and every replica's KV
 * cache has returned to zero pinned and private blocks. A failed check throws
 * {@link IllegalStateException} naming every failure; the passing checks and a few informative facts
 * (time limit, retries, preemptions, telemetry volume) become {@link SimulationResult#checks()}.
 *
 * <p>Not thread-safe.
 */
final class SelfChecks {
  private final Measurements m;
  private final Simulation.Counters c;
  private final Router[] routers;
  private final ReplicaEngine[] replicas;
  private final BlockRegistry registry;
  private final Telemetry telemetry;
  private final boolean timeLimitHit;
  private final List<String> lines = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();

  SelfChecks(Measurements m, Simulation.Counters c, Router[] routers, ReplicaEngine[] replicas,
      BlockRegistry registry, Telemetry telemetry, boolean timeLimitHit) {
    this.m = m;
    this.c = c;
    this.routers = routers;
    this.replicas = replicas;
    this.registry = registry;
    this.telemetry = telemetry;
    this.timeLimitHit = timeLimitHit;
  }

  /** Runs every check; returns the summary lines or throws listing what failed. */
  List<String> verify() {
    check(m.offered == m.completed + m.rejected + m.failed, String.format(Locale.ROOT,
        "accounting: offered %d = completed %d + rejected %d + failed %d", m.offered, m.completed,
        m.rejected, m.failed));
    check(c.ended == m.offered, String.format(Locale.ROOT,
        "every request ended exactly once: %d ended of %d offered", c.ended, m.offered));
    check(m.admitted <= m.offered && m.admitted >= m.completed, String.format(Locale.ROOT,
        "admitted %d within [completed %d, offered %d]", m.admitted, m.completed, m.offered));
    routerChecks();
    check(c.routedWhenKnownUnroutable == 0, String.format(Locale.ROOT,
        "no attempt routed to a replica its router had been told was dead or not ready: %d",
        c.routedWhenKnownUnroutable));
    long inFlight = 0;
    for (long n : c.inFlight) {
      inFlight += n;
    }
    check(inFlight == 0, "simulator in-flight attempts at the end: " + inFlight);
    kvChecks();
    lines.add(timeLimitHit
        ? "note: " + c.endedByTimeLimit + " requests ended as failed by the simulation time limit"
        : "note: no request reached the simulation time limit");
    long preemptions = 0;
    for (ReplicaEngine r : replicas) {
      preemptions += r.preemptions();
    }
    lines.add(String.format(Locale.ROOT, "note: %d retries after replica failures, %d preemptions",
        c.retries, preemptions));
    lines.add(busyNote());
    lines.add(String.format(Locale.ROOT, "note: telemetry %s: %d reports and %d KV events delivered,"
        + " %d ignored by routers; %d first tokens reported", telemetry.profile(),
        telemetry.snapshotsDelivered(), telemetry.kvEventsDelivered(), telemetry.ignored(),
        c.firstTokensSent));
    long gaps = 0;
    long outOfOrder = 0;
    for (Router r : routers) {
      gaps += r.stats().kvEventGaps();
      outOfOrder += r.stats().outOfOrderKvEvents();
    }
    lines.add(String.format(Locale.ROOT, "note: faults: %d reports lost in blackouts, %d KV event"
        + " batches lost (%d gaps seen by routers, %d events dropped as out of order), %d stale"
        + " reports and events replayed", telemetry.blackedOut(), telemetry.lostBatches(), gaps,
        outOfOrder, telemetry.replayed()));
    if (!failures.isEmpty()) {
      throw new IllegalStateException("simulation self-check failed: " + String.join("; ", failures));
    }
    return ImmutableList.copyOf(lines);
  }

  private String busyNote() {
    double span = Math.max(1, m.lastArrivalNanos - Math.max(0, m.firstArrivalNanos));
    double busy = 0;
    double prefill = 0;
    double max = 0;
    for (ReplicaEngine r : replicas) {
      busy += r.busyNanos() / span;
      prefill += r.prefillNanos() / span;
      max = Math.max(max, r.prefillNanos() / span);
    }
    return String.format(Locale.ROOT, "note: over the arrival span, replicas stepped %.0f%% of the"
        + " time and prefilled %.0f%% on average (busiest replica prefilled %.0f%%)",
        100 * busy / replicas.length, 100 * prefill / replicas.length, 100 * max);
  }

  private void routerChecks() {
    long decisions = 0;
    long routed = 0;
    long rejected = 0;
    long inFlight = 0;
    long outcomes = 0;
    long closed = 0;
    long orphaned = 0;
    long expired = 0;
    for (Router r : routers) {
      RouterStats s = r.stats();
      decisions += s.decisions();
      routed += s.routed();
      rejected += s.rejected();
      inFlight += s.inFlight();
      outcomes += s.outcomesByResult().values().stream().mapToLong(Long::longValue).sum();
      closed += s.outcomesApplied() + s.expired() + s.orphaned();
      orphaned += s.orphaned();
      expired += s.expired();
    }
    check(decisions == c.routeCalls && routed == c.routed && rejected == c.rejections,
        String.format(Locale.ROOT, "routers: %d decisions = %d routed + %d rejected (simulator: %d calls, %d routed,"
            + " %d rejected)", decisions, routed, rejected, c.routeCalls, c.routed, c.rejections));
    check(outcomes == c.outcomesSent, String.format(Locale.ROOT,
        "routers: %d outcomes received (simulator sent %d)", outcomes, c.outcomesSent));
    check(inFlight == 0 && closed == routed, String.format(Locale.ROOT,
        "routers: %d in flight at the end; %d routed = %d closed (%d orphaned, %d expired)", inFlight,
        routed, closed, orphaned, expired));
  }

  private void kvChecks() {
    long waiting = 0;
    long running = 0;
    long used = 0;
    long cached = 0;
    boolean consistent = true;
    for (ReplicaEngine r : replicas) {
      KvCache kv = r.kv;
      waiting += r.waitingCount();
      running += r.runningCount();
      used += kv.usedBlocks() + kv.privateBlocks();
      cached += kv.cachedBlocks();
      consistent &= kv.freeBlocks() + kv.cachedBlocks() + kv.privateBlocks() == kv.totalBlocks()
          && kv.evictableBlocks() == kv.cachedBlocks();
    }
    check(waiting == 0 && running == 0, String.format(Locale.ROOT,
        "replicas drained: %d waiting, %d running", waiting, running));
    check(used == 0 && consistent, String.format(Locale.ROOT,
        "KV blocks: %d pinned or private at the end; free + cached = total on every replica: %s",
        used, consistent));
    long walked = registry.walkHolders();
    check(walked == cached && registry.holderCount() == cached, String.format(Locale.ROOT,
        "block registry: %d holders (%d counted) = %d cached blocks over replicas", walked,
        registry.holderCount(), cached));
  }

  private void check(boolean ok, String what) {
    lines.add((ok ? "ok: " : "FAILED: ") + what);
    if (!ok) {
      failures.add(what);
    }
  }
}
