package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.RequestRef;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * A {@link LedgerReading} the ledger kept by its version (nothing copied, only the time-dependent
 * values derived again) holds exactly the bits a fresh copy gives at the same time, after any
 * sequence of sends, first tokens, releases, finished sends, reports (with and without a queue or a
 * waiting count, with peers), decode holds and arrivals, and resets, read at any later times.
 */
class LedgerReadingProperties {
  private static final long MS = 1_000_000L;

  /**
   * One step: {@code kind} 0-2 send, 3 first token, 4 release, 5 finished, 6 report, 7 report
   * without queue, 8 decode hold, 9 decode arrival, 10 decode release, 11 reset.
   */
  record Op(int kind, int pick, int millis, int work, int readsAfter) {}

  @Provide
  Arbitrary<List<Op>> ops() {
    return Combinators.combine(Arbitraries.integers().between(0, 11),
        Arbitraries.integers().between(0, 1_000), Arbitraries.integers().between(0, 40),
        Arbitraries.integers().between(0, 60), Arbitraries.integers().between(0, 3))
        .as(Op::new).list().ofMaxSize(200);
  }

  @Property(tries = 300)
  void aReadingKeptByItsVersionEqualsAFreshCopy(@ForAll("ops") List<Op> ops,
      @ForAll @IntRange(min = -3, max = 3) int epoch,
      @ForAll @IntRange(min = 0, max = 4_000) int millisBeforeEpoch) {
    DispatchLedger ledger = new DispatchLedger();
    LedgerReading kept = new LedgerReading();
    // a second pair read through a decision's decay clock, as the router's views are
    LedgerReading keptClocked = new LedgerReading();
    DecayClock clock = new DecayClock();
    List<Lease> open = new ArrayList<>();
    List<Lease> decoding = new ArrayList<>();
    // starting shortly before an epoch of the decay clock, so that runs cross into the next
    long now = epoch * DecayClock.SPAN_NANOS - millisBeforeEpoch * MS;
    int n = 0;
    for (Op op : ops) {
      now += op.millis() * MS;
      switch (op.kind()) {
        case 0, 1, 2 -> {
          long at = op.kind() == 2 ? now - op.pick() % 20 * MS : now;
          Lease l = lease(++n, at, op.work());
          ledger.dispatch(l);
          open.add(l);
        }
        case 3 -> {
          if (!open.isEmpty()) {
            ledger.firstToken(open.get(op.pick() % open.size()), now);
          }
        }
        case 4 -> {
          if (!open.isEmpty()) {
            ledger.release(open.remove(op.pick() % open.size()));
          }
        }
        case 5 -> {
          if (!open.isEmpty()) {
            ledger.finished(open.get(op.pick() % open.size()), now);
          }
        }
        case 6 -> ledger.onReport(now - op.pick() % 30 * MS, op.work(),
            op.pick() % 4 - 1, op.pick() % 3);
        case 7 -> ledger.onReport(now, Double.NaN, op.pick() % 2);
        case 8 -> {
          Lease l = lease(++n, now, op.work());
          ledger.holdDecode(l);
          decoding.add(l);
        }
        case 9 -> {
          if (!decoding.isEmpty()) {
            ledger.decodeArrived(decoding.get(op.pick() % decoding.size()));
          }
        }
        case 10 -> {
          if (!decoding.isEmpty()) {
            ledger.releaseDecode(decoding.remove(op.pick() % decoding.size()));
          }
        }
        default -> {
          ledger.reset();
          open.forEach(ledger::release);
          open.clear();
        }
      }
      // reads at now and later, the first after a change and the others kept by the version
      long at = now;
      for (int i = 0; i <= op.readsAfter(); i++) {
        long versionBefore = kept.version;
        ledger.read(at, kept);
        if (i > 0) {
          assertThat(kept.version).as("a read with no change in between copies nothing")
              .isEqualTo(versionBefore);
        }
        LedgerReading fresh = new LedgerReading();
        ledger.read(at, fresh);
        assertSameBits(kept, fresh, op);
        clock.at(at);
        ledger.read(at, keptClocked, clock);
        LedgerReading freshClocked = new LedgerReading();
        ledger.read(at, freshClocked, clock);
        assertSameBits(keptClocked, freshClocked, op);
        // through the clock the own rate is the exponential's to a few parts in 10^15
        assertThat(keptClocked.ownRatePerSecond).as("after %s", op)
            .isCloseTo(fresh.ownRatePerSecond, within(2e-14 * fresh.ownRatePerSecond));
        at += (op.pick() % 7) * 250_000L + i;
      }
    }
  }

  private static Lease lease(int n, long atNanos, int work) {
    return new Lease(new RequestRef("q-" + n, 1), null, 0, null, atNanos, 100 + work, 10, 0, work,
        work, 0, Double.NaN);
  }

  private static void assertSameBits(LedgerReading kept, LedgerReading fresh, Op after) {
    String at = "after " + after;
    assertThat(kept.inFlightRequests).as(at).isEqualTo(fresh.inFlightRequests);
    assertThat(kept.inFlightTokens).as(at).isEqualTo(fresh.inFlightTokens);
    assertThat(kept.inFlightPromptTokens).as(at).isEqualTo(fresh.inFlightPromptTokens);
    assertThat(kept.sinceCount).as(at).isEqualTo(fresh.sinceCount);
    assertThat(kept.sinceOutstandingTokens).as(at).isEqualTo(fresh.sinceOutstandingTokens);
    assertThat(kept.sinceKvTokens).as(at).isEqualTo(fresh.sinceKvTokens);
    assertThat(kept.decodeReservedTokens).as(at).isEqualTo(fresh.decodeReservedTokens);
    assertThat(kept.readAtNanos).as(at).isEqualTo(fresh.readAtNanos);
    assertBits(kept.queueMillis, fresh.queueMillis, at + ": queue");
    assertBits(kept.replayQueueMillis, fresh.replayQueueMillis, at + ": replay");
    assertBits(kept.ownRatePerSecond, fresh.ownRatePerSecond, at + ": own rate");
    assertBits(kept.peers, fresh.peers, at + ": peers");
    assertBits(kept.sendWeight, fresh.sendWeight, at + ": send weight");
    assertBits(kept.freedTokensPerSecond(), fresh.freedTokensPerSecond(), at + ": freed");
  }

  private static void assertBits(double kept, double fresh, String what) {
    assertThat(Double.doubleToRawLongBits(kept)).as("%s: %s vs %s", what, kept, fresh)
        .isEqualTo(Double.doubleToRawLongBits(fresh));
  }
}
