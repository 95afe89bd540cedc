package io.github.kvroute.advisors;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.Outcome;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Acts on {@link HotPrefixAdvisor}'s advice in front of another policy: a request whose prefix the
 * advice holds on {@code k > 1} replicas goes to the cheapest of {@code k} holders by the router's cost
 * estimate; every other request goes to the wrapped policy unchanged.
 *
 * <h2>Design notes</h2>
 * <ul>
 *   <li><b>Prefix identity.</b> A request's prefix is its first {@code prefixTokens} tokens (whole
 *       blocks), named by the chained hash of the last of those blocks; a prompt shorter than that has
 *       none and is never replicated. What a copy costs is the longest prefix any candidate is believed
 *       to hold (at least the identity's tokens) times that candidate's prefill cost per token.
 *   <li><b>Holders.</b> The candidates believed to hold the prefix come first, then the others, each
 *       group ordered by a rendezvous hash of (prefix, replica id) so that the same replicas are picked
 *       while the fleet does not change; the first {@code k} are the holders.
 *   <li><b>Cost.</b> Among the holders the request goes where the router's estimate is least, with a
 *       cold holder's missing-prefix prefill left out: the advice has decided that copy pays back, and
 *       the request that lands there pays it (one prefill per new replica).
 *   <li><b>Off the request path.</b> Recording a hit is a few sketch updates. Evaluation runs wherever
 *       the host calls {@link HotPrefixAdvisor#evaluate()}; built with an evaluation interval, this
 *       policy also evaluates when a request finds the interval over, on that one request's thread and
 *       only if no other thread is doing so (for hosts and simulations without a scheduler).
 * </ul>
 *
 * <p>Thread-safety: thread-safe if the wrapped policy is.
 */
public final class ReplicatedPrefixPolicy implements RoutingPolicy {
  /** The name {@link ReplicatedPrefixPolicyProvider} registers. */
  public static final String NAME = "hot-prefix-replication";

  private final RoutingPolicy inner;
  private final HotPrefixAdvisor advisor;
  private final int prefixTokens;
  private final long evaluateEveryNanos;
  private final ReentrantLock evaluating = new ReentrantLock();
  private volatile long nextEvaluationNanos = Long.MIN_VALUE;

  private ReplicatedPrefixPolicy(RoutingPolicy inner, HotPrefixAdvisor advisor, int prefixTokens,
      long evaluateEveryNanos) {
    this.inner = inner;
    this.advisor = advisor;
    this.prefixTokens = prefixTokens;
    this.evaluateEveryNanos = evaluateEveryNanos;
  }

  /**
   * Wraps {@code inner}, following {@code advisor}; the host evaluates the advisor.
   *
   * @param inner the policy that places requests the advice does not pin; not null
   * @param advisor the advice followed; not null
   * @param prefixTokens tokens that name a prefix (whole blocks), at least 1
   * @return the policy
   */
  public static ReplicatedPrefixPolicy wrap(RoutingPolicy inner, HotPrefixAdvisor advisor,
      int prefixTokens) {
    return create(inner, advisor, prefixTokens, 0);
  }

  /**
   * Wraps {@code inner}, following {@code advisor}, and evaluates it whenever a request finds
   * {@code evaluateEveryNanos} passed since the last evaluation.
   *
   * @param inner the policy that places requests the advice does not pin; not null
   * @param advisor the advice followed; not null
   * @param prefixTokens tokens that name a prefix (whole blocks), at least 1
   * @param evaluateEveryNanos the least time between two evaluations, in nanoseconds; {@code > 0}
   * @return the policy
   */
  public static ReplicatedPrefixPolicy wrapEvaluating(RoutingPolicy inner, HotPrefixAdvisor advisor,
      int prefixTokens, long evaluateEveryNanos) {
    checkArgument(evaluateEveryNanos > 0, "evaluateEveryNanos: %s (expected: > 0)",
        evaluateEveryNanos);
    return create(inner, advisor, prefixTokens, evaluateEveryNanos);
  }

  private static ReplicatedPrefixPolicy create(RoutingPolicy inner, HotPrefixAdvisor advisor,
      int prefixTokens, long evaluateEveryNanos) {
    checkNotNull(inner, "inner: null (expected: a policy)");
    checkNotNull(advisor, "advisor: null (expected: non-null)");
    checkArgument(prefixTokens >= 1, "prefixTokens: %s (expected: >= 1)", prefixTokens);
    return new ReplicatedPrefixPolicy(inner, advisor, prefixTokens, evaluateEveryNanos);
  }

  @Override
  public String name() {
    return NAME;
  }

  /** {@return the wrapped policy, which places every request whose prefix is not replicated} */
  public RoutingPolicy inner() {
    return inner;
  }

  /** {@return the advisor this policy follows} */
  public HotPrefixAdvisor advisor() {
    return advisor;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    maybeEvaluate(context.nowNanos());
    PromptKey prompt = context.request().prompt();
    int blocks = prompt.blockCount() == 0 ? 0
        : (prefixTokens + prompt.blockSizeTokens() - 1) / prompt.blockSizeTokens();
    List<CandidateView> candidates = context.candidates();
    if (blocks == 0 || prompt.blockCount() < blocks || candidates.isEmpty()) {
      return inner.route(context);
    }
    long prefix = prompt.blockHash(blocks - 1);
    CandidateView warmest = candidates.get(0);
    for (CandidateView c : candidates) {
      warmest = c.matchedTokens() > warmest.matchedTokens() ? c : warmest;
    }
    int copyTokens = Math.max(prompt.tokensInBlocks(blocks), warmest.matchedTokens());
    advisor.record(prefix, copyTokens * warmest.prefillMillisPerToken());
    int k = advisor.advice().replicasFor(prefix);
    if (k <= 1) {
      return inner.route(context);
    }
    return cheapestHolder(context, holders(candidates, prefix, copyTokens, k), copyTokens);
  }

  private static List<CandidateView> holders(List<CandidateView> candidates, long prefix,
      int copyTokens, int k) {
    List<CandidateView> ranked = new ArrayList<>(candidates);
    ranked.sort(Comparator.<CandidateView>comparingInt(c -> c.matchedTokens() >= copyTokens ? 0 : 1)
        .thenComparingLong(c -> -rendezvous(prefix, c.replicaId())));
    return ranked.subList(0, Math.min(k, ranked.size()));
  }

  private static RoutingDecision cheapestHolder(RoutingContext context, List<CandidateView> holders,
      int copyTokens) {
    CandidateView best = null;
    double bestCost = Double.POSITIVE_INFINITY;
    for (CandidateView c : holders) {
      double copy = Math.max(0, copyTokens - c.matchedTokens()) * c.prefillMillisPerToken();
      double cost = context.estimateMillis(c) - copy;
      if (best == null || cost < bestCost) {
        best = c;
        bestCost = cost;
      }
    }
    return RoutingDecision.routed(best, CostBreakdown.empty());
  }

  /** A replica's weight for a prefix (highest random weight hashing). */
  private static long rendezvous(long prefix, String replicaId) {
    long h = (prefix ^ replicaId.hashCode() * 0x9E3779B97F4A7C15L) * 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    return h ^ (h >>> 33);
  }

  private void maybeEvaluate(long now) {
    if (evaluateEveryNanos == 0 || now < nextEvaluationNanos || !evaluating.tryLock()) {
      return;
    }
    try {
      if (now >= nextEvaluationNanos) {
        if (nextEvaluationNanos != Long.MIN_VALUE) {
          advisor.evaluate();
        }
        nextEvaluationNanos = now + evaluateEveryNanos;
      }
    } finally {
      evaluating.unlock();
    }
  }

  @Override
  public void onOutcome(Outcome outcome) {
    inner.onOutcome(outcome);
  }
}
