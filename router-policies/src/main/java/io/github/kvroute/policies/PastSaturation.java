package io.github.kvroute.policies;

import io.github.kvroute.api.CandidateView;
import io.github.kvroute.api.Priority;
import io.github.kvroute.api.RoutingContext;
import io.github.kvroute.core.RoutingContexts;
import java.util.List;

/**
 * Where a router sends a request that carries no deadline once every replica is backlogged: alone,
 * onto the replica that holds most of its prompt and, among those, the one that already waits
 * longest (once the pile has lasted, onto the one that waits longest); with other routers on the
 * fleet, onto the one replica they all rank first for a fixed key (the <em>sink</em>). Either way
 * the excess queues in one place and the other replicas drain.
 *
 * <h2>Design notes</h2>
 * Below saturation each request's own predicted TTFT is the right thing to minimise. Past it, with
 * no deadline to shed by, every request is served and the question is how many of them are served
 * in time. Ranked by its own TTFT each request goes to the shortest queue, which spreads the
 * excess evenly: every queue grows past the objective together, and nearly every request is late
 * (on {@code rag-long-docs} at 1.5 times its rate, seed 1, hybrid-cost kept 0.14-0.18 of each
 * replica's requests in time, 0.17 in all). The rules that pile a prefix on its holders do better
 * there by accident: SGLang's cache-aware rule kept 0.89 on the replica that held the most-read
 * documents and 0.05-0.24 on the rest, 0.40 in all.
 *
 * <p>This rule does it on purpose. When every candidate's calibrated wait
 * ({@link CandidateView#calibratedQueueMillis()}, the estimate as outcomes correct it) is over
 * {@code thresholdMillis}, the request goes to the candidate with the deepest match, and among
 * equal matches to the one with the longest calibrated wait: a request that finds its prefix held
 * prefills little there, and one that finds it nowhere (the match is 0 everywhere) costs its whole
 * prefill wherever it goes, so it goes where the requests already queued are the least likely to
 * be in time anyway. No request is piled while one replica waits the threshold or less: the TTFT
 * ranking sends that replica the next requests, so the others hover near the threshold while one
 * takes what they cannot serve (the same run: 0.13 in time on the replica that took the excess,
 * 0.44-0.71 on the others, 0.45 in all). It ignores the bounded load ({@link LoadBound}), whose
 * purpose, spreading a hot prefix's decodes, is what it undoes on purpose.
 *
 * <p>A router alone counts a wait as a backlog only once it is also longer than the mean
 * request's predicted prefill ({@link CandidateView#meanRequestCostMillis()}): where prompts are
 * long, a replica waits that long with a single request ahead of it, which is no backlog, and
 * piling there concentrated requests the fleet would have served in time. On the Mooncake
 * conversation trace at 4 replicas (prompts of 12,000 tokens on average, a mean predicted prefill of
 * 480-940 ms) the rule piled at every burst, and capacity was 3.54 req/s against 3.87 with this
 * floor (seeds 1-5; session-affinity 3.80). On the named scenarios the mean stays under the
 * threshold except on {@code rag-long-docs} past its capacity (275-360 ms at 2 to 3 times its
 * rate), whose capacity is unchanged and whose attainment past it rose at 2.5x and 3x. Routers
 * sharing the fleet keep the threshold as configured.
 *
 * <p>The backlog must last {@value #START_MILLIS} ms before the rule starts, and its absence
 * {@value #STOP_MILLIS} ms before it stops (while it runs, each decision still checks every wait).
 * A burst makes every queue long for a moment below capacity too, and piling then concentrated
 * what the fleet could have served: on {@code multi-tenant} (six tenants' prompts, KV for about two
 * per replica) at three times its rate the requests in time fell from 0.93 to 0.76 (seed 1), and the
 * capacity from 114.75 to 110.83 req/s (seeds 1-10). Started only after a lasting backlog, that
 * scenario is unchanged. Once started, the rule outlives the short gaps in which the other
 * replicas drain under the threshold: stopped as soon as a gap had lasted as long as the start
 * takes, it spread the excess again in every gap and kept half its gain (docs/cost-model.md).
 *
 * <p>Once a router alone has piled for {@value #LASTING_MILLIS} ms the overload is lasting, and
 * the excess goes to the one candidate that waits longest, whatever it holds. Each request's
 * deepest holder spreads a lasting pile over every replica that holds a piled prefix: on
 * {@code rag-long-docs} at three times its rate (seed 1) the replica taking most of the excess
 * waited minutes, and a second one, the holder of the documents piled on it, waited 10-17 s for
 * most of the run and kept 32 of its 219 requests in time. One pile from the start costs the
 * bursts: the replica that took a burst's excess then stayed the longest wait, kept taking the
 * excess while the others hovered just over the threshold, and never drained ({@code hot-prefix}
 * at 2.5 times its rate, seed 6: 0.546 of the requests in time against 0.854). The holder's pile
 * drains after a burst because the next burst piles elsewhere; a pile that has run 5 s is an
 * overload, not a burst.
 *
 * <p>An {@code INTERACTIVE} request is never piled: a person waits for its first token, and the
 * replica taking the excess is the worst place for it. On {@code tenant-burst} (a BATCH tenant
 * flooding beside interactive chat, no request controls, 1,500 requests) the interactive tier's
 * TTFT p99 was 1,534 ms without the rule, 790 ms piling every request, and 612 ms piling all but
 * the interactive ones (848 ms with tier backpressure instead, which gives requests budgets).
 * Its decision still counts in whether the fleet is backlogged.
 *
 * <p>A request with a budget ({@code Request.ttftBudget}) is never piled: admission sheds what it
 * predicts late, which holds queues near the budgets. Nor is any request while this router has seen
 * one with a budget in the last {@value #BUDGET_MEMORY_SECONDS} seconds: the queues its admission
 * keeps short are not the backlog this rule is for, and piling the requests without one (a
 * fleet's batch class) onto the longest of them made them late ({@code overload}, whose fifth
 * without a budget lost 0.05-0.07 of all requests in time at 2x-3x its rate).
 *
 * <p><b>With other routers</b> each router sees its own sends exactly and the others' only
 * through reports that may be a second late, and each index holds only its own copies, so the
 * deepest holder and the longest wait differ from router to router, and three routers piling each
 * on its own choice spread the excess again. They agree on a sink instead: the candidate first in
 * rendezvous order for {@link #SINK_KEY}, the same replica in every router without a message. And
 * a replica this router sees waiting the threshold or less may already have had the other routers'
 * sends since its report; every router that sees it drained sends it the next requests, and it is
 * backlogged again before the next report shows it. So once started the pile goes on while every
 * candidate waits over {@value #PEER_OPEN_MILLIS} ms in this router's view: a replica is given
 * requests off the pile only when it is nearly idle. The start needs every wait over the
 * threshold for {@value #PEER_START_MILLIS} ms: started after 300 ms, bursts under capacity started
 * it ({@code multi-tenant} with three routers, seeds 4-6: capacity 88.4 to 84.5 req/s).
 *
 * <p>Measured in docs/cost-model.md ("Past capacity: piling the excess"), with the tables that
 * chose {@value #DEFAULT_MILLIS} ms ("The threshold, again"), and ("With other routers") the one
 * that chose the sink. 250 ms rather than 300 ms: the replicas that wait for KV while a hot
 * prefix's holder takes the excess are predicted shorter than they are, so at 300 ms the fleet
 * looked backlogged only now and then ({@code hot-prefix} at three times its rate).
 *
 * <p>An explanation ({@code Router.explain}) reads this state and leaves it as it was, so
 * explaining a request changes no later decision.
 *
 * <p>Thread-safety: thread-safe, without a lock. The state is the time of the last request with a
 * budget (a volatile written at most once a second; racing writers each store a time within that
 * second) and whether, and since when, the fleet is backlogged (volatiles; racing decisions move
 * the start or the end of a pile by a decision, see {@link #observe}).
 */
