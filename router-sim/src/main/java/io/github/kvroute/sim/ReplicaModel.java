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
 * <p>One engine step takes
 * {@code decodeBase + decodePerSequence x sequencesInStep + prefillOverhead x prefillsStartingInStep
 * + prefillPerToken x prefillTokensInStep} milliseconds. With the defaults (seed 000's constants) a lone
 * 1,000-token prompt on an idle replica gets its first token after
 * {@code 8 + 0.06 + 20 + 0.035 x 1,000 = 63.06 ms}: "55 ms plus one decode step".
 *
 * <pre>{@code
 * ReplicaModel small = ReplicaModel.newBuilder().kvCapacityTokens(12_288).build();
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
    maxRunningSequences = b.maxRunningSequences;
    kvCapacityTokens = b.kvCapacityTokens;
    kvBytesPerToken = b.kvBytesPerToken;
    kvWatermark = b.kvWatermark;
    adapterLoadMillis = b.adapterLoadMillis;
    maxResidentAdapters = b.maxResidentAdapters;
    coldStartMillis = b.coldStartMillis;
  }

  /** Seed 000's constants and vLLM-like limits; see the builder for each default. */
  public static ReplicaModel defaults() {
    return DEFAULTS;
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder holding this model's values; each option may be set once more. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.prefillOverheadMillis = prefillOverheadMillis;
    b.prefillMillisPerToken = prefillMillisPerToken;
    b.maxPrefillTokensPerStep = maxPrefillTokensPerStep;
    b.decodeBaseMillis = decodeBaseMillis;
    b.decodePerSequenceMillis = decodePerSequenceMillis;
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
  public double prefillOverheadMillis() {
    return prefillOverheadMillis;
  }

  /** Cost of each prompt token computed (default 0.035 ms). */
  public double prefillMillisPerToken() {
    return prefillMillisPerToken;
  }

  /** Chunked prefill: prompt tokens computed per step, over all prefilling requests (default 4,096). */
  public int maxPrefillTokensPerStep() {
    return maxPrefillTokensPerStep;
  }

  /** Fixed cost of a step (default 8 ms). */
  public double decodeBaseMillis() {
    return decodeBaseMillis;
  }

  /** Cost per sequence taking part in a step (default 0.06 ms). */
  public double decodePerSequenceMillis() {
    return decodePerSequenceMillis;
  }

  /** Running batch limit (vLLM {@code max_num_seqs}, default 256). */
  public int maxRunningSequences() {
    return maxRunningSequences;
  }

  /** KV cache capacity in tokens (default 262,144). */
  public long kvCapacityTokens() {
    return kvCapacityTokens;
  }

  /** KV bytes per token (default 320 KiB); informational. */
  public long kvBytesPerToken() {
    return kvBytesPerToken;
  }

  /** Fraction of KV blocks admission keeps free for decode growth (default 0.01, as vLLM). */
  public double kvWatermark() {
    return kvWatermark;
  }

  /** Foreground time to load a LoRA adapter that is not resident (default 800 ms). */
  public double adapterLoadMillis() {
    return adapterLoadMillis;
  }

  /** Adapters resident at once (default 4). */
  public int maxResidentAdapters() {
    return maxResidentAdapters;
  }

  /** Time from a restart until the replica reports READY (default 30 s). */
  public long coldStartMillis() {
    return coldStartMillis;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "ReplicaModel{prefill=%s+%s/token ms, chunk=%d, step=%s+%s/seq ms, maxSeqs=%d, kv=%d tokens,"
            + " adapters=%d x %s ms, coldStart=%d ms}",
        prefillOverheadMillis, prefillMillisPerToken, maxPrefillTokensPerStep, decodeBaseMillis,
        decodePerSequenceMillis, maxRunningSequences, kvCapacityTokens, maxResidentAdapters,
        adapterLoadMillis, coldStartMillis);
  }

  /** Builds a {@link ReplicaModel}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private double prefillOverheadMillis = 20;
    private double prefillMillisPerToken = 0.035;
    private int maxPrefillTokensPerStep = 4_096;
    private double decodeBaseMillis = 8;
    private double decodePerSequenceMillis = 0.06;
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

    public Builder prefillOverheadMillis(double v) {
      once("prefillOverheadMillis");
      prefillOverheadMillis = finite(v, "prefillOverheadMillis", false);
      return this;
    }

    public Builder prefillMillisPerToken(double v) {
      once("prefillMillisPerToken");
      prefillMillisPerToken = finite(v, "prefillMillisPerToken", true);
      return this;
    }

    public Builder maxPrefillTokensPerStep(int v) {
      once("maxPrefillTokensPerStep");
      checkArgument(v >= 1, "maxPrefillTokensPerStep: %s (expected: >= 1)", v);
      maxPrefillTokensPerStep = v;
      return this;
    }

    public Builder decodeBaseMillis(double v) {
      once("decodeBaseMillis");
      decodeBaseMillis = finite(v, "decodeBaseMillis", true);
      return this;
    }

    public Builder decodePerSequenceMillis(double v) {
      once("decodePerSequenceMillis");
      decodePerSequenceMillis = finite(v, "decodePerSequenceMillis", false);
      return this;
    }

    public Builder maxRunningSequences(int v) {
      once("maxRunningSequences");
      checkArgument(v >= 1, "maxRunningSequences: %s (expected: >= 1)", v);
      maxRunningSequences = v;
      return this;
    }

    public Builder kvCapacityTokens(long v) {
      once("kvCapacityTokens");
      checkArgument(v >= 1, "kvCapacityTokens: %s (expected: >= 1)", v);
      kvCapacityTokens = v;
      return this;
    }

    public Builder kvBytesPerToken(long v) {
      once("kvBytesPerToken");
      checkArgument(v >= 1, "kvBytesPerToken: %s (expected: >= 1)", v);
      kvBytesPerToken = v;
      return this;
    }

    public Builder kvWatermark(double v) {
      once("kvWatermark");
      checkArgument(v >= 0 && v < 1, "kvWatermark: %s (expected: in [0, 1))", v);
      kvWatermark = v;
      return this;
    }

    public Builder adapterLoadMillis(double v) {
      once("adapterLoadMillis");
      adapterLoadMillis = finite(v, "adapterLoadMillis", false);
      return this;
    }

    public Builder maxResidentAdapters(int v) {
      once("maxResidentAdapters");
      checkArgument(v >= 1, "maxResidentAdapters: %s (expected: >= 1)", v);
      maxResidentAdapters = v;
      return this;
    }

    public Builder coldStartMillis(long v) {
      once("coldStartMillis");
      checkArgument(v >= 0, "coldStartMillis: %s (expected: >= 0)", v);
      coldStartMillis = v;
      return this;
    }

    public ReplicaModel build() {
      return new ReplicaModel(this);
    }
  }
}
