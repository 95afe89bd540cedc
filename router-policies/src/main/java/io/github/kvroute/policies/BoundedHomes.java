package io.github.kvroute.policies;

import java.util.Arrays;
import java.util.List;

/**
 * Homes for a set of prefixes over a fleet, by rendezvous hashing with bounded loads: a prefix goes to
 * the first replica in its {@link PrefixHome#rank rendezvous order} whose homed blocks, with this
 * prefix's, stay within {@value #LOAD_BOUND} x the fleet's mean; when none has room, to the replica
 * left least loaded (the first in rendezvous order on ties).
 *
 * <h2>Design notes</h2>
 * Plain rendezvous hashing balances many prefixes, but a few large ones land unevenly: six tenants'
 * system prompts over four replicas put three on one replica in most draws (1,440 of the 4,096
 * equally likely placements keep every replica at two or fewer), and one replica then thrashes
 * while another idles. Bounding each replica's share of the prefixes' blocks at 1.25 times the mean
 * (consistent hashing with bounded loads, Mirrokni, Thorup and Zadimoghaddam, 2018) spreads them
 * 2/2/1/1 instead. Prefixes are placed in ascending key order, so the result is a function of the
 * set of (key, blocks) and of the fleet's ids alone: routers that have seen the same prefixes agree
 * without exchanging a message, and a prefix only some routers have seen moves the others' homes
 * only where it fills a replica. With many prefixes each replica's share is near the mean, few
 * prefixes leave their first choice, and the homes are plain rendezvous homes.
 *
 * <p>The bound is on the prefixes' blocks, not on the replicas' KV capacity: bounding by capacity
 * forces prefixes that do not all fit anyway (a document corpus larger than the fleet's cache) off
 * their first choice in a cascade that depends on every other prefix, and routers that have seen
 * different documents then disagree on most homes.
 *
 * <p>Thread-safety: immutable.
 */
final class BoundedHomes {
  /** A replica's homed blocks may reach this multiple of the fleet's mean. */
  static final double LOAD_BOUND = 1.25;

  static final BoundedHomes NONE = new BoundedHomes(new long[0], new int[0], List.of());

  private final long[] keys;
  private final int[] homes;
  private final List<String> fleet;

  private BoundedHomes(long[] keys, int[] homes, List<String> fleet) {
    this.keys = keys;
    this.homes = homes;
    this.fleet = fleet;
  }

  /**
   * Places {@code keys} (ascending, distinct) of {@code blocks} each over {@code fleet}.
   *
   * @param keys the prefixes' {@link PrefixHome#key keys}, ascending and distinct
   * @param blocks each prefix's size in blocks, at the same index
   * @param fleet the replicas' ids, in the order the router lists them
   */
  static BoundedHomes assign(long[] keys, int[] blocks, List<String> fleet) {
    int n = fleet.size();
    if (n == 0 || keys.length == 0) {
      return new BoundedHomes(new long[0], new int[0], fleet);
    }
    double total = 0;
    for (int b : blocks) {
      total += b;
    }
    double bound = LOAD_BOUND * total / n;
    double[] load = new double[n];
    long[] ranks = new long[n];
    int[] homes = new int[keys.length];
    for (int k = 0; k < keys.length; k++) {
      for (int r = 0; r < n; r++) {
        ranks[r] = PrefixHome.rank(keys[k], fleet.get(r));
      }
      int home = firstWithRoom(ranks, load, blocks[k], bound);
      if (home < 0) {
        home = leastLoaded(ranks, load);
      }
      load[home] += blocks[k];
      homes[k] = home;
    }
    return new BoundedHomes(keys, homes, fleet);
  }

  /** The highest-ranked replica whose load stays within {@code bound} with {@code blocks}, or -1. */
  private static int firstWithRoom(long[] ranks, double[] load, int blocks, double bound) {
    int best = -1;
    for (int r = 0; r < ranks.length; r++) {
      if (load[r] + blocks <= bound && (best < 0 || ranks[r] > ranks[best])) {
        best = r;
      }
    }
    return best;
  }

  /** The least loaded replica, the highest-ranked among equals. */
  private static int leastLoaded(long[] ranks, double[] load) {
    int best = 0;
    for (int r = 1; r < ranks.length; r++) {
      if (load[r] < load[best] || (load[r] == load[best] && ranks[r] > ranks[best])) {
        best = r;
      }
    }
    return best;
  }

  /** The fleet these homes were placed over. */
  List<String> fleet() {
    return fleet;
  }

  /** The prefixes placed. */
  int size() {
    return keys.length;
  }

  /** {@code key}'s home, or null if {@code key} was not placed. */
  String home(long key) {
    int i = Arrays.binarySearch(keys, key);
    return i < 0 ? null : fleet.get(homes[i]);
  }
}
