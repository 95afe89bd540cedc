package io.github.kvroute.telemetry;

import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.UpdateResult;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the poller knows about one replica's scrapes: a failing scrape is this state, never an
 * exception.
 *
 * <p>Immutable and thread-safe.
 *
 * @param replicaId the replica
 * @param health UNKNOWN before the first scrape, then UP or FAILING after each
 * @param consecutiveFailures failed scrapes since the last success
 * @param scrapes scrapes attempted
 * @param failures scrapes failed
 * @param lastError the last failure's description ({@code GET uri: reason}), kept after a success
 * @param lastAttemptNanos when the last scrape ended, on the poller's ticker; empty before any
 * @param lastSuccessNanos when the last successful scrape's metrics arrived, on the poller's ticker
 * @param malformedLines lines of the last successful scrape's exposition that were skipped
 * @param malformedLinesTotal lines skipped over every scrape
 * @param problems the last successful scrape's malformed lines and unmapped metrics, bounded
 * @param lastSnapshot the last snapshot delivered
 * @param rates counter rates between the last two successful snapshots of one epoch
 * @param lastResult what the sink answered to the last snapshot delivered
 * @param sinkFailures deliveries that threw (contained; the scrape still counts as a success)
 * @param reportedStopped whether the current failure streak was reported to the sink as STOPPED
 */
public record ScrapeStatus(
    String replicaId,
    ScrapeHealth health,
    int consecutiveFailures,
    long scrapes,
    long failures,
    Optional<String> lastError,
    OptionalLong lastAttemptNanos,
    OptionalLong lastSuccessNanos,
    int malformedLines,
    long malformedLinesTotal,
    List<String> problems,
    Optional<ReplicaSnapshot> lastSnapshot,
    Optional<CounterRates> rates,
    Optional<UpdateResult> lastResult,
    long sinkFailures,
    boolean reportedStopped) {

  /**
   * Copies {@code problems} into an unmodifiable list.
   *
   * @param replicaId the replica
   * @param health UNKNOWN before the first scrape, then UP or FAILING after each
   * @param consecutiveFailures failed scrapes since the last success
   * @param scrapes scrapes attempted
   * @param failures scrapes failed
   * @param lastError the last failure's description ({@code GET uri: reason}), kept after a success
   * @param lastAttemptNanos when the last scrape ended, on the poller's ticker; empty before any
   * @param lastSuccessNanos when the last successful scrape's metrics arrived, on the poller's
   *     ticker
   * @param malformedLines lines of the last successful scrape's exposition that were skipped
   * @param malformedLinesTotal lines skipped over every scrape
   * @param problems the last successful scrape's malformed lines and unmapped metrics, bounded
   * @param lastSnapshot the last snapshot delivered
   * @param rates counter rates between the last two successful snapshots of one epoch
   * @param lastResult what the sink answered to the last snapshot delivered
   * @param sinkFailures deliveries that threw (contained; the scrape still counts as a success)
   * @param reportedStopped whether the current failure streak was reported to the sink as STOPPED
   */
  public ScrapeStatus {
    problems = List.copyOf(problems);
  }
}
