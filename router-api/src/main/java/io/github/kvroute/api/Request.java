package io.github.kvroute.api;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One LLM request as the router sees it: who it is, what it needs, how big it is and how long it may
 * wait for its first token.
 *
 * <p>The prompt's {@link CacheNamespace} must be the request's model, version and adapter:
 * {@link Builder#build()} refuses a prompt keyed for another (say {@code CacheNamespace.of("other")}
 * on a request for model {@code m}), since its blocks could never be in the replica's cache it would
 * be credited with. An {@linkplain PromptKey#unhashed unhashed} prompt has no namespace to check.
 *
 * <pre>{@code
 * Request request = Request.newBuilder()
 *     .id("req-42").model("llama-3-70b")
 *     .prompt(PromptKey.ofTokens(tokenIds, CacheNamespace.of("llama-3-70b")))
 *     .maxOutputTokens(512)
 *     .ttftBudget(Duration.ofMillis(600))
 *     .build();
 * }</pre>
 *
 * <p>The {@link #id()} is stable across retries; each retry is a new {@link #attempt()} (see
 * {@link #nextAttempt()}), and exactly one attempt is authoritative: routing attempt N ends the
 * router's record of any older attempt still in flight (its outcome is then a duplicate), and
 * routing an older attempt than one in flight is refused.
 *
 * <p>Immutable and thread-safe.
 */
public final class Request {
  private final String id;
  private final int attempt;
  private final String model;
  private final Optional<String> modelVersion;
  private final Optional<String> adapter;
  private final Optional<String> sessionId;
  private final Optional<String> tenant;
  private final Priority priority;
  private final PromptKey prompt;
  private final int maxOutputTokens;
  private final OptionalInt expectedOutputTokens;
  private final Optional<Duration> ttftBudget;
  private final Duration upstreamElapsed;
  private final OptionalLong arrivalNanos;

  private Request(Builder b) {
    this.id = Checks.notBlank(b.id, "id");
    this.attempt = Checks.atLeast(b.attempt, 1, "attempt");
    this.model = Checks.notBlank(b.model, "model");
    this.modelVersion = Optional.ofNullable(b.modelVersion);
    this.adapter = Optional.ofNullable(b.adapter);
    this.sessionId = Optional.ofNullable(b.sessionId);
    this.tenant = Optional.ofNullable(b.tenant);
    this.priority = Checks.notNull(b.priority, "priority");
    this.prompt = Checks.notNull(b.prompt, "prompt");
    CacheNamespace namespace = prompt.namespaceOrNull();
    if (namespace != null && !namespace.isFor(model, modelVersion, adapter)) {
      throw new IllegalArgumentException("prompt namespace: " + namespace + " (expected: "
          + model + modelVersion.map(v -> "@" + v).orElse("") + adapter.map(a -> "+" + a).orElse("")
          + ", the request's model, version and adapter)");
    }
    this.maxOutputTokens = Checks.atLeast(b.maxOutputTokens, 1, "maxOutputTokens");
    if (b.expectedOutputTokens != null) {
      Checks.atLeast(b.expectedOutputTokens, 0, "expectedOutputTokens");
      Checks.argument(b.expectedOutputTokens <= b.maxOutputTokens, "expectedOutputTokens",
          b.expectedOutputTokens, "<= maxOutputTokens = " + b.maxOutputTokens);
      this.expectedOutputTokens = OptionalInt.of(b.expectedOutputTokens);
    } else {
      this.expectedOutputTokens = OptionalInt.empty();
    }
    this.ttftBudget = Optional.ofNullable(b.ttftBudget);
    this.upstreamElapsed = b.upstreamElapsed;
    this.arrivalNanos = b.arrivalNanos == null ? OptionalLong.empty() : OptionalLong.of(b.arrivalNanos);
  }

  /** {@return a new builder; {@code id}, {@code model} and {@code prompt} are required} */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * {@return a builder holding this request's values, for variations: each option may be set once
   * more}
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.id = id;
    b.attempt = attempt;
    b.model = model;
    b.modelVersion = modelVersion.orElse(null);
    b.adapter = adapter.orElse(null);
    b.sessionId = sessionId.orElse(null);
    b.tenant = tenant.orElse(null);
    b.priority = priority;
    b.prompt = prompt;
    b.maxOutputTokens = maxOutputTokens;
    b.expectedOutputTokens = expectedOutputTokens.isPresent() ? expectedOutputTokens.getAsInt() : null;
    b.ttftBudget = ttftBudget.orElse(null);
    b.upstreamElapsed = upstreamElapsed;
    b.arrivalNanos = arrivalNanos.isPresent() ? arrivalNanos.getAsLong() : null;
    return b;
  }

  /**
   * {@return the same request as its next attempt: same id, {@code attempt + 1}}
   *
   * @throws IllegalStateException if this is attempt {@link Integer#MAX_VALUE}
   */
  public Request nextAttempt() {
    Checks.state(attempt < Integer.MAX_VALUE, "attempt", attempt, "< " + Integer.MAX_VALUE);
    return toBuilder().attempt(attempt + 1).build();
  }

  /** {@return the request's id, the same for every attempt (never blank)} */
  public String id() {
    return id;
  }

  /**
   * {@return the attempt number: 1 for the first try, then 2, 3, ... for retries of the same
   * {@link #id()}}
   */
  public int attempt() {
    return attempt;
  }

  /** {@return the model requested (never blank); candidates are the replicas serving it} */
  public String model() {
    return model;
  }

  /** {@return the model version requested; empty when the fleet serves a single version} */
  public Optional<String> modelVersion() {
    return modelVersion;
  }

  /** {@return the LoRA adapter the request needs, if any} */
  public Optional<String> adapter() {
    return adapter;
  }

  /**
   * {@return the conversation the request belongs to, for session affinity and canary splits; empty
   * when the host gives none}
   */
  public Optional<String> sessionId() {
    return sessionId;
  }

  /**
   * {@return the tenant, for per-tenant fairness under pressure; empty when the host gives none}
   */
  public Optional<String> tenant() {
    return tenant;
  }

  /** {@return the request's class under load; {@link Priority#STANDARD} unless set} */
  public Priority priority() {
    return priority;
  }

  /** {@return the prompt's identity (block hashes in its cache namespace) and length} */
  public PromptKey prompt() {
    return prompt;
  }

  /** {@return prompt length in tokens, from {@link #prompt()}} */
  public int promptTokens() {
    return prompt.tokenCount();
  }

  /** {@return the most output tokens the request may generate (at least 1; default 256)} */
  public int maxOutputTokens() {
    return maxOutputTokens;
  }

  /**
   * {@return a prediction of the output length, when the host has one (otherwise use the maximum)}
   */
  public OptionalInt expectedOutputTokens() {
    return expectedOutputTokens;
  }

  /** {@return output tokens to plan for: the expectation when known, else the maximum} */
  public int plannedOutputTokens() {
    return expectedOutputTokens.orElse(maxOutputTokens);
  }

  /** {@return the time-to-first-token objective, measured from when the client sent the request} */
  public Optional<Duration> ttftBudget() {
    return ttftBudget;
  }

  /**
   * {@return time the request already spent before reaching the router (upstream gateways, queues)}
   */
  public Duration upstreamElapsed() {
    return upstreamElapsed;
  }

  /**
   * {@return what is left of the TTFT budget for queueing and prefill, in milliseconds: budget
   * minus upstream time; negative when the deadline has already passed} Empty when the request has
   * no budget. Saturates at {@code Long.MIN_VALUE} / {@code Long.MAX_VALUE} milliseconds for absurd
   * durations.
   */
  public OptionalLong remainingBudgetMillis() {
    if (ttftBudget.isEmpty()) {
      return OptionalLong.empty();
    }
    Duration left = ttftBudget.get().minus(upstreamElapsed);
    try {
      return OptionalLong.of(left.toMillis());
    } catch (ArithmeticException e) {
      return OptionalLong.of(left.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE);
    }
  }

  /**
   * {@return what is left of the TTFT budget at {@code nowNanos} on the router's {@link Ticker}:
   * {@link #remainingBudgetMillis()} less the time since {@link #arrivalNanos()} (none when the
   * arrival is "now"; never less for a clock read before the arrival)} Empty when the request has no
   * budget; saturating as {@link #remainingBudgetMillis()} does.
   *
   * @param nowNanos the router's ticker reading
   */
  public OptionalLong remainingBudgetMillis(long nowNanos) {
    OptionalLong remaining = remainingBudgetMillis();
    if (remaining.isEmpty() || arrivalNanos.isEmpty()) {
      return remaining;
    }
    long sinceArrival = Math.max(0, nowNanos - arrivalNanos.getAsLong()) / 1_000_000;
    long left = remaining.getAsLong() - sinceArrival;
    // saturating: a budget near Long.MIN_VALUE stays there
    return OptionalLong.of(left > remaining.getAsLong() ? Long.MIN_VALUE : left);
  }

  /**
   * {@return when the request reached the router, on the router's {@link Ticker}; empty means
   * "now"}
   */
  public OptionalLong arrivalNanos() {
    return arrivalNanos;
  }

  @Override
  public String toString() {
    return "Request{" + id + "#" + attempt + ", model=" + model
        + modelVersion.map(v -> "@" + v).orElse("") + adapter.map(a -> "+" + a).orElse("")
        + ", " + priority + ", prompt=" + prompt.tokenCount() + "t, maxOut=" + maxOutputTokens + "}";
  }

  /** Builds a {@link Request}. Not thread-safe; each option may be set once. */
  public static final class Builder {
    private String id;
    private int attempt = 1;
    private String model;
    private String modelVersion;
    private String adapter;
    private String sessionId;
    private String tenant;
    private Priority priority = Priority.STANDARD;
    private PromptKey prompt;
    private int maxOutputTokens = 256;
    private Integer expectedOutputTokens;
    private Duration ttftBudget;
    private Duration upstreamElapsed = Duration.ZERO;
    private Long arrivalNanos;
    /** This builder's options, each set once ({@link Checks#once}: no allocation per request). */
    private enum Option {
      ID, ATTEMPT, MODEL, MODEL_VERSION, ADAPTER, SESSION_ID, TENANT, PRIORITY, PROMPT,
      MAX_OUTPUT_TOKENS, EXPECTED_OUTPUT_TOKENS, TTFT_BUDGET, UPSTREAM_ELAPSED, ARRIVAL_NANOS
    }

    private long set;

    private Builder() {}

    /**
     * Required: stable across retries.
     *
     * @param id the request's id; not blank
     * @return this builder
     */
    public Builder id(String id) {
      set = Checks.once(set, Option.ID);
      this.id = Checks.notBlank(id, "id");
      return this;
    }

    /**
     * Defaults to 1.
     *
     * @param attempt the attempt number; {@code >= 1}
     * @return this builder
     */
    public Builder attempt(int attempt) {
      set = Checks.once(set, Option.ATTEMPT);
      this.attempt = Checks.atLeast(attempt, 1, "attempt");
      return this;
    }

    /**
     * Required.
     *
     * @param model the model requested; not blank
     * @return this builder
     */
    public Builder model(String model) {
      set = Checks.once(set, Option.MODEL);
      this.model = Checks.notBlank(model, "model");
      return this;
    }

    /**
     * Sets the model version; unset means the fleet serves a single version.
     *
     * @param modelVersion the version label; not blank
     * @return this builder
     */
    public Builder modelVersion(String modelVersion) {
      set = Checks.once(set, Option.MODEL_VERSION);
      this.modelVersion = Checks.notBlank(modelVersion, "modelVersion");
      return this;
    }

    /**
     * Sets the LoRA adapter the request needs; unset means the base model.
     *
     * @param adapter the adapter's name; not blank
     * @return this builder
     */
    public Builder adapter(String adapter) {
      set = Checks.once(set, Option.ADAPTER);
      this.adapter = Checks.notBlank(adapter, "adapter");
      return this;
    }

    /**
     * Sets the conversation id; unset means none.
     *
     * @param sessionId the session's id; not blank
     * @return this builder
     */
    public Builder sessionId(String sessionId) {
      set = Checks.once(set, Option.SESSION_ID);
      this.sessionId = Checks.notBlank(sessionId, "sessionId");
      return this;
    }

    /**
     * Sets the tenant; unset means none (all such requests count as one tenant).
     *
     * @param tenant the tenant's name; not blank
     * @return this builder
     */
    public Builder tenant(String tenant) {
      set = Checks.once(set, Option.TENANT);
      this.tenant = Checks.notBlank(tenant, "tenant");
      return this;
    }

    /**
     * Defaults to {@link Priority#STANDARD}.
     *
     * @param priority the request's class; not null
     * @return this builder
     */
    public Builder priority(Priority priority) {
      set = Checks.once(set, Option.PRIORITY);
      this.priority = Checks.notNull(priority, "priority");
      return this;
    }

    /**
     * Required.
     *
     * @param prompt the prompt's identity and length; its namespace must be the request's model,
     *     version and adapter
     * @return this builder
     */
    public Builder prompt(PromptKey prompt) {
      set = Checks.once(set, Option.PROMPT);
      this.prompt = Checks.notNull(prompt, "prompt");
      return this;
    }

    /**
     * Defaults to 256.
     *
     * @param maxOutputTokens the output limit in tokens; {@code >= 1}
     * @return this builder
     */
    public Builder maxOutputTokens(int maxOutputTokens) {
      set = Checks.once(set, Option.MAX_OUTPUT_TOKENS);
      this.maxOutputTokens = Checks.atLeast(maxOutputTokens, 1, "maxOutputTokens");
      return this;
    }

    /**
     * Sets the predicted output length; unset, policies plan for {@link Request#maxOutputTokens()}.
     * At build time it must not exceed the maximum.
     *
     * @param expectedOutputTokens tokens; {@code >= 0}
     * @return this builder
     */
    public Builder expectedOutputTokens(int expectedOutputTokens) {
      set = Checks.once(set, Option.EXPECTED_OUTPUT_TOKENS);
      this.expectedOutputTokens = Checks.atLeast(expectedOutputTokens, 0, "expectedOutputTokens");
      return this;
    }

    /**
     * The TTFT objective from the client's send time; absent means no deadline.
     *
     * @param ttftBudget the budget; not negative
     * @return this builder
     */
    public Builder ttftBudget(Duration ttftBudget) {
      set = Checks.once(set, Option.TTFT_BUDGET);
      Checks.nonNegative(ttftBudget, "ttftBudget");
      this.ttftBudget = ttftBudget;
      return this;
    }

    /**
     * Time already spent upstream; defaults to zero.
     *
     * @param upstreamElapsed the time spent before the router; not negative
     * @return this builder
     */
    public Builder upstreamElapsed(Duration upstreamElapsed) {
      set = Checks.once(set, Option.UPSTREAM_ELAPSED);
      this.upstreamElapsed = Checks.nonNegative(upstreamElapsed, "upstreamElapsed");
      return this;
    }

    /**
     * Arrival time on the router's {@link Ticker}; defaults to the time of routing.
     *
     * @param arrivalNanos nanoseconds on the router's ticker
     * @return this builder
     */
    public Builder arrivalNanos(long arrivalNanos) {
      set = Checks.once(set, Option.ARRIVAL_NANOS);
      this.arrivalNanos = arrivalNanos;
      return this;
    }

    /**
     * Builds the request.
     *
     * @return the request
     * @throws IllegalArgumentException if a required option is missing or values are inconsistent
     *     (the prompt's namespace is not the model, version and adapter set here, for one)
     */
    public Request build() {
      if (id == null) {
        throw new IllegalArgumentException("id: null (expected: set before build)");
      }
      if (model == null) {
        throw new IllegalArgumentException("model: null (expected: set before build)");
      }
      if (prompt == null) {
        throw new IllegalArgumentException("prompt: null (expected: set before build)");
      }
      return new Request(this);
    }
  }
}
