package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The prefixes one router has routed recently, and where routers sharing its fleet agree to home
 * them ({@link BoundedHomes}).
 *
 * <h2>Design notes</h2>
 * Routers that do not share their indexes still each see a sample of the same traffic; the hot
 * prefixes are in every sample within seconds. Each keeps the prefixes it routed in the last
 * {@value #WINDOW_SECONDS} s, at most {@value #MAX_PREFIXES} (the least recently seen go first),
 * and places them with {@link BoundedHomes}, a function of that set and the fleet alone, so the
 * routers' homes agree where their sets do.
 *
 * <p>The placement is recomputed every {@value #REFRESH_MILLIS} ms (to expire prefixes and pick up
 * changed sizes), and sooner, but at most every {@value #MIN_INTERVAL_MILLIS} ms, when a prefix is
 * first seen or the candidates differ from the fleet it was made for. One placement ranks at most
 * {@value #MAX_PREFIXES} keys on every replica, a few hundred microseconds for 64 replicas, so the
 * interval bounds its share of a router's time however many new prompts arrive (a stream of unique
 * prompts, or candidate lists that differ per request). Until then a new prefix has no home and
 * goes to its plain rendezvous home. A prefix's size is its latest prompt's block count.
 *
 * <p>The book also keeps each prefix's <em>share</em> of this router's recent requests: a count of
 * its requests decaying with a {@value #SHARE_MEMORY_SECONDS} s time constant, over the same count
 * for all of them. It is what tells a prefix one home can serve from one that takes more than a
 * replica's worth of the traffic ({@link PrefixHome#slack}). Beside it, the same decaying count of
 * the requests whose prefix was already remembered when they came: their {@linkplain #repeatShare
 * share} says whether this router's traffic shares prefixes at all.
 *
 * <p>Thread-safety: thread-safe; {@link #home} takes no monitor. The recent prefixes are a
 * concurrent map of records with volatile fields; the placement is an immutable value published
 * through a volatile field. One caller at a time recomputes it ({@code tryLock}); the others use
 * the previous one, in which a prefix seen for the first time has no home yet (its caller falls
 * back to plain rendezvous). A single-threaded caller, such as the simulator, always recomputes
 * when due, so its runs reproduce. The decaying counts, and the plain count of requests noted,
 * are volatile and updated without a lock:
 * two callers noting requests at the same instant may count one, which moves a share by one
 * request in the hundreds its memory holds; the share only chooses a slack, so a lock on every
 * decision would buy nothing.
 */
final class HomeBook {
  static final int MAX_PREFIXES = 512;
  static final long WINDOW_SECONDS = 60;
  static final long REFRESH_MILLIS = 1_000;
  private static final long WINDOW_NANOS = WINDOW_SECONDS * 1_000_000_000L;
  static final long MIN_INTERVAL_MILLIS = 100;
  private static final long REFRESH_NANOS = REFRESH_MILLIS * 1_000_000L;
  private static final long MIN_INTERVAL_NANOS = MIN_INTERVAL_MILLIS * 1_000_000L;
  /** The time constant of the decaying request counts behind {@link #share}. */
  static final long SHARE_MEMORY_SECONDS = 10;
  private static final double SHARE_MEMORY_NANOS = SHARE_MEMORY_SECONDS * 1e9;
  /** The requests {@link #repeatShare} needs to have seen before it tells anything. */
  static final int REPEAT_EVIDENCE = 32;

  /** A prefix routed recently. */
  private static final class Recent {
    volatile int blocks;
    volatile long seenNanos;
    /** This prefix's requests, decaying, as of {@link #seenNanos}. */
    volatile double requests;

    Recent(int blocks, long seenNanos) {
      this.blocks = blocks;
      this.seenNanos = seenNanos;
      this.requests = 1;
    }
  }

  /** The placement and when it was made. */
  private record Placement(BoundedHomes homes, long madeAtNanos) {}

  private final Map<Long, Recent> recent = new ConcurrentHashMap<>();
  private final ReentrantLock placing = new ReentrantLock();
  private static final Placement NOTHING_YET = new Placement(BoundedHomes.NONE, 0);
  private volatile Placement placement = NOTHING_YET;
  private volatile boolean newPrefix;
  /** Every prefix's requests, decaying, as of {@link #allSeenNanos}. */
  private volatile double allRequests;
  /** The requests whose prefix was remembered when they came, decaying, as of {@link #allSeenNanos}. */
  private volatile double repeatRequests;
  private volatile long allSeenNanos;
  /**
   * The requests noted since the book was made, not decaying: the evidence {@link #repeatShare}
   * waits for. The decaying count could not be it: a router taking under
   * {@value #REPEAT_EVIDENCE} requests per {@value #SHARE_MEMORY_SECONDS} s never reaches it.
   */
  private volatile long noted;

  /**
   * Notes that {@code key} ({@code blocks} long) is being routed now and returns its home among
   * {@code candidates}, or null if it has none yet. With {@code note} false (an explanation, whose
   * decision is never made) nothing is noted and the current placement answers.
   */
  String home(long key, int blocks, List<CandidateView> candidates, long nowNanos, boolean note) {
    if (!note) {
      return placement.homes().home(key);
    }
    Recent r = recent.get(key);
    double kept = decayed(1, allSeenNanos, nowNanos);
    allRequests = allRequests * kept + 1;
    repeatRequests = repeatRequests * kept + (r == null ? 0 : 1);
    allSeenNanos = nowNanos;
    noted++;
    if (r == null) {
      if (recent.putIfAbsent(key, new Recent(blocks, nowNanos)) == null) {
        newPrefix = true;
      }
    } else {
      r.requests = decayed(r.requests, r.seenNanos, nowNanos) + 1;
      r.blocks = blocks;
      r.seenNanos = nowNanos;
    }
    Placement p = placement;
    long age = nowNanos - p.madeAtNanos();
    boolean due = p == NOTHING_YET || age >= REFRESH_NANOS || (age >= MIN_INTERVAL_NANOS
        && (newPrefix || !sameFleet(p.homes().fleet(), candidates)));
    if (due && placing.tryLock()) {
      try {
        newPrefix = false;
        p = new Placement(place(candidates, nowNanos), nowNanos);
        placement = p;
      } finally {
        placing.unlock();
      }
    }
    return p.homes().home(key);
  }

  /**
   * {@code key}'s share of this router's recent requests as of {@code nowNanos}, in {@code (0, 1]},
   * before {@link #home} notes the request being routed; {@link #NOT_SEEN} if it was not routed
   * within the window.
   */
  double share(long key, long nowNanos) {
    Recent r = recent.get(key);
    if (r == null) {
      return NOT_SEEN;
    }
    double all = decayed(allRequests, allSeenNanos, nowNanos);
    // a racing update can leave the total a request behind its part
    return all <= 0 ? 1 : Math.min(1, decayed(r.requests, r.seenNanos, nowNanos) / all);
  }

  /**
   * The share of this router's recent requests (the same decaying counts as {@link #share}) whose
   * prefix it had routed within the window before, in {@code [0, 1]}; 1 until it has noted
   * {@value #REPEAT_EVIDENCE} requests: every prefix is new to a router that has just started,
   * which says nothing yet about whether its traffic shares them.
   */
  double repeatShare() {
    double all = allRequests;
    // both counts decay by the same factor from the same instant, so their ratio needs no time
    return noted < REPEAT_EVIDENCE || all <= 0 ? 1 : Math.min(1, repeatRequests / all);
  }

  /** {@link #share} of a prefix not routed within the window. */
  static final double NOT_SEEN = -1;

  private static double decayed(double requests, long sinceNanos, long nowNanos) {
    return requests * Math.exp(-Math.max(0, nowNanos - sinceNanos) / SHARE_MEMORY_NANOS);
  }

  /** Prefixes currently remembered (for tests: bounded by {@link #MAX_PREFIXES} after a placement). */
  int remembered() {
    return recent.size();
  }

  /** Called holding {@link #placing}: expires, bounds, and places the recent prefixes. */
  private BoundedHomes place(List<CandidateView> candidates, long nowNanos) {
    recent.values().removeIf(r -> nowNanos - r.seenNanos > WINDOW_NANOS);
    if (recent.size() > MAX_PREFIXES) {
      // other callers only add while this runs (removal is the placer's), so at least this many
      long[] seen = new long[recent.size()];
      int n = 0;
      for (Recent r : recent.values()) {
        if (n == seen.length) {
          break;
        }
        seen[n++] = r.seenNanos;
      }
      Arrays.sort(seen, 0, n);
      long oldestKept = seen[n - MAX_PREFIXES];
      recent.values().removeIf(r -> r.seenNanos < oldestKept);
    }
    long[] keys = new long[recent.size()];
    int n = 0;
    for (Long k : recent.keySet()) {
      if (n == keys.length) {
        break; // a concurrent caller added one since: it waits for the next placement
      }
      keys[n++] = k;
    }
    keys = Arrays.copyOf(keys, n);
    Arrays.sort(keys);
    int[] blocks = new int[n];
    for (int i = 0; i < n; i++) {
      Recent r = recent.get(keys[i]);
      blocks[i] = r == null ? 0 : r.blocks;
    }
    List<String> fleet = new ArrayList<>(candidates.size());
    for (CandidateView c : candidates) {
      fleet.add(c.replicaId());
    }
    return BoundedHomes.assign(keys, blocks, List.copyOf(fleet));
  }

  private static boolean sameFleet(List<String> fleet, List<CandidateView> candidates) {
    if (fleet.size() != candidates.size()) {
      return false;
    }
    for (int i = 0; i < fleet.size(); i++) {
      if (!fleet.get(i).equals(candidates.get(i).replicaId())) {
        return false;
      }
    }
    return true;
  }
}
