package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.PromptKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * The run-compressed index against a plain map-of-sets reference, operation by operation: long
 * prompts that share prefixes to random depths (so that runs are cut and merged at every depth),
 * stored whole, in part, out of order or with repeats, removed in part, cleared, reset, inserted,
 * rolled back, trimmed by capacity; slots on both sides of the first holder word. After every
 * operation every prompt's match on every slot and every count agrees with the reference; a
 * concurrent run is checked at quiescence, with a reader that never sees a pinned slot's prompt
 * shorter than it is.
 */
class RunIndexModelProperties {

  // ------------------------------------------------------------------------------ operations

  sealed interface Op permits Store, Remove, Clear, Reset, Capacity, Insert, Undo {}

  /** Blocks {@code [from, to)} of a prompt; {@code order} 0 in order, 1 reversed, 2 shuffled, 3 repeated. */
  record Store(int slot, int prompt, int from, int to, int order) implements Op {}

  /** Every {@code step}-th block of {@code [from, to)} of a prompt. */
  record Remove(int slot, int prompt, int from, int to, int step) implements Op {}

  record Clear(int slot) implements Op {}

  record Reset(int slot) implements Op {}

  record Capacity(int slot, int blocks) implements Op {}

  /**
   * {@code walk}: 0 inserts without a walk's trace; 1 after a walk over the slot alone, 2 over every
   * slot (as the router inserts, after its walk over the candidates).
   */
  record Insert(int slot, int prompt, int walk) implements Op {}

  /** Rolls back ({@code speculationOnly} false) or ends the attempt of an earlier insert. */
  record Undo(int insert, boolean speculationOnly) implements Op {}

  static final int SLOTS = 3;
  static final int LONGEST = 48;

  @Provide
  Arbitrary<List<int[]>> prompts() {
    // prompt p copies its first `shared` tokens from an earlier one, then goes its own way
    Arbitrary<int[]> spec = Combinators.combine(Arbitraries.integers().between(1, LONGEST),
        Arbitraries.integers().between(0, LONGEST), Arbitraries.integers().between(0, 5))
        .as((length, shared, parent) -> new int[] {length, shared, parent});
    return spec.list().ofMinSize(2).ofMaxSize(6).map(RunIndexModelProperties::tokens);
  }

  /** Fewer, longer prompts: enough dead blocks after removals for the table to compact. */
  @Provide
  Arbitrary<List<int[]>> longPrompts() {
    Arbitrary<int[]> spec = Combinators.combine(Arbitraries.integers().between(60, 400),
        Arbitraries.integers().between(0, 400), Arbitraries.integers().between(0, 5))
        .as((length, shared, parent) -> new int[] {length, shared, parent});
    return spec.list().ofMinSize(2).ofMaxSize(5).map(RunIndexModelProperties::tokens);
  }

  private static List<int[]> tokens(List<int[]> specs) {
    List<int[]> out = new ArrayList<>();
    for (int p = 0; p < specs.size(); p++) {
      int[] spec = specs.get(p);
      int[] t = new int[spec[0]];
      int[] parent = p == 0 ? null : out.get(spec[2] % p);
      for (int i = 0; i < t.length; i++) {
        t[i] = parent != null && i < Math.min(spec[1], parent.length) ? parent[i] : 1_000 * (p + 1) + i;
      }
      out.add(t);
    }
    return out;
  }

  @Provide
  Arbitrary<List<Op>> ops() {
    return mix(new int[] {6, 3, 1, 1, 2, 5, 2}, 3, 70).list().ofMaxSize(50);
  }

  /**
   * Churn on long prompts: stores and removals of parts of them, clears and resets, so that dead
   * blocks pile up and the run table compacts between (and within) reads.
   */
  @Provide
  Arbitrary<List<Op>> churn() {
    return mix(new int[] {6, 6, 2, 1, 1, 3, 1}, 2, 400).list().ofMinSize(10).ofMaxSize(60);
  }

