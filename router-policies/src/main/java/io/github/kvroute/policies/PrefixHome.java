package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;

/**
 * Where routers that share a fleet, but not their prefix indexes, agree to put a prefix: its
 * <em>home</em>, the replica ranked first for it by rendezvous hashing among the candidates nearly as
 * cheap as the best.
 *
 * <h2>Design notes</h2>
 * A router in approximate mode learns where prefixes live only from its own sends. With several
 * routers, each places a new prefix on whichever replica is cheapest in its own view; the views differ
 * by each router's own recent sends, so one tenant's prefix lands on up to one replica per router,
 * every copy recomputed and every copy taking cache from the others. Highest-random-weight hashing
 * (Thaler and Ravishankar, 1998) of the prompt's leading blocks with each replica id gives every
 * router the same order of replicas for the prefix without any message between them; taking the
 * first of that order among the candidates within a multiple (the <em>slack</em>, {@link #slack})
 * of the best cost plus {@value #SLACK_MILLIS} ms keeps the choice load-aware (consistent hashing
 * with bounded loads, Mirrokni, Thorup and Zadimoghaddam, 2018, bounds load the same way).
 *
 * <p>It applies whenever the router has peers ({@link io.github.kvroute.api.RoutingContext#peerRouters});
 * a lone router has nothing to agree with. It applies to held prefixes too: a router's index shows
 * only the copies it made itself, so a prefix it sees held on one replica may be held, in each peer's
 * view, on another, and routers that each follow their own copy keep one copy per router. Sending a
 * prefix home while home costs at most the limit makes the routers' copies converge on one replica,
 * and a copy elsewhere still wins when home is too busy (then it is cheaper by more than the
 * slack). The key is the hash of the prompt's first {@value #KEY_BLOCKS} blocks (or fewer), the part
 * a tenant's or a conversation's requests share.
 *
 * <p>Which replica is home comes from {@link HomeBook} when it has placed the prefix (bounded loads
 * over the prefixes this router saw recently, so that a few large prefixes do not share one
 * replica), else from {@link #rank} alone. Home is priced as holding the deepest copy of the prompt
 * this router knows of ({@link #peerCopyCreditMillis}): the peers send the prefix home, so home
 * holds what they computed there, which this router's index cannot show; without the credit a router
 * that once made its own copy elsewhere keeps following it, and the copies never converge.
 *
 * <p><b>The slack depends on how much of the traffic the prefix carries.</b> A prefix with at most
 * a replica's share of this router's recent requests ({@code 1/N} of them over {@code N}
 * candidates; {@link HomeBook#share}) fits in one home, and every request that leaves home makes a
 * copy that displaces other prefixes: it stays home up to {@value #SLACK} x the best. A prefix with
 * more than that share outgrows one replica and must spill as its home fills, and a prefix this
 * router has not routed in the last minute has no copy to agree on yet (every prompt of a stream of
 * unique ones): both go home only up to {@value #SPILL_SLACK} x the best. One slack for every
 * recurring prefix could not serve both: 2 / 2.5 / 3 / 4 gave multi-tenant 55.4 / 75.7 / 81.7 /
 * 85.7 and rag-long-docs 4.93 / 5.14 / 5.54 / 6.93, but hot-prefix, whose one hot prefix takes up
 * to 70% of the traffic, 63.8 / 57.4 / 57.9 / 52.6. Measured (capacity_rps, seeds 1-3,
 * {@code --routers 3 --telemetry-delay-ms 1000}) in docs/cost-model.md ("Homes with bounded
 * loads"), with the sweep that chose {@value #SLACK} and {@value #SPILL_SLACK}.
 *
 * <p>Thread-safety: stateless.
 */
