package io.github.kvroute.core;

/**
 * Where a later attempt of a request may go while an earlier one is still in flight: elsewhere.
 *
 * <h2>Design notes</h2>
 * A hedge ({@link HedgeAdvisor}) is a second attempt started because the first is late; a retry
 * routed before the first attempt's outcome is the host giving up on it. Either way the first
 * attempt's replica is where the request is stuck (a slow path, a stalled engine, a long queue),
 * and a second attempt there duplicates the prefill without a second chance: both answers wait on
 * the same cause. So the replica holding the request's open earlier attempt leaves the candidate
 * lists before the policy ranks them, and the second attempt is placed by the cost model among the
 * others. For a disaggregated attempt both sides move: its prefill replica leaves the prefill pool
 * and its decode replica the decode pool, so that the second pair shares neither. Each side stays
 * when it is the only eligible one left in its pool: a second attempt on the same replica is still
 * a retry, where no attempt would be a rejection.
 *
 * <p>Thread-safety: stateless; works on one thread's {@link DecisionContext}.
 */
final class AttemptPlacement {
  private AttemptPlacement() {}

  /** Takes {@code earlier}'s replicas out of {@code s}'s candidates, each unless it is the last. */
  static void avoid(DecisionContext s, Lease earlier) {
    if (earlier.prefillReplica != null) {
      avoid(s.prefill, earlier.prefillReplica);
      avoid(s.decode, earlier.replica);
    } else {
      avoid(s.mixed, earlier.replica);
    }
  }

  private static void avoid(DecisionContext.ViewList list, ReplicaEntry entry) {
    if (list.size < 2) {
      return;
    }
    int kept = 0;
    for (int i = 0; i < list.size; i++) {
      MutableView v = list.items[i];
      if (v.entry == entry) {
        v.avoided = true;
      } else {
        list.items[kept++] = v;
      }
    }
    list.size = kept;
  }
}