  /**
   * One operation, drawn with {@code weights} for store, remove, clear, reset, capacity, insert and
   * undo; removals step by at most {@code maxRemoveStep} blocks, capacities at most
   * {@code maxCapacity} blocks.
   */
  private static Arbitrary<Op> mix(int[] weights, int maxRemoveStep, int maxCapacity) {
    Arbitrary<Integer> slot = Arbitraries.integers().between(0, SLOTS - 1);
    Arbitrary<Integer> prompt = Arbitraries.integers().between(0, 5);
    Arbitrary<Integer> pos = Arbitraries.integers().between(0, LONGEST);
    return Arbitraries.frequencyOf(
        Tuple.of(weights[0], Combinators.combine(slot, prompt, pos, pos,
            Arbitraries.integers().between(0, 3)).as(Store::new)),
        Tuple.of(weights[1], Combinators.combine(slot, prompt, pos, pos,
            Arbitraries.integers().between(1, maxRemoveStep)).as(Remove::new)),
        Tuple.of(weights[2], slot.map(Clear::new)),
        Tuple.of(weights[3], slot.map(Reset::new)),
        Tuple.of(weights[4], Combinators.combine(slot, Arbitraries.integers().between(1, maxCapacity))
            .as(Capacity::new)),
        Tuple.of(weights[5], Combinators.combine(slot, prompt,
            Arbitraries.integers().between(0, 2)).as(Insert::new)),
        Tuple.of(weights[6], Combinators.combine(Arbitraries.integers().between(0, 50),
            Arbitraries.of(true, false)).as(Undo::new)));
  }

  // ------------------------------------------------------------------------------ the reference

  /** An insert as both sides saw it. */
  record Made(IndexStore.Insert command, int slot, int generation, PromptKey prompt, int matched,
      int count, Object token, boolean speculative) {}

  /** One writer's view of the world: the slots it owns and the inserts it made. */
  static final class World {
    final PrefixIndex ix;
    final int[] slotIds;
    final int[] gen;
    final List<PromptKey> prompts;
    final IndexReference ref;
    final List<Made> inserts = new ArrayList<>();

    World(PrefixIndex ix, int[] slotIds, int[] gen, List<PromptKey> prompts, IndexReference ref) {
      this.ix = ix;
      this.slotIds = slotIds;
      this.gen = gen;
      this.prompts = prompts;
      this.ref = ref;
    }

    void apply(Op op) {
      if (op instanceof Store o) {
        PromptKey p = prompts.get(o.prompt() % prompts.size());
        long[] keys = storedKeys(p, o);
        ix.kvStored(slotIds[o.slot()], gen[o.slot()], keys);
        ref.exact[o.slot()] = true;
        Object by = new Object();
        for (int i = keys.length - 1; i >= 0; i--) {
          ref.touch(o.slot(), keys[i], by);
        }
      } else if (op instanceof Remove o) {
        PromptKey p = prompts.get(o.prompt() % prompts.size());
        List<Long> keys = new ArrayList<>();
        for (int i = at(p, o.from()); i < at(p, o.to()); i += o.step()) {
          keys.add(p.blockHash(i));
        }
        ix.kvRemoved(slotIds[o.slot()], gen[o.slot()],
            keys.stream().mapToLong(Long::longValue).toArray());
        ref.exact[o.slot()] = true;
        keys.forEach(k -> ref.drop(o.slot(), k));
      } else if (op instanceof Clear o) {
        ix.kvCleared(slotIds[o.slot()], gen[o.slot()]);
        ref.exact[o.slot()] = true;
        ref.clear(o.slot());
      } else if (op instanceof Reset o) {
        gen[o.slot()] = ix.reset(slotIds[o.slot()]);
        ref.generation[o.slot()]++;
        ref.clear(o.slot());
        ref.exact[o.slot()] = false;
      } else if (op instanceof Capacity o) {
        ix.setCapacity(slotIds[o.slot()], gen[o.slot()], o.blocks());
        ref.capacity[o.slot()] = o.blocks();
        if (!ref.exact[o.slot()]) {
          ref.enforceCapacity(o.slot());
        }
      } else if (op instanceof Insert o) {
        int s = o.slot();
        PromptKey p = prompts.get(o.prompt() % prompts.size());
        int matched = ref.match(p, s);
        IndexStore.Insert command = switch (o.walk()) {
          case 1 -> IndexHarness.insertAfterWalk(ix, slotIds[s], gen[s], p, matched, slotIds[s]);
          case 2 -> IndexHarness.insertAfterWalk(ix, slotIds[s], gen[s], p, matched, slotIds);
          default -> ix.insertRouted(slotIds[s], gen[s], p, matched);
        };
        int count = (int) Math.min(p.blockCount(), ref.capacity[s]);
        Object by = new Object();
        for (int i = count - 1; i >= 0; i--) {
          ref.touch(s, p.blockHash(i), by);
        }
        ref.enforceCapacity(s);
        inserts.add(new Made(command, s, ref.generation[s], p, matched, count, by, ref.exact[s]));
      } else if (op instanceof Undo o && !inserts.isEmpty()) {
        Made m = inserts.get(o.insert() % inserts.size());
        if (o.speculationOnly()) {
          ix.endSpeculation(m.command());
        } else {
          ix.rollback(m.command());
        }
        if ((!o.speculationOnly() || m.speculative())
            && ref.generation[m.slot()] == m.generation()) {
          for (int i = m.matched(); i < m.count(); i++) {
            long key = m.prompt().blockHash(i);
            if (ref.recency.get(m.slot()).get(key) == m.token()) {
              ref.drop(m.slot(), key);
            }
          }
        }
      }
    }

