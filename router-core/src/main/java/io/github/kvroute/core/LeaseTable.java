package io.github.kvroute.core;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Open leases by attempt, expiring after a timeout (a lost outcome must not hold a replica's books
 * forever), plus recently closed attempts so a duplicated outcome is recognised as such.
 *
 * <p><b>Closing is one step for readers.</b> An attempt is marked closed before it leaves the open
 * table, and expiry marks it under the lock that takes it out, so an outcome never finds an attempt
 * in neither: it is open, or {@link #wasClosed closed}. An attempt past its timeout whose expiry has
 * not run yet counts as closed too.
 *
 * <p><b>One attempt is authoritative.</b> Routing attempt N of a request closes its older attempts
 * still open ({@link #supersede}); routing an older attempt than one in flight is refused.
 *
 * <p><b>Bounds.</b> Open leases: one per attempt in flight, each gone after the lease timeout; the
 * latest-attempt table holds at most one entry per open lease.
 * Closed attempts: remembered for twice the lease timeout, at most {@value #MAX_CLOSED_REMEMBERED}
 * of them (a 64-bit fingerprint of the attempt each, about 33 bytes with its time and index
 * slots, at most 49 with marks repeated, so at most about 49 MB: {@link ClosedAttempts}); beyond
 * that the least recently closed are forgotten early, and a duplicate outcome for one of them is
 * answered {@code UNKNOWN_REQUEST} instead of {@code DUPLICATE}. Free leases kept for reuse: at most
 * {@value #FREE_LEASES_PER_STRIPE} per stripe.
 *
 * <p><b>Design notes: why not a cache.</b> Every decision opens a lease and every outcome closes
 * one; a Caffeine cache (as the open table was) allocated about 220 bytes for that pair (its node,
 * the map's node, the write-buffer tasks and a removal context and lambda), and the
 * latest-attempt map another node. Here both tables are intrusive: the lease is its own entry
 * (chained through {@link Lease#nextByRef} and {@link Lease#nextLatest}) and its own node in its
 * stripe's list of open leases in opening order, which is what expiry walks. Nothing is allocated
 * per lease; a stripe's bucket arrays only grow, to the most leases it has held at once. The
 * closed-attempt memory is arrays too, for the same reason ({@link ClosedAttempts}).
 *
 * <p><b>Design notes: recycling.</b> A lease whose attempt ended is reused for a later attempt
 * once no thread can hold it: {@link #acquire} and {@link #hold} pin the lease they return, and
 * {@link #unpin} puts it on its stripe's free list when its last pin goes and it is closed; every
 * other lookup that returns a lease marks it never to be reused. {@link Lease}'s notes list who can
 * hold a lease and why this is safe.
 *
 * <p>The tables are split into {@value #STRIPES} stripes by the request id's hash, each under its own
 * monitor, so that concurrent decisions contend only when their ids share a stripe; every attempt
 * of a request is in one stripe, so the open lease and its request's latest attempt change under
 * one lock. Expiry is as the cache did it: an entry past its timeout is invisible at once, and is
 * taken out (the expiry callback run, on the calling thread) by the next write, by a read that
 * meets it, or by {@link #cleanUp}. A stripe's oldest opening time is published in a volatile so
 * that the check after each write reads {@value #STRIPES} pairs of fields and takes no lock unless
 * a lease is due. The callback runs after the stripe's monitor is released: it takes replicas' ledger
 * locks and calls the host's listener, neither of which may wait for a stripe.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LeaseTable {
  /** Most closed attempts remembered for recognising duplicates. */
  static final int MAX_CLOSED_REMEMBERED = 1_000_000;
  /** Stripes of the open tables; a power of two. */
  static final int STRIPES = 32;
  /**
   * Most closed leases a stripe keeps for reuse: enough for the leases that close between two
   * openings on the stripe, a few kilobytes per stripe at most.
   */
  static final int FREE_LEASES_PER_STRIPE = 16;

  private final Ticker ticker;
  private final long timeoutNanos;
  private final Consumer<Lease> onExpired;
  private final LeaseStripe[] stripes = new LeaseStripe[STRIPES];
  private final ClosedAttempts closed;
  /**
   * A test seam between the two steps of {@link #close} (marking closed, leaving the open table), so
   * that a test can run an outcome at exactly that point; null outside tests.
   */
  volatile Consumer<Lease> betweenCloseSteps;

  LeaseTable(Ticker ticker, Duration timeout, Consumer<Lease> onExpired) {
    this.ticker = ticker;
    this.timeoutNanos = timeout.toNanos();
    this.onExpired = onExpired;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new LeaseStripe();
    }
    this.closed =
        new ClosedAttempts(ticker, timeout.multipliedBy(2).toNanos(), MAX_CLOSED_REMEMBERED);
  }


  Lease get(RequestRef ref) {
    return get(ref.requestId(), ref.attempt());
  }

  /**
   * The open lease of attempt {@code attempt} of request {@code id}, else null. The lease returned
   * is never reused (it is let out without a pin); {@link #hold} pins it instead.
   */
  Lease get(String id, int attempt) {
    return get(id, attempt, ticker.read());
  }

  /**
   * {@link #get(String, int)} as of {@code now}, a reading of the table's ticker the caller already
   * took (each reading of the system clock is some 25 ns; a route and its outcome took ten).
   */
  Lease get(String id, int attempt, long now) {
    return find(id, attempt, now, false);
  }

  /**
   * {@link #get(String, int, long)}, the lease returned pinned: it is not reused until the caller
   * {@linkplain #unpin unpins} it, which it must do once it is done with it (see {@link Lease}'s
   * notes).
   */
  Lease hold(String id, int attempt, long now) {
    return find(id, attempt, now, true);
  }

  /** {@link #hold(String, int, long)} of {@code ref}, as of now. */
  Lease hold(RequestRef ref) {
    return hold(ref.requestId(), ref.attempt(), ticker.read());
  }

  private Lease find(String id, int attempt, long now, boolean pin) {
    LeaseStripe s = stripe(id);
    Lease found;
    boolean due;
    synchronized (s) {
      found = LeaseStripe.find(s, id, attempt);
      due = found != null && expired(found, now);
      if (found != null && !due) {
        if (pin) {
          found.pins++;
        } else {
          found.shared = true;
        }
      }
    }
    if (due) {
      // as the cache did: a read that meets an expired entry runs the expiry
      expire(now);
      return null;
    }
    return found;
  }

  /**
   * A lease for a new attempt of request {@code id}, pinned for the caller: one its stripe keeps for
   * reuse, else a new one. The caller {@linkplain Lease#init initialises} it for that attempt of
   * {@code id} (its stripe is {@code id}'s), {@linkplain #add adds} it, and {@linkplain #unpin
   * unpins} it when done with it.
   */
  Lease acquire(String id) {
    LeaseStripe s = stripe(id);
    Lease lease;
    synchronized (s) {
      lease = LeaseStripe.takeFree(s);
      if (lease != null) {
        lease.pins = 1;
        return lease;
      }
    }
    lease = new Lease();
    // not yet published: the add that publishes it takes the stripe's monitor after this write
    lease.pins = 1;
    return lease;
  }

  /**
   * Lets go of a lease pinned by {@link #acquire} or {@link #hold}: when no pin is left and the lease
   * is closed (and was never let out without a pin), it goes to its stripe's free list.
   *
   * @throws IllegalStateException if the lease is not pinned
   */
  void unpin(Lease lease) {
    String id = lease.requestId;
    if (id == null) {
      throw new IllegalStateException("lease: free (expected: a pinned lease)");
    }
    LeaseStripe s = stripe(id);
    synchronized (s) {
      if (lease.pins <= 0) {
        throw new IllegalStateException(
            "lease: " + id + "#" + lease.attempt + " not pinned (expected: a pinned lease)");
      }
      lease.pins--;
      if (lease.pins == 0 && !lease.open && !lease.shared) {
        LeaseStripe.free(s, lease);
      }
    }
  }

  /** Leases on the free lists, for tests. */
  int freeCount() {
    int n = 0;
    for (LeaseStripe s : stripes) {
      synchronized (s) {
        n += s.freeCount;
      }
    }
    return n;
  }

  /** Adds {@code lease}; false if its attempt is already open. */
  boolean add(Lease lease) {
    return add(lease, ticker.read());
  }

  /** {@link #add(Lease)} as of {@code now}, read from the table's ticker by the caller. */
  boolean add(Lease lease, long now) {
    LeaseStripe s = stripe(lease.requestId);
    Lease replacedExpired = null;
    boolean added;
    synchronized (s) {
      Lease existing = LeaseStripe.find(s, lease.requestId, lease.attempt);
      if (existing != null && expired(existing, now)) {
        // an expired entry counts as absent: it is expired now, and the new lease takes its place
        takeOutExpired(s, existing);
        replacedExpired = existing;
        existing = null;
      }
      added = existing == null;
      if (added) {
        lease.openedAtNanos = now;
        LeaseStripe.open(s, lease);
      }
    }
    if (replacedExpired != null) {
      onExpired.accept(replacedExpired);
    }
    expire(now);
    return added;
  }

  /** Closes {@code lease}; false if someone else closed it first. */
  boolean close(Lease lease) {
    return close(lease, ticker.read());
  }

  /** {@link #close(Lease)} as of {@code now}, read from the table's ticker by the caller. */
  boolean close(Lease lease, long now) {
    // marked first: a reader that no longer finds it open must find it closed
    closed.add(fingerprint(lease.requestId, lease.attempt), now);
    Consumer<Lease> seam = betweenCloseSteps;
    if (seam != null) {
      seam.accept(lease);
    }
    LeaseStripe s = stripe(lease.requestId);
    boolean removed = false;
    boolean expiredHere = false;
    synchronized (s) {
      if (lease.open) {
        if (expired(lease, now)) {
          // its timeout won the race: it is expired, not closed by this call
          takeOutExpired(s, lease);
          expiredHere = true;
        } else {
          LeaseStripe.unlinkOpen(s, lease);
          LeaseStripe.removeLatest(s, lease.requestId, lease);
          removed = true;
        }
      }
    }
    if (expiredHere) {
      onExpired.accept(lease);
    }
    expire(now);
    return removed;
  }

  /** The open attempt of {@code ref}'s request with a higher attempt number, if any. */
  Lease newerOpen(RequestRef ref) {
    return openLatest(ref.requestId(), ref.attempt(), true, ticker.read());
  }

  /** {@link #newerOpen(RequestRef)} of attempt {@code attempt} of request {@code id}. */
  Lease newerOpen(String id, int attempt) {
    return openLatest(id, attempt, true, ticker.read());
  }

  /** {@link #newerOpen(String, int)} as of {@code now}, read from the table's ticker. */
  Lease newerOpen(String id, int attempt, long now) {
    return openLatest(id, attempt, true, now);
  }

  /** The request's open attempt older than {@code ref} (a hedge's first attempt), else null. */
  Lease olderOpen(RequestRef ref) {
    return openLatest(ref.requestId(), ref.attempt(), false, ticker.read());
  }

  /** {@link #olderOpen(RequestRef)} of attempt {@code attempt} of request {@code id}. */
  Lease olderOpen(String id, int attempt) {
    return openLatest(id, attempt, false, ticker.read());
  }

  private Lease openLatest(String id, int attempt, boolean newer, long now) {
    LeaseStripe s = stripe(id);
    Lease current;
    boolean due = false;
    synchronized (s) {
      current = LeaseStripe.findLatest(s, id);
      if (current == null || (newer ? current.attempt <= attempt : current.attempt >= attempt)) {
        return null;
      }
      if (!current.open) {
        current = null;
      } else if (expired(current, now)) {
        due = true;
        current = null;
      } else {
        // let out without a pin: never reused
        current.shared = true;
      }
    }
    if (due) {
      expire(now);
    }
    return current;
  }

  /**
   * Makes the open {@code lease} its request's authoritative attempt: an older attempt still open
   * is closed here and returned (its books are the caller's to release), else null.
   */
  Lease supersede(Lease lease) {
    return supersede(lease, ticker.read());
  }

  /** {@link #supersede(Lease)} as of {@code now}, read from the table's ticker by the caller. */
  Lease supersede(Lease lease, long now) {
    String id = lease.requestId;
    LeaseStripe s = stripe(id);
    Lease previous;
    boolean due = false;
    synchronized (s) {
      previous = LeaseStripe.putLatest(s, id, lease);
      if (previous != null && previous != lease) {
        // closed below without a pin: never reused
        previous.shared = true;
      }
      if (!lease.open || expired(lease, now)) {
        // closed (expired) before it was published: it must not stay in the table
        due = lease.open;
        LeaseStripe.removeLatest(s, id, lease);
      }
    }
    if (due) {
      expire(now);
    }
    return previous != null && previous != lease && close(previous, now) ? previous : null;
  }

  /** Whether {@code ref} was closed recently, counting an attempt whose expiry is due. */
  boolean wasClosed(RequestRef ref) {
    return wasClosed(ref.requestId(), ref.attempt());
  }

  /** {@link #wasClosed(RequestRef)} of attempt {@code attempt} of request {@code id}. */
  boolean wasClosed(String id, int attempt) {
    long fingerprint = fingerprint(id, attempt);
    if (closed.contains(fingerprint)) {
      return true;
    }
    expire(ticker.read());
    return closed.contains(fingerprint);
  }

  /** Closes and returns every open lease matching {@code which}. */
  List<Lease> closeAll(Predicate<Lease> which) {
    long now = ticker.read();
    List<Lease> candidates = new ArrayList<>();
    for (LeaseStripe s : stripes) {
      synchronized (s) {
        for (Lease l = s.oldest; l != null; l = l.newerOpen) {
          if (!expired(l, now)) {
            // tested and closed below without a pin: never reused
            l.shared = true;
            candidates.add(l);
          }
        }
      }
    }
    List<Lease> taken = new ArrayList<>();
    for (Lease lease : candidates) {
      if (which.test(lease) && close(lease)) {
        taken.add(lease);
      }
    }
    return taken;
  }

  /** Open leases held, counting any past their timeout whose expiry has not run yet. */
  long openCount() {
    long n = 0;
    for (LeaseStripe s : stripes) {
      synchronized (s) {
        n += s.openCount;
      }
    }
    return n;
  }

  /** Runs pending expiry. */
  void cleanUp() {
    expire(ticker.read());
    closed.cleanUp();
  }

  /**
   * Expires the leases past their timeout at {@code now}, oldest first across the stripes (as the
   * cache's single write order did; leases opened at the same instant in different stripes go in
   * stripe order), each callback run outside the stripe's monitor before the next is taken out.
   */
  private void expire(long now) {
    while (true) {
      LeaseStripe first = null;
      long firstAt = 0;
      for (LeaseStripe s : stripes) {
        if (s.anyOpen) {
          long at = s.oldestOpenedAtNanos;
          if (now - at >= timeoutNanos && (first == null || at - firstAt < 0)) {
            first = s;
            firstAt = at;
          }
        }
      }
      if (first == null) {
        return;
      }
      Lease due = null;
      synchronized (first) {
        if (first.oldest != null && expired(first.oldest, now)) {
          due = first.oldest;
          takeOutExpired(first, due);
        }
      }
      if (due != null) {
        onExpired.accept(due);
      }
    }
  }

  private boolean expired(Lease lease, long now) {
    return now - lease.openedAtNanos >= timeoutNanos;
  }

  /** Takes an expired lease out, marked closed first (under the monitor: one step for readers). */
  @GuardedBy("s")
  private void takeOutExpired(LeaseStripe s, Lease lease) {
    // handed to the expiry callback without a pin: never reused
    lease.shared = true;
    markClosed(lease.requestId, lease.attempt);
    LeaseStripe.unlinkOpen(s, lease);
    LeaseStripe.removeLatest(s, lease.requestId, lease);
  }

  private LeaseStripe stripe(String id) {
    return stripes[LeaseStripe.spread(id.hashCode()) & (STRIPES - 1)];
  }

  private void markClosed(String id, int attempt) {
    closed.add(fingerprint(id, attempt));
  }

  /**
   * 64 bits naming the attempt: a collision could only turn an UNKNOWN_REQUEST into a DUPLICATE.
   * Hashed in place over the id's chars (each step a bijection of the state, then a full
   * avalanche), because every decision closes an attempt: a streaming hasher allocated a hasher, a
   * buffer, the id's bytes and a hash code each time.
   */
  static long fingerprint(RequestRef ref) {
    return fingerprint(ref.requestId(), ref.attempt());
  }

  private static long fingerprint(String id, int attempt) {
    long h = 0x9E3779B97F4A7C15L ^ id.length();
    for (int i = 0; i < id.length(); i++) {
      h = Long.rotateLeft(h ^ (id.charAt(i) * 0xC2B2AE3D27D4EB4FL), 31) * 0x87C37B91114253D5L;
    }
    return mix(h ^ attempt * 0x165667B19E3779F9L);
  }

  /** The MurmurHash3 64-bit finalizer: every input bit flips each output bit with probability 1/2. */
  private static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    return h ^ (h >>> 33);
  }
}
