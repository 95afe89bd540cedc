package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.RequestRef;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The lease table reuses a lease only when no thread can hold it: closed, its last pin gone, never
 * let out without a pin; a reused lease starts as a new one; the free lists keep their bound.
 */
class LeaseRecyclingTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final ManualTicker ticker = new ManualTicker();
  private final ConcurrentLinkedQueue<Lease> expired = new ConcurrentLinkedQueue<>();
  private final LeaseTable table = new LeaseTable(ticker, TIMEOUT, expired::add);

  /** Ids whose leases share one stripe of the table, so that one's free lease is the next's. */
  static List<String> idsInOneStripe(int count) {
    List<String> ids = new ArrayList<>();
    int stripe = LeaseStripe.spread("q-0".hashCode()) & (LeaseTable.STRIPES - 1);
    for (int i = 0; ids.size() < count; i++) {
      String id = "q-" + i;
      if ((LeaseStripe.spread(id.hashCode()) & (LeaseTable.STRIPES - 1)) == stripe) {
        ids.add(id);
      }
    }
    return ids;
  }

  /** What a route does: acquire, initialise, open, make authoritative, let go. */
  private Lease route(String id, int attempt) {
    Lease lease = table.acquire(id);
    lease.init(id, attempt, null, 0, null, ticker.read(), 100, 10, 0, 0, 0, 0, 0);
    assertThat(table.add(lease)).isTrue();
    table.supersede(lease);
    table.unpin(lease);
    return lease;
  }

  /** What an outcome does: hold, close, let go. */
  private boolean complete(String id, int attempt) {
    Lease lease = table.hold(new RequestRef(id, attempt));
    if (lease == null) {
      return false;
    }
    try {
      return table.close(lease);
    } finally {
      table.unpin(lease);
    }
  }

  @Test
  void aClosedLeaseItsLastHolderLetGo_isReused() {
    List<String> ids = idsInOneStripe(3);
    Lease first = route(ids.get(0), 1);
    assertThat(complete(ids.get(0), 1)).isTrue();

    Lease second = route(ids.get(1), 1);

    assertThat(second).isSameAs(first);
    assertThat(table.hold(new RequestRef(ids.get(1), 1))).isSameAs(second);
    assertThat(table.get(ids.get(0), 1)).isNull();
    assertThat(table.wasClosed(new RequestRef(ids.get(0), 1))).isTrue();
  }

  @Test
  void aClosedLeaseAnotherThreadStillHolds_isNotReusedUntilItLetsGo() {
    List<String> ids = idsInOneStripe(3);
    Lease first = route(ids.get(0), 1);
    // another thread (a duplicate outcome, a first token) looked it up and holds it
    Lease held = table.hold(new RequestRef(ids.get(0), 1));
    assertThat(complete(ids.get(0), 1)).isTrue();

    Lease second = route(ids.get(1), 1);
    assertThat(second).isNotSameAs(first);
    // the holder still sees its own attempt, and its close is refused as a duplicate's
    assertThat(held.requestId).isEqualTo(ids.get(0));
    assertThat(table.close(held)).isFalse();
    table.unpin(held);
    assertThat(complete(ids.get(1), 1)).isTrue();

    Lease third = route(ids.get(2), 1);
    assertThat(third).isIn(first, second);
  }

  @Test
  void aLeaseLetOutWithoutAPin_isNeverReused() {
    List<String> ids = idsInOneStripe(30);
    List<Consumer<Lease>> escapes = List.of(
        l -> table.get(l.requestId, l.attempt),
        l -> table.olderOpen(new RequestRef(l.requestId, l.attempt + 1)),
        l -> table.newerOpen(new RequestRef(l.requestId, l.attempt - 1)),
        l -> table.closeAll(x -> false),
        l -> route(l.requestId, l.attempt + 1),
        l -> {
          ticker.advanceNanos(TIMEOUT.toNanos());
          table.cleanUp();
        });
    int i = 0;
    for (Consumer<Lease> escape : escapes) {
      String id = ids.get(i++);
      Lease lease = route(id, 2);
      escape.accept(lease);
      complete(id, 2);
      complete(id, 3);
      int free = table.freeCount();

      for (int k = 0; k < 3; k++) {
        String next = ids.get(i++);
        assertThat(route(next, 1)).isNotSameAs(lease);
        complete(next, 1);
      }
      assertThat(table.freeCount()).isLessThanOrEqualTo(Math.max(free, 1));
    }
    assertThat(expired).isNotEmpty();
  }

  @Test
  void aStripeKeepsAtMostItsBoundOfFreeLeases() {
    List<String> ids = idsInOneStripe(3 * LeaseTable.FREE_LEASES_PER_STRIPE);
    for (String id : ids) {
      route(id, 1);
    }
    for (String id : ids) {
      assertThat(complete(id, 1)).isTrue();
    }

    assertThat(table.freeCount()).isEqualTo(LeaseTable.FREE_LEASES_PER_STRIPE);
    assertThat(table.openCount()).isZero();
  }

  @Test
  void unpinningALeaseNotPinned_isRefused() {
    Lease lease = route("q-1", 1);

    assertThatIllegalStateException().isThrownBy(() -> table.unpin(lease))
        .withMessage("lease: q-1#1 not pinned (expected: a pinned lease)");
    assertThat(complete("q-1", 1)).isTrue();
    assertThatIllegalStateException().isThrownBy(() -> table.unpin(lease))
        .withMessage("lease: free (expected: a pinned lease)");
  }

  /**
   * Every field a lease has, dirtied, then the lease closed, freed and initialised for a new
   * attempt: it equals a new lease of that attempt field by field (a field {@link Lease#init}
   * forgot would carry the old attempt's value into the new one). Only the pins and the insert
   * record, which reuse is about, may differ.
   */
  @Test
  void aReusedLeaseIsANewLeaseInEveryField() throws Exception {
    List<String> ids = idsInOneStripe(2);
    Lease dirty = route(ids.get(0), 1);
    Lease held = table.hold(new RequestRef(ids.get(0), 1));
    assertThat(table.close(held)).isTrue();
    for (Field f : fields()) {
      if (!Set.of("pins", "requestId", "attempt", "open", "shared").contains(f.getName())) {
        f.set(dirty, dirtyValue(f.getType()));
      }
    }
    table.unpin(held);

    Lease reused = table.acquire(ids.get(1));
    assertThat(reused).isSameAs(dirty);
    reused.init(ids.get(1), 4, null, 5, null, 6, 7, 8, 9, 10, 11, 12, 13);
    Lease fresh = new Lease(ids.get(1), 4, null, 5, null, 6, 7, 8, 9, 10, 11, 12, 13);

    for (Field f : fields()) {
      if (!Set.of("pins", "insertRecord").contains(f.getName())) {
        assertThat(f.get(reused)).as(f.getName()).isEqualTo(f.get(fresh));
      }
    }
    assertThat(reused.pins).isEqualTo(1);
  }

  private static List<Field> fields() {
    List<Field> fields = new ArrayList<>();
    for (Field f : Lease.class.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        f.setAccessible(true);
        fields.add(f);
      }
    }
    return fields;
  }

  private static Object dirtyValue(Class<?> type) {
    if (type == int.class) {
      return 77;
    } else if (type == long.class) {
      return 77L;
    } else if (type == double.class) {
      return 77.5;
    } else if (type == boolean.class) {
      return true;
    } else if (type == String.class) {
      return "dirty";
    } else if (type == Lease.class) {
      return new Lease();
    } else if (type == Lease.Move.class) {
      return new Lease.Move(1, 2, null, 3, 4);
    } else if (type == DispatchLedger.class) {
      return new DispatchLedger();
    } else if (type == IndexStore.Insert.class) {
      return new IndexStore.Insert();
    }
    if (type == ReplicaEntry.class) {
      return new ReplicaEntry("dirty", 0, 0, (from, to) -> { }, BreakerConfig.defaults());
    }
    throw new AssertionError("no dirty value for " + type + ": add one");
  }
}
