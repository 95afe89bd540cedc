package io.github.kvroute.api;

import java.util.Objects;
import java.util.Optional;

/**
 * The cache namespace a prompt's blocks live in: model, model version and LoRA adapter. Two versions of
 * a model, or the same model with and without an adapter, never share KV blocks, so their prompts must
 * never match each other in the prefix index (rollout safety: a canary on v2 cannot be credited with
 * v1's warm cache).
 *
 * <p><b>Keyed namespaces.</b> Block hashes are unkeyed by default: anyone who reads the prefix index
 * (a heap dump, a debug endpoint, a leaked log of keys) can hash guessed prompts and look for them.
 * {@link #keyed(byte[])} mixes a host secret into the namespace, so that its keys cannot be computed, or
 * walked back to a prompt, without the secret. Use it in <em>approximate</em> mode, where kvroute
 * computes every key itself ({@link PromptKey#ofTokens}, {@link PromptKey#ofText}, and
 * {@link PromptKey#ofBlockHashes} over a sidecar's or a trace's hash ids). <em>Exact</em> mode cannot be
 * keyed: its index is written by the engine's KV events, which carry the engine's own unkeyed block
 * hashes, and requests must reproduce those hashes to match them; so
 * {@link KvEvent#storedEngineHashes}, {@link KvEvent#removedEngineHashes} and
 * {@link PromptKey#namespacedHash} refuse a keyed namespace. Every router and host process that shares
 * an index's keys must use the same secret; rotating it empties the cache's usefulness until routing
 * has re-learned it (the engines' caches are unaffected). Neither kvroute's hashes nor its index ever
 * hold prompt text or token ids, keyed or not.
 *
 * <pre>{@code
 * CacheNamespace ns = CacheNamespace.of("llama-3-70b").keyed(secretBytes); // >= 16 bytes, from a vault
 * PromptKey key = PromptKey.ofText(prompt, ns);
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class CacheNamespace {
  private final String model;
  private final Optional<String> version;
  private final Optional<String> adapter;
  private final long seed;
  /** The host secret's key, or null when unkeyed. */
  private final NamespaceKey key;

  private CacheNamespace(CacheNamespace base, NamespaceKey key) {
    this.model = base.model;
    this.version = base.version;
    this.adapter = base.adapter;
    this.key = key;
    this.seed = key.mix(base.seed);
  }

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
    this.key = null;
  }

  /**
   * The namespace of a base model with no version label and no adapter.
   *
   * @param model the model's name; not blank
   * @return the namespace
   */
  public static CacheNamespace of(String model) {
    return new CacheNamespace(model, null, null);
  }

  /**
   * A namespace with an optional version and adapter.
   *
   * @param model the model's name; not blank
   * @param version the model version, or {@code null} if the fleet serves a single version
   * @param adapter the LoRA adapter, or {@code null} for the base model
   * @return the namespace
   */
  public static CacheNamespace of(String model, String version, String adapter) {
    return new CacheNamespace(model, version, adapter);
  }

  /**
   * {@return this namespace keyed with a host secret: the same model, version and adapter, but a
   * different seed, and every block key published in it passed through SipHash-2-4 under a key
   * derived from {@code secret} (see the class comment for when keyed mode can be used)} Two
   * secrets give unrelated keys for the same prompt; the same secret reproduces them in every
   * process. The array is read, not kept, and nothing of it is printed.
   *
   * @param secret at least 16 bytes, e.g. 32 random bytes from the host's secret store
   * @throws IllegalArgumentException if {@code secret} is shorter than 16 bytes
   * @throws IllegalStateException if this namespace is already keyed
   */
  public CacheNamespace keyed(byte[] secret) {
    Checks.notNull(secret, "secret");
    Checks.state(key == null, "namespace", this, "an unkeyed namespace; a secret is mixed in once");
    return new CacheNamespace(this, NamespaceKey.fromSecret(secret));
  }

  /** {@return whether a host secret is mixed into this namespace ({@link #keyed(byte[])})} */
  public boolean isKeyed() {
    return key != null;
  }

  /**
   * Whether this is the namespace of a request for {@code model}, {@code version} and {@code adapter}
   * (the host secret aside).
   */
  boolean isFor(String model, Optional<String> version, Optional<String> adapter) {
    return this.model.equals(model) && this.version.equals(version) && this.adapter.equals(adapter);
  }

  /** The key published for block chain state {@code chainHash}: itself, or keyed when this namespace is. */
  long publish(long chainHash) {
    return key == null ? chainHash : key.mix(chainHash);
  }

  /** For the engine-hash paths, which exact mode uses and a keyed namespace cannot serve. */
  CacheNamespace requireUnkeyed() {
    Checks.argument(key == null, "namespace", this, "an unkeyed namespace: engine KV events carry the "
        + "engine's own unkeyed block hashes, so exact mode cannot use a keyed namespace");
    return this;
  }

  /** {@return the model's name (never blank)} */
  public String model() {
    return model;
  }

  /** {@return the model version; empty when the fleet serves a single version} */
  public Optional<String> version() {
    return version;
  }

  /** {@return the LoRA adapter; empty for the base model} */
  public Optional<String> adapter() {
    return adapter;
  }

  /** {@return the 64-bit seed that every block chain in this namespace starts from} */
  public long seed() {
    return seed;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CacheNamespace other
        && model.equals(other.model)
        && version.equals(other.version)
        && adapter.equals(other.adapter)
        && Objects.equals(key, other.key);
  }

  @Override
  public int hashCode() {
    return Objects.hash(model, version, adapter, key);
  }

  /** {@code model@version+adapter}, with {@code (keyed)} for a keyed namespace; never the secret. */
  @Override
  public String toString() {
    return model + version.map(v -> "@" + v).orElse("") + adapter.map(a -> "+" + a).orElse("")
        + (key == null ? "" : " (keyed)");
  }
}
