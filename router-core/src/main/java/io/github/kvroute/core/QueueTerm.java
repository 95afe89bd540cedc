package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;

/** Waiting before prefill starts: the router's queue estimate for the replica. */
final class QueueTerm implements Scorer {
  static final QueueTerm INSTANCE = new QueueTerm();

  private QueueTerm() {}

  @Override
  public String name() {
    return CostTerm.QUEUE.termName();
  }

  @Override
  public double costMillis(Request request, CandidateView candidate) {
    return candidate.estimatedQueueMillis();
  }
}
