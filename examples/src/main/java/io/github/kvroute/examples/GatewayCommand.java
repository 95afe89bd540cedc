package io.github.kvroute.examples;

import io.github.kvroute.core.Router;
import io.github.kvroute.examples.emulator.EmulatedFleet;
import io.github.kvroute.examples.emulator.EmulatedReplica;
import io.github.kvroute.examples.emulator.EngineModel;
import io.github.kvroute.examples.gateway.GatewayDemo;
import io.github.kvroute.examples.gateway.GatewayStats;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvroute-sim gateway}: an OpenAI-compatible gateway routed by kvroute, in front of a fleet. */
@Command(name = "gateway", mixinStandardHelpOptions = true,
    description = "Run an OpenAI-compatible gateway (/v1/completions, /v1/chat/completions) that "
        + "routes each request with kvroute, in front of emulated vLLM replicas (--emulate N) or "
        + "real ones (--replica ID=URL). Runs until interrupted.")
final class GatewayCommand implements Callable<Integer> {
  @Option(names = "--emulate", paramLabel = "N",
      description = "Start N emulated vLLM replicas on loopback (scaled-down time).")
  Integer emulate;

  @Option(names = "--replica", paramLabel = "ID=URL",
      description = "A running vLLM replica, by id and base URL (repeatable).")
  List<String> replicas = List.of();

  @Option(names = "--model", paramLabel = "NAME", defaultValue = "demo-model",
      description = "The model the replicas serve (default: ${DEFAULT-VALUE}).")
  String model;

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
      description = "Loopback port of the gateway (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--policy", paramLabel = "NAME", defaultValue = "hybrid-cost",
      description = "Routing policy (default: ${DEFAULT-VALUE}; see `kvroute-sim policies`).")
  String policy;

  @Option(names = "--kv-events",
      description = "Exact mode (with --emulate): the replicas publish vLLM's KV events (ZeroMQ), the "
          + "gateway subscribes and keys each prompt with the engines' own block hashes, so the "
          + "router matches what the replicas report they cache. Without it, approximate mode: "
          + "prompts keyed by their text, the router guessing from what it routed.")
  boolean kvEvents;

  @Override
  public Integer call() throws InterruptedException {
    if ((emulate == null) == replicas.isEmpty()) {
      throw new UserError("gateway: give either --emulate N or --replica ID=URL (expected: one of them)");
    }
    if (emulate != null && (emulate < 1 || emulate > 64)) {
      throw new UserError("--emulate: " + emulate + " (expected: 1 to 64)");
    }
    if (port < 0 || port > 65_535) {
      throw new UserError("--port: " + port + " (expected: 0 to 65535)");
    }
    if (kvEvents && emulate == null) {
      throw new UserError("--kv-events: only with --emulate (expected: emulated replicas; keying real"
          + " replicas' prompts exactly needs their model's tokenizer, see docs/gateway.md)");
    }
    Router.Builder router = Router.newBuilder().policy(policy);
    GatewayDemo demo = emulate != null
        ? GatewayDemo.around(EmulatedFleet.start(emulate, model, EngineModel.scaledDown(), kvEvents),
            router, port, GatewayDemo.DEFAULT_SCRAPE_INTERVAL)
        : GatewayDemo.external(parseReplicas(), model, router, port);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      GatewayStats s = demo.gateway().stats();
      demo.close();
      System.out.printf("gateway: %d requests, %d completed, %d retries, %d rejected (429),"
          + " %d unavailable (503), %d failed%n", s.requests(), s.completed(), s.retries(),
          s.rejected(), s.unavailable(), s.failed());
      stopped.countDown();
    }));
    URI uri = demo.gateway().uri();
    System.out.println("kvroute gateway on " + uri + "/v1 (policy " + demo.router().policyName()
        + ", " + (emulate != null ? emulate : replicas.size()) + " replicas of " + model + ", "
        + (demo.gateway().kvEvents().isPresent() ? "exact mode: KV events" : "approximate mode")
        + "); Ctrl-C stops it");
    if (demo.fleet() != null) {
      for (int i = 0; i < demo.fleet().size(); i++) {
        EmulatedReplica r = demo.fleet().replica(i);
        System.out.println("  " + EmulatedFleet.name(i) + " " + r.uri()
            + r.kvEventsEndpoint().map(e -> " (KV events " + e + ")").orElse(""));
      }
    }
    System.out.println("  curl -s " + uri + "/v1/chat/completions -H 'Content-Type: application/json'"
        + " -d '{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],"
        + "\"max_tokens\":8}'");
    stopped.await();
    return 0;
  }

  private Map<String, URI> parseReplicas() {
    Map<String, URI> out = new LinkedHashMap<>();
    for (String r : replicas) {
      int eq = r.indexOf('=');
      if (eq < 1 || eq == r.length() - 1) {
        throw new UserError("--replica: " + r + " (expected: ID=URL, e.g. vllm-0=http://10.0.0.5:8000)");
      }
      URI uri;
      try {
        uri = URI.create(r.substring(eq + 1));
      } catch (IllegalArgumentException e) {
        throw new UserError("--replica: " + r + " (expected: a URL after '=')");
      }
      if (out.putIfAbsent(r.substring(0, eq), uri) != null) {
        throw new UserError("--replica: " + r + " (expected: each id once)");
      }
    }
    return out;
  }
}
