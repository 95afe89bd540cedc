package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;

/**
 * Moving state before the first token: loading a LoRA adapter that is not resident (800 ms by
 * default, enough to push an idle replica to last place: docs/cost-model.md, "An adapter load")
 * and, for a disaggregated decode replica, moving the prompt's KV from the prefill replica.
 */
final class TransferTerm implements Scorer {
  static final TransferTerm INSTANCE = new TransferTerm();

  private TransferTerm() {}

  @Override
  public String name() {
    return CostTerm.TRANSFER.termName();
  }

  @Override
  public double costMillis(Request request, CandidateView candidate) {
    return candidate.adapterLoadMillis() + candidate.kvTransferMillis();
  }
}
