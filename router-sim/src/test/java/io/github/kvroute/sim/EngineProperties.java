package io.github.kvroute.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.kvroute.api.Priority;
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
import net.jqwik.api.constraints.IntRange;

/**
 * Random small fleets under random workloads with tight KV caches (preemption, eviction, sharing,
 * adapters, priorities, crashes): every run's self-checks hold, so the books always balance and no KV
 * block stays pinned.
 */
class EngineProperties {
  record Shape(double gapMillis, int family, int sharedBlocks, int uniqueTokens, int output,
      int priority, boolean adapter) {}

  @Provide
  Arbitrary<List<Shape>> workloads() {
    Arbitrary<Shape> shape = Combinators.combine(
        Arbitraries.doubles().between(0, 200),
        Arbitraries.integers().between(0, 3),
        Arbitraries.integers().between(0, 40),
        Arbitraries.integers().between(1, 400),
        Arbitraries.integers().between(1, 300),
        Arbitraries.integers().between(0, 2),
        Arbitraries.of(false, false, false, true))
        .as(Shape::new);
    return shape.list().ofMinSize(1).ofMaxSize(60);
  }

  @Property(tries = 60)
  void booksAlwaysBalance(@ForAll("workloads") List<Shape> shapes,
      @ForAll @IntRange(min = 1, max = 3) int replicas,
      @ForAll @IntRange(min = 40, max = 200) int kvBlocks,
      @ForAll TelemetryProfile profile, @ForAll boolean crash, @ForAll boolean hybrid) {
    List<SimRequest> requests = new ArrayList<>();
    double t = 0;
    for (int i = 0; i < shapes.size(); i++) {
      Shape s = shapes.get(i);
      t += s.gapMillis();
      long[] ids = SimFixtures.concat(SimFixtures.ids(100 + s.family(), 0, s.sharedBlocks()),
          SimFixtures.ids(1_000 + i, s.sharedBlocks(), s.uniqueTokens() / 16));
      int tokens = s.sharedBlocks() * 16 + s.uniqueTokens();
      SimRequest base = SimFixtures.request("r" + i, t, tokens, ids, s.output());
      SimRequest.Builder b = SimRequest.newBuilder().id(base.id()).arrivalNanos(base.arrivalNanos())
          .model(base.model()).outputTokens(base.outputTokens())
          .priority(Priority.values()[s.priority()]);
      if (s.adapter()) {
        b.adapter("lora-" + s.family()).prompt(io.github.kvroute.api.PromptKey.ofBlockHashes(ids, 16,
            tokens, io.github.kvroute.api.CacheNamespace.of(SimFixtures.MODEL, null,
                "lora-" + s.family())));
      } else {
        b.prompt(base.prompt());
      }
      requests.add(b.build());
    }
    ReplicaModel model = ReplicaModel.newBuilder().kvCapacityTokens(kvBlocks * 16L)
        .maxResidentAdapters(2).maxPrefillTokensPerStep(256).coldStartMillis(500).build();
    ScenarioBuilder sb = Scenario.newBuilder().name("random").workload(Workload.fixed(requests))
        .replicas(replicas).replicaModel(model).telemetry(profile).telemetryIntervalMillis(50)
        .telemetryDelayMillis(20);
    if (crash) {
      sb.restarts(List.of(new Scenario.Restart((long) (t / 2), 0)));
    }

    SimulationResult r = Simulator.create().run(sb.build(), hybrid ? "hybrid-cost" : "round-robin");

    assertThat(r.offered()).isEqualTo(requests.size());
    assertThat(r.completed() + r.rejected() + r.failed()).isEqualTo(r.offered());
    if (!crash) {
      // without a crash, only a request larger than the whole cache can fail
      assertThat(r.failedByReason().keySet())
          .isSubsetOf("prompt and output exceed the KV capacity");
    }
  }

  @Property(tries = 200)
  void longMapBehavesLikeAHashMap(@ForAll("operations") List<long[]> ops) {
    LongMap<Long> mine = new LongMap<>();
    Map<Long, Long> reference = new HashMap<>();
    for (long[] op : ops) {
      long key = op[1];
      switch ((int) op[0]) {
        case 0 -> {
          mine.put(key, op[2]);
          reference.put(key, op[2]);
        }
        case 1 -> {
          mine.remove(key);
          reference.remove(key);
        }
        default -> assertThat(mine.get(key)).isEqualTo(reference.get(key));
      }
      assertThat(mine.size()).isEqualTo(reference.size());
    }
    for (Map.Entry<Long, Long> e : reference.entrySet()) {
      assertThat(mine.get(e.getKey())).isEqualTo(e.getValue());
    }
  }

  @Provide
  Arbitrary<List<long[]>> operations() {
    // few distinct keys with colliding low bits, so runs, wrap-around and backward shifts happen
    Arbitrary<Long> keys = Arbitraries.longs().between(0, 300).map(k -> k * 1024);
    return Combinators.combine(Arbitraries.integers().between(0, 2), keys, Arbitraries.longs())
        .as((op, key, value) -> new long[] {op, key, value}).list().ofMaxSize(400);
  }

  @Property(tries = 100)
  void workTimelineKeepsExactSumsWhileCoarsening(
      @ForAll("times") List<Long> times, @ForAll @IntRange(min = 1, max = 100) int buckets) {
    WorkTimeline w = new WorkTimeline(2);
    long sum = 0;
    for (int i = 0; i < times.size(); i++) {
      w.add(i % 2, times.get(i), i + 1);
      sum += i + 1;
    }
    long[][] out = w.buckets(buckets);
    assertThat(out[0].length).isLessThanOrEqualTo(buckets);
    assertThat(java.util.Arrays.stream(out).flatMapToLong(java.util.Arrays::stream).sum())
        .isEqualTo(sum);
  }

  @Provide
  Arbitrary<List<Long>> times() {
    return Arbitraries.longs().between(0, 3_600_000_000_000L).list().ofMaxSize(300)
        .map(l -> l.stream().sorted().toList());
  }
}
