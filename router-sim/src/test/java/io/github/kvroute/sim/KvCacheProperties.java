package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.PromptKey;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link KvCache}'s prefix walks, which follow the {@link CachedBlock#succ} memos, find exactly the
 * leading run the registry's lookups find, while two small caches sharing a registry admit, start
 * prefills (reserving their blocks), register, release and evict prompts that share prefixes and
 * diverge; a prefill's start counts what the other cache holds as a lookup per block would, and the
 * registry's rings hold exactly the cached and the reserved blocks.
 */
class KvCacheProperties {
  private static final int BLOCK = 16;

  @Property(tries = 300)
  void prefixWalksAgreeWithTheRegistry(@ForAll("operations") List<int[]> ops) {
    BlockRegistry registry = new BlockRegistry();
    KvCache[] caches = {
        new KvCache(0, registry, BLOCK, BLOCK * 40L, 0.0, null),
        new KvCache(1, registry, BLOCK, BLOCK * 40L, 0.0, null)};
    List<List<Sequence>> running = List.of(new ArrayList<>(), new ArrayList<>());
    List<PromptKey> prompts = prompts();
    for (int[] op : ops) {
      int r = op[1];
      KvCache kv = caches[r];
      PromptKey prompt = prompts.get(op[2] % prompts.size());
      List<Sequence> mine = running.get(r);
      switch (op[0]) {
        case 0 -> assertThat(kv.leadingHits(prompt)).isEqualTo(reference(registry, prompt, r));
        case 1 -> {
          int expected = reference(registry, prompt, r);
          Sequence s = sequence(prompt, r);
          int hits = kv.admit(s);
          if (hits >= 0) {
            assertThat(hits).isEqualTo(expected);
            for (int i = 0; i < hits; i++) {
              assertThat(s.pins[i]).isSameAs(registry.lookup(prompt.blockHash(i), r));
            }
            if (op[2] % 3 != 0) {
              // most prefills start (reserving their blocks); the others register unreserved
              int cached = kv.cachedTokens(hits, prompt.tokenCount(), s.tokensToHold());
              long elsewhere = heldElsewhere(registry, prompt, cached, r);
              assertThat(kv.startPrefill(s, cached)).isEqualTo(elsewhere);
              assertThat(reference(registry, prompt, r)).as("reserved blocks are not hits")
                  .isEqualTo(expected);
            }
            mine.add(s);
          }
        }
        case 2 -> {
          if (!mine.isEmpty()) {
            Sequence s = mine.get(op[2] % mine.size());
            if (s.pinnedCount < s.prompt.blockCount()) {
              kv.register(s);
            }
          }
        }
        default -> {
          if (!mine.isEmpty()) {
            kv.release(mine.remove(op[2] % mine.size()));
          }
        }
      }
      assertThat(kv.freeBlocks() + kv.privateBlocks() + kv.cachedBlocks())
          .isEqualTo(kv.totalBlocks());
      assertThat(registry.walkHolders()).isEqualTo(registry.holderCount())
          .isEqualTo(caches[0].cachedBlocks() + caches[1].cachedBlocks());
      long reserved = 0;
      for (List<Sequence> list : running) {
        for (Sequence s : list) {
          reserved += Math.max(0, s.reservedTo - s.pinnedCount);
        }
      }
      assertThat(registry.walkPending()).isEqualTo(reserved);
    }
  }

  /** What a prefill after {@code cached} tokens recomputes that another replica holds, block by block. */
  private static long heldElsewhere(BlockRegistry registry, PromptKey prompt, int cached,
      int replica) {
    long sum = 0;
    for (int i = cached / BLOCK; i < prompt.blockCount(); i++) {
      long lo = Math.max((long) i * BLOCK, cached);
      long hi = Math.min((long) (i + 1) * BLOCK, prompt.tokenCount());
      if (hi > lo && registry.heldElsewhere(prompt.blockHash(i), replica)) {
        sum += hi - lo;
      }
    }
    return sum;
  }

  private static int reference(BlockRegistry registry, PromptKey prompt, int replica) {
    int h = 0;
    while (h < prompt.blockCount() && registry.lookup(prompt.blockHash(h), replica) != null) {
      h++;
    }
    return h;
  }

  private static Sequence sequence(PromptKey prompt, int replica) {
    SimRequest request = SimRequest.newBuilder().id("r").arrivalNanos(0).model(SimFixtures.MODEL)
        .prompt(prompt).outputTokens(1).build();
    return new Sequence(new RequestState(request, 0), 0, replica, 0);
  }

  /** Three documents of 4-10 blocks, each followed by one of three questions of 1-3 blocks. */
  private static List<PromptKey> prompts() {
    List<PromptKey> out = new ArrayList<>();
    for (int doc = 0; doc < 3; doc++) {
      for (int q = 0; q < 3; q++) {
        long[] ids = SimFixtures.concat(SimFixtures.ids(doc + 1, 0, 4 + 3 * doc),
            SimFixtures.ids(100 + 10 * doc + q, 0, 1 + q));
        out.add(PromptKey.ofBlockHashes(ids, BLOCK, ids.length * BLOCK, SimFixtures.NS));
      }
    }
    return out;
  }

  @Provide
  Arbitrary<List<int[]>> operations() {
    return Arbitraries.integers().between(0, 3)
        .flatMap(kind -> Arbitraries.integers().between(0, 1).flatMap(replica ->
            Arbitraries.integers().between(0, 1000)
                .map(pick -> new int[] {kind, replica, pick})))
        .list().ofMaxSize(300);
  }
}
