package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.PromptKey;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Model-based properties of the prefix index: after any sequence of routed inserts, KV events,
 * rollbacks, resets and capacity changes, {@link PrefixIndex#match} agrees with a reference model built
 * from plain maps; and with a small budget, the index never exceeds it and its counts stay consistent.
 */
class PrefixIndexProperties {

  // ------------------------------------------------------------------------------ operations

  sealed interface Op
      permits Insert, Stored, Removed, Cleared, Reset, Capacity, Rollback, EndSpeculation {}

  /**
   * {@code walk}: 0 inserts without a walk's trace; 1 after a walk over the slot alone, 2 over every
   * slot (as the router inserts, after its walk over the candidates).
   */
  record Insert(int slot, int prompt, boolean stale, int walk) implements Op {}

  /** {@code positions}: a bit set over the prompt's blocks (the engine's blocks, with gaps). */
  record Stored(int slot, int prompt, long positions, boolean stale) implements Op {}

  record Removed(int slot, int prompt, long positions, boolean stale) implements Op {}

  record Cleared(int slot, boolean stale) implements Op {}

  record Reset(int slot) implements Op {}

  record Capacity(int slot, int blocks, boolean stale) implements Op {}

  /** Rolls back the {@code insert}-th insert made so far (modulo their number). */
  record Rollback(int insert) implements Op {}

  /** Ends the attempt of the {@code insert}-th insert made so far (modulo their number). */
  record EndSpeculation(int insert) implements Op {}

  @Provide
  Arbitrary<List<int[]>> prompts() {
    return Arbitraries.integers().between(0, 2).array(int[].class).ofMaxSize(7)
        .list().ofMinSize(1).ofMaxSize(5);
  }

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Integer> slot = Arbitraries.integers().between(0, 3);
    Arbitrary<Integer> prompt = Arbitraries.integers().between(0, 4);
    Arbitrary<Boolean> stale = Arbitraries.of(false, false, false, true);
    Arbitrary<Long> positions = Arbitraries.longs().between(0, 127);
    Arbitrary<Op> op = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, Combinators.combine(slot, prompt, stale,
            Arbitraries.integers().between(0, 2)).as(Insert::new)),
        net.jqwik.api.Tuple.of(3, Combinators.combine(slot, prompt, positions, stale)
            .as(Stored::new)),
        net.jqwik.api.Tuple.of(2, Combinators.combine(slot, prompt, positions, stale)
            .as(Removed::new)),
        net.jqwik.api.Tuple.of(1, Combinators.combine(slot, stale).as(Cleared::new)),
        net.jqwik.api.Tuple.of(1, slot.map(Reset::new)),
        net.jqwik.api.Tuple.of(2, Combinators.combine(slot, Arbitraries.integers().between(0, 8),
            stale).as(Capacity::new)),
        net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, 50).map(Rollback::new)),
        net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, 50)
            .map(EndSpeculation::new)));
    return op.list().ofMaxSize(40);
  }

  // --------------------------------------------------------------------------- the reference

  /** An insert as both sides saw it, for rolling back later. */
  record Made(IndexStore.Insert command, int slot, int generation, PromptKey prompt, int matched,
      int count, Object token, boolean accepted, boolean speculative) {}

  // ------------------------------------------------------------------------------ properties

  @Property(tries = 300)
  void matchAgreesWithTheReferenceModel(@ForAll("prompts") List<int[]> tokens,
      @ForAll("ops") List<Op> ops, @ForAll @IntRange(min = 1, max = 8) int defaultCapacity) {
    IndexHarness h = new IndexHarness(1L << 30, defaultCapacity);
    PrefixIndex ix = h.index;
    int slots = 4;
    int[][] allocated = h.allocate(slots);
    int[] slotIds = new int[slots];
    int[] gen = new int[slots];
    List<List<Integer>> oldGens = new ArrayList<>();
    for (int s = 0; s < slots; s++) {
      slotIds[s] = allocated[s][0];
      gen[s] = allocated[s][1];
      oldGens.add(new ArrayList<>());
    }
    List<PromptKey> prompts = tokens.stream().map(IndexHarness::blocks).toList();
    IndexReference model = new IndexReference(slots, defaultCapacity);
    List<Made> inserts = new ArrayList<>();

    for (Op op : ops) {
      apply(op, ix, model, slotIds, gen, oldGens, prompts, inserts);

      for (PromptKey p : prompts) {
        for (int s = 0; s < slots; s++) {
          assertThat(h.match(p, slotIds[s]))
              .as("after %s: match of %s on slot %d", op, p, s).isEqualTo(model.match(p, s));
        }
      }
      assertThat(ix.entryCount()).as("entries after %s", op).isEqualTo(model.entries());
      assertThat(ix.blockCount()).as("blocks after %s", op).isEqualTo(model.holders.size());
      for (int s = 0; s < slots; s++) {
        assertThat(ix.slotEntries(slotIds[s])).isEqualTo(model.recency.get(s).size());
        assertThat(ix.isExact(slotIds[s])).isEqualTo(model.exact[s]);
      }
    }
  }

  /**
   * The same operations from two writer threads at once, each owning half of the slots (operations
   * on different slots commute), while a third thread matches throughout: every match read mid-run
   * is within the prompt, and at quiescence the index agrees with each writer's model, applied
   * sequentially.
   */
  @Property(tries = 60)
  void concurrentWritersAgreeWithTheModelAtQuiescence(@ForAll("prompts") List<int[]> tokens,
      @ForAll("ops") List<Op> opsA, @ForAll("ops") List<Op> opsB,
      @ForAll @IntRange(min = 1, max = 8) int defaultCapacity) throws Exception {
    IndexHarness h = new IndexHarness(1L << 30, defaultCapacity);
    PrefixIndex ix = h.index;
    int slots = 4;
    int[][] allocated = h.allocate(slots);
    int[] slotIds = new int[slots];
    int[] gen = new int[slots];
    for (int s = 0; s < slots; s++) {
      slotIds[s] = allocated[s][0];
      gen[s] = allocated[s][1];
    }
    List<PromptKey> prompts = tokens.stream().map(IndexHarness::blocks).toList();
    // writer A owns slots 0 and 1, writer B slots 2 and 3
    IndexReference[] models = {
        new IndexReference(slots, defaultCapacity), new IndexReference(slots, defaultCapacity)};
    List<List<Op>> owned = List.of(ownedBy(opsA, 0), ownedBy(opsB, 2));
    java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicReference<String> badRead =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread reader = new Thread(() -> {
      while (!done.get()) {
        for (PromptKey p : prompts) {
          int[] got = h.match(p, slotIds);
          for (int v : got) {
            if (v < 0 || v > p.blockCount()) {
              badRead.compareAndSet(null, "match " + v + " of " + p.blockCount() + " blocks");
            }
          }
        }
      }
    });
    Thread[] writers = new Thread[2];
    Throwable[] failed = new Throwable[2];
    for (int w = 0; w < 2; w++) {
      int me = w;
      writers[w] = new Thread(() -> {
        try {
          List<List<Integer>> oldGens = new ArrayList<>();
          for (int s = 0; s < slots; s++) {
            oldGens.add(new ArrayList<>());
          }
          List<Made> inserts = new ArrayList<>();
          for (Op op : owned.get(me)) {
            apply(op, ix, models[me], slotIds, gen, oldGens, prompts, inserts);
          }
        } catch (Throwable t) {
          failed[me] = t;
        }
      });
    }
    IndexReference.writeWhileReading(reader, writers, done);
    ix.flush();

    assertThat(failed).containsOnlyNulls();
    assertThat(badRead.get()).isNull();
    for (PromptKey p : prompts) {
      for (int s = 0; s < slots; s++) {
        assertThat(h.match(p, slotIds[s])).as("match of %s on slot %d", p, s)
            .isEqualTo(models[s / 2].match(p, s));
      }
    }
    assertThat(ix.entryCount()).isEqualTo(models[0].entries() + models[1].entries());
    for (int s = 0; s < slots; s++) {
      assertThat(ix.slotEntries(slotIds[s])).isEqualTo(models[s / 2].recency.get(s).size());
      assertThat(ix.isExact(slotIds[s])).isEqualTo(models[s / 2].exact[s]);
    }
  }

  /** {@code ops} moved onto slots {@code first} and {@code first + 1}. */
  private static List<Op> ownedBy(List<Op> ops, int first) {
    List<Op> out = new ArrayList<>();
    for (Op op : ops) {
      Op moved = op;
      if (op instanceof Insert o) {
        moved = new Insert(first + o.slot() % 2, o.prompt(), o.stale(), o.walk());
      } else if (op instanceof Stored o) {
        moved = new Stored(first + o.slot() % 2, o.prompt(), o.positions(), o.stale());
      } else if (op instanceof Removed o) {
        moved = new Removed(first + o.slot() % 2, o.prompt(), o.positions(), o.stale());
      } else if (op instanceof Cleared o) {
        moved = new Cleared(first + o.slot() % 2, o.stale());
      } else if (op instanceof Reset o) {
        moved = new Reset(first + o.slot() % 2);
      } else if (op instanceof Capacity o) {
        moved = new Capacity(first + o.slot() % 2, o.blocks(), o.stale());
      }
      out.add(moved);
    }
    return out;
  }

  private static void apply(Op op, PrefixIndex ix, IndexReference model, int[] slotIds, int[] gen,
      List<List<Integer>> oldGens, List<PromptKey> prompts, List<Made> inserts) {
    if (op instanceof Insert o) {
      int s = o.slot();
      PromptKey p = prompts.get(o.prompt() % prompts.size());
      int matched = model.match(p, s);
      int g = o.stale() ? staleGen(oldGens.get(s)) : gen[s];
      IndexStore.Insert command = switch (o.walk()) {
        case 1 -> IndexHarness.insertAfterWalk(ix, slotIds[s], g, p, matched, slotIds[s]);
        case 2 -> IndexHarness.insertAfterWalk(ix, slotIds[s], g, p, matched, slotIds);
        default -> ix.insertRouted(slotIds[s], g, p, matched);
      };
      boolean accepted = !o.stale();
      // on an exact slot the insert is speculative: kept until its attempt ends; like any insert it
      // trims the slot to the mirrored capacity (the engine evicts to make room for the prefill)
      boolean speculative = accepted && model.exact[s];
      Object token = new Object();
      int count = (int) Math.min(p.blockCount(), model.capacity[s]);
      if (accepted) {
        for (int i = count - 1; i >= 0; i--) {
          model.touch(s, p.blockHash(i), token);
        }
        model.enforceCapacity(s);
      }
      inserts.add(new Made(command, s, model.generation[s], p, matched, count, token, accepted,
          speculative));
    } else if (op instanceof Stored o) {
      int s = o.slot();
      long[] keys = keys(prompts.get(o.prompt() % prompts.size()), o.positions());
      ix.kvStored(slotIds[s], o.stale() ? staleGen(oldGens.get(s)) : gen[s], keys);
      if (!o.stale()) {
        model.exact[s] = true;
        Object token = new Object();
        for (int i = keys.length - 1; i >= 0; i--) {
          model.touch(s, keys[i], token);
        }
      }
    } else if (op instanceof Removed o) {
      int s = o.slot();
      long[] keys = keys(prompts.get(o.prompt() % prompts.size()), o.positions());
      ix.kvRemoved(slotIds[s], o.stale() ? staleGen(oldGens.get(s)) : gen[s], keys);
      if (!o.stale()) {
        model.exact[s] = true;
        for (long k : keys) {
          model.drop(s, k);
        }
      }
    } else if (op instanceof Cleared o) {
      int s = o.slot();
      ix.kvCleared(slotIds[s], o.stale() ? staleGen(oldGens.get(s)) : gen[s]);
      if (!o.stale()) {
        model.exact[s] = true;
        model.clear(s);
      }
    } else if (op instanceof Reset o) {
      int s = o.slot();
      oldGens.get(s).add(gen[s]);
      gen[s] = ix.reset(slotIds[s]);
      model.generation[s]++;
      model.clear(s);
      model.exact[s] = false;
    } else if (op instanceof Capacity o) {
      int s = o.slot();
      ix.setCapacity(slotIds[s], o.stale() ? staleGen(oldGens.get(s)) : gen[s], o.blocks());
      if (!o.stale()) {
        model.capacity[s] = Math.max(1, o.blocks());
        if (!model.exact[s]) {
          model.enforceCapacity(s);
        }
      }
    } else if (op instanceof Rollback o) {
      if (inserts.isEmpty()) {
        return;
      }
      Made m = inserts.get(o.insert() % inserts.size());
      if (m.command() == null) {
        return;
      }
      ix.rollback(m.command());
      undoUntouched(model, m);
    } else if (op instanceof EndSpeculation o) {
      if (inserts.isEmpty()) {
        return;
      }
      Made m = inserts.get(o.insert() % inserts.size());
      if (m.command() == null) {
        return;
      }
      ix.endSpeculation(m.command());
      assertThat(m.command().speculative).isEqualTo(m.speculative());
      if (m.speculative()) {
        undoUntouched(model, m);
      }
    }
  }

  /** The model's rollback: what the insert added and nothing touched since goes. */
  private static void undoUntouched(IndexReference model, Made m) {
    if (m.accepted() && model.generation[m.slot()] == m.generation()) {
      for (int i = m.matched(); i < m.count(); i++) {
        long key = m.prompt().blockHash(i);
        if (model.recency.get(m.slot()).get(key) == m.token()) {
          model.drop(m.slot(), key);
        }
      }
    }
  }

  /** A generation the slot no longer has: one it had before, or one it never had. */
  private static int staleGen(List<Integer> old) {
    return old.isEmpty() ? -7 : old.get(old.size() - 1);
  }

  private static long[] keys(PromptKey p, long positions) {
    long[] out = new long[p.blockCount()];
    int n = 0;
    for (int i = 0; i < p.blockCount(); i++) {
      if ((positions & (1L << i)) != 0) {
        out[n++] = p.blockHash(i);
      }
    }
    return java.util.Arrays.copyOf(out, n);
  }

  // ----------------------------------------------------------------------------------- budget

  record Write(int kind, int slot, int seed, int length, int capacity) {}

  @Provide
  Arbitrary<List<Write>> writes() {
    return Combinators.combine(Arbitraries.integers().between(0, 5),
        Arbitraries.integers().between(0, 4), Arbitraries.integers().between(0, 30),
        Arbitraries.integers().between(0, 1_500), Arbitraries.integers().between(1, 2_000))
        .as(Write::new).list().ofMinSize(1).ofMaxSize(60);
  }

  /** Distinct tokens per seed, one per block: {@code length} blocks of which the first are shared. */
  private static PromptKey longPrompt(int seed, int length) {
    int[] t = new int[length];
    for (int i = 0; i < length; i++) {
      t[i] = i < length / 4 ? i : seed * 10_000 + i;
    }
    return IndexHarness.blocks(t);
  }

  @Property(tries = 200)
  void withAMinimumBudgetTheIndexNeverExceedsItAndItsCountsStayConsistent(
      @ForAll("writes") List<Write> writes) {
    IndexHarness h = new IndexHarness(PrefixIndex.MIN_BUDGET_BYTES, 10_000);
    PrefixIndex ix = h.index;
    int[][] slots = h.allocate(5);
    List<IndexStore.Insert> inserts = new ArrayList<>();
    long peakBytes = 0;

    for (Write w : writes) {
      int[] s = slots[w.slot()];
      PromptKey p = longPrompt(w.seed(), w.length());
      switch (w.kind()) {
        case 0, 1 -> {
          IndexStore.Insert i = ix.insertRouted(s[0], s[1], p, h.match(p, s[0]));
          if (i != null) {
            inserts.add(i);
          }
        }
        case 2 -> ix.kvStored(s[0], s[1], p.blockHashes());
        case 3 -> ix.kvRemoved(s[0], s[1], keys(p, 0x5555_5555_5555_5555L));
        case 4 -> ix.setCapacity(s[0], s[1], w.capacity());
        default -> {
          if (!inserts.isEmpty()) {
            ix.rollback(inserts.get(w.seed() % inserts.size()));
          }
        }
      }

      assertThat(ix.estimatedBytes()).as("after %s", w).isLessThanOrEqualTo(ix.budgetBytes());
      assertThat(ix.footprintBytes()).as("arrays after %s", w)
          .isLessThanOrEqualTo(ix.estimatedBytes());
      long perSlot = 0;
      for (int[] slot : slots) {
        perSlot += ix.slotEntries(slot[0]);
      }
      assertThat(ix.entryCount()).as("entries after %s", w).isEqualTo(perSlot);
      assertThat(ix.blockCount()).isLessThanOrEqualTo(ix.entryCount());
      assertThat(ix.blockCount() == 0).isEqualTo(ix.entryCount() == 0);
      assertThat(h.match(p, s[0])).isBetween(0, p.blockCount());
      peakBytes = Math.max(peakBytes, ix.estimatedBytes());
    }
    boolean full = peakBytes + PrefixIndex.ENTRY_BYTES + PrefixIndex.runBytes(1)
        + PrefixIndex.BLOCK_BYTES > ix.budgetBytes();
    Statistics.label("budget reached").collect(full);
    Statistics.label("budget reached").coverage(c -> c.check(true).percentage(pct -> pct >= 10));
  }
}
