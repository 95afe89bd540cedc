package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.CostBreakdown;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import java.util.List;

/**
 * Prefix affinity with an imbalance guard: hash the prompt's first {@code prefix_tokens} tokens to a
 * preferred replica, so every request sharing that prefix lands where its cache is warm; but when the
 * preferred replica carries more than {@code max_imbalance} times the mean load, send the request to
 * the least-loaded replica instead.
 *
 * <p>The rule (defaults {@code prefix_tokens = 64}, {@code max_imbalance = 2.0}; docs/policies.md,
 * "prefix-affinity"): the prompt's first tokens pick the preferred candidate; when the mean load
 * over the candidates is positive and the preferred one's load exceeds {@code max_imbalance} times
 * it, the least-loaded candidate gets the request instead (the first in order on ties).
 *
 * <p>A consistent hash moves few keys when membership changes, where a plain {@code hash % n}
 * remaps almost every key when {@code n} changes. Here the preferred replica is chosen by
 * rendezvous (highest-random-weight) hashing over the candidates' ids: a joining replica takes
 * about {@code 1/(N+1)} of the keys and a leaving one gives up only its own.
 *
 * <p>Key: the router does not keep token ids, only chained block hashes, and the hash of block
 * {@code i} stands for the whole prefix up to it. The key is the hash of the block containing token
 * {@code prefix_tokens}; a shorter prompt uses its last full block (the unhashed partial last block is
 * not part of the key, although hashing raw tokens would include them). A prompt with no hashed
 * block (shorter than one block, or {@link PromptKey#unhashed}) has no prefix identity to be affine
 * to and goes to the least-loaded replica.
 *
 * <p>Load: {@link CandidateView#estimatedOutstandingTokens()}, the outstanding tokens (prompt
 * plus remaining output over everything in flight), as reported and corrected by this router's sends.
 *
 * <p>Thread-safety: immutable.
 */
final class PrefixAffinityPolicy implements RoutingPolicy {
  static final String NAME = "prefix-affinity";
  static final int DEFAULT_PREFIX_TOKENS = 64;
  static final double DEFAULT_MAX_IMBALANCE = 2.0;

  private final int prefixTokens;
  private final double maxImbalance;

  PrefixAffinityPolicy(int prefixTokens, double maxImbalance) {
    this.prefixTokens = prefixTokens;
    this.maxImbalance = maxImbalance;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RoutingDecision route(RoutingContext context) {
    List<CandidateView> candidates = context.candidates();
    if (candidates.isEmpty()) {
      return context.noCandidates();
    }
    int leastLoaded = Picks.firstMin(candidates, CandidateView::estimatedOutstandingTokens);
    PromptKey prompt = context.request().prompt();
    if (prompt.blockCount() == 0) {
      return RoutingDecision.routed(candidates.get(leastLoaded), CostBreakdown.empty());
    }
    int preferred = preferred(candidates, key(prompt, prefixTokens));
    double sum = 0;
    for (CandidateView c : candidates) {
      sum += c.estimatedOutstandingTokens();
    }
    double mean = sum / candidates.size();
    CandidateView p = candidates.get(preferred);
    boolean guard = mean > 0 && p.estimatedOutstandingTokens() > maxImbalance * mean;
    return RoutingDecision.routed(guard ? candidates.get(leastLoaded) : p, CostBreakdown.empty());
  }

  /** The chained hash of the block holding token {@code prefixTokens} (1-based), or the last block. */
  static long key(PromptKey prompt, int prefixTokens) {
    int block = Math.min((prefixTokens - 1) / prompt.blockSizeTokens(), prompt.blockCount() - 1);
    return prompt.blockHash(block);
  }

  /** Rendezvous hashing: the candidate with the highest weight for {@code key}; first on ties. */
  static int preferred(List<CandidateView> candidates, long key) {
    int best = 0;
    long bestWeight = Long.MIN_VALUE;
    for (int i = 0; i < candidates.size(); i++) {
      long w = weight(key, candidates.get(i).replicaId());
      if (i == 0 || w > bestWeight) {
        best = i;
        bestWeight = w;
      }
    }
    return best;
  }

  /** A well-mixed 64-bit weight of (key, replica id); allocation-free. */
  static long weight(long key, String replicaId) {
    long h = 0xcbf29ce484222325L; // FNV-1a over the id's chars
    for (int i = 0; i < replicaId.length(); i++) {
      h = (h ^ replicaId.charAt(i)) * 0x100000001b3L;
    }
    return fmix64(key ^ fmix64(h));
  }

  /** MurmurHash3's 64-bit finaliser. */
  private static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    return k ^ (k >>> 33);
  }
}
