package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static com.google.common.base.Preconditions.checkState;

import io.github.kvroute.api.Priority;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.Request;
import java.time.Duration;
import java.util.Optional;

/**
 * One request of a simulated workload: when it arrives (virtual time), its prompt's prefix identity and
 * length, how many tokens it will generate, and what the router may know about it (tenant, session,
 * priority, adapter, TTFT budget).
 *
 * <pre>{@code
 * SimRequest r = SimRequest.newBuilder()
 *     .id("r-1").arrivalNanos(0).model("m")
 *     .prompt(PromptKey.ofBlockHashes(ids, 16, 1_000, CacheNamespace.of("m")))
 *     .outputTokens(100)
 *     .build();
 * }</pre>
 *
 * <p>{@link #outputTokens()} is what the replica will actually generate; the router is told
 * {@link #maxOutputTokens()} (by default the same: the workloads here hand routers the true length, the
 * same for every policy).
 *
 * <p>Immutable and thread-safe.
 */
public final class SimRequest {
  private final String id;
  private final long arrivalNanos;
  private final String model;
  private final PromptKey prompt;
  private final int outputTokens;
  private final int maxOutputTokens;
  private final Optional<String> tenant;
  private final Optional<String> sessionId;
  private final Priority priority;
  private final Optional<String> adapter;
  private final Optional<Duration> ttftBudget;

  private SimRequest(Builder b) {
    id = b.id;
    arrivalNanos = b.arrivalNanos;
    model = b.model;
    prompt = b.prompt;
    outputTokens = b.outputTokens;
    maxOutputTokens = b.maxOutputTokens > 0 ? b.maxOutputTokens : b.outputTokens;
    tenant = Optional.ofNullable(b.tenant);
    sessionId = Optional.ofNullable(b.sessionId);
    priority = b.priority;
    adapter = Optional.ofNullable(b.adapter);
    ttftBudget = Optional.ofNullable(b.ttftBudget);
  }

  private SimRequest(SimRequest o, long arrivalNanos) {
    id = o.id;
    this.arrivalNanos = arrivalNanos;
    model = o.model;
    prompt = o.prompt;
    outputTokens = o.outputTokens;
    maxOutputTokens = o.maxOutputTokens;
    tenant = o.tenant;
    sessionId = o.sessionId;
    priority = o.priority;
    adapter = o.adapter;
    ttftBudget = o.ttftBudget;
  }

  /** {@return a builder; id, arrival, model, prompt and output tokens are required} */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** This request arriving at another time. */
  SimRequest withArrivalNanos(long nanos) {
    checkArgument(nanos >= 0, "arrivalNanos: %s (expected: >= 0)", nanos);
    return new SimRequest(this, nanos);
  }

  /** {@return the request's id (never blank)} */
  public String id() {
    return id;
  }

  /** {@return arrival at the router, in nanoseconds of virtual time from the start of the run} */
  public long arrivalNanos() {
    return arrivalNanos;
  }

  /** {@return the model requested (never blank)} */
  public String model() {
    return model;
  }

  /** {@return the prompt's prefix identity and length} */
  public PromptKey prompt() {
    return prompt;
  }

  /** {@return the prompt's length in tokens (at least 1)} */
  public int promptTokens() {
    return prompt.tokenCount();
  }

  /**
   * {@return tokens the replica generates before the request finishes (at least 1: the first
   * token)}
   */
  public int outputTokens() {
    return outputTokens;
  }

  /**
   * {@return the output limit the router sees ({@code max_tokens}); at least
   * {@link #outputTokens()}}
   */
  public int maxOutputTokens() {
    return maxOutputTokens;
  }

  /** {@return the tenant; empty when none} */
  public Optional<String> tenant() {
    return tenant;
  }

  /** {@return the conversation the request belongs to; empty when none} */
  public Optional<String> sessionId() {
    return sessionId;
  }

  /** {@return the request's class; {@link Priority#STANDARD} unless set} */
  public Priority priority() {
    return priority;
  }

  /** {@return the LoRA adapter the request needs; empty for the base model} */
  public Optional<String> adapter() {
    return adapter;
  }

  /**
   * {@return the TTFT budget from arrival; empty means no deadline (the scenario's objective
   * measures it)}
   */
  public Optional<Duration> ttftBudget() {
    return ttftBudget;
  }

  /** {@return the router's view of this request's first attempt} */
  public Request toRouterRequest() {
    return toRouterRequest(ttftBudget);
  }

  /** {@return the router's view of this request's first attempt, with {@code budget} as its TTFT budget} */
  Request toRouterRequest(Optional<Duration> budget) {
    Request.Builder b = Request.newBuilder()
        .id(id).model(model).prompt(prompt).priority(priority)
        .maxOutputTokens(maxOutputTokens).arrivalNanos(arrivalNanos);
    tenant.ifPresent(b::tenant);
    sessionId.ifPresent(b::sessionId);
    adapter.ifPresent(b::adapter);
    budget.ifPresent(b::ttftBudget);
    return b.build();
  }

  @Override
  public String toString() {
    return "SimRequest{" + id + " @" + arrivalNanos / 1_000_000 + "ms, prompt=" + prompt.tokenCount()
        + "t, out=" + outputTokens + "t" + tenant.map(t -> ", tenant=" + t).orElse("")
        + adapter.map(a -> ", adapter=" + a).orElse("") + "}";
  }