final class PastSaturation {
  /** The default threshold in milliseconds (option {@code saturation_ms}; 0 turns the rule off). */
  static final double DEFAULT_MILLIS = 250;
  /** How long the backlog must last before the rule starts. */
  static final long START_MILLIS = 300;
  /**
   * With other routers: a pile continues while every candidate waits over this many milliseconds
   * in this router's view (or the threshold, if lower).
   */
  static final double PEER_OPEN_MILLIS = 30;
  /** With other routers: how long the backlog must last before the rule starts. */
  static final long PEER_START_MILLIS = 1_000;
  /**
   * With other routers, the key whose rendezvous order over the candidates names the replica that
   * takes the excess: the same one for every router, without a message between them.
   */
  static final long SINK_KEY = 0x9E3779B97F4A7C15L;
  /**
   * A router alone: once a pile has run this long the overload is lasting, and the excess goes to
   * the one candidate that waits longest instead of each request's deepest holder.
   */
  static final long LASTING_MILLIS = 5_000;
  /** How long the absence of a backlog must last before the rule stops. */
  static final long STOP_MILLIS = 3_000;
  /** How long a request with a budget keeps the rule off. */
  static final long BUDGET_MEMORY_SECONDS = 60;
  private static final long START_NANOS = START_MILLIS * 1_000_000L;
  private static final long PEER_START_NANOS = PEER_START_MILLIS * 1_000_000L;
  private static final long STOP_NANOS = STOP_MILLIS * 1_000_000L;
  private static final long LASTING_NANOS = LASTING_MILLIS * 1_000_000L;
  private static final long BUDGET_MEMORY_NANOS = BUDGET_MEMORY_SECONDS * 1_000_000_000L;
  /** The time of the last budget is rewritten only once it is this old. */
  private static final long REWRITE_NANOS = 1_000_000_000L;

