package io.github.kvroute.testkit;

import io.github.kvroute.core.ReplicaStatus;
import io.github.kvroute.core.Router;
import io.github.kvroute.core.RouterStats;
import java.util.List;
import java.util.Map;

/**
 * The invariants {@link RouterStress} checks when every thread of a phase has finished and every
 * routed attempt has had its outcome; each broken one becomes a violation line on the books.
 *
 * <p>Thread-safety: stateless; call it only at quiescence (no other thread using the router).
 */
final class StressChecks {
  private StressChecks() {}

  static void atQuiescence(Router router, StressBooks books, RouterStress.Config config) {
    List<ReplicaStatus> replicas = router.replicas(); // applies the index's pending writes first
    RouterStats s = router.stats();
    Check c = new Check(books);

    long offered = books.offered.sum();
    long rejected = StressBooks.sum(books.rejected);
    c.equal("offered = routed + rejected + failed", offered,
        books.routed.sum() + rejected + books.failed.sum());
    c.equal("stats().routed() = routed as the host saw it", s.routed(), books.routed.sum());
    c.equal("stats().rejectedByReason() = rejections as the host saw them",
        StressBooks.nonZero(s.rejectedByReason()), StressBooks.sums(books.rejected));
    c.equal("decisions the listener heard = stats().decisions()", books.decisionsHeard.sum(),
        s.decisions());

    c.equal("stats().inFlight() with every attempt closed", s.inFlight(), 0L);
    for (ReplicaStatus r : replicas) {
      c.equal(r.replicaId() + " inFlightRequests with every attempt closed",
          (long) r.inFlightRequests(), 0L);
      c.equal(r.replicaId() + " inFlightTokens with every attempt closed", r.inFlightTokens(), 0L);
      c.atLeast(r.replicaId() + " indexEntries", r.indexEntries(), 0);
    }
    c.equal("routed = inFlight + outcomes(APPLIED) + expired + orphaned", s.routed(),
        s.inFlight() + s.outcomesApplied() + s.expired() + s.orphaned());
    c.equal("stats().outcomesByResult() = results the host got",
        StressBooks.nonZero(s.outcomesByResult()), StressBooks.sums(books.outcomes));
    c.equal("expiries the listener heard = stats().expired()", books.expiredHeard.sum(), s.expired());
    c.equal("orphanings the listener heard = stats().orphaned()", books.orphanedHeard.sum(),
        s.orphaned());
    c.equal("stats().pluginFailures()", s.pluginFailures(), 0L);

    c.atMost("stats().indexBytes() <= indexBudgetBytes()", s.indexBytes(), s.indexBudgetBytes());
    for (Map.Entry<String, Long> counter : Map.of("routed", s.routed(), "inFlight", s.inFlight(),
        "expired", s.expired(), "orphaned", s.orphaned(), "indexEntries", s.indexEntries(),
        "indexBlocks", s.indexBlocks(), "indexBytes", s.indexBytes(),
        "droppedIndexHints", s.droppedIndexHints()).entrySet()) {
      c.atLeast("stats()." + counter.getKey() + "()", counter.getValue(), 0);
    }
    c.atMost("stats().indexBlocks() <= indexEntries()", s.indexBlocks(), s.indexEntries());
    c.equal("the replicas' index entries add up to stats().indexEntries()",
        replicas.stream().mapToLong(ReplicaStatus::indexEntries).sum(), s.indexEntries());
    c.atMost("replicas known (no phantom replica from a KV event for an unknown id)",
        replicas.size(), config.replicas());
  }

  /** Records a violation per broken check. */
  private record Check(StressBooks books) {
    void equal(String what, Object actual, Object expected) {
      if (!actual.equals(expected)) {
        books.violation(what + ": " + actual + " (expected: " + expected + ")");
      }
    }

    void atMost(String what, long actual, long bound) {
      if (actual > bound) {
        books.violation(what + ": " + actual + " (expected: <= " + bound + ")");
      }
    }

    void atLeast(String what, long actual, long bound) {
      if (actual < bound) {
        books.violation(what + ": " + actual + " (expected: >= " + bound + ")");
      }
    }
  }
}
