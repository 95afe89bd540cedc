package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@link LongMap} behaves like a {@code HashMap<Long, V>}, the key 0 and colliding keys included. */
class LongMapProperties {

  /**
   * Put (kind 0-2) or remove (kind 3) key number {@code key}; or the same by position, one probe
   * (kind 4 a put, 5 a remove; the key 0 by the plain methods, as the registry does).
   */
  record Step(int kind, int key, int value) {
    /** Key 0, patterned keys (low bits all zero) and spread ones. */
    long keyValue() {
      long k = key;
      return key == 0 ? 0 : key % 3 == 0 ? k << 40 : k * 0x9E3779B97F4A7C15L;
    }
  }

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(Arbitraries.integers().between(0, 5),
        Arbitraries.integers().between(0, 120), Arbitraries.integers().between(0, 1_000))
        .as(Step::new).list().ofMaxSize(500);
  }

  @Property(tries = 200)
  void behavesLikeAHashMap(@ForAll("steps") List<Step> steps) {
    LongMap<Integer> map = new LongMap<>();
    Map<Long, Integer> model = new HashMap<>();

    for (Step s : steps) {
      long key = s.keyValue();
      if (s.kind() == 4 && key != 0) {
        int p = map.position(key);
        if (p >= 0) {
          map.setAt(p, s.value());
        } else {
          if (map.reserve()) {
            p = map.position(key);
          }
          map.insertAt(~p, key, s.value());
        }
        model.put(key, s.value());
      } else if (s.kind() == 5 && key != 0) {
        int p = map.position(key);
        assertThat(p >= 0).isEqualTo(model.containsKey(key));
        if (p >= 0) {
          assertThat(map.valueAt(p)).isEqualTo(model.get(key));
          map.removeAt(p);
        }
        model.remove(key);
      } else if (s.kind() < 3 || s.kind() == 4) {
        map.put(key, s.value());
        model.put(key, s.value());
      } else {
        map.remove(key);
        model.remove(key);
      }
      assertThat(map.size()).isEqualTo(model.size());
      assertThat(map.get(key)).isEqualTo(model.get(key));
    }
    for (int k = 0; k <= 120; k++) {
      long key = new Step(0, k, 0).keyValue();
      assertThat(map.get(key)).as("key %d", k).isEqualTo(model.get(key));
    }
    List<Integer> values = new ArrayList<>();
    map.forEachValue(values::add);
    assertThat(values).containsExactlyInAnyOrderElementsOf(model.values());
  }
}
