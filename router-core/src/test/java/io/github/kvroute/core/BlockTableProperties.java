package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@link BlockTable} behaves like a {@code Map<Long, Set<Integer>>} that drops empty entries. */
class BlockTableProperties {

  /** Add or remove {@code slot} as a holder of key number {@code key}. */
  record Change(boolean add, int key, int slot) {
    /** Keys 0 to 3 (0 marks empty positions and has a position of its own), patterned and spread. */
    long keyValue() {
      long k = key;
      return key < 4 ? k : key % 2 == 0 ? (k << 32) | k : k * 0x9E3779B97F4A7C15L;
    }
  }

  @Provide
  Arbitrary<List<Change>> changes() {
    return Combinators.combine(Arbitraries.of(true, true, false),
        Arbitraries.integers().between(0, 150), Arbitraries.integers().between(0, 130))
        .as(Change::new).list().ofMaxSize(600);
  }

  @Property(tries = 200)
  void behavesLikeAMapOfHolderSets(@ForAll("changes") List<Change> changes) {
    BlockTable table = new BlockTable();
    Map<Long, Set<Integer>> model = new HashMap<>();

    for (Change c : changes) {
      long key = c.keyValue();
      if (c.add()) {
        boolean added = model.computeIfAbsent(key, k -> new HashSet<>()).add(c.slot());
        assertThat(table.addHolder(key, c.slot())).isEqualTo(added);
      } else {
        Set<Integer> holders = model.get(key);
        boolean removed = holders != null && holders.remove(c.slot());
        if (holders != null && holders.isEmpty()) {
          model.remove(key);
        }
        assertThat(table.removeHolder(key, c.slot())).isEqualTo(removed);
      }

      assertThat(table.size()).isEqualTo(model.size());
    }
    for (int k = 0; k <= 150; k++) {
      long key = new Change(true, k, 0).keyValue();
      Set<Integer> holders = model.get(key);
      assertThat(table.isHeld(key)).as("block %d present", k).isEqualTo(holders != null);
      for (int s = 0; s <= 130; s++) {
        assertThat(table.holds(key, s)).as("block %d held by %d", k, s)
            .isEqualTo(holders != null && holders.contains(s));
      }
    }
  }
}
