package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@link SlotLru} behaves like an access-ordered {@link LinkedHashMap} from key to last tick. */
class SlotLruProperties {

  /** kind 0-5 touch, 6-7 remove, 8 remove the tail, 9 clear; keys from a small pool, half colliding. */
  record Step(int kind, int key) {
    long keyValue() {
      long k = key;
      return key % 2 == 0 ? (k << 32) | k : k * 0x9E3779B97F4A7C15L;
    }
  }

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(Arbitraries.integers().between(0, 9),
        Arbitraries.integers().between(0, 60)).as(Step::new).list().ofMaxSize(300);
  }

  @Property(tries = 300)
  void behavesLikeAnAccessOrderedMap(@ForAll("steps") List<Step> steps) {
    SlotLru lru = new SlotLru();
    LinkedHashMap<Long, Long> model = new LinkedHashMap<>(16, 0.75f, true);
    long tick = 0;

    for (Step s : steps) {
      long key = s.keyValue();
      if (s.kind() <= 5) {
        tick++;
        boolean added = !model.containsKey(key);
        model.put(key, tick);
        assertThat(lru.touch(key, tick)).as("touch %s", s).isEqualTo(added);
      } else if (s.kind() <= 7) {
        assertThat(lru.remove(key)).as("remove %s", s).isEqualTo(model.remove(key) != null);
      } else if (s.kind() == 8) {
        if (!model.isEmpty()) {
          Long eldest = model.keySet().iterator().next();
          model.remove(eldest);
          assertThat(lru.removeTail()).as("remove the tail").isEqualTo(eldest);
        }
      } else {
        lru.clear();
        model.clear();
      }

      assertThat(lru.size()).isEqualTo(model.size());
      assertThat(lru.contains(key)).isEqualTo(model.containsKey(key));
      assertThat(lru.tickOf(key)).isEqualTo(peek(model, key));
      List<Long> mostRecentFirst = new ArrayList<>(model.keySet());
      java.util.Collections.reverse(mostRecentFirst);
      assertThat(lru.keysByRecency())
          .containsExactly(mostRecentFirst.stream().mapToLong(Long::longValue).toArray());
      if (!model.isEmpty()) {
        Map.Entry<Long, Long> eldest = model.entrySet().iterator().next();
        assertThat(lru.tailKey()).isEqualTo(eldest.getKey());
        assertThat(lru.tailTick()).isEqualTo(eldest.getValue());
      } else {
        assertThat(lru.tailTick()).isEqualTo(Long.MAX_VALUE);
      }
    }
  }

  /** The tick of {@code key} in {@code model}, or -1, without counting as an access. */
  private static long peek(LinkedHashMap<Long, Long> model, long key) {
    return model.entrySet().stream().filter(e -> e.getKey() == key).mapToLong(Map.Entry::getValue)
        .findFirst().orElse(-1L);
  }
}
