package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.github.kvroute.api.RequestRef;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The ledger's tree-backed replay equals the plain replay of its definition, {@code q <- max(0, q -
 * gap) + work} over the unreported live sends in time order, after any sequence of sends (some out
 * of time order), first tokens, releases, reports and resets.
 */
class ReplayTreeProperties {
  private static final long MS = 1_000_000L;

  /** One step: {@code kind} 0-3 send, 4 first token, 5-6 release, 7 report, 8 report without queue, 9 reset. */
  record Op(int kind, int pick, int millis, int work) {}

  @Provide
  Arbitrary<List<Op>> ops() {
    return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 9),
        Arbitraries.integers().between(0, 1_000), Arbitraries.integers().between(0, 40),
        Arbitraries.integers().between(0, 60)).as(Op::new).list().ofMaxSize(300);
  }

  /** The definition: a plain list of the unreported live sends. */
  private static final class Reference {
    final List<Lease> sends = new ArrayList<>();
    double baseQueue;
    long baseAt;

    void send(Lease l) {
      int i = sends.size();
      while (i > 0 && sends.get(i - 1).dispatchedAtNanos > l.dispatchedAtNanos) {
        i--;
      }
      sends.add(i, l);
    }

    double queueAt(long now) {
      double q = baseQueue;
      long t = baseAt;
      for (Lease l : sends) {
        double work = l.firstToken ? 0 : l.workMillis;
        q = Math.max(0, q - Math.max(0, l.dispatchedAtNanos - t) / 1e6) + work;
        t = Math.max(t, l.dispatchedAtNanos);
      }
      return Math.max(0, q - Math.max(0, now - t) / 1e6);
    }
  }

  @Property(tries = 300)
  void theTreeReplaysExactlyWhatThePlainReplayDoes(@ForAll("ops") List<Op> ops) {
    DispatchLedger ledger = new DispatchLedger();
    Reference ref = new Reference();
    List<Lease> open = new ArrayList<>();
    long now = 0;
    int n = 0;
    for (Op op : ops) {
      now += op.millis() * MS;
      if (op.kind() <= 3) {
        // a quarter of the sends read the clock a little before an earlier send took the lock
        long at = op.kind() == 3 ? Math.max(0, now - op.pick() % 20 * MS) : now;
        Lease l = new Lease(new RequestRef("q-" + ++n, 1), null, 0, null, at, 100, 10, 0,
            op.work(), op.work(), 0, Double.NaN);
        ledger.dispatch(l);
        ref.send(l);
        open.add(l);
      } else if (op.kind() == 4 && !open.isEmpty()) {
        Lease l = open.get(op.pick() % open.size());
        if (ledger.firstToken(l, now)) {
          assertThat(l.firstToken).isTrue();
        }
      } else if (op.kind() <= 6 && !open.isEmpty()) {
        Lease l = open.remove(op.pick() % open.size());
        ledger.release(l);
        ref.sends.remove(l);
      } else if (op.kind() == 7) {
        long observed = Math.max(0, now - op.pick() % 30 * MS);
        ledger.onReport(observed, op.work(), 0);
        ref.sends.removeIf(l -> l.dispatchedAtNanos <= observed);
        ref.baseQueue = op.work();
        ref.baseAt = observed;
      } else if (op.kind() == 8) {
        ledger.onReport(now, Double.NaN, 0);
      } else if (op.kind() == 9) {
        ledger.reset();
        ref.sends.clear();
        ref.baseQueue = 0;
      }
      LedgerReading r = new LedgerReading();
      ledger.read(now, r);
      assertThat(r.replayQueueMillis).as("after %s", op).isCloseTo(ref.queueAt(now), within(1e-6));
      assertThat(r.sinceCount).isEqualTo(ref.sends.size());
      assertThat(r.queueMillis).as("after %s", op).isFinite().isGreaterThanOrEqualTo(0);
    }
  }
}