  private final double thresholdMillis;
  /** {@code nowNanos} of the last request with a budget; meaningful once {@link #seenBudget}. */
  private volatile long lastBudgetNanos;
  private volatile boolean seenBudget;
  /** Whether the last decision saw every candidate backlogged, and since when that has held. */
  private volatile boolean backlogged;
  private volatile long backloggedSinceNanos;
  /**
   * Whether the rule runs: set once {@link #backlogged} has held for {@link #START_MILLIS}, cleared
   * once its absence has held for {@link #STOP_MILLIS}.
   */
  private volatile boolean armed;
  /** When {@link #armed} was last set; meaningful while it is. */
  private volatile long armedSinceNanos;

  /** A rule with {@code thresholdMillis} (0: off; else positive and finite, checked by the caller). */
  PastSaturation(double thresholdMillis) {
    this.thresholdMillis = thresholdMillis;
  }

  /**
   * The index in {@code context.candidates()} of the candidate to pile the request onto, or -1
   * when the rule does not apply: off, the request is {@code INTERACTIVE}, it or a recent one
   * carries a budget, some candidate the policy may choose (fresh ones when {@code onlyFresh})
   * waits at most the threshold (alone, the threshold or the mean request's predicted prefill,
   * whichever is longer; {@link #PEER_OPEN_MILLIS} with {@code peers}), or the rule has not
   * started (every candidate has not waited over the threshold for {@value #START_MILLIS} ms,
   * {@value #PEER_START_MILLIS} ms with {@code peers}). Alone the pick is the deepest holder that
   * waits longest, or once the pile has run {@value #LASTING_MILLIS} ms the candidate that waits
   * longest; with {@code peers}, the sink ({@link #SINK_KEY}).
   */
  int pick(RoutingContext context, boolean onlyFresh, boolean peers) {
    if (thresholdMillis <= 0) {
      return -1;
    }
    long now = context.nowNanos();
    boolean record = !RoutingContexts.isExplanation(context);
    if (context.request().ttftBudget().isPresent()) {
      if (record) {
        noteBudget(now);
      }
      return -1;
    }
    if (seenBudget && now - lastBudgetNanos < BUDGET_MEMORY_NANOS) {
      return -1;
    }
    List<CandidateView> candidates = context.candidates();
    double threshold = peers ? thresholdMillis : aloneThresholdMillis(candidates);
    double openMillis = peers ? Math.min(PEER_OPEN_MILLIS, thresholdMillis) : threshold;
    int pick = -1;
    CandidateView picked = null;
    long pickedRank = 0;
    int longest = -1;
    double longestWait = 0;
    boolean startable = true;
    for (int i = 0, n = candidates.size(); i < n; i++) {
      CandidateView c = candidates.get(i);
      if (onlyFresh && c.telemetryStale()) {
        continue;
      }
      double wait = c.calibratedQueueMillis();
      if (!(wait > openMillis)) {
        pick = -1;
        break;
      }
      startable &= wait > threshold;
      if (longest < 0 || wait > longestWait) {
        longest = i;
        longestWait = wait;
      }
      if (peers) {
        long rank = PrefixHome.rank(SINK_KEY, c.replicaId());
        if (picked == null || rank > pickedRank) {
          pick = i;
          picked = c;
          pickedRank = rank;
        }
      } else if (picked == null || c.matchedBlocks() > picked.matchedBlocks()
          || c.matchedBlocks() == picked.matchedBlocks() && wait > picked.calibratedQueueMillis()) {
        pick = i;
        picked = c;
      }
    }
    if (pick >= 0 && !peers && lasting(now)) {
      pick = longest;
    }
    boolean on = record
        ? observe(pick >= 0 && startable, pick >= 0, now, peers ? PEER_START_NANOS : START_NANOS)
        : armed;
    // a person waits for an interactive request: it counts in the backlog, never in the pile
    return on && context.request().priority() != Priority.INTERACTIVE ? pick : -1;
  }

