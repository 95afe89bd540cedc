package io.github.kvroute.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.github.kvroute.api.RequestRef;
import io.github.kvroute.api.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Open leases by attempt, expiring after a timeout (a lost outcome must not hold a replica's books
 * forever), plus recently closed attempts so a duplicated outcome is recognised as such.
 *
 * <p>Both maps are Caffeine caches on the router's ticker, with maintenance run on the calling thread,
 * so expiry is deterministic in virtual time.
 *
 * <p><b>Closing is one step for readers.</b> An attempt is marked closed before it leaves the open
 * map, and expiry marks it inside Caffeine's atomic removal, so an outcome never finds an attempt
 * in neither map: it is open, or {@link #wasClosed closed}. An attempt past its timeout whose
 * expiry has not run yet counts as closed too.
 *
 * <p><b>One attempt is authoritative.</b> Routing attempt N of a request closes its older attempts
 * still open ({@link #supersede}); routing an older attempt than one in flight is refused.
 *
 * <p><b>Bounds.</b> Open leases: one per attempt in flight, each gone after the lease timeout; the
 * latest-attempt map holds at most one entry per open lease.
 * Closed attempts: remembered for twice the lease timeout, at most {@value #MAX_CLOSED_REMEMBERED}
 * of them (a 64-bit fingerprint of the attempt each; with the cache's node about 125 bytes, so at
 * most about 125 MB); beyond that the least recently closed are forgotten early, and a duplicate
 * outcome for one of them is answered {@code UNKNOWN_REQUEST} instead of {@code DUPLICATE}.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LeaseTable {
  /** Most closed attempts remembered for recognising duplicates. */
  static final int MAX_CLOSED_REMEMBERED = 1_000_000;

  private final Cache<RequestRef, Lease> open;
  private final Cache<Long, Boolean> closed;
  /**
   * Each request's authoritative (latest routed) open attempt; one entry per open lease at most.
   */
  private final ConcurrentHashMap<String, Lease> latest = new ConcurrentHashMap<>();
  /**
   * A test seam between the two steps of {@link #close} (marking closed, leaving the open map), so
   * that a test can run an outcome at exactly that point; null outside tests.
   */
  volatile Consumer<Lease> betweenCloseSteps;

  LeaseTable(Ticker ticker, Duration timeout, Consumer<Lease> onExpired) {
    this.open = Caffeine.newBuilder()
        .ticker(ticker::read)
        .executor(Runnable::run)
        .expireAfterWrite(timeout)
        .evictionListener((RequestRef ref, Lease lease, RemovalCause cause) -> {
          if (cause == RemovalCause.EXPIRED && lease != null) {
            markClosed(lease.ref);
            latest.remove(lease.ref.requestId(), lease);
            onExpired.accept(lease);
          }
        })
        .build();
    this.closed = Caffeine.newBuilder()
        .ticker(ticker::read)
        .executor(Runnable::run)
        .expireAfterWrite(timeout.multipliedBy(2))
        .maximumSize(MAX_CLOSED_REMEMBERED)
        .build();
  }

  Lease get(RequestRef ref) {
    return open.getIfPresent(ref);
  }

  /** Adds {@code lease}; false if its attempt is already open. */
  boolean add(Lease lease) {
    return open.asMap().putIfAbsent(lease.ref, lease) == null;
  }

  /** Closes {@code lease}; false if someone else closed it first. */
  boolean close(Lease lease) {
    // marked first: a reader that no longer finds it open must find it closed
    markClosed(lease.ref);
    Consumer<Lease> seam = betweenCloseSteps;
    if (seam != null) {
      seam.accept(lease);
    }
    if (open.asMap().remove(lease.ref, lease)) {
      latest.remove(lease.ref.requestId(), lease);
      return true;
    }
    return false;
  }

  /** The open attempt of {@code ref}'s request with a higher attempt number, if any. */
  Lease newerOpen(RequestRef ref) {
    Lease current = latest.get(ref.requestId());
    return current != null && current.ref.attempt() > ref.attempt() && get(current.ref) == current
        ? current : null;
  }

  /** The request's open attempt older than {@code ref} (a hedge's first attempt), else null. */
  Lease olderOpen(RequestRef ref) {
    Lease current = latest.get(ref.requestId());
    return current != null && current.ref.attempt() < ref.attempt() && get(current.ref) == current
        ? current : null;
  }

  /**
   * Makes the open {@code lease} its request's authoritative attempt: an older attempt still open
   * is closed here and returned (its books are the caller's to release), else null.
   */
  Lease supersede(Lease lease) {
    String id = lease.ref.requestId();
    Lease previous = latest.put(id, lease);
    if (get(lease.ref) != lease) {
      // closed (expired) before it was published: it must not stay in the map
      latest.remove(id, lease);
    }
    return previous != null && previous != lease && close(previous) ? previous : null;
  }

  /** Whether {@code ref} was closed recently, counting an attempt whose expiry is due. */
  boolean wasClosed(RequestRef ref) {
    if (closed.getIfPresent(fingerprint(ref)) != null) {
      return true;
    }
    open.cleanUp();
    return closed.getIfPresent(fingerprint(ref)) != null;
  }

  /** Closes and returns every open lease matching {@code which}. */
  List<Lease> closeAll(Predicate<Lease> which) {
    List<Lease> taken = new ArrayList<>();
    for (Lease lease : List.copyOf(open.asMap().values())) {
      if (which.test(lease) && close(lease)) {
        taken.add(lease);
      }
    }
    return taken;
  }

  long openCount() {
    return open.asMap().size();
  }

  /** Runs pending expiry. */
  void cleanUp() {
    open.cleanUp();
    closed.cleanUp();
  }

  private void markClosed(RequestRef ref) {
    closed.put(fingerprint(ref), Boolean.TRUE);
  }

  /**
   * 64 bits naming the attempt: a collision could only turn an UNKNOWN_REQUEST into a DUPLICATE.
   * Hashed in place over the id's chars (each step a bijection of the state, then a full
   * avalanche), because every decision closes an attempt: a streaming hasher allocated a hasher, a
   * buffer, the id's bytes and a hash code each time.
   */
  static long fingerprint(RequestRef ref) {
    String id = ref.requestId();
    long h = 0x9E3779B97F4A7C15L ^ id.length();
    for (int i = 0; i < id.length(); i++) {
      h = Long.rotateLeft(h ^ (id.charAt(i) * 0xC2B2AE3D27D4EB4FL), 31) * 0x87C37B91114253D5L;
    }
    return mix(h ^ ref.attempt() * 0x165667B19E3779F9L);
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
