package io.github.kvroute.core;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.base.Strings;
import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.DecisionExplanation;
import io.github.kvroute.api.PromptKey;
import io.github.kvroute.api.RandomSource;
import io.github.kvroute.api.Request;
import io.github.kvroute.api.RoutingDecision;
import io.github.kvroute.api.RoutingPolicy;
import io.github.kvroute.api.Ticker;
import java.util.function.Consumer;

/**
 * The decision pipeline of one router (each stage is explained in docs/decision-pipeline.md):
 *
 * <ol>
 *   <li>validate the request (a bad one throws before any state is touched);
 *   <li>candidates: READY, current epoch, breaker permitting, right model, version and adapter,
 *       sorted by role (a later attempt avoids the replicas of the request's attempt in flight);
 *   <li>one walk of the prefix index gives every candidate's leading match;
 *   <li>views: report and its age, this router's sends since it, estimates;
 *   <li>the policy chooses (contained: a throwing or invalid policy falls back to least cost);
 *   <li>admission may veto, with a reason and a retry-after;
 *   <li>record: lease, books, breaker probe, optimistic index insert.
 * </ol>
 *
 * <p>{@link #explain} runs stages 1 to 6 as a dry run; {@code route} builds an explanation only
 * when its caller passes somewhere to put it.
 *
 * <p>Thread-safety: thread-safe; each calling thread uses its own {@link DecisionContext}.
 */
final class DecisionPipeline {
  private static final ThreadLocal<DecisionContext> SCRATCH = ThreadLocal.withInitial(DecisionContext::new);

  private final Fleet fleet;
  private final PrefixIndex index;
  private final LeaseTable leases;
  private final MeanWork meanWork;
  private final RouterCounters counters;
  private final RoutingPolicy policy;
  private final AdmissionController admission;
  private final StandardEstimate estimate;
  private final PluginGuard guard;
  private final CostModel costModel;
  private final Topology topology;
  private final TransferBacklog backlog = new TransferBacklog();
  private final CandidateViews views;
  private final AttemptRecorder recorder;
  /** The policy's declared ranking ({@link StandardRanking.Ranked}), or null. */
  private final StandardRanking ranking;
  private final Ticker ticker;
  private final RandomSource random;
  private final int blockSizeTokens;

  /**
   * @param leases where routed attempts are recorded until their outcome
   * @param meanWork updated with every routed request's predicted prefill work
   */
  DecisionPipeline(RouterSettings settings, HostPlugins plugins, Fleet fleet, PrefixIndex index,
      LeaseTable leases, MeanWork meanWork, RouterCounters counters) {
    this.fleet = fleet;
    this.index = index;
    this.leases = leases;
    this.meanWork = meanWork;
    this.counters = counters;
    this.policy = plugins.policy();
    this.admission = plugins.admission();
    this.estimate = plugins.estimate();
    this.guard = plugins.guard();
    this.costModel = settings.costModel();
    this.topology = settings.topology();
    this.ticker = settings.ticker();
    this.random = settings.random();
    this.blockSizeTokens = settings.blockSizeTokens();
    this.views = new CandidateViews(settings, fleet, index);
    this.recorder = new AttemptRecorder(leases, index, meanWork, counters, guard, backlog);
    this.ranking = StandardRanking.of(policy);
  }

  RoutingDecision route(Request request) {
    return route(request, null);
  }

