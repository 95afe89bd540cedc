package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;

import io.github.kvroute.api.DefaultPrefillCost;

/**
 * The constants of the cost model, each replaced by measurement where the router has it (a replica's
 * reported prefill throughput, then outcome calibration).
 *
 * <p>Defaults: prefill overhead 20 ms and 0.035 ms per token ({@link DefaultPrefillCost}, shared
 * with views built without a router; a 1,000-token prompt on an idle replica costs
 * {@code 20 + 0.035 x 1,000 = 55 ms}); adapter load 800 ms; 320 KiB of KV per token and a
 * 6,000-token KV move in about 95 ms, which sets the default transfer bandwidth
 * (docs/cost-model.md, "Constants").
 *
 * <p>Immutable and thread-safe.
 */
public final class CostModel {
  private static final CostModel DEFAULTS = newBuilder().build();

  private final double prefillOverheadMillis;
  private final double prefillMillisPerToken;
  private final double adapterLoadMillis;
  private final long kvBytesPerToken;
  private final double kvTransferBytesPerSecond;
  private final double staleAfterMillis;
  private final double stalePenaltyMillis;
  private final double busyRiskFactor;
  private final double idleRiskFactor;

  private CostModel(Builder b) {
    prefillOverheadMillis = b.prefillOverheadMillis;
    prefillMillisPerToken = b.prefillMillisPerToken;
    adapterLoadMillis = b.adapterLoadMillis;
    kvBytesPerToken = b.kvBytesPerToken;
    kvTransferBytesPerSecond = b.kvTransferBytesPerSecond;
    staleAfterMillis = b.staleAfterMillis;
    stalePenaltyMillis = b.stalePenaltyMillis;
    busyRiskFactor = b.busyRiskFactor;
    idleRiskFactor = b.idleRiskFactor;
  }

  /** {@return the defaults listed above} */
  public static CostModel defaults() {
    return DEFAULTS;
  }

  /** {@return a builder starting from the defaults, each option settable once} */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** {@return fixed cost of any prefill} */
  public double prefillOverheadMillis() {
    return prefillOverheadMillis;
  }

  /** {@return cost per prompt token computed, until a replica's own rate is known} */
  public double prefillMillisPerToken() {
    return prefillMillisPerToken;
  }

  /** {@return foreground time to load a LoRA adapter that is not resident} */
  public double adapterLoadMillis() {
    return adapterLoadMillis;
  }

  /** {@return KV cache bytes per token (320 KiB by default)} */
  public long kvBytesPerToken() {
    return kvBytesPerToken;
  }

  /** {@return bandwidth of a prefill-to-decode KV move} */
  public double kvTransferBytesPerSecond() {
    return kvTransferBytesPerSecond;
  }

  /**
   * Milliseconds to move {@code tokens} tokens of KV.
   *
   * @param tokens the tokens whose KV moves
   * @return milliseconds at {@link #kvTransferBytesPerSecond()}, for {@link #kvBytesPerToken()}
   *     bytes per token
   */
  public double kvTransferMillis(long tokens) {
    return tokens * (double) kvBytesPerToken / kvTransferBytesPerSecond * 1000.0;
  }

  /**
   * {@return reports older than this are "unknown": the view says so and the risk term adds its
   * penalty}
   */
  public double staleAfterMillis() {
    return staleAfterMillis;
  }

  /** {@return the penalty the risk term adds to a replica whose report is stale} */
  public double stalePenaltyMillis() {
    return stalePenaltyMillis;
  }

  /**
   * {@return risk weight when the replica was busy at its last report (unseen work queues behind)}
   */
  public double busyRiskFactor() {
    return busyRiskFactor;
  }

  /**
   * {@return risk weight when the replica was idle at its last report (unseen work may be done
   * already)}
   */
  public double idleRiskFactor() {
    return idleRiskFactor;
  }

  @Override
  public String toString() {
    return "CostModel{overhead=" + prefillOverheadMillis + "ms, perToken=" + prefillMillisPerToken
        + "ms, adapterLoad=" + adapterLoadMillis + "ms, kvBytesPerToken=" + kvBytesPerToken
        + ", staleAfter=" + staleAfterMillis + "ms}";
  }

  /** Builds a {@link CostModel}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private double prefillOverheadMillis = DefaultPrefillCost.OVERHEAD_MILLIS;
    private double prefillMillisPerToken = DefaultPrefillCost.MILLIS_PER_TOKEN;
    private double adapterLoadMillis = 800;
    private long kvBytesPerToken = 320L * 1024;
    // 6,000 tokens x 320 KiB moved in ~95 ms
    private double kvTransferBytesPerSecond = 6_000 * 320.0 * 1024 / 0.095;
    private double staleAfterMillis = 2_000;
    private double stalePenaltyMillis = 1_000;
    private double busyRiskFactor = 1.0;
    private double idleRiskFactor = 0.5;
    /** This builder's options, each set once ({@link SetOnce}). */
    private enum Option {
      PREFILL_OVERHEAD_MILLIS, PREFILL_MILLIS_PER_TOKEN, ADAPTER_LOAD_MILLIS, KV_BYTES_PER_TOKEN, KV_TRANSFER_BYTES_PER_SECOND, STALE_AFTER_MILLIS, STALE_PENALTY_MILLIS, RISK_FACTORS
    }

