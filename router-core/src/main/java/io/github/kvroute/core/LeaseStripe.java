package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;

/**
 * One stripe of a {@link LeaseTable}: its open leases by attempt and its latest attempt by request
 * (two intrusive chained hash tables over the leases themselves), its open leases in opening
 * order (an intrusive list, oldest first, which expiry walks), and its free list of leases to reuse. The operations below are the tables'
 * own; {@link LeaseTable} decides when to call them.
 *
 * <p>Thread-safety: not thread-safe; every field but the two volatiles is guarded by the stripe's
 * monitor, which the caller holds.
 */
final class LeaseStripe {
  @GuardedBy("this")
  Lease[] byRef = new Lease[8];
  @GuardedBy("this")
  Lease[] latestById = new Lease[8];
  @GuardedBy("this")
  int openCount;
  @GuardedBy("this")
  int latestCount;
  /** Its list of open leases, oldest first. */
  @GuardedBy("this")
  Lease oldest;
  @GuardedBy("this")
  Lease newest;
  /** Closed leases no thread holds, for reuse, chained through {@link Lease#nextByRef}. */
  @GuardedBy("this")
  Lease free;
  @GuardedBy("this")
  int freeCount;
  /** {@code oldest.openedAtNanos} while {@link #anyOpen}, written under the monitor. */
  volatile long oldestOpenedAtNanos;
  volatile boolean anyOpen;

  /** The hash's high bits folded in, because the stripe and bucket take the low ones. */
  static int spread(int h) {
    h *= 0x9E3779B9;
    return h ^ (h >>> 16);
  }

  static int refHash(String id, int attempt) {
    return spread(id.hashCode() * 31 + attempt);
  }

  @GuardedBy("s")
  static Lease find(LeaseStripe s, String id, int attempt) {
    Lease[] table = s.byRef;
    for (Lease l = table[(refHash(id, attempt) >>> 5) & (table.length - 1)]; l != null;
        l = l.nextByRef) {
      if (l.attempt == attempt && l.requestId.equals(id)) {
        return l;
      }
    }
    return null;
  }

  @GuardedBy("s")
  static void open(LeaseStripe s, Lease lease) {
    if (s.openCount >= s.byRef.length - (s.byRef.length >>> 2)) {
      s.byRef = grow(s.byRef, true);
    }
    int b = bucketByRef(s.byRef, lease);
    lease.nextByRef = s.byRef[b];
    s.byRef[b] = lease;
    s.openCount++;
    lease.open = true;
    lease.newerOpen = null;
    lease.olderOpen = s.newest;
    if (s.newest == null) {
      s.oldest = lease;
      s.oldestOpenedAtNanos = lease.openedAtNanos;
      s.anyOpen = true;
    } else {
      s.newest.newerOpen = lease;
    }
    s.newest = lease;
  }

  /**
   * Puts {@code lease}, closed and held by no thread, on the free list, unless the list holds
   * {@value LeaseTable#FREE_LEASES_PER_STRIPE} already.
   */
  @GuardedBy("s")
  static void free(LeaseStripe s, Lease lease) {
    if (s.freeCount < LeaseTable.FREE_LEASES_PER_STRIPE) {
      lease.forget();
      lease.nextByRef = s.free;
      s.free = lease;
      s.freeCount++;
    }
  }

  /** A lease from the free list, else null. */
  @GuardedBy("s")
  static Lease takeFree(LeaseStripe s) {
    Lease lease = s.free;
    if (lease != null) {
      s.free = lease.nextByRef;
      lease.nextByRef = null;
      s.freeCount--;
    }
    return lease;
  }

  @GuardedBy("s")
  static void unlinkOpen(LeaseStripe s, Lease lease) {
    int b = bucketByRef(s.byRef, lease);
    if (s.byRef[b] == lease) {
      s.byRef[b] = lease.nextByRef;
    } else {
      Lease l = s.byRef[b];
      while (l.nextByRef != lease) {
        l = l.nextByRef;
      }
      l.nextByRef = lease.nextByRef;
    }
    lease.nextByRef = null;
    s.openCount--;
    lease.open = false;
    if (lease.olderOpen == null) {
      s.oldest = lease.newerOpen;
    } else {
      lease.olderOpen.newerOpen = lease.newerOpen;
    }
    if (lease.newerOpen == null) {
      s.newest = lease.olderOpen;
    } else {
      lease.newerOpen.olderOpen = lease.olderOpen;
    }
    lease.olderOpen = null;
    lease.newerOpen = null;
    if (s.oldest == null) {
      s.anyOpen = false;
    } else {
      s.oldestOpenedAtNanos = s.oldest.openedAtNanos;
    }
  }

  @GuardedBy("s")
  static Lease findLatest(LeaseStripe s, String id) {
    Lease[] table = s.latestById;
    for (Lease l = table[(spread(id.hashCode()) >>> 5) & (table.length - 1)]; l != null;
        l = l.nextLatest) {
      if (l.requestId.equals(id)) {
        return l;
      }
    }
    return null;
  }

  /** {@code latest.put(id, lease)}: returns the lease it replaced, if any. */
  @GuardedBy("s")
  static Lease putLatest(LeaseStripe s, String id, Lease lease) {
    Lease previous = findLatest(s, id);
    if (previous == lease) {
      return previous;
    }
    if (previous != null) {
      removeLatest(s, id, previous);
    }
    if (s.latestCount >= s.latestById.length - (s.latestById.length >>> 2)) {
      s.latestById = grow(s.latestById, false);
    }
    int b = bucketById(s.latestById, id);
    lease.nextLatest = s.latestById[b];
    s.latestById[b] = lease;
    s.latestCount++;
    return previous;
  }

  /** {@code latest.remove(id, lease)}: only if {@code lease} is the request's latest. */
  @GuardedBy("s")
  static void removeLatest(LeaseStripe s, String id, Lease lease) {
    int b = bucketById(s.latestById, id);
    Lease l = s.latestById[b];
    if (l == lease) {
      s.latestById[b] = lease.nextLatest;
    } else {
      while (l != null && l.nextLatest != lease) {
        l = l.nextLatest;
      }
      if (l == null) {
        return;
      }
      l.nextLatest = lease.nextLatest;
    }
    lease.nextLatest = null;
    s.latestCount--;
  }

  static int bucketByRef(Lease[] table, Lease lease) {
    return (refHash(lease.requestId, lease.attempt) >>> 5) & (table.length - 1);
  }

  static int bucketById(Lease[] table, String id) {
    return (spread(id.hashCode()) >>> 5) & (table.length - 1);
  }

  /** Doubles a bucket array, rechaining its leases (the only allocation here, and it is rare). */
  static Lease[] grow(Lease[] table, boolean byRef) {
    Lease[] bigger = new Lease[table.length * 2];
    for (Lease head : table) {
      Lease l = head;
      while (l != null) {
        Lease next = byRef ? l.nextByRef : l.nextLatest;
        int b = byRef ? bucketByRef(bigger, l) : bucketById(bigger, l.requestId);
        if (byRef) {
          l.nextByRef = bigger[b];
        } else {
          l.nextLatest = bigger[b];
        }
        bigger[b] = l;
        l = next;
      }
    }
    return bigger;
  }
}