  /**
   * {@link #route}; when {@code explained} is given, it receives the explanation of the decision
   * before anything is recorded (only then is one built).
   */
  RoutingDecision route(Request request, Consumer<DecisionExplanation> explained) {
    checkPrompt(request);
    // the attempt by id and number, not a RequestRef: one object fewer per decision
    String id = request.id();
    int attempt = request.attempt();
    // one reading of the clock for the whole decision, the attempt table's checks and records
    // included (the system clock costs some 25 ns a reading)
    long now = ticker.read();
    checkArgument(leases.get(id, attempt, now) == null,
        "request: %s#%s (expected: an attempt not already in flight; retry with nextAttempt())", id,
        attempt);
    Lease newer = leases.newerOpen(id, attempt, now);
    if (newer != null) {
      throw new IllegalArgumentException(Strings.lenientFormat(
          "request: %s#%s (expected: a later attempt than %s, which is in flight)", id, attempt,
          newer.ref()));
    }

    int maskWords = index.words();
    ReplicaEntry[] members = fleet.members();
    DecisionContext s = SCRATCH.get();
    s.begin(request, now, random, estimate, members.length, maskWords, maskWords << 6);
    s.pairs(costModel, topology);
    s.backlog = backlog;
    try {
      prepare(s, members, request, now, maskWords);
      RoutingDecision decision = decide(s);
      if (explained != null) {
        explained.accept(Explanations.of(s, decision, members));
      }
      Lease lease = decision.isRouted() ? recorder.record(s, decision, now) : null;
      try {
        guard.listener().onDecision(request, decision);
      } catch (Throwable fatal) {
        // only a fatal error gets here (the listener is contained otherwise): the host will not see
        // this decision, so it must not stay recorded
        if (lease != null) {
          recorder.unrecord(lease);
        }
        throw fatal;
      } finally {
        // this route is done with its lease: it may be reused once its attempt ends
        if (lease != null) {
          leases.unpin(lease);
        }
      }
      if (decision.isRouted()) {
        counters.routed.increment();
      } else {
        counters.rejected(decision.reason());
      }
      return decision;
    } finally {
      s.end();
    }
  }

  /**
   * Stages 1 to 6 of {@link #route}, recording nothing: no attempt, books, breaker probe, index
   * insert, listener event or count, and the policy draws on a random source of its own (seeded
   * from the request id), never the router's. Runs on a context of its own, so that a listener may
   * call it from inside a route.
   */
  DecisionExplanation explain(Request request) {
    checkPrompt(request);
    long now = ticker.read();
    int maskWords = index.words();
    ReplicaEntry[] members = fleet.members();
    DecisionContext s = new DecisionContext();
    s.dryRun = true;
    s.begin(request, now, RandomSource.seeded(request.id().hashCode()), estimate, members.length,
        maskWords, maskWords << 6);
    try {
      prepare(s, members, request, now, maskWords);
      return Explanations.of(s, decide(s), members);
    } finally {
      s.end();
    }
  }

  /** Stage 1's prompt check: a prompt hashed with another block size can match nothing here. */
  private void checkPrompt(Request request) {
    checkNotNull(request, "request: null (expected: non-null)");
    PromptKey prompt = request.prompt();
    checkArgument(prompt.blockCount() == 0 || prompt.blockSizeTokens() == blockSizeTokens,
        "request.prompt.blockSizeTokens: %s (expected: the router's block size %s)",
        prompt.blockSizeTokens(), blockSizeTokens);
  }

  /** Stages 2 to 4: candidates, one walk of the index, views; then the vetoed views leave. */
  private void prepare(DecisionContext s, ReplicaEntry[] members, Request request, long now,
      int maskWords) {
    PromptKey prompt = request.prompt();
    boolean anyMatchable = views.collect(s, members, request, now, maskWords);
    if (anyMatchable && prompt.blockCount() > 0) {
      index.match(prompt, s.mask, maskWords, s.alive, s.matchedBySlot, s.trace);
    }
    boolean matched = anyMatchable && prompt.blockCount() > 0;
    // one mean for the whole decision (a concurrent route may move it; the candidates share one)
    double meanMillis = meanWork.millis();
    StandardRanking ranked = ranking;
    s.ranking = ranked;
    double[] weights = ranked == null ? null : ranked.weights(s);
    boolean anyVetoed = false;
    for (int i = 0; i < s.viewCount; i++) {
      MutableView v = s.views[i];
      views.fill(v, request, now, matched, s, maskWords, meanMillis);
      // the estimate right after the view's fill, while its fields are in the cache: a term reads
      // only its request and candidate, so no view's terms depend on another's fill
      v.standardMillis = estimate.fill(request, v);
      anyVetoed |= v.standardMillis == Double.POSITIVE_INFINITY;
      if (ranked != null) {
        // and the policy's ranking of it likewise (StandardRanking's notes)
        ranked.prepare(request, v, weights);
      }
    }
    s.rankingPrepared = ranked != null;
    if (anyVetoed) {
      // usually none: the pass over every view is skipped
      CandidateViews.vetoInfinite(s);
    }
    Lease earlier = request.attempt() > 1
        ? leases.olderOpen(request.id(), request.attempt()) : null;
    if (earlier != null) {
      AttemptPlacement.avoid(s, earlier);
    }
  }