    private long set;

    private Builder() {}


    private static double finiteAtLeast(double v, double min, String name) {
      checkArgument(v >= min && !Double.isInfinite(v), "%s: %s (expected: finite and >= %s)", name, v, min);
      return v;
    }

    /**
     * Sets {@link CostModel#prefillOverheadMillis()}; default {@link DefaultPrefillCost}'s 20 ms.
     *
     * @param v milliseconds; finite, {@code >= 0}
     * @return this builder
     */
    public Builder prefillOverheadMillis(double v) {
      set = SetOnce.mark(set, Option.PREFILL_OVERHEAD_MILLIS);
      prefillOverheadMillis = finiteAtLeast(v, 0, "prefillOverheadMillis");
      return this;
    }

    /**
     * Sets {@link CostModel#prefillMillisPerToken()}; default {@link DefaultPrefillCost}'s 0.035
     * ms.
     *
     * @param v milliseconds per token; finite, {@code >= 0}
     * @return this builder
     */
    public Builder prefillMillisPerToken(double v) {
      set = SetOnce.mark(set, Option.PREFILL_MILLIS_PER_TOKEN);
      prefillMillisPerToken = finiteAtLeast(v, 0, "prefillMillisPerToken");
      return this;
    }

    /**
     * Sets {@link CostModel#adapterLoadMillis()}; default 800 ms.
     *
     * @param v milliseconds; finite, {@code >= 0}
     * @return this builder
     */
    public Builder adapterLoadMillis(double v) {
      set = SetOnce.mark(set, Option.ADAPTER_LOAD_MILLIS);
      adapterLoadMillis = finiteAtLeast(v, 0, "adapterLoadMillis");
      return this;
    }

    /**
     * Sets {@link CostModel#kvBytesPerToken()}; default 320 KiB.
     *
     * @param v bytes per token; {@code >= 1}
     * @return this builder
     */
    public Builder kvBytesPerToken(long v) {
      set = SetOnce.mark(set, Option.KV_BYTES_PER_TOKEN);
      checkArgument(v >= 1, "kvBytesPerToken: %s (expected: >= 1)", v);
      kvBytesPerToken = v;
      return this;
    }

    /**
     * Sets {@link CostModel#kvTransferBytesPerSecond()}; default
     * {@link Topology#REFERENCE_BYTES_PER_SECOND} (6,000 tokens of 320 KiB in 95 ms).
     *
     * @param v bytes per second; finite, {@code > 0}
     * @return this builder
     */
    public Builder kvTransferBytesPerSecond(double v) {
      set = SetOnce.mark(set, Option.KV_TRANSFER_BYTES_PER_SECOND);
      checkArgument(v > 0 && !Double.isInfinite(v),
          "kvTransferBytesPerSecond: %s (expected: finite and > 0)", v);
      kvTransferBytesPerSecond = v;
      return this;
    }

    /**
     * Sets {@link CostModel#staleAfterMillis()}; default 2,000 ms.
     *
     * @param v milliseconds; finite, {@code >= 0}
     * @return this builder
     */
    public Builder staleAfterMillis(double v) {
      set = SetOnce.mark(set, Option.STALE_AFTER_MILLIS);
      staleAfterMillis = finiteAtLeast(v, 0, "staleAfterMillis");
      return this;
    }

    /**
     * Sets {@link CostModel#stalePenaltyMillis()}; default 1,000 ms.
     *
     * @param v milliseconds; finite, {@code >= 0}
     * @return this builder
     */
    public Builder stalePenaltyMillis(double v) {
      set = SetOnce.mark(set, Option.STALE_PENALTY_MILLIS);
      stalePenaltyMillis = finiteAtLeast(v, 0, "stalePenaltyMillis");
      return this;
    }

    /**
     * Risk weights for busy and idle replicas; the busy one must not be the smaller.
     *
     * @param busy the weight for a replica busy at its last report; finite, {@code >= idle}
     * @param idle the weight for a replica idle at its last report; finite, {@code >= 0}
     * @return this builder
     */
    public Builder riskFactors(double busy, double idle) {
      set = SetOnce.mark(set, Option.RISK_FACTORS);
      finiteAtLeast(busy, 0, "busyRiskFactor");
      finiteAtLeast(idle, 0, "idleRiskFactor");
      checkArgument(busy >= idle, "busyRiskFactor: %s (expected: >= idleRiskFactor = %s)", busy, idle);
      busyRiskFactor = busy;
      idleRiskFactor = idle;
      return this;
    }

    /** {@return the cost model} */
    public CostModel build() {
      return new CostModel(this);
    }
  }
}