    void check(String after, int... ownSlots) {
      for (PromptKey p : prompts) {
        for (int s : ownSlots) {
          assertThat(match(ix, p, slotIds[s])).as("after %s: match of %s on slot %d", after, p, s)
              .isEqualTo(ref.match(p, s));
        }
      }
      for (int s : ownSlots) {
        assertThat(ix.slotEntries(slotIds[s])).as("entries of slot %d after %s", s, after)
            .isEqualTo(ref.recency.get(s).size());
        assertThat(ix.isExact(slotIds[s])).isEqualTo(ref.exact[s]);
      }
    }
  }

  private static long[] storedKeys(PromptKey p, Store o) {
    int from = at(p, o.from());
    int to = Math.max(at(p, o.to()), from);
    List<Long> keys = new ArrayList<>();
    for (int i = from; i < to; i++) {
      keys.add(p.blockHash(i));
    }
    if (o.order() == 1) {
      java.util.Collections.reverse(keys);
    } else if (o.order() == 2) {
      java.util.Collections.shuffle(keys, new Random(from * 31L + to));
    } else if (o.order() == 3) {
      keys.addAll(List.copyOf(keys));
    }
    return keys.stream().mapToLong(Long::longValue).toArray();
  }

  /** Position {@code pos} of {@code [0, LONGEST]} scaled to the prompt's length. */
  private static int at(PromptKey p, int pos) {
    return (int) ((long) pos * p.blockCount() / LONGEST);
  }

  static int match(PrefixIndex ix, PromptKey p, int slot) {
    int words = ix.words();
    long[] mask = new long[words];
    mask[slot >>> 6] |= 1L << slot;
    int[] out = new int[words << 6];
    ix.match(p, mask, words, new long[words], out);
    return out[slot];
  }

  /** Slots of {@link #allocate} on {@code ix}, the prompts and a reference of {@code capacity}. */
  private static World world(PrefixIndex ix, List<int[]> tokens, int capacity) {
    int[][] slots = allocate(ix);
    int[] slotIds = new int[SLOTS];
    int[] gen = new int[SLOTS];
    for (int s = 0; s < SLOTS; s++) {
      slotIds[s] = slots[s][0];
      gen[s] = slots[s][1];
    }
    return new World(ix, slotIds, gen, tokens.stream().map(IndexHarness::blocks).toList(),
        new IndexReference(SLOTS, capacity));
  }

  /** Slots 0, 1 and 65 of 66 allocated: both holder words are in play. */
  private static int[][] allocate(PrefixIndex ix) {
    int[][] all = new int[66][];
    for (int i = 0; i < all.length; i++) {
      all[i] = ix.allocateSlot();
    }
    return new int[][] {all[0], all[1], all[65]};
  }

  // ------------------------------------------------------------------------------ properties

  @Property(tries = 300)
  void everyOperationLeavesTheIndexAgreeingWithTheReference(
      @ForAll("prompts") List<int[]> tokens, @ForAll("ops") List<Op> ops) {
    agreeThroughout(tokens, ops);
  }

