package io.github.kvroute.policies;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.core.RoutingContexts;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When a router alone keeps a request with its prefix's deepest holder although another replica
 * ranks better: the copy that replica would make is not worth its cache.
 *
 * <h2>Design notes</h2>
 * A request whose best-ranked replica holds less than half of what the deepest holder holds makes
 * a <em>copy</em>: it recomputes the prefix there and, in a full cache, evicts as much of other
 * prefixes. The ranking prices that once (the copy's prefill, the evicted blocks' recompute)
 * against the holder's queue, so a holder that waits a few hundred milliseconds longer loses the
 * request. But the queue passes and the copy stays: each copy takes a distinct prefix's worth of
 * KV from the fleet for as long as it is cached, and where capacity is the caches' (many long
 * documents over full caches) the evicted prefixes' next requests recompute them and evict others
 * in turn. On {@code rag-long-docs} at 1.2x its rate (seed 3) the ranking made 82 copies of
 * documents of about 10k tokens where weighted-score, which practically never copies, made 2:
 * 887k tokens recomputed against 234k, and a fifth more requests late.
 *
 * <p>So a request without a budget stays with the deepest holder, if that holds at least half of
 * its prompt (else most of the prompt is computed wherever it goes, and what lasts is its own
 * KV: on the Mooncake conversation trace at 4 replicas, whose turns hit 6% of their prompts,
 * the rule cost 2% of the capacity without this condition, 0.5% with it), when the holder ranks
 * within
 * {@code stay_ratio} (default {@value #DEFAULT_RATIO}) times the best, is within the load bound
 * ({@link LoadBound}), and does not carry another prefix's traffic: the prefix with the most of
 * the requests this router sent it recently (counts decaying with a {@value #MEMORY_SECONDS} s
 * time constant; a prefix named by the prompt's first {@value #KEY_BLOCKS} blocks) is not another
 * one with over {@value #DOMINANT_SHARE} of them. That condition
 * tells two kinds of busy holder apart. One busy with its share of many prefixes (a Zipf of
 * documents) waits for traffic that passes, and a copy trades a lasting duplicate for it. One
 * busy with a hot prefix ({@code hot-prefix}: a prefix growing to 70% of the traffic on three
 * replicas with small caches) waits for as long as the prefix is hot, and the light prefixes it
 * also holds are better copied away, which frees its KV and its steps for the hot one: without the
 * condition the rule cost {@code hot-prefix} 4% of its capacity; with any prefix over the share,
 * not only the first, it cost {@code multi-tenant} 2% (a replica there keeps two tenants warm,
 * about half of its traffic each). A request with a budget is left to the ranking, which judges
 * its wait as admission does: kept with holders, {@code hot-prefix} with deadlines lost 3%.
 *
 * <p>Measured with a router alone, {@code vllm} telemetry, capacity bisected, seeds 1-10, against
 * the rule's absence (docs/cost-model.md, "Keeping a request with its prefix's holder"):
 * {@code rag-long-docs} 8.82 to 9.18 req/s, {@code hot-prefix} 86.05 to 87.76,
 * {@code multi-turn-chat} 22.60 to 22.81, the other named scenarios within 0.03. Ratios 2 / 3 /
 * 4 / 6 / unbounded gave {@code rag-long-docs} +0.22 /
 * +0.28 / +0.37 / +0.37 / +0.32 (share 0.3, on an earlier form of the rule); share 0.2 rather than
 * 0.3 kept every load scale of {@code hot-prefix} within 2% of the best other policy (0.3 left
 * 1.5x at 0.978).
 *
 * <p>Memory: per replica this router sent requests to, the {@value #KEYS_PER_REPLICA} prefixes
 * with the most recent requests there (a prefix that finds them full takes the place of the one
 * with the fewest, as heavy-hitter counters do: a prefix with over an eighth of them stays), for
 * at most {@value #MAX_REPLICAS} replicas (a new replica found with that many known first drops
 * the ones sent nothing for {@value #FORGET_AFTER_MEMORIES} time constants, and is otherwise not
 * tracked, so counts as carrying no other prefix).
 *
 * <p>Thread-safety: thread-safe. The replicas' records are in a concurrent map; each record is
 * updated and read under its own monitor, held for a scan of {@value #KEYS_PER_REPLICA} counts.
 */
final class HolderStay {
  /** The default {@code stay_ratio}. */
  static final double DEFAULT_RATIO = 4;
  /** A holder carries another prefix's traffic when that prefix has more than this share of it. */
  static final double DOMINANT_SHARE = 0.2;
  /** The time constant of the decaying request counts, in seconds. */
  static final long MEMORY_SECONDS = 30;
  /**
   * The prompt's blocks that name its prefix (1,024 tokens at 16 per block): named by their first
   * {@value PrefixHome#KEY_BLOCKS}, as homes are, every session of {@code multi-turn-chat} was one
   * prefix behind their shared system prompt, and the rule there 0.19 req/s short of this.
   */
  static final int KEY_BLOCKS = 64;
  /** Prefixes counted per replica. */
  static final int KEYS_PER_REPLICA = 8;
  /** Replicas tracked at most. */
  static final int MAX_REPLICAS = 4096;
  /** A record not noted for this many time constants tells nothing and may be dropped. */
  static final int FORGET_AFTER_MEMORIES = 5;

  private static final double MEMORY_NANOS = MEMORY_SECONDS * 1e9;

  /** 0: off; else the most the holder may rank above the best and still keep the request. */
  private final double ratio;
  private final ConcurrentHashMap<String, Mix> mixes = new ConcurrentHashMap<>();

  HolderStay(double ratio) {
    this.ratio = ratio;
  }

  /** What one replica's recent requests from this router were made of. */
  private static final class Mix {
    @GuardedBy("this")
    private final long[] keys = new long[KEYS_PER_REPLICA];
    @GuardedBy("this")
    private final double[] counts = new double[KEYS_PER_REPLICA];
    @GuardedBy("this")
    private int used;
    @GuardedBy("this")
    private double total;
    @GuardedBy("this")
    private long notedAtNanos;

    synchronized void note(long key, long nowNanos) {
      double kept = used == 0 ? 1 : Math.exp(-Math.max(0, nowNanos - notedAtNanos) / MEMORY_NANOS);
      total = total * kept + 1;
      notedAtNanos = nowNanos;
      int fewest = 0;
      int at = -1;
      for (int i = 0; i < used; i++) {
        counts[i] *= kept;
        if (keys[i] == key) {
          at = i;
        }
        if (counts[i] < counts[fewest]) {
          fewest = i;
        }
      }
      if (at < 0) {
        at = used < KEYS_PER_REPLICA ? used++ : fewest;
        keys[at] = key;
        counts[at] = 0;
      }
      counts[at] += 1;
    }

    /**
     * Whether the prefix with the most recent requests is not {@code key} and has over the
     * dominant share.
     */
    synchronized boolean carriesOther(long key, long nowNanos) {
      if (used == 0 || nowNanos - notedAtNanos > FORGET_AFTER_MEMORIES * MEMORY_NANOS) {
        return false;
      }
      // every count decays by the same factor, so the shares need no decay
      int top = 0;
      for (int i = 1; i < used; i++) {
        if (counts[i] > counts[top]) {
          top = i;
        }
      }
      return keys[top] != key && counts[top] > DOMINANT_SHARE * total;
    }

    synchronized boolean forgotten(long nowNanos) {
      return nowNanos - notedAtNanos > FORGET_AFTER_MEMORIES * MEMORY_NANOS;
    }
  }

  /**
   * Notes that this router sends {@code context}'s request to {@code chosen} (nothing for an
   * explanation, whose decision is never made; a decision that admission then rejects is counted,
   * as the policy cannot tell).
   */
  void note(RoutingContext context, CandidateView chosen) {
    if (ratio <= 0 || chosen == null || RoutingContexts.isExplanation(context)) {
      return;
    }
    noteKey(chosen.replicaId(), key(context.request()), context.nowNanos());
  }

  /** Notes a request for the prefix {@code key} sent to {@code replicaId} at {@code nowNanos}. */
  void noteKey(String replicaId, long key, long nowNanos) {
    Mix mix = mixes.get(replicaId);
    if (mix == null) {
      if (mixes.size() >= MAX_REPLICAS) {
        mixes.values().removeIf(m -> m.forgotten(nowNanos));
        if (mixes.size() >= MAX_REPLICAS) {
          return;
        }
      }
      mix = mixes.computeIfAbsent(replicaId, id -> new Mix());
    }
    mix.note(key, nowNanos);
  }

  /**
   * Whether the prefix {@code replicaId} was sent most recently requests for is not {@code key}
   * and has over {@value #DOMINANT_SHARE} of them; false for a replica not tracked or not sent
   * anything for {@value #FORGET_AFTER_MEMORIES} time constants.
   */
  boolean carriesOther(String replicaId, long key, long nowNanos) {
    Mix mix = mixes.get(replicaId);
    return mix != null && mix.carriesOther(key, nowNanos);
  }

  /** The hash naming {@code request}'s prefix here: past the system prompt many prefixes share. */
  static long key(Request request) {
    return PrefixHome.key(request, KEY_BLOCKS);
  }

  /** Replicas tracked now (at most {@value #MAX_REPLICAS}). */
  int trackedReplicas() {
    return mixes.size();
  }

  /**
   * The index in {@code context}'s candidates of the deepest holder that may keep a request the
   * ranking would send to {@code best}, which holds less than half as much of its prompt; -1 when
   * none may (off, no copy, a holder of under half the prompt, a budget, the holder past the load
   * bound {@code limit} or carrying another prefix). The caller then compares the holder's
   * ranking with {@link #keeps}.
   */
  int holder(RoutingContext context, CandidateView best, boolean onlyFresh, double limit) {
    if (ratio <= 0 || best == null || context.request().ttftBudget().isPresent()) {
      return -1;
    }
    List<CandidateView> candidates = context.candidates();
    int deepest = -1;
    int deepestBlocks = 0;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (!(onlyFresh && c.telemetryStale()) && c.matchedBlocks() > deepestBlocks) {
        deepest = i;
        deepestBlocks = c.matchedBlocks();
      }
    }
    if (deepest < 0 || best.matchedBlocks() * 2L >= deepestBlocks
        || deepestBlocks * 2L < context.request().prompt().blockCount()) {
      return -1;
    }
    CandidateView holder = candidates.get(deepest);
    if (LoadBound.over(holder, limit)) {
      return -1;
    }
    return carriesOther(holder.replicaId(), key(context.request()), context.nowNanos())
        ? -1 : deepest;
  }

  /**
   * Whether a holder ranked {@code holderMillis} keeps the request from a best ranked
   * {@code bestMillis}.
   */
  boolean keeps(double holderMillis, double bestMillis) {
    return holderMillis <= ratio * bestMillis;
  }
}