  /** Builds a {@link SimRequest}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private String id;
    private long arrivalNanos = -1;
    private String model;
    private PromptKey prompt;
    private int outputTokens;
    private int maxOutputTokens;
    private String tenant;
    private String sessionId;
    private Priority priority = Priority.STANDARD;
    private String adapter;
    private Duration ttftBudget;
    private int set;

    private Builder() {}

    private void once(int bit, String option) {
      checkState((set & bit) == 0, "%s: already set (expected: each builder option set once)", option);
      set |= bit;
    }

    /**
     * Required.
     *
     * @param v the id; not blank
     * @return this builder
     */
    public Builder id(String v) {
      once(1, "id");
      checkArgument(v != null && !v.isBlank(), "id: %s (expected: non-blank)", v);
      id = v;
      return this;
    }

    /**
     * Required: nanoseconds of virtual time from the start of the run.
     *
     * @param v nanoseconds; {@code >= 0}
     * @return this builder
     */
    public Builder arrivalNanos(long v) {
      once(2, "arrivalNanos");
      checkArgument(v >= 0, "arrivalNanos: %s (expected: >= 0)", v);
      arrivalNanos = v;
      return this;
    }

    /**
     * Required.
     *
     * @param v the model; not blank
     * @return this builder
     */
    public Builder model(String v) {
      once(4, "model");
      checkArgument(v != null && !v.isBlank(), "model: %s (expected: non-blank)", v);
      model = v;
      return this;
    }

    /**
     * Required.
     *
     * @param v the prompt; at least one token
     * @return this builder
     */
    public Builder prompt(PromptKey v) {
      once(8, "prompt");
      prompt = checkNotNull(v, "prompt: null (expected: non-null)");
      return this;
    }

    /**
     * Required, at least 1.
     *
     * @param v tokens generated; {@code >= 1}
     * @return this builder
     */
    public Builder outputTokens(int v) {
      once(16, "outputTokens");
      checkArgument(v >= 1, "outputTokens: %s (expected: >= 1)", v);
      outputTokens = v;
      return this;
    }

    /**
     * Defaults to {@link #outputTokens}.
     *
     * @param v the limit the router sees; at least {@code outputTokens}
     * @return this builder
     */
    public Builder maxOutputTokens(int v) {
      once(32, "maxOutputTokens");
      checkArgument(v >= 1, "maxOutputTokens: %s (expected: >= 1)", v);
      maxOutputTokens = v;
      return this;
    }

    /**
     * Sets the tenant; unset means none.
     *
     * @param v the tenant's name; not blank
     * @return this builder
     */
    public Builder tenant(String v) {
      once(64, "tenant");
      checkArgument(v != null && !v.isBlank(), "tenant: %s (expected: non-blank)", v);
      tenant = v;
      return this;
    }

    /**
     * Sets the conversation id; unset means none.
     *
     * @param v the session's id; not blank
     * @return this builder
     */
    public Builder sessionId(String v) {
      once(128, "sessionId");
      checkArgument(v != null && !v.isBlank(), "sessionId: %s (expected: non-blank)", v);
      sessionId = v;
      return this;
    }

    /**
     * Defaults to {@link Priority#STANDARD}.
     *
     * @param v the class; not null
     * @return this builder
     */
    public Builder priority(Priority v) {
      once(256, "priority");
      priority = checkNotNull(v, "priority: null (expected: non-null)");
      return this;
    }

    /**
     * The LoRA adapter; the prompt's namespace should name it too, so caches never mix.
     *
     * @param v the adapter's name; not blank
     * @return this builder
     */
    public Builder adapter(String v) {
      once(512, "adapter");
      checkArgument(v != null && !v.isBlank(), "adapter: %s (expected: non-blank)", v);
      adapter = v;
      return this;
    }

    /**
     * The time-to-first-token budget from arrival; absent means no deadline.
     *
     * @param v the budget; not negative
     * @return this builder
     */
    public Builder ttftBudget(Duration v) {
      once(1024, "ttftBudget");
      checkArgument(v != null && !v.isNegative(), "ttftBudget: %s (expected: >= 0)", v);
      ttftBudget = v;
      return this;
    }

    /**
     * @return the request
     * @throws IllegalArgumentException if a required option is missing or values disagree
     */
    public SimRequest build() {
      checkArgument(id != null, "id: null (expected: set before build)");
      checkArgument(arrivalNanos >= 0, "arrivalNanos: unset (expected: set before build)");
      checkArgument(model != null, "model: null (expected: set before build)");
      checkArgument(prompt != null, "prompt: null (expected: set before build)");
      checkArgument(outputTokens >= 1, "outputTokens: unset (expected: set before build)");
      checkArgument(prompt.tokenCount() >= 1, "prompt.tokenCount: %s (expected: >= 1)",
          prompt.tokenCount());
      checkArgument(maxOutputTokens == 0 || maxOutputTokens >= outputTokens,
          "maxOutputTokens: %s (expected: >= outputTokens = %s)", maxOutputTokens, outputTokens);
      return new SimRequest(this);
    }
  }
}