  /** The same with prompts of hundreds of blocks, where removals and clears trigger compactions. */
  @Property(tries = 80)
  void longPromptsAgreeThroughCompactions(@ForAll("longPrompts") List<int[]> tokens,
      @ForAll("ops") List<Op> ops) {
    agreeThroughout(tokens, ops);
  }

  /**
   * Compactions interleaved with reads, removals and clears, each operation checked against the
   * reference (every prompt's match on every slot, every count); most sequences compact, many
   * several times.
   */
  @Property(tries = 80)
  void churnAgreesThroughEveryCompaction(@ForAll("longPrompts") List<int[]> tokens,
      @ForAll("churn") List<Op> ops) {
    int[] compactions = agreeThroughout(tokens, ops, 400);
    Statistics.label("compacted").collect(compactions[0] > 0);
    Statistics.label("compacted").coverage(c -> c.check(true).percentage(pct -> pct >= 40));
    // in place (arena or key table rewritten under the readers) and into new arrays alike
    Statistics.label("compacted in place").collect(compactions[1] > 0);
    Statistics.label("compacted in place")
        .coverage(c -> c.check(true).percentage(pct -> pct >= 30));
    Statistics.label("compacted into new arrays").collect(compactions[0] > compactions[1]);
    Statistics.label("compacted into new arrays")
        .coverage(c -> c.check(true).percentage(pct -> pct >= 10));
  }

