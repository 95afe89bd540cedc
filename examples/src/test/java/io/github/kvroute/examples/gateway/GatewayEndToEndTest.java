package io.github.kvroute.examples.gateway;

import static io.github.kvroute.examples.gateway.RandomText.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.completions.CompletionUsage;
import io.github.kvroute.core.Router;
import io.github.kvroute.examples.emulator.EmulatedReplica;
import io.github.kvroute.examples.emulator.EngineModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The gateway end to end: four emulated vLLM replicas on loopback, the gateway in front, the official
 * OpenAI Java client (with its own retries off, so every retry counted is the gateway's). Emulated
 * time is scaled down (1 ms per 1,000 prefill tokens); no assertion reads a clock, and every wait is
 * bounded.
 */
class GatewayEndToEndTest {
  private static final String MODEL = "e2e-model";
  private static final int REPLICAS = 4;
  /** Twelve conversations' system prompts of 4,096 characters (1,024 emulated tokens) each. */
  private static final int GROUPS = 12;
  /** Room for about three of those prefixes per replica: a scattered fleet keeps evicting them. */
  private static final EngineModel ENGINE = EngineModel.scaledDown().withKvCacheBlocks(256);
  private static final Duration BOUND = Duration.ofSeconds(60);

  @Test
  void requestsSharingAPrefixLandWhereThePrefixIsCached() throws Exception {
    Ratio kvroute = runSharedPrefixes("hybrid-cost", 240);
    Ratio roundRobin = runSharedPrefixes("round-robin", 240);

    System.out.printf("prefix hit ratio over %d requests: hybrid-cost %.3f, round-robin %.3f%n",
        kvroute.requests, kvroute.ratio(), roundRobin.ratio());
    assertThat(kvroute.requests).isEqualTo(240);
    assertThat(roundRobin.requests).isEqualTo(240);
    // wall-clock scrapes and thread timing make each run differ: measured 0.55 to 0.69 against 0.18
    // to 0.30 over nine runs, gaps 0.25 to 0.46; a router blind to prefixes scores round-robin's
    assertThat(kvroute.ratio()).isGreaterThan(0.45);
    assertThat(kvroute.ratio()).isGreaterThan(roundRobin.ratio() + 0.15);
  }

  @Test
  void aReplicaKilledMidRunLosesNoRequest() throws Exception {
    try (GatewayDemo demo = demo("hybrid-cost", null)) {
      OpenAIClient client = client(demo);
      EmulatedReplica victim = demo.fleet().replica(1);
      ExecutorService pool = Executors.newFixedThreadPool(12);
      List<Future<ChatCompletion>> futures = new ArrayList<>();
      Random random = new Random(7);
      for (int i = 0; i < 160; i++) {
        ChatCompletionCreateParams params = chat(random.nextInt(GROUPS), i).build();
        futures.add(pool.submit(() -> client.chat().completions().create(params)));
      }
      // stall the victim until it holds requests, then kill it with them inside
      awaitTrue(() -> demo.gateway().stats().completed() >= 40);
      victim.pause();
      awaitTrue(() -> victim.inFlightRequests() >= 1 || demo.gateway().stats().completed() >= 160);
      int lost = victim.inFlightRequests();
      victim.kill();

      for (Future<ChatCompletion> f : futures) {
        ChatCompletion c = f.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(c.choices()).hasSize(1);
      }
      pool.shutdown();
      GatewayStats stats = demo.gateway().stats();
      System.out.printf("kill: %d requests, %d completed, %d in flight on the killed replica,"
          + " %d retries, %d failed%n", stats.requests(), stats.completed(), lost, stats.retries(),
          stats.failed());
      assertThat(lost).isPositive();
      assertThat(stats.completed()).isEqualTo(160);
      assertThat(stats.failed()).isZero();
      assertThat(stats.retries()).isGreaterThanOrEqualTo(lost);
    }
  }

  @Test
  void aReplicaThatStopsAnsweringHasItsAttemptsOrphanedAndRetried() throws Exception {
    try (GatewayDemo demo = demo("hybrid-cost", null)) {
      OpenAIClient client = client(demo);
      EmulatedReplica victim = demo.fleet().replica(2);
      ExecutorService pool = Executors.newFixedThreadPool(12);
      List<Future<ChatCompletion>> futures = new ArrayList<>();
      Random random = new Random(9);
      for (int i = 0; i < 80; i++) {
        ChatCompletionCreateParams params = chat(random.nextInt(GROUPS), i).build();
        futures.add(pool.submit(() -> client.chat().completions().create(params)));
      }
      // no connection breaks: only the failing scrape tells the router, which orphans the attempts
      awaitTrue(() -> demo.gateway().stats().completed() >= 20);
      victim.pause();
      awaitTrue(() -> victim.inFlightRequests() >= 1 || demo.gateway().stats().completed() >= 80);
      int stuck = victim.inFlightRequests();
      victim.partition();

      for (Future<ChatCompletion> f : futures) {
        assertThat(f.get(BOUND.toSeconds(), TimeUnit.SECONDS).choices()).hasSize(1);
      }
      pool.shutdown();
      GatewayStats stats = demo.gateway().stats();
      System.out.printf("partition: %d requests, %d completed, %d stuck on the cut-off replica,"
          + " %d retries, %d failed%n", stats.requests(), stats.completed(), stuck, stats.retries(),
          stats.failed());
      assertThat(stuck).isPositive();
      assertThat(stats.completed()).isEqualTo(80);
      assertThat(stats.failed()).isZero();
      assertThat(stats.retries()).isGreaterThanOrEqualTo(stuck);
      assertThat(demo.router().stats().orphaned()).isGreaterThanOrEqualTo(stuck);
    }
  }

  @Test
  void overloadIsAnswered429WithRetryAfter() throws Exception {
    Router.Builder router = Router.newBuilder().policy("hybrid-cost").seed(3)
        .admission(GatewayDemo.admission(Duration.ofMillis(50)));
    try (GatewayDemo demo = GatewayDemo.emulated(REPLICAS, MODEL, ENGINE, router, 0,
        Duration.ofMillis(100))) {
      OpenAIClient client = client(demo);
      demo.fleet().replicas().forEach(EmulatedReplica::pause);
      int sent = 32;
      ExecutorService pool = Executors.newFixedThreadPool(sent);
      List<Future<Object>> futures = new ArrayList<>();
      for (int i = 0; i < sent; i++) {
        // unique 2,000-token prompts: nothing cached, each one is a full prefill of work
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model(MODEL)
            .addUserMessage(text(new Random(1000 + i), 8_000)).maxCompletionTokens(4)
            .serviceTier(ChatCompletionCreateParams.ServiceTier.FLEX).build();
        futures.add(pool.submit(() -> {
          try {
            return client.chat().completions().create(params);
          } catch (RateLimitException e) {
            return e;
          }
        }));
      }
      awaitTrue(() -> {
        GatewayStats s = demo.gateway().stats();
        return s.requests() == sent && s.rejected() >= 1
            && s.rejected() + inEngines(demo) == sent;
      });
      demo.fleet().replicas().forEach(EmulatedReplica::resume);

      int completed = 0;
      int rejected = 0;
      for (Future<Object> f : futures) {
        Object r = f.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        if (r instanceof RateLimitException e) {
          rejected++;
          assertThat(e.statusCode()).isEqualTo(429);
          assertThat(Long.parseLong(e.headers().values("retry-after").get(0))).isPositive();
          assertThat(e.headers().values("retry-after-ms")).hasSize(1);
        } else {
          assertThat(r).isInstanceOf(ChatCompletion.class);
          completed++;
        }
      }
      pool.shutdown();
      GatewayStats stats = demo.gateway().stats();
      System.out.printf("overload: %d requests, %d completed, %d answered 429%n", sent, completed,
          rejected);
      assertThat(rejected).isPositive().isEqualTo((int) stats.rejected());
      assertThat(completed + rejected).isEqualTo(sent);
      assertThat(stats.failed()).isZero();
    }
  }

  @Test
  void completionsStreamAndReportCachedTokens() throws Exception {
    // what this checks is the gateway's side (the completions endpoint, streaming, cached tokens in
    // the usage), so the policy is one that always returns to the holder. hybrid-cost also prices
    // the queue a replica's recent TTFTs imply, and on a loaded CI host those are the host's
    // stalls: once in about 40 runs there it left the holder, idle, for an empty replica
    try (GatewayDemo demo = demo("cache-aware", null)) {
      OpenAIClient client = client(demo);
      String prompt = text(new Random(5), 4_000);
      CompletionCreateParams params =
          CompletionCreateParams.builder().model(MODEL).prompt(prompt).maxTokens(5).build();
      Completion first = client.completions().create(params);
      StringBuilder streamed = new StringBuilder();
      try (StreamResponse<Completion> stream = client.completions().createStreaming(params)) {
        stream.stream().forEach(c -> c.choices().forEach(ch -> streamed.append(ch.text())));
      }
      // a scrape taken while the streaming request ran shows its replica busy, and the router would
      // rightly route around it: wait for scrapes of every replica idle
      awaitTrue(() -> demo.router().replicas().stream()
          .allMatch(r -> r.estimatedQueueMillis() == 0 && r.inFlightRequests() == 0));
      Completion again = client.completions().create(params);

      assertThat(first.choices().get(0).text()).isNotBlank();
      assertThat(streamed.toString()).isEqualTo(first.choices().get(0).text());
      assertThat(cached(first.usage().orElseThrow())).isZero();
      // 1,000 tokens: 62 full blocks, the last block's 8 tokens always recomputed
      assertThat(cached(again.usage().orElseThrow())).isEqualTo(992);
      assertThat(demo.gateway().stats().completed()).isEqualTo(3);
    }
  }

  private Ratio runSharedPrefixes(String policy, int requests) throws Exception {
    try (GatewayDemo demo = demo(policy, 11L)) {
      OpenAIClient client = client(demo);
      ExecutorService pool = Executors.newFixedThreadPool(12);
      AtomicLong cached = new AtomicLong();
      AtomicLong prompt = new AtomicLong();
      AtomicInteger done = new AtomicInteger();
      List<Future<?>> futures = new ArrayList<>();
      Random random = new Random(42);
      for (int i = 0; i < requests; i++) {
        boolean stream = i % 2 == 0;
        ChatCompletionCreateParams.Builder b = chat(random.nextInt(GROUPS), i);
        futures.add(pool.submit(() -> {
          CompletionUsage usage;
          if (stream) {
            b.streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build());
            CompletionUsage last = null;
            try (StreamResponse<ChatCompletionChunk> s =
                client.chat().completions().createStreaming(b.build())) {
              for (ChatCompletionChunk chunk : (Iterable<ChatCompletionChunk>) s.stream()::iterator) {
                if (chunk.usage().isPresent()) {
                  last = chunk.usage().get();
                }
              }
            }
            usage = last;
          } else {
            usage = client.chat().completions().create(b.build()).usage().orElseThrow();
          }
          cached.addAndGet(cached(usage));
          prompt.addAndGet(usage.promptTokens());
          done.incrementAndGet();
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(BOUND.toSeconds(), TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertThat(demo.gateway().stats().failed()).isZero();
      return new Ratio(done.get(), cached.get(), prompt.get());
    }
  }

  private static long inEngines(GatewayDemo demo) {
    return demo.fleet().replicas().stream().mapToLong(EmulatedReplica::inFlightRequests).sum();
  }

  private static GatewayDemo demo(String policy, Long seed) {
    Router.Builder router = Router.newBuilder().policy(policy);
    if (seed != null) {
      router.seed(seed);
    }
    return GatewayDemo.emulated(REPLICAS, MODEL, ENGINE, router, 0, Duration.ofMillis(100));
  }

  private static OpenAIClient client(GatewayDemo demo) {
    return OpenAIOkHttpClient.builder().baseUrl(demo.gateway().uri() + "/v1").apiKey("unused")
        .maxRetries(0).timeout(BOUND).build();
  }

  /** A chat turn of conversation {@code group}: its shared system prompt, then a unique question. */
  private static ChatCompletionCreateParams.Builder chat(int group, int i) {
    return ChatCompletionCreateParams.builder().model(MODEL)
        .addSystemMessage(text(new Random(group), 4_096))
        .addUserMessage("Question " + i + ": " + text(new Random(10_000 + i), 200))
        .maxCompletionTokens(8);
  }

  private static long cached(CompletionUsage usage) {
    return usage.promptTokensDetails().flatMap(d -> d.cachedTokens()).orElse(0L);
  }

  private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + BOUND);
      }
      Thread.sleep(5);
    }
  }

  private record Ratio(int requests, long cached, long prompt) {
    double ratio() {
      return prompt == 0 ? 0 : (double) cached / prompt;
    }
  }
}
