package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.Scorer;

/**
 * The price of trusting an old report.
 *
 * <h2>Design notes</h2>
 * By Little's law, a report {@code d} seconds old misses about {@code λ·d} arrivals, where {@code λ} is
 * the replica's arrival rate. The router counts its own sends since the report (they are in the queue
 * estimate already), so only traffic it cannot see — other routers' — is unknown:
 * {@code unseen = λ_unseen x age}. For example, 40 req/s over 10 replicas with 250 ms reports is
 * one request of error per replica, two in a burst at twice the rate (docs/cost-model.md,
 * "Staleness risk term").
 *
 * <p>Each unseen request costs about one mean request of waiting, so the penalty is
 * {@code unseen x meanCost x factor}. The factor is asymmetric: a replica that was busy at its report
 * gets the full weight, because unseen work queues behind work already there and underestimating it
 * stacks more onto the bottleneck; an idle one gets less, because its unseen work may already be done.
 * A report older than the staleness limit makes the replica "unknown" and adds a fixed penalty; a
 * policy may exclude such replicas instead.
 */
final class StalenessRiskTerm implements Scorer {
  private final double busyFactor;
  private final double idleFactor;
  private final double stalePenaltyMillis;

  StalenessRiskTerm(CostModel model) {
    this.busyFactor = model.busyRiskFactor();
    this.idleFactor = model.idleRiskFactor();
    this.stalePenaltyMillis = model.stalePenaltyMillis();
  }

  @Override
  public String name() {
    return CostTerm.RISK.termName();
  }

  /** Arrivals a report of age {@code ageMillis} cannot show at {@code ratePerSecond}: {@code λ·d}. */
  static double expectedUnseenRequests(double ratePerSecond, double ageMillis) {
    return ratePerSecond * ageMillis / 1000.0;
  }

  @Override
  public double costMillis(Request request, CandidateView candidate) {
    double unseen =
        expectedUnseenRequests(candidate.unseenArrivalsPerSecond(), candidate.snapshotAgeMillis());
    double factor = candidate.estimatedQueueMillis() > 0 ? busyFactor : idleFactor;
    double risk = unseen * candidate.meanRequestCostMillis() * factor;
    return candidate.telemetryStale() ? risk + stalePenaltyMillis : risk;
  }
}
