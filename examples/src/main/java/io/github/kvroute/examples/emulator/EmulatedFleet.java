package io.github.kvroute.examples.emulator;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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

  private EmulatedFleet(List<EmulatedReplica> replicas) {
    this.replicas = ImmutableList.copyOf(replicas);
  }

  /**
   * Starts {@code count} replicas; if one fails to start, those already started are stopped.
   *
   * @throws IllegalArgumentException if {@code count} is not in [1, 256]
   */
  public static EmulatedFleet start(int count, String model, EngineModel engineModel) {
    return start(count, model, engineModel, false);
  }

  /** As {@link #start(int, String, EngineModel)}, each replica publishing KV events if {@code kvEvents}. */
  public static EmulatedFleet start(int count, String model, EngineModel engineModel,
      boolean kvEvents) {
    checkArgument(count >= 1 && count <= 256, "replicas: %s (expected: 1 to 256)", count);
    List<EmulatedReplica> started = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        started.add(EmulatedReplica.start(name(i), model, engineModel, 0, kvEvents));
      }
    } catch (RuntimeException e) {
      started.forEach(EmulatedReplica::killAsync);
      throw e;
    }
    return new EmulatedFleet(started);
  }

  /** The id of replica {@code i}: {@code replica-i}. */
  public static String name(int i) {
    return "replica-" + i;
  }

  public int size() {
    return replicas.size();
  }

  public EmulatedReplica replica(int i) {
    return replicas.get(i);
  }

  public List<EmulatedReplica> replicas() {
    return replicas;
  }

  /** Kills every replica, in parallel. */
  @Override
  public void close() {
    closeAsync().join();
  }

  /** Starts killing every replica; the future completes when all have stopped. */
  public CompletableFuture<Void> closeAsync() {
    return CompletableFuture.allOf(
        replicas.stream().map(EmulatedReplica::killAsync).toArray(CompletableFuture[]::new));
  }
}
