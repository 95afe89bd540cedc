package io.github.kvroute.core;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingContext;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import java.util.function.ToDoubleFunction;

/**
 * One thread's reusable decision state: the views, the three role lists, the candidate bit mask and
 * the per-slot match lengths. Doubles as the {@link RoutingContext} handed to the policy (its estimate
 * and the rest from {@link StandardContext}), so a decision allocates no per-candidate objects.
 *
 * <p>Not thread-safe: one per thread ({@link ThreadLocal}); valid during one decision.
 */
final class DecisionContext extends StandardContext {
  MutableView[] views = new MutableView[0];
  int viewCount;
  final ViewList mixed = new ViewList();
  final ViewList prefill = new ViewList();
  final ViewList decode = new ViewList();
  long[] mask = new long[1];
  long[] alive = new long[1];
  int[] matchedBySlot = new int[64];
  /** Where the index walk found the prompt's leading blocks, for the routed insert. */
  final WalkTrace trace = new WalkTrace();
  /** An explanation's dry run: breakers are only peeked at, and nothing is reserved. */
  boolean dryRun;
  /** The largest peer count the candidates' ledgers last learnt (0 for a router alone). */
  double peers;
  /** The router's pending KV moves per link; null outside a router. */
  TransferBacklog backlog;
  /** The own send rates' decay for this decision's time, shared by its candidates' readings. */
  final DecayClock decay = new DecayClock();
  /** The request's {@link PinnedPrefixes#key}, taken once per decision. */
  long prefixKey;
  /** The policy's declared ranking, computed with the views; null when it declares none. */
  StandardRanking ranking;
  /** Whether {@link #ranking} was prepared for every view of the decision in progress. */
  boolean rankingPrepared;
  /** {@link StandardRanking#scores}' array, grown as the fleet grows. */
  private double[] rankScores = new double[0];
  /**
   * The weight functions whose answers {@link #weights} and {@link #otherWeights} hold for this
   * decision, the latest first; null before a policy asks for a weighted estimate. A policy ranks
   * every candidate with the same function or two, so a function is asked once per term per decision,
   * not once per term per candidate (that lookup by name was a fifth of a 64-replica decision). Two
   * entries, so that a policy alternating two functions per candidate keeps both; a third evicts the
   * older.
   */
  private ToDoubleFunction<String> weightsOf;
  private double[] weights = new double[0];
  private ToDoubleFunction<String> otherWeightsOf;
  private double[] otherWeights = new double[0];

  void begin(Request request, long nowNanos, RandomSource random, StandardEstimate estimate,
      int members, int maskWords, int slots) {
    this.request = request;
    this.nowNanos = nowNanos;
    this.prefixKey = PinnedPrefixes.key(request.prompt());
    decay.at(nowNanos);
    this.random = random;
    this.estimate = estimate;
    if (views.length < members) {
      int old = views.length;
      views = Arrays.copyOf(views, Math.max(members, old * 2));
      for (int i = old; i < views.length; i++) {
        views[i] = new MutableView(this);
      }
      mixed.grow(views.length);
      prefill.grow(views.length);
      decode.grow(views.length);
    }
    if (mask.length < maskWords) {
      mask = new long[maskWords];
      alive = new long[maskWords];
    }
    Arrays.fill(mask, 0, maskWords, 0L);
    if (matchedBySlot.length < slots) {
      matchedBySlot = new int[Math.max(slots, matchedBySlot.length * 2)];
    }
    viewCount = 0;
    trace.clear();
    peers = 0;
    rankingPrepared = false;
    weightsOf = null;
    otherWeightsOf = null;
    mixed.size = 0;
    prefill.size = 0;
    decode.size = 0;
  }

  /**
   * Gives back unused probes and drops the request, so a pooled context does not pin prompts. The
   * views keep their entries and snapshots (at most one per member of the fleet, until this
   * thread's next decision overwrites them): clearing them would make every decision store them
   * again, paying the barrier {@link MutableView}'s notes describe.
   */
  void end() {
    request = null;
    trace.clear();
    rankingPrepared = false;
    weightsOf = null;
    otherWeightsOf = null;
    for (int i = 0; i < viewCount; i++) {
      MutableView v = views[i];
      if (v.probe) {
        v.entry.breaker.releaseProbe();
        v.probe = false;
      }
      // a view the next decision leaves out must not answer for it from this one's terms
      v.standardMillis = Double.NaN;
    }
  }

  /** An array of at least {@code n} scores, this context's own. */
  double[] rankScores(int n) {
    if (rankScores.length < n) {
      rankScores = new double[Math.max(n, rankScores.length * 2)];
    }
    return rankScores;
  }

  @Override
  public double peerRouters() {
    return peers;
  }

  @Override
  double linkBacklogMillis(CandidateView prefill, CandidateView decode) {
    if (backlog == null || !(prefill instanceof MutableView p) || !(decode instanceof MutableView d)) {
      return 0;
    }
    return backlog.millis(p.entry.slot, d.entry.slot);
  }

  @Override
  double[] termWeights(ToDoubleFunction<String> weightOfTerm) {
    if (weightOfTerm == weightsOf) {
      return weights;
    }
    // the latest becomes the other entry; the older other's array is refilled
    double[] array = otherWeights;
    ToDoubleFunction<String> of = otherWeightsOf;
    otherWeights = weights;
    otherWeightsOf = weightsOf;
    if (weightOfTerm == of) {
      weights = array;
    } else {
      weights = estimate.weights(weightOfTerm, array);
    }
    weightsOf = weightOfTerm;
    return weights;
  }

  @Override
  public List<CandidateView> candidates() {
    return mixed;
  }

  @Override
  public List<CandidateView> prefillCandidates() {
    return prefill;
  }

  @Override
  public List<CandidateView> decodeCandidates() {
    return decode;
  }

  /** A read-only list over pooled views. */
  static final class ViewList extends AbstractList<CandidateView> implements RandomAccess {
    MutableView[] items = new MutableView[0];
    int size;

    void grow(int capacity) {
      items = Arrays.copyOf(items, capacity);
    }

    /** Appends {@code v}, stored only when the slot holds another view (MutableView's notes). */
    void add(MutableView v) {
      if (items[size] != v) {
        items[size] = v;
      }
      size++;
    }

    /**
     * The view of replica {@code id} in {@code epoch}, or null. A decision built from a view names it
     * by that view's own id string, so a pass comparing references finds it without comparing the
     * characters of every candidate's id before it (twice per decision, over up to every candidate);
     * ids are unique, so the second pass, by equality, finds the same view when the first finds one.
     */
    MutableView find(String id, long epoch) {
      for (int i = 0; i < size; i++) {
        MutableView v = items[i];
        if (v.entry.id == id && v.epoch == epoch) {
          return v;
        }
      }
      for (int i = 0; i < size; i++) {
        MutableView v = items[i];
        if (v.epoch == epoch && v.entry.id.equals(id)) {
          return v;
        }
      }
      return null;
    }

    @Override
    public CandidateView get(int index) {
      if (index < 0 || index >= size) {
        throw new IndexOutOfBoundsException("index: " + index + " (expected: in [0, " + size + "))");
      }
      return items[index];
    }

    @Override
    public int size() {
      return size;
    }
  }
}