  /**
   * A router alone's threshold: the configured one, or the mean request's predicted prefill
   * ({@link CandidateView#meanRequestCostMillis()}, the same for every candidate of a decision)
   * when that is longer.
   */
  private double aloneThresholdMillis(List<CandidateView> candidates) {
    double mean = candidates.isEmpty() ? 0 : candidates.get(0).meanRequestCostMillis();
    // NaN fails the comparison: the configured threshold
    return mean > thresholdMillis ? mean : thresholdMillis;
  }

  /**
   * Whether a pile that runs at {@code now} has run for {@value #LASTING_MILLIS} ms: read before
   * this decision's {@link #observe}, so a racing decision may see the state a moment old.
   */
  private boolean lasting(long now) {
    return armed && now - armedSinceNanos >= LASTING_NANOS;
  }

  /**
   * Records at {@code now} whether the rule may start (every candidate over the threshold) and
   * whether it may go on (every candidate over the open threshold); returns whether the rule runs.
   * Racing decisions may each restart the hold or set {@link #armed} from a state a moment old,
   * which moves the start or the end of a pile by one decision.
   */
  private boolean observe(boolean startable, boolean open, long now, long startNanos) {
    boolean on = armed;
    boolean backloggedNow = on ? open : startable;
    if (backloggedNow != backlogged) {
      backloggedSinceNanos = now;
      backlogged = backloggedNow;
    }
    if (on != backloggedNow && now - backloggedSinceNanos >= (on ? STOP_NANOS : startNanos)) {
      if (backloggedNow) {
        armedSinceNanos = now; // before armed: a reader that sees armed sees this start
      }
      armed = backloggedNow; // written only on a change: most decisions only read
      on = backloggedNow;
      // the other test from now on: whether it holds starts now
      backlogged = on ? open : startable;
      backloggedSinceNanos = now;
    }
    return on;
  }

  private void noteBudget(long now) {
    if (!seenBudget || now - lastBudgetNanos >= REWRITE_NANOS) {
      lastBudgetNanos = now;
      seenBudget = true;
    }
  }
}
