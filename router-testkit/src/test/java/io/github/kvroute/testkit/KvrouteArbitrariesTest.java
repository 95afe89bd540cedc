package io.github.kvroute.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.Request;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The generators produce valid, varied, connected values. */
class KvrouteArbitrariesTest {
  @Provide
  Arbitrary<List<ReplicaSnapshot>> fleets() {
    return KvrouteArbitraries.fleets();
  }

  @Provide
  Arbitrary<Request> requests() {
    return KvrouteArbitraries.requests();
  }

  @Provide
  Arbitrary<RouterScript> routerScripts() {
    return KvrouteArbitraries.routerScripts();
  }

  @Property(tries = 100)
  void fleetsHaveDistinctIds(@ForAll("fleets") List<ReplicaSnapshot> fleet) {
    Set<String> ids = new HashSet<>();
    fleet.forEach(s -> ids.add(s.replicaId()));
    assertThat(ids).hasSize(fleet.size());
    assertThat(fleet).hasSizeLessThanOrEqualTo(8);
  }

  @Property(tries = 100)
  void requestsAreHashedInTheirNamespace(@ForAll("requests") Request r) {
    assertThat(r.model()).isIn(KvrouteArbitraries.MODEL, KvrouteArbitraries.OTHER_MODEL);
    assertThat(r.prompt().blockSizeTokens()).isEqualTo(16);
    r.adapter().ifPresent(a -> assertThat(KvrouteArbitraries.ADAPTERS).contains(a));
  }

  @Property(tries = 50)
  void workloadsHaveUniqueRequestIds(@ForAll("routerScripts") RouterScript w) {
    Set<String> ids = new HashSet<>();
    long routes = w.actions().stream().filter(a -> a instanceof RouterScript.Route)
        .map(a -> ((RouterScript.Route) a).request().id()).peek(ids::add).count();
    assertThat(ids).hasSize((int) routes);
    assertThat(w.fleet()).isNotEmpty();
  }

  @Property(tries = 30)
  void promptsShareSystemPrompts(@ForAll("requests") Request a, @ForAll("requests") Request b) {
    // identical system-prompt tokens hash identically in the same namespace: shared leading blocks
    int[] p = KvrouteArbitraries.systemPrompt(2, 64);
    assertThat(Arrays.equals(p, KvrouteArbitraries.systemPrompt(2, 64))).isTrue();
    assertThat(Arrays.equals(p, KvrouteArbitraries.systemPrompt(3, 64))).isFalse();
  }
}