  /**
   * The churn with compactions handed to an executor that holds them until the sequence says: a
   * compaction left due across several operations (and one run between any two) changes no match
   * or count, the arrays stay within the accounting after every operation (a write that would pass
   * it compacts at once), and the held tasks compact into new arrays, never in place.
   */
  @Property(tries = 80)
  void churnAgreesWhileCompactionsWaitForTheirTask(@ForAll("longPrompts") List<int[]> tokens,
      @ForAll("churn") List<Op> ops, @ForAll("runHeldAfter") List<Boolean> runHeldAfter) {
    List<Runnable> held = new ArrayList<>();
    PrefixIndex ix = new PrefixIndex(1L << 30, 400, 1 << 16, 0, held::add);
    World world = world(ix, tokens, 400);
    int ran = 0;
    boolean byTask = false;
    int before = ix.compactions();
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      world.apply(op);
      assertThat(held.size()).as("tasks held after %s", op).isLessThanOrEqualTo(1);
      if (runHeldAfter.get(i % runHeldAfter.size()) && !held.isEmpty()) {
        int inPlace = ix.compactionsInPlace();
        int compacted = ix.compactions();
        held.remove(0).run();
        ran++;
        byTask |= ix.compactions() > compacted;
        assertThat(ix.compactionsInPlace()).as("in place by the task after %s", op)
            .isEqualTo(inPlace);
        assertThat(ix.compactionDue()).isFalse();
      }
      world.check(op.toString(), 0, 1, 2);
      assertThat(ix.entryCount()).as("entries after %s", op).isEqualTo(world.ref.entries());
      assertThat(ix.blockCount()).as("blocks after %s", op).isEqualTo(world.ref.holders.size());
      assertThat(ix.footprintBytes()).as("arrays after %s", op)
          .isLessThanOrEqualTo(ix.estimatedBytes());
    }
    Statistics.label("held task ran").collect(ran > 0);
    Statistics.label("held task ran").coverage(c -> c.check(true).percentage(pct -> pct >= 30));
    Statistics.label("compacted").collect(ix.compactions() > before);
    Statistics.label("a held task compacted").collect(byTask);
    Statistics.label("a held task compacted")
        .coverage(c -> c.check(true).percentage(pct -> pct >= 20));
  }

  @Provide
  Arbitrary<List<Boolean>> runHeldAfter() {
    return Arbitraries.of(true, false, false).list().ofMinSize(1).ofMaxSize(8);
  }

  private static void agreeThroughout(List<int[]> tokens, List<Op> ops) {
    agreeThroughout(tokens, ops, 40);
  }

  /**
   * Runs {@code ops} checking each against the reference; returns the compactions they caused and
   * how many of those rewrote arrays in place.
   */
  private static int[] agreeThroughout(List<int[]> tokens, List<Op> ops, int capacity) {
    PrefixIndex ix = new PrefixIndex(1L << 30, capacity, 1 << 16, 0);
    World world = world(ix, tokens, capacity);

    for (Op op : ops) {
      world.apply(op);
      world.check(op.toString(), 0, 1, 2);
      assertThat(ix.entryCount()).as("entries after %s", op).isEqualTo(world.ref.entries());
      assertThat(ix.blockCount()).as("blocks after %s", op).isEqualTo(world.ref.holders.size());
    }
    return new int[] {ix.compactions(), ix.compactionsInPlace()};
  }

  /**
   * Two writers at once on slots of their own, whose prompts share runs with a pinned slot that
   * holds every prompt throughout; a reader matches all along. Writers serialise on the index's
   * lock, but each one's cuts and merges reach into runs the other and the pinned slot hold.
   */
  @Property(tries = 60)
  void concurrentWritersAgreeWithTheReferenceAtQuiescence_andPinnedPromptsNeverShorten(
      @ForAll("prompts") List<int[]> tokens, @ForAll("ops") List<Op> opsA,
      @ForAll("ops") List<Op> opsB) throws Exception {
    PrefixIndex ix = new PrefixIndex(1L << 30, 40, 1 << 16, 0);
    int[][] slots = allocate(ix);
    List<PromptKey> prompts = tokens.stream().map(IndexHarness::blocks).toList();
    int[] pinned = slots[2];
    for (PromptKey p : prompts) {
      ix.kvStored(pinned[0], pinned[1], p.blockHashes());
    }
    // writer A drives reference slot 0, writer B slot 1; each has its own reference
    World[] worlds = new World[2];
    for (int w = 0; w < 2; w++) {
      int[] ids = {slots[0][0], slots[1][0], pinned[0]};
      int[] gens = {slots[0][1], slots[1][1], pinned[1]};
      worlds[w] = new World(ix, ids, gens, prompts, new IndexReference(SLOTS, 40));
    }
    List<List<Op>> owned = List.of(onSlot(opsA, 0), onSlot(opsB, 1));
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<String> badRead = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      while (!done.get()) {
        for (PromptKey p : prompts) {
          int got = match(ix, p, pinned[0]);
          if (got != p.blockCount()) {
            badRead.compareAndSet(null, "pinned " + p + " matched " + got);
          }
        }
      }
    });
    Throwable[] failed = new Throwable[2];
    Thread[] writers = new Thread[2];
    for (int w = 0; w < 2; w++) {
      int me = w;
      writers[w] = new Thread(() -> {
        try {
          owned.get(me).forEach(worlds[me]::apply);
        } catch (Throwable t) {
          failed[me] = t;
        }
      });
    }
    IndexReference.writeWhileReading(reader, writers, done);
    ix.flush();

    assertThat(failed).containsOnlyNulls();
    assertThat(badRead.get()).isNull();
    worlds[0].check("quiescence", 0);
    worlds[1].check("quiescence", 1);
    long pinnedEntries = prompts.stream().flatMapToLong(p -> java.util.Arrays.stream(p.blockHashes()))
        .distinct().count();
    assertThat(ix.slotEntries(pinned[0])).isEqualTo((int) pinnedEntries);
    assertThat(ix.entryCount()).isEqualTo(worlds[0].ref.recency.get(0).size()
        + worlds[1].ref.recency.get(1).size() + pinnedEntries);
  }

  /** {@code ops} moved onto reference slot {@code slot} (undo keeps its own inserts). */
  private static List<Op> onSlot(List<Op> ops, int slot) {
    List<Op> out = new ArrayList<>();
    for (Op op : ops) {
      Op moved = op;
      if (op instanceof Store o) {
        moved = new Store(slot, o.prompt(), o.from(), o.to(), o.order());
      } else if (op instanceof Remove o) {
        moved = new Remove(slot, o.prompt(), o.from(), o.to(), o.step());
      } else if (op instanceof Clear) {
        moved = new Clear(slot);
      } else if (op instanceof Reset) {
        moved = new Reset(slot);
      } else if (op instanceof Capacity o) {
        moved = new Capacity(slot, o.blocks());
      } else if (op instanceof Insert o) {
        moved = new Insert(slot, o.prompt(), o.walk());
      }
      out.add(moved);
    }
    return out;
  }
}
