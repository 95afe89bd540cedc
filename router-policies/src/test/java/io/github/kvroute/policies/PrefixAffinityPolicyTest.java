package io.github.kvroute.policies;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.testkit.FixedRoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Prefix affinity with its imbalance guard, on rendezvous hashing. */
class PrefixAffinityPolicyTest {
  private static final RoutingPolicy POLICY = Policies.create("prefix-affinity");
  private static final Request REQUEST = TestRequests.request(200, 3);

  /** Loads per candidate (a, b, c) with the preferred one's load given; the rest fixed. */
  private String route(long preferredLoad, long otherA, long otherB) {
    List<String> ids = List.of("a", "b", "c");
    int p = PrefixAffinityPolicy.preferred(views(ids, new long[3]), key(REQUEST));
    long[] loads = new long[3];
    int k = 0;
    for (int i = 0; i < 3; i++) {
      loads[i] = i == p ? preferredLoad : (k++ == 0 ? otherA : otherB);
    }
    List<CandidateView> c = views(ids, loads);
    String chosen = POLICY.route(FixedRoutingContext.of(REQUEST, c, 1)).replicaId();
    return chosen.equals(ids.get(p)) ? "preferred" : chosen;
  }

  @Example
  void guardAboveTwiceTheMeanLoad_sendsToTheLeastLoaded_firstOnTies() {
    // an idle fleet: mean 0, no guard
    assertThat(route(0, 0, 0)).isEqualTo("preferred");
    // mean (500 + 100 + 200) / 3 = 266.7; 500 <= 533.3: stay
    assertThat(route(500, 100, 200)).isEqualTo("preferred");
    // exactly at the threshold: 400 vs 2.0 x mean (400 + 100 + 100) / 3 = 400: not above, stay
    assertThat(route(400, 100, 100)).isEqualTo("preferred");
    // above: 401 > 2.0 x 200.33 = 400.67: the least-loaded replica
    assertThat(route(401, 100, 100)).isNotEqualTo("preferred");
    // the least loaded, first in order on ties (min(range(...)))
    List<CandidateView> c = views(List.of("a", "b", "c"), new long[] {0, 0, 0});
    int p = PrefixAffinityPolicy.preferred(c, key(REQUEST));
    long[] loads = {50, 50, 50};
    loads[p] = 1_000;
    String chosen = POLICY.route(FixedRoutingContext.of(REQUEST, views(List.of("a", "b", "c"), loads), 1))
        .replicaId();
    assertThat(chosen).isEqualTo(p == 0 ? "b" : "a");
  }

  @Example
  void keyIsTheFirstPrefixTokensOnly() {
    int[] a = TestRequests.tokens(300, 9);
    int[] b = a.clone();
    for (int i = 64; i < b.length; i++) {
      b[i] = 7;
    }
    PromptKey ka = PromptKey.ofTokens(a, CacheNamespace.of("model"));
    PromptKey kb = PromptKey.ofTokens(b, CacheNamespace.of("model"));
    assertThat(PrefixAffinityPolicy.key(ka, 64)).isEqualTo(PrefixAffinityPolicy.key(kb, 64))
        .isEqualTo(ka.blockHash(3));
    assertThat(PrefixAffinityPolicy.key(ka, 65)).isNotEqualTo(PrefixAffinityPolicy.key(kb, 65));
    PromptKey shortKey = PromptKey.ofTokens(TestRequests.tokens(40, 9), CacheNamespace.of("model"));
    assertThat(PrefixAffinityPolicy.key(shortKey, 64)).isEqualTo(shortKey.blockHash(1));
  }

  @Example
  void promptWithoutBlocksGoesToLeastLoaded() {
    Request tiny = TestRequests.request(10, 4);
    List<CandidateView> c = views(List.of("a", "b", "c"), new long[] {30, 10, 20});
    assertThat(POLICY.route(FixedRoutingContext.of(tiny, c, 1)).replicaId()).isEqualTo("b");
  }

  /** Rendezvous hashing: a joining replica takes ~1/(N+1) of the keys; at most 2/N. */
  @Property(tries = 20)
  void joiningReplicaMovesFewKeys(@ForAll @IntRange(min = 2, max = 24) int n,
      @ForAll @LongRange long seed) {
    Random random = new Random(seed);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n + 1; i++) {
      ids.add("replica-" + Long.toHexString(random.nextLong()));
    }
    List<CandidateView> before = views(ids.subList(0, n), new long[n]);
    List<CandidateView> after = views(ids, new long[n + 1]);
    int keys = 4_000;
    int moved = 0;
    for (int k = 0; k < keys; k++) {
      long key = random.nextLong();
      String was = before.get(PrefixAffinityPolicy.preferred(before, key)).replicaId();
      String now = after.get(PrefixAffinityPolicy.preferred(after, key)).replicaId();
      if (!was.equals(now)) {
        assertThat(now).isEqualTo(ids.get(n)); // keys only ever move to the newcomer
        moved++;
      }
    }
    assertThat((double) moved / keys).isLessThanOrEqualTo(2.0 / n);
  }

  @Example
  void keysSpreadEvenly() {
    List<String> ids = List.of("a", "b", "c", "d");
    List<CandidateView> c = views(ids, new long[4]);
    Random random = new Random(5);
    Map<String, Long> counts = new Random(5).longs(8_000).boxed()
        .map(k -> c.get(PrefixAffinityPolicy.preferred(c, random.nextLong())).replicaId())
        .collect(Collectors.groupingBy(s -> s, Collectors.counting()));
    assertThat(counts.values()).allSatisfy(v -> assertThat(v).isBetween(1_700L, 2_300L));
  }

  private static long key(Request r) {
    return PrefixAffinityPolicy.key(r.prompt(), PrefixAffinityPolicy.DEFAULT_PREFIX_TOKENS);
  }

  private static List<CandidateView> views(List<String> ids, long[] loads) {
    List<CandidateView> out = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      out.add(CandidateView.newBuilder().replicaId(ids.get(i)).estimatedOutstandingTokens(loads[i])
          .build());
    }
    return out;
  }
}
