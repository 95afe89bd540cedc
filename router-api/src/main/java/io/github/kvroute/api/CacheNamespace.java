package io.github.kvroute.api;

import java.util.Objects;
import java.util.Optional;

/**
 * The cache namespace a prompt's blocks live in: model, model version and LoRA adapter. Two versions of
 * a model, or the same model with and without an adapter, never share KV blocks, so their prompts must
 * never match each other in the prefix index (rollout safety: a canary on v2 cannot be credited with
 * v1's warm cache).
 *
 * <p>Immutable and thread-safe.
 */
public final class CacheNamespace {
  private final String model;
  private final Optional<String> version;
  private final Optional<String> adapter;
  private final long seed;

  private CacheNamespace(String model, String version, String adapter) {
    this.model = Checks.notBlank(model, "model");
    this.version = Optional.ofNullable(version);
    this.adapter = Optional.ofNullable(adapter);
    if (version != null) {
      Checks.notBlank(version, "version");
    }
    if (adapter != null) {
      Checks.notBlank(adapter, "adapter");
    }
    long h = BlockHashing.string(0x6B76726F75746521L, model);
    h = BlockHashing.string(h, version == null ? "" : version);
    this.seed = BlockHashing.string(h, adapter == null ? "" : adapter);
  }

  /** The namespace of a base model with no version label and no adapter. */
  public static CacheNamespace of(String model) {
    return new CacheNamespace(model, null, null);
  }

  /**
   * A namespace with an optional version and adapter.
   *
   * @param version the model version, or {@code null} if the fleet serves a single version
   * @param adapter the LoRA adapter, or {@code null} for the base model
   */
  public static CacheNamespace of(String model, String version, String adapter) {
    return new CacheNamespace(model, version, adapter);
  }

  public String model() {
    return model;
  }

  public Optional<String> version() {
    return version;
  }

  public Optional<String> adapter() {
    return adapter;
  }

  /** The 64-bit seed that every block chain in this namespace starts from. */
  public long seed() {
    return seed;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CacheNamespace other
        && model.equals(other.model)
        && version.equals(other.version)
        && adapter.equals(other.adapter);
  }

  @Override
  public int hashCode() {
    return Objects.hash(model, version, adapter);
  }

  @Override
  public String toString() {
    return model + version.map(v -> "@" + v).orElse("") + adapter.map(a -> "+" + a).orElse("");
  }
}
