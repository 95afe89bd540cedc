package io.github.kvroute.examples.emulator;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.zeromq.ZContext;

/**
 * {@code N} emulated vLLM replicas on loopback, named {@code replica-0 .. replica-(N-1)}, each on its
 * own ephemeral port, all serving one model with one {@link EngineModel}.
 *
 * <pre>{@code
 * try (EmulatedFleet fleet = EmulatedFleet.start(4, "llama-3-8b", EngineModel.scaledDown())) {
 *   URI first = fleet.replica(0).uri();   // POST first + "/v1/chat/completions"
 * }
 * }</pre>
 *
 * <p>Thread-safety: thread-safe (the replica list is fixed at start).
 */
public final class EmulatedFleet implements AutoCloseable {
  private final ImmutableList<EmulatedReplica> replicas;
  /** The ZeroMQ context every replica publishes KV events in; null without KV events. */
  private final ZContext kvEventsContext;

  private EmulatedFleet(List<EmulatedReplica> replicas, ZContext kvEventsContext) {
    this.replicas = ImmutableList.copyOf(replicas);
    this.kvEventsContext = kvEventsContext;
  }

  /**
   * Starts {@code count} replicas; if one fails to start, those already started are stopped.
   *
   * @param count replicas, named {@code replica-0} on
   * @param model the model every replica serves
   * @param engineModel how every replica's engine spends time and memory
   * @return the running fleet
   * @throws IllegalArgumentException if {@code count} is not in [1, 256]
   */
  public static EmulatedFleet start(int count, String model, EngineModel engineModel) {
    return start(count, model, engineModel, false);
  }

  /**
   * As {@link #start(int, String, EngineModel)}, each replica publishing vLLM KV events if
   * {@code kvEvents}, all in one ZeroMQ context ({@link #kvEventsContext()}).
   *
   * @param count replicas, named {@code replica-0} on
   * @param model the model every replica serves
   * @param engineModel how every replica's engine spends time and memory
   * @param kvEvents whether each replica publishes vLLM KV events (with a replay socket)
   * @return the running fleet
   */
  public static EmulatedFleet start(int count, String model, EngineModel engineModel,
      boolean kvEvents) {
    checkArgument(count >= 1 && count <= 256, "replicas: %s (expected: 1 to 256)", count);
    ZContext context = kvEvents ? new ZContext() : null;
    List<EmulatedReplica> started = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        started.add(kvEvents ? EmulatedReplica.start(name(i), model, engineModel, 0, context)
            : EmulatedReplica.start(name(i), model, engineModel, 0));
      }
    } catch (RuntimeException e) {
      CompletableFuture.allOf(started.stream().map(EmulatedReplica::killAsync)
          .toArray(CompletableFuture[]::new)).join();
      if (context != null) {
        context.close();
      }
      throw e;
    }
    return new EmulatedFleet(started, context);
  }

  /**
   * The ZeroMQ context the replicas publish their KV events in, when they do: a subscriber in the same
   * process should create its sockets there too (ZeroMQ wants one context per process, and jeromq
   * 0.6.0 with several contexts in one JVM now and then leaves a loopback connection unestablished).
   * Closed with the fleet.
   *
   * @return the context; empty when the replicas publish no KV events
   */
  public Optional<ZContext> kvEventsContext() {
    return Optional.ofNullable(kvEventsContext);
  }

  /**
   * {@return the id of replica {@code i}: {@code replica-i}}
   *
   * @param i the replica's index in the fleet
   */
  public static String name(int i) {
    return "replica-" + i;
  }

  /** {@return the number of replicas} */
  public int size() {
    return replicas.size();
  }

  /**
   * {@return replica {@code i}, whose id is {@link #name(int) name(i)}}
   *
   * @param i from 0 to {@code size() - 1}
   */
  public EmulatedReplica replica(int i) {
    return replicas.get(i);
  }

  /** {@return every replica, by index} */
  public List<EmulatedReplica> replicas() {
    return replicas;
  }

  /** Kills every replica, in parallel. */
  @Override
  public void close() {
    closeAsync().join();
  }

  /**
   * Starts killing every replica.
   *
   * @return a future that completes when all have stopped and the KV-event context is closed
   */
  public CompletableFuture<Void> closeAsync() {
    return CompletableFuture.allOf(
        replicas.stream().map(EmulatedReplica::killAsync).toArray(CompletableFuture[]::new))
        .thenRun(() -> {
          if (kvEventsContext != null) {
            kvEventsContext.close();
          }
        });
  }
}
