package io.github.kvroute.sim;

import java.time.Duration;
import io.github.kvroute.api.Priority;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The numbers one run accumulates, by docs/simulator.md, "Metric definitions": request
 * counts by how they ended (with reasons), TTFT and end-to-end latency over completed requests, prompt
 * tokens reused and recomputed, work per replica, and the wall-clock time of each routing decision.
 *
 * <p>Latencies are virtual-time microseconds in HdrHistograms (3 significant digits); decision times are
 * wall-clock nanoseconds.
 *
 * <p>Not thread-safe.
 */
final class Measurements {
  final Histogram ttftMicros = new Histogram(3);
  final Histogram e2eMicros = new Histogram(3);
  final Histogram decisionNanos = new Histogram(3);
  final Map<String, Long> rejectedByReason = new TreeMap<>();
  final Map<String, Long> failedByReason = new TreeMap<>();
  final long[] workByReplica;
  final WorkTimeline timeline;
  final double sloNanos;
  /** The canary arms' TTFT by prefix hit; null without a canary. */
  io.github.kvroute.advisors.CanaryComparison canary;

  long offered;
  long admitted;
  long completed;
  long rejected;
  long failed;
  long withinSlo;
  long admittedPromptTokens;
  long cachedPromptTokens;
  long recomputedTokens;
  /** Disaggregated attempts' KV moves, and their time from the prefill's end to arrival. */
  long transfers;
  long transferNanos;
  /** Whether the run's notes give per-tier and per-tenant figures (a request-control variant). */
  boolean classNotes;
  /** Whether the run's notes count hedges (a hedging variant). */
  boolean hedgeNotes;
  final Histogram interactiveTtftMicros = new Histogram(3);
  long interactiveOffered;
  long interactiveWithinSlo;
  /** Prompt tokens offered and completed per tenant (as many entries as the workload has tenants). */
  final Map<String, Long> tenantOfferedTokens = new TreeMap<>();
  final Map<String, Long> tenantCompletedTokens = new TreeMap<>();
  /**
   * Hedges started, the prompt tokens their duplicate prefills asked for, and the hedges routed to
   * the replica of the attempt they hedge.
   */
  long hedges;
  long hedgePrefillTokens;
  long hedgesOnFirstReplica;
  long firstArrivalNanos = -1;
  long lastArrivalNanos = -1;

  Measurements(int replicas, double sloMillis) {
    workByReplica = new long[replicas];
    timeline = new WorkTimeline(replicas);
    sloNanos = sloMillis * 1e6;
  }

  void arrival(long atNanos) {
    if (firstArrivalNanos < 0) {
      firstArrivalNanos = atNanos;
    }
    lastArrivalNanos = atNanos;
    offered++;
  }

  /**
   * A completed request: it counts towards goodput when its TTFT met its own deadline, its TTFT budget
   * when it has one, else the scenario's objective.
   */
  void completed(long ttftNanos, long e2eNanos, Optional<Duration> ttftBudget) {
    completed++;
    ttftMicros.recordValue(Math.max(0, ttftNanos / 1_000));
    e2eMicros.recordValue(Math.max(0, e2eNanos / 1_000));
    double deadlineNanos = ttftBudget.isPresent() ? ttftBudget.get().toNanos() : sloNanos;
    if (ttftNanos <= deadlineNanos) {
      withinSlo++;
    }
  }

  void offeredByClass(SimRequest r) {
    if (r.priority() == Priority.INTERACTIVE) {
      interactiveOffered++;
    }
    tenantOfferedTokens.merge(r.tenant().orElse(""), (long) r.promptTokens(), Long::sum);
  }

  /** A completed request by its tier and tenant (its TTFT against the scenario's objective). */
  void byClass(SimRequest r, long ttftNanos) {
    if (r.priority() == Priority.INTERACTIVE) {
      interactiveTtftMicros.recordValue(Math.max(0, ttftNanos / 1_000));
      if (ttftNanos <= sloNanos) {
        interactiveWithinSlo++;
      }
    }
    tenantCompletedTokens.merge(r.tenant().orElse(""), (long) r.promptTokens(), Long::sum);
  }

  void rejected(String reason) {
    rejected++;
    rejectedByReason.merge(reason, 1L, Long::sum);
  }

  void failed(String reason) {
    failed++;
    failedByReason.merge(reason, 1L, Long::sum);
  }

  void work(int replica, long atNanos, long tokens) {
    workByReplica[replica] += tokens;
    timeline.add(replica, atNanos, tokens);
  }

  /** Seconds from the first arrival to the last; at least a millisecond. */
  double arrivalSpanSeconds() {
    return Math.max(1e-3, (lastArrivalNanos - firstArrivalNanos) / 1e9);
  }

  /** max / mean of work over replicas; 1 when nothing was computed. */
  double imbalance() {
    long max = 0;
    long sum = 0;
    for (long w : workByReplica) {
      max = Math.max(max, w);
      sum += w;
    }
    return sum == 0 ? 1.0 : max / ((double) sum / workByReplica.length);
  }
}
