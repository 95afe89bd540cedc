package io.github.kvroute.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
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
 * <p>Both maps are Caffeine caches on the router's ticker, with maintenance run on the calling thread,
 * so expiry is deterministic in virtual time.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LeaseTable {
  private final Cache<RequestRef, Lease> open;
  private final Cache<RequestRef, Boolean> closed;

  LeaseTable(Ticker ticker, Duration timeout, Consumer<Lease> onExpired) {
    this.open = Caffeine.newBuilder()
        .ticker(ticker::read)
        .executor(Runnable::run)
        .expireAfterWrite(timeout)
        .evictionListener((RequestRef ref, Lease lease, RemovalCause cause) -> {
          if (cause == RemovalCause.EXPIRED && lease != null) {
            markClosed(lease.ref);
            onExpired.accept(lease);
          }
        })
        .build();
    this.closed = Caffeine.newBuilder()
        .ticker(ticker::read)
        .executor(Runnable::run)
        .expireAfterWrite(timeout.multipliedBy(2))
        .maximumSize(1_000_000)
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
    if (open.asMap().remove(lease.ref, lease)) {
      markClosed(lease.ref);
      return true;
    }
    return false;
  }

  boolean wasClosed(RequestRef ref) {
    return closed.getIfPresent(ref) != null;
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
    closed.put(ref, Boolean.TRUE);
  }
}
