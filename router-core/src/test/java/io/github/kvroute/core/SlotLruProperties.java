package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
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

  /** Touch the first {@code length} blocks of prompt {@code prompt} (prompts share leading blocks). */
  record Touch(int prompt, int length) {}

  @Provide
  Arbitrary<List<Touch>> touches() {
    return Combinators.combine(Arbitraries.integers().between(0, 5),
        Arbitraries.integers().between(0, 12)).as(Touch::new).list().ofMaxSize(60);
  }

  /** Prompt {@code p}'s block keys: prompts 0-2 share their first 4 blocks, 3-5 their first 2. */
  private static PromptKey prompt(int p) {
    long[] keys = new long[12];
    for (int i = 0; i < keys.length; i++) {
      int family = i < 4 && p < 3 ? 100 : i < 2 ? 200 : p;
      keys[i] = family * 1_000L + i;
    }
    return PromptKey.ofBlockHashes(keys, 16, keys.length * 16, CacheNamespace.of("m"));
  }

  @Property(tries = 300)
  void movingAHeldRunToTheHeadEqualsTouchingItsBlocksDeepestFirst(
      @ForAll("touches") List<Touch> touches) {
    SlotLru byRun = new SlotLru();
    SlotLru oneByOne = new SlotLru();
    long tick = 0;

    for (Touch t : touches) {
      PromptKey p = prompt(t.prompt());
      int run = byRun.runLength(p, t.length());
      for (int i = t.length() - 1; i >= run; i--) {
        byRun.touch(p.blockHash(i), tick + t.length() - i);
      }
      if (run > 0) {
        byRun.moveRunToHead(tick + t.length());
      }
      for (int i = t.length() - 1; i >= 0; i--) {
        oneByOne.touch(p.blockHash(i), tick + t.length() - i);
      }
      tick += t.length();

      assertThat(byRun.keysByRecency()).as("after %s", t).containsExactly(oneByOne.keysByRecency());
      for (long key : oneByOne.keysByRecency()) {
        assertThat(byRun.tickOf(key)).as("tick of %d after %s", key, t)
            .isEqualTo(oneByOne.tickOf(key));
      }
      if (oneByOne.size() > 0) {
        assertThat(byRun.tailKey()).isEqualTo(oneByOne.tailKey());
      }
    }
  }
}
