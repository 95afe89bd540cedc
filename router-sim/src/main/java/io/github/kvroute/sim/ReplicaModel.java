package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The constants of one simulated model-server replica: a continuous-batching engine with chunked
 * prefill, a paged KV cache with prefix caching, LoRA adapter slots and a cold start.
 *
 * <p>One engine step takes ({@link #stepMillis})
 * {@code decodeBase + decodePerSequence x sequencesInStep + prefillOverhead x prefillsStartingInStep
 * + prefillPerToken x prefillTokensInStep + attentionPerTokenPair x attentionPairs
 * + kvReadPerToken x contextTokens} milliseconds, where a prefill chunk of {@code c} tokens after
 * {@code p} already computed adds {@code c x p + c (c + 1) / 2} attention pairs (causal attention:
 * quadratic in the prompt), and every sequence in the step reads the KV of the tokens it already holds.
 *
 * <p>Real engines come from {@link EnginePreset} (the constants derived from a model and its GPUs).
 * The builder's defaults are a small worked example for hand-computed tests, not an engine: no attention
 * or KV-read term, so a lone 1,000-token prompt on an idle replica gets its first token after
 * {@code 8 + 0.06 + 20 + 0.035 x 1,000 = 63.06 ms}: the 55 ms prefill plus one decode step.
 *
 * <pre>{@code
 * ReplicaModel small = EnginePreset.named("llama3-8b-h100").orElseThrow().replicaModel()
 *     .toBuilder().kvCapacityTokens(12_288).build();
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class ReplicaModel {
  private static final ReplicaModel DEFAULTS = newBuilder().build();

  private final double prefillOverheadMillis;
  private final double prefillMillisPerToken;
  private final int maxPrefillTokensPerStep;
  private final double decodeBaseMillis;
  private final double decodePerSequenceMillis;
  private final double attentionMillisPerTokenPair;
  private final double kvReadMillisPerToken;
  private final int maxRunningSequences;
  private final long kvCapacityTokens;
  private final long kvBytesPerToken;
  private final double kvWatermark;
  private final double adapterLoadMillis;
  private final int maxResidentAdapters;
  private final long coldStartMillis;

  private ReplicaModel(Builder b) {
    prefillOverheadMillis = b.prefillOverheadMillis;
    prefillMillisPerToken = b.prefillMillisPerToken;
    maxPrefillTokensPerStep = b.maxPrefillTokensPerStep;
    decodeBaseMillis = b.decodeBaseMillis;
    decodePerSequenceMillis = b.decodePerSequenceMillis;
    attentionMillisPerTokenPair = b.attentionMillisPerTokenPair;
    kvReadMillisPerToken = b.kvReadMillisPerToken;
    maxRunningSequences = b.maxRunningSequences;
    kvCapacityTokens = b.kvCapacityTokens;
    kvBytesPerToken = b.kvBytesPerToken;
    kvWatermark = b.kvWatermark;
    adapterLoadMillis = b.adapterLoadMillis;
    maxResidentAdapters = b.maxResidentAdapters;
    coldStartMillis = b.coldStartMillis;
  }

  /**
   * {@return the router's default cost constants and vLLM-like limits; see the builder for each
   * default}
   */
  public static ReplicaModel defaults() {
    return DEFAULTS;
  }

  /**
   * {@return a builder starting from the worked-example defaults above, each option settable once}
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** {@return a builder holding this model's values; each option may be set once more} */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.prefillOverheadMillis = prefillOverheadMillis;
    b.prefillMillisPerToken = prefillMillisPerToken;
    b.maxPrefillTokensPerStep = maxPrefillTokensPerStep;
    b.decodeBaseMillis = decodeBaseMillis;
    b.decodePerSequenceMillis = decodePerSequenceMillis;
    b.attentionMillisPerTokenPair = attentionMillisPerTokenPair;
    b.kvReadMillisPerToken = kvReadMillisPerToken;
    b.maxRunningSequences = maxRunningSequences;
    b.kvCapacityTokens = kvCapacityTokens;
    b.kvBytesPerToken = kvBytesPerToken;
    b.kvWatermark = kvWatermark;
    b.adapterLoadMillis = adapterLoadMillis;
    b.maxResidentAdapters = maxResidentAdapters;
    b.coldStartMillis = coldStartMillis;
    return b;
  }

  /** Fixed cost of each prefill that starts in a step (default 20 ms). */
  /**
   * This engine {@code factor} times slower: every timing constant of a step (prefill, decode,
   * attention, KV reads, adapter loads) multiplied; capacities and the cold start unchanged.
   *
   * @param factor how many times slower; finite, {@code >= 1}
   * @return the slowed model
   */
  public ReplicaModel slowedBy(double factor) {
    if (!(factor >= 1 && Double.isFinite(factor))) {
      throw new IllegalArgumentException("factor: " + factor + " (expected: finite and >= 1)");
    }
    return toBuilder().prefillOverheadMillis(prefillOverheadMillis * factor)
        .prefillMillisPerToken(prefillMillisPerToken * factor)
        .decodeBaseMillis(decodeBaseMillis * factor)
        .decodePerSequenceMillis(decodePerSequenceMillis * factor)
        .attentionMillisPerTokenPair(attentionMillisPerTokenPair * factor)
        .kvReadMillisPerToken(kvReadMillisPerToken * factor)
        .adapterLoadMillis(adapterLoadMillis * factor).build();
  }

  /** {@return fixed cost of each prefill, in the step its first chunk runs (default 20 ms)} */
  public double prefillOverheadMillis() {
    return prefillOverheadMillis;
  }

  /** {@return cost of each prompt token computed (default 0.035 ms)} */
  public double prefillMillisPerToken() {
    return prefillMillisPerToken;
  }

  /**
   * {@return chunked prefill: prompt tokens computed per step, over all prefilling requests
   * (default 4,096)}
   */
  public int maxPrefillTokensPerStep() {
    return maxPrefillTokensPerStep;
  }

  /** {@return fixed cost of a step (default 8 ms)} */
  public double decodeBaseMillis() {
    return decodeBaseMillis;
  }

  /** {@return cost per sequence taking part in a step (default 0.06 ms)} */
  public double decodePerSequenceMillis() {
    return decodePerSequenceMillis;
  }

  /**
   * {@return attention cost of one (query token, key token) pair computed in a prefill (default 0):
   * a prompt of {@code n} tokens computes about {@code n^2 / 2} pairs, so long prompts cost more
   * than linearly}
   */
  public double attentionMillisPerTokenPair() {
    return attentionMillisPerTokenPair;
  }

  /**
   * {@return cost of reading one token's KV in a step (default 0): every sequence in a step reads
   * the KV of the tokens it already holds, so steps slow down with the context the batch holds}
   */
  public double kvReadMillisPerToken() {
    return kvReadMillisPerToken;
  }

  /**
   * {@return milliseconds of one engine step: the one place the step formula lives}
   *
   * @param sequences sequences taking part (decoding, or computing a prefill chunk)
   * @param prefillStarts prefills whose first chunk is in this step
   * @param prefillTokens prompt tokens computed in this step
   * @param attentionPairs (query, key) pairs those prompt tokens attend to ({@link #attentionPairs})
   * @param contextTokens tokens whose KV the participating sequences already hold
   */
  public double stepMillis(int sequences, int prefillStarts, long prefillTokens, double attentionPairs,
      long contextTokens) {
    return decodeBaseMillis + decodePerSequenceMillis * sequences + prefillOverheadMillis * prefillStarts
        + prefillMillisPerToken * prefillTokens + attentionMillisPerTokenPair * attentionPairs
        + kvReadMillisPerToken * contextTokens;
  }

  /**
   * Causal attention pairs of a chunk of {@code chunk} prompt tokens after {@code before} tokens.
   *
   * @param before prompt tokens already computed
   * @param chunk prompt tokens computed in this chunk
   * @return {@code chunk x before + chunk (chunk + 1) / 2}
   */
  public static double attentionPairs(long before, long chunk) {
    return (double) chunk * before + chunk * (chunk + 1) / 2.0;
  }

  /**
   * Milliseconds a lone prompt of {@code promptTokens} (nothing cached) takes on an idle replica until
   * its first token: its chunks of {@link #maxPrefillTokensPerStep()}, one step each.
   *
   * @param promptTokens the prompt's length in tokens
   * @return virtual milliseconds
   */
  public double lonePrefillMillis(int promptTokens) {
    double ms = 0;
    for (long done = 0; done < promptTokens; ) {
      long c = Math.min(maxPrefillTokensPerStep, promptTokens - done);
      ms += stepMillis(1, done == 0 ? 1 : 0, c, attentionPairs(done, c), done);
      done += c;
    }
    return ms;
  }

  /**
   * Milliseconds of a decode-only step of {@code batch} sequences holding {@code contextTokens} in
   * all.
   *
   * @param batch sequences decoding
   * @param contextTokens tokens whose KV the sequences hold, summed over the batch
   * @return virtual milliseconds
   */
  public double decodeStepMillis(int batch, long contextTokens) {
    return stepMillis(batch, 0, 0, 0, contextTokens);
  }

  /** {@return running batch limit (vLLM {@code max_num_seqs}, default 256)} */
  public int maxRunningSequences() {
    return maxRunningSequences;
  }

  /** {@return KV cache capacity in tokens (default 262,144)} */
  public long kvCapacityTokens() {
    return kvCapacityTokens;
  }

  /** {@return KV bytes per token (default 320 KiB); informational} */
  public long kvBytesPerToken() {
    return kvBytesPerToken;
  }

  /**
   * {@return fraction of KV blocks admission keeps free for decode growth (default 0.01, as vLLM)}
   */
  public double kvWatermark() {
    return kvWatermark;
  }

  /** {@return foreground time to load a LoRA adapter that is not resident (default 800 ms)} */
  public double adapterLoadMillis() {
    return adapterLoadMillis;
  }

  /** {@return adapters resident at once (default 4)} */
  public int maxResidentAdapters() {
    return maxResidentAdapters;
  }

  /** {@return time from a restart until the replica reports READY (default 30 s)} */
  public long coldStartMillis() {
    return coldStartMillis;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "ReplicaModel{prefill=%s+%s/token ms, attention=%s/pair ms, chunk=%d, step=%s+%s/seq ms,"
            + " kvRead=%s/token ms, maxSeqs=%d, kv=%d tokens, adapters=%d x %s ms, coldStart=%d ms}",
        prefillOverheadMillis, prefillMillisPerToken, attentionMillisPerTokenPair,
        maxPrefillTokensPerStep, decodeBaseMillis, decodePerSequenceMillis, kvReadMillisPerToken,
        maxRunningSequences, kvCapacityTokens, maxResidentAdapters,
        adapterLoadMillis, coldStartMillis);
  }

  /** Builds a {@link ReplicaModel}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private double prefillOverheadMillis = 20;
    private double prefillMillisPerToken = 0.035;
    private int maxPrefillTokensPerStep = 4_096;
    private double decodeBaseMillis = 8;
    private double decodePerSequenceMillis = 0.06;
    private double attentionMillisPerTokenPair;
    private double kvReadMillisPerToken;
    private int maxRunningSequences = 256;
    private long kvCapacityTokens = 262_144;
    private long kvBytesPerToken = 320L * 1024;
    private double kvWatermark = 0.01;
    private double adapterLoadMillis = 800;
    private int maxResidentAdapters = 4;
    private long coldStartMillis = 30_000;
    private final Set<String> set = new HashSet<>();

    private Builder() {}

    private void once(String option) {
      checkState(set.add(option), "%s: already set (expected: each builder option set once)", option);
    }

    private static double finite(double v, String name, boolean positive) {
      checkArgument(Double.isFinite(v) && (positive ? v > 0 : v >= 0), "%s: %s (expected: finite and %s)",
          name, v, positive ? "> 0" : ">= 0");
      return v;
    }

    /**
     * Sets {@link ReplicaModel#prefillOverheadMillis()}; default 20 ms.
     *
     * @param v milliseconds; finite, {@code >= 0}
     * @return this builder
     */
    public Builder prefillOverheadMillis(double v) {
      once("prefillOverheadMillis");
      prefillOverheadMillis = finite(v, "prefillOverheadMillis", false);
      return this;
    }

    /**
     * Sets {@link ReplicaModel#prefillMillisPerToken()}; default 0.035 ms.
     *
     * @param v milliseconds per token; finite, {@code > 0}
     * @return this builder
     */
    public Builder prefillMillisPerToken(double v) {
      once("prefillMillisPerToken");
      prefillMillisPerToken = finite(v, "prefillMillisPerToken", true);
      return this;
    }

    /**
     * Sets {@link ReplicaModel#maxPrefillTokensPerStep()}; default 4,096.
     *
     * @param v tokens; {@code >= 1}
     * @return this builder
     */
    public Builder maxPrefillTokensPerStep(int v) {
      once("maxPrefillTokensPerStep");
      checkArgument(v >= 1, "maxPrefillTokensPerStep: %s (expected: >= 1)", v);
      maxPrefillTokensPerStep = v;
      return this;
    }

    /**
     * Sets {@link ReplicaModel#decodeBaseMillis()}; default 8 ms.
     *
     * @param v milliseconds; finite, {@code > 0}
     * @return this builder
     */
    public Builder decodeBaseMillis(double v) {
      once("decodeBaseMillis");
      decodeBaseMillis = finite(v, "decodeBaseMillis", true);
      return this;
    }

    /**
     * Sets {@link ReplicaModel#decodePerSequenceMillis()}; default 0.06 ms.
     *
     * @param v milliseconds; finite, {@code >= 0}
     * @return this builder
     */
    public Builder decodePerSequenceMillis(double v) {
      once("decodePerSequenceMillis");
      decodePerSequenceMillis = finite(v, "decodePerSequenceMillis", false);
      return this;
    }

    /**
     * Sets {@link ReplicaModel#attentionMillisPerTokenPair()}; default 0.
     *
     * @param v milliseconds per pair; finite, {@code >= 0}
     * @return this builder
     */
    public Builder attentionMillisPerTokenPair(double v) {
      once("attentionMillisPerTokenPair");
      attentionMillisPerTokenPair = finite(v, "attentionMillisPerTokenPair", false);
      return this;
    }

    /**
     * Sets {@link ReplicaModel#kvReadMillisPerToken()}; default 0.
     *
     * @param v milliseconds per token; finite, {@code >= 0}
     * @return this builder
     */
    public Builder kvReadMillisPerToken(double v) {
      once("kvReadMillisPerToken");
      kvReadMillisPerToken = finite(v, "kvReadMillisPerToken", false);
      return this;
    }

    /**
     * Sets {@link ReplicaModel#maxRunningSequences()}; default 256.
     *
     * @param v sequences; {@code >= 1}
     * @return this builder
     */
    public Builder maxRunningSequences(int v) {
      once("maxRunningSequences");
      checkArgument(v >= 1, "maxRunningSequences: %s (expected: >= 1)", v);
      maxRunningSequences = v;
      return this;
    }

    /**
     * Sets {@link ReplicaModel#kvCapacityTokens()}; default 262,144.
     *
     * @param v tokens; {@code >= 1}
     * @return this builder
     */
    public Builder kvCapacityTokens(long v) {
      once("kvCapacityTokens");
      checkArgument(v >= 1, "kvCapacityTokens: %s (expected: >= 1)", v);
      kvCapacityTokens = v;
      return this;
    }

    /**
     * Sets {@link ReplicaModel#kvBytesPerToken()}; default 320 KiB.
     *
     * @param v bytes; {@code >= 1}
     * @return this builder
     */
    public Builder kvBytesPerToken(long v) {
      once("kvBytesPerToken");
      checkArgument(v >= 1, "kvBytesPerToken: %s (expected: >= 1)", v);
      kvBytesPerToken = v;
      return this;
    }

    /**
     * Sets {@link ReplicaModel#kvWatermark()}; default 0.01.
     *
     * @param v the fraction, in {@code [0, 1)}
     * @return this builder
     */
    public Builder kvWatermark(double v) {
      once("kvWatermark");
      checkArgument(v >= 0 && v < 1, "kvWatermark: %s (expected: in [0, 1))", v);
      kvWatermark = v;
      return this;
    }

    /**
     * Sets {@link ReplicaModel#adapterLoadMillis()}; default 800 ms.
     *
     * @param v milliseconds; finite, {@code >= 0}
     * @return this builder
     */
    public Builder adapterLoadMillis(double v) {
      once("adapterLoadMillis");
      adapterLoadMillis = finite(v, "adapterLoadMillis", false);
      return this;
    }

    /**
     * Sets {@link ReplicaModel#maxResidentAdapters()}; default 4.
     *
     * @param v adapters; {@code >= 1}
     * @return this builder
     */
    public Builder maxResidentAdapters(int v) {
      once("maxResidentAdapters");
      checkArgument(v >= 1, "maxResidentAdapters: %s (expected: >= 1)", v);
      maxResidentAdapters = v;
      return this;
    }

    /**
     * Sets {@link ReplicaModel#coldStartMillis()}; default 30,000 ms.
     *
     * @param v milliseconds; {@code >= 0}
     * @return this builder
     */
    public Builder coldStartMillis(long v) {
      once("coldStartMillis");
      checkArgument(v >= 0, "coldStartMillis: %s (expected: >= 0)", v);
      coldStartMillis = v;
      return this;
    }

    /** {@return the model} */
    public ReplicaModel build() {
      return new ReplicaModel(this);
    }
  }
}
