package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.RequestRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Random interleavings of what the router's threads do with leases (route, hold, let go, close,
 * look up without a pin, expire): a lease handed out for a new attempt is never one that any
 * thread still holds, that was let out without a pin, or that is open.
 */
class LeaseRecyclingProperties {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  /** Ids in two stripes, so that freed leases are often the next route's. */
  private static final List<String> IDS = ids();

  private static List<String> ids() {
    List<String> ids = new ArrayList<>(LeaseRecyclingTest.idsInOneStripe(4));
    ids.addAll(List.of("a", "b", "c"));
    return ids;
  }

  enum Kind { ROUTE, HOLD, UNPIN, CLOSE, PEEK, EXPIRE }

  record Op(Kind kind, int id, int attempt, int index) {}

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Op> op = Combinators.combine(
        Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.just(Kind.ROUTE)),
            Tuple.of(4, Arbitraries.just(Kind.HOLD)),
            Tuple.of(5, Arbitraries.just(Kind.UNPIN)),
            Tuple.of(5, Arbitraries.just(Kind.CLOSE)),
            Tuple.of(1, Arbitraries.just(Kind.PEEK)),
            Tuple.of(1, Arbitraries.just(Kind.EXPIRE))),
        Arbitraries.integers().between(0, IDS.size() - 1),
        Arbitraries.integers().between(1, 3),
        Arbitraries.integers().between(0, 7)).as(Op::new);
    return op.list().ofMaxSize(120);
  }

  @Property(tries = 300)
  void aLeaseHandedOutForANewAttemptIsHeldByNoOne(@ForAll("ops") List<Op> ops) {
    ManualTicker ticker = new ManualTicker();
    // what the simulated threads hold pinned, and what was let out without a pin (forever): the
    // expiry callback's leases among them
    List<Lease> held = new ArrayList<>();
    Set<Lease> escaped = Collections.newSetFromMap(new IdentityHashMap<>());
    LeaseTable table = new LeaseTable(ticker, TIMEOUT, escaped::add);
    for (Op op : ops) {
      String id = IDS.get(op.id());
      RequestRef ref = new RequestRef(id, op.attempt());
      switch (op.kind()) {
        case ROUTE -> {
          Lease lease = table.acquire(id);
          assertThat(held).as("held by a thread").doesNotContain(lease);
          assertThat(escaped).as("let out without a pin").doesNotContain(lease);
          assertThat(lease.open).isFalse();
          lease.init(id, op.attempt(), null, 0, null, ticker.read(), 1, 1, 0, 0, 0, 0, 0);
          if (table.add(lease)) {
            Lease superseded = table.supersede(lease);
            if (superseded != null) {
              escaped.add(superseded);
            }
          }
          table.unpin(lease);
        }
        case HOLD -> {
          Lease lease = table.hold(ref);
          if (lease != null) {
            held.add(lease);
          }
        }
        case UNPIN -> {
          if (!held.isEmpty()) {
            table.unpin(held.remove(op.index() % held.size()));
          }
        }
        case CLOSE -> {
          Lease lease = table.hold(ref);
          if (lease != null) {
            table.close(lease);
            table.unpin(lease);
          }
        }
        case PEEK -> {
          Lease lease = table.get(ref);
          if (lease != null) {
            escaped.add(lease);
          }
        }
        case EXPIRE -> {
          ticker.advanceNanos(TIMEOUT.toNanos() / 2);
          table.cleanUp();
        }
      }
    }
    for (Lease lease : held) {
      table.unpin(lease);
    }
    assertThat(table.freeCount())
        .isLessThanOrEqualTo(LeaseTable.STRIPES * LeaseTable.FREE_LEASES_PER_STRIPE);
  }
}