  private RoutingDecision decide(DecisionContext s) {
    RoutingDecision d;
    try {
      d = policy.route(s);
      checkNotNull(d, "policy %s returned null (expected: a decision)", policy.name());
      validate(s, d, policy);
    } catch (Throwable e) {
      guard.failed("policy " + policy.name(), "used the least-cost replica instead", e);
      d = leastCost(s);
    }
    if (!d.isRouted()) {
      return d;
    }
    d = withCost(s, d);
    RoutingDecision admitted;
    try {
      admitted = admission.admit(s, d);
      checkNotNull(admitted, "admission returned null (expected: a decision)");
      if (admitted.isRouted() && admitted != d) {
        validate(s, admitted, null);
        admitted = withCost(s, admitted);
      }
    } catch (Throwable e) {
      guard.failed("admission", "used the policy's decision as it was instead", e);
      admitted = d;
    }
    return admitted;
  }

  private RoutingDecision withCost(DecisionContext s, RoutingDecision d) {
    if (d.hasCost()) {
      return d;
    }
    MutableView chosen = s.mixed.find(d.replicaId(), d.epoch());
    if (chosen == null) {
      chosen = s.decode.find(d.replicaId(), d.epoch());
    }
    return estimate.withEstimate(d, s.request, chosen);
  }

  /**
   * A decision must name eligible candidates in their current epochs. {@code byPolicy} is the
   * policy that decided, or null for admission; its label is built only for the message of a
   * refusal, because concatenating it on every decision allocated two objects each time.
   */
  private static void validate(DecisionContext s, RoutingDecision d, RoutingPolicy byPolicy) {
    if (!d.isRouted()) {
      return;
    }
    if (d.prefillReplicaId().isPresent()) {
      String p = d.prefillReplicaId().get();
      boolean prefillOk = s.prefill.find(p, d.prefillEpoch()) != null
          || s.mixed.find(p, d.prefillEpoch()) != null;
      boolean decodeOk = s.decode.find(d.replicaId(), d.epoch()) != null
          || s.mixed.find(d.replicaId(), d.epoch()) != null;
      if (!(prefillOk && decodeOk)) {
        throw new IllegalArgumentException(Strings.lenientFormat(
            "%s routed to %s via %s (expected: an eligible prefill and decode pair)", who(byPolicy),
            d.replicaId(), p));
      }
    } else if (s.mixed.find(d.replicaId(), d.epoch()) == null) {
      throw new IllegalArgumentException(Strings.lenientFormat(
          "%s routed to %s#%s (expected: one of the eligible candidates)", who(byPolicy),
          d.replicaId(), d.epoch()));
    }
  }

  /** Who made a decision {@link #validate} refuses, as the log names it. */
  private static String who(RoutingPolicy byPolicy) {
    return byPolicy == null ? "admission" : "policy " + byPolicy.name();
  }


  /** The safe fallback: least standard cost among whole-request candidates. */
  private RoutingDecision leastCost(DecisionContext s) {
    if (s.mixed.size == 0) {
      return s.noCandidates();
    }
    MutableView best = null;
    double bestMillis = Double.POSITIVE_INFINITY;
    for (int i = 0; i < s.mixed.size; i++) {
      MutableView v = s.mixed.items[i];
      double c = estimate.totalMillis(s.request, v);
      if (best == null || c < bestMillis) {
        best = v;
        bestMillis = c;
      }
    }
    return RoutingDecision.routed(best, estimate.breakdown(s.request, best));
  }
}