final class PrefixHome {
  /**
   * Home may cost up to this multiple of the best (plus {@link #SLACK_MILLIS}) for a recurring
   * prefix with at most a replica's share of the traffic.
   */
  static final double SLACK = 5;
  /** The slack for a prefix with more than a replica's share, or one not routed recently. */
  static final double SPILL_SLACK = 2;
  static final double SLACK_MILLIS = 10;
  /**
   * The slack on traffic that shares no prefixes (hybrid-cost's notes): enough spread that routers
   * reading one late report do not all pick its cheapest replica, little enough to keep the cheap
   * one. 1.1 (without the 10 ms) and none at all were measured too (docs/cost-model.md, "Unique
   * traffic with several routers").
   */
  static final double UNIQUE_SLACK = 1.5;
  /** Leading blocks that name the prefix. */
  static final int KEY_BLOCKS = 8;
  /** Below this peer ratio a router counts as alone (the measured ratio's noise). */
  static final double MIN_PEERS = 0.5;

  private PrefixHome() {}

  /** Whether the agreement applies: several routers. */
  static boolean applies(double peers) {
    return peers >= MIN_PEERS;
  }

  /**
   * The slack for a prefix with {@code share} of this router's recent requests ({@link HomeBook#share},
   * {@link HomeBook#NOT_SEEN} if it has none) among {@code candidates}: {@link #SLACK} when it was
   * routed recently and carries at most {@code 1 / candidates} of them, else {@link #SPILL_SLACK}.
   */
  static double slack(double share, int candidates) {
    return share >= 0 && share * candidates <= 1 ? SLACK : SPILL_SLACK;
  }

  /** The most this prompt's home may cost: {@code slack} x the best cost plus {@link #SLACK_MILLIS}. */
  static double limitMillis(double bestMillis, double slack) {
    return bestMillis * slack + SLACK_MILLIS;
  }

  /**
   * How much cheaper {@code home} would rank were it holding the prompt as deep as {@code deepest},
   * the candidate this router knows to hold most of it: the prefill saved, the queue that prefill
   * would have added for {@code requestsInSystem} requests behind it (0 when the ranking has no
   * queueing externality), and, with {@code pollution}, the cache it would not have displaced.
   * Unweighted, as the externalities are. 0 when home holds as much, and when home's index follows
   * its KV events ({@link CandidateView#cacheFromEvents}): then it shows the peers' copies already.
   */
  static double peerCopyCreditMillis(Request request, CandidateView home, CandidateView deepest,
      boolean pollution, double requestsInSystem) {
    if (home.cacheFromEvents() || deepest.matchedBlocks() <= home.matchedBlocks()) {
      return 0;
    }
    int prompt = request.promptTokens();
    double reliability = home.cacheHitReliability();
    double saved = Math.min(prompt, deepest.matchedTokens() * reliability)
        - Math.min(prompt, home.matchedTokens() * reliability);
    double credit = Math.max(0, saved) * home.prefillMillisPerToken() * (1 + requestsInSystem);
    if (pollution) {
      credit += Externalities.pollutionMillis(request, home)
          - Externalities.pollutionMillis(request, home, deepest.matchedBlocks());
    }
    return credit;
  }

  /** The hash naming {@code request}'s prefix: its block {@code min(blocks, KEY_BLOCKS) - 1}. */
  static long key(Request request) {
    return key(request, KEY_BLOCKS);
  }

  /**
   * The hash naming {@code request}'s first {@code keyBlocks} blocks (all, if it has fewer); 0
   * for a prompt of none.
   */
  static long key(Request request, int keyBlocks) {
    PromptKey prompt = request.prompt();
    int n = prompt.blockCount();
    return n == 0 ? 0 : prompt.blockHash(Math.min(n, keyBlocks) - 1);
  }

  /** {@code replicaId}'s rendezvous rank for {@code key}: the same on every router. */
  static long rank(long key, String replicaId) {
    return mix(key ^ (replicaId.hashCode() * 0x9E3779B97F4A7C15L));
  }

  /** SplitMix64's finaliser: spreads the bits so that ranks are uniform. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
