package io.github.kvroute.sim;

import io.github.kvroute.api.CacheNamespace;
import java.util.Iterator;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * Multi-turn chat: sessions start as a Poisson process; each has a few turns separated by think time,
 * and turn {@code k}'s prompt is the app's system prompt plus the whole conversation so far (every
 * earlier user message and reply) plus the new user message, so context grows turn by turn and each
 * turn shares its predecessor's whole prompt as a prefix.
 *
 * <h2>Design notes</h2>
 * Turns of overlapping sessions interleave, so the stream is a merge: a priority queue of each live
 * session's next turn, fed with new sessions as their start times come up. A turn's arrival is the
 * previous turn's arrival plus a think time ({@code minThink} plus an exponential), which stands in for
 * reading the reply and typing (open loop: it does not wait for the simulated reply).
 *
 * <p>Immutable and thread-safe.
 */
final class ChatWorkload implements Workload {
  private static final long SYSTEM = 11;
  private static final long USER = 12;
  private static final long REPLY = 13;

  private final double sessionsPerSecond;
  private final int apps;
  private final int systemTokens;
  private final int minTurns;
  private final int maxTurns;
  private final double userMedian;
  private final double replyMedian;
  private final double minThinkSeconds;
  private final double meanThinkSeconds;

  ChatWorkload(double sessionsPerSecond, int apps, int systemTokens, int minTurns, int maxTurns,
      double userMedian, double replyMedian, double minThinkSeconds, double meanThinkSeconds) {
    this.sessionsPerSecond = sessionsPerSecond;
    this.apps = apps;
    this.systemTokens = systemTokens;
    this.minTurns = minTurns;
    this.maxTurns = maxTurns;
    this.userMedian = userMedian;
    this.replyMedian = replyMedian;
    this.minThinkSeconds = minThinkSeconds;
    this.meanThinkSeconds = meanThinkSeconds;
  }

  private static final class Session {
    final long id;
    final int app;
    final int[] user;
    final int[] reply;
    int turn;
    long at;
    long seq;

    Session(long id, int app, int turns) {
      this.id = id;
      this.app = app;
      this.user = new int[turns];
      this.reply = new int[turns];
    }
  }

  @Override
  public Iterator<SimRequest> requests(long seed, int count, double rateScale, int blockSizeTokens) {
    WorkloadArgs.check(count, rateScale, blockSizeTokens);
    SplittableRandom root = new SplittableRandom(seed);
    LongSupplier starts = ArrivalProcess.poisson(sessionsPerSecond).start(root.split(), rateScale);
    SplittableRandom r = root.split();
    PromptBuilder prompts = new PromptBuilder(blockSizeTokens, CacheNamespace.of(SyntheticWorkload.MODEL));
    PriorityQueue<Session> live = new PriorityQueue<>(
        (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    return new Iterator<>() {
      private int produced;
      private long sessions;
      private long seq;
      private long nextStart = starts.getAsLong();

      @Override
      public boolean hasNext() {
        return produced < count;
      }

      @Override
      public SimRequest next() {
        if (produced >= count) {
          throw new NoSuchElementException();
        }
        while (live.isEmpty() || nextStart <= live.peek().at) {
          Session s = new Session(sessions++, r.nextInt(apps),
              Distributions.uniform(r, minTurns, maxTurns));
          for (int k = 0; k < s.user.length; k++) {
            s.user[k] = Distributions.logNormal(r, userMedian, 0.8, 8, 2_000);
            s.reply[k] = Distributions.logNormal(r, replyMedian, 0.8, 8, 2_000);
          }
          s.at = nextStart;
          s.seq = seq++;
          live.add(s);
          nextStart = starts.getAsLong();
        }
        Session s = live.poll();
        prompts.reset().add(Shapes.key(SYSTEM, s.app), systemTokens);
        for (int k = 0; k < s.turn; k++) {
          prompts.add(turnKey(USER, s.id, k), s.user[k]).add(turnKey(REPLY, s.id, k), s.reply[k]);
        }
        prompts.add(turnKey(USER, s.id, s.turn), s.user[s.turn]);
        SimRequest req = SimRequest.newBuilder().id("s" + s.id + "-t" + s.turn).arrivalNanos(s.at)
            .model(SyntheticWorkload.MODEL).prompt(prompts.build()).outputTokens(s.reply[s.turn])
            .sessionId("s" + s.id).tenant("app-" + s.app).build();
        if (++s.turn < s.user.length) {
          double think = minThinkSeconds + Distributions.exponential(r, meanThinkSeconds);
          s.at += (long) (think * 1e9 / rateScale);
          s.seq = seq++;
          live.add(s);
        }
        produced++;
        return req;
      }
    };
  }

  private static long turnKey(long tag, long session, int turn) {
    return PromptBuilder.mix(Shapes.key(tag, session), turn);
  }

  @Override
  public String description() {
    return String.format(Locale.ROOT,
        "chat sessions (Poisson %.1f/s) of %d-%d turns, %d apps with %d-token system prompts,"
            + " user ~%.0f and replies ~%.0f tokens, think %.0f s + exp(%.0f s)", sessionsPerSecond,
        minTurns, maxTurns, apps, systemTokens, userMedian, replyMedian, minThinkSeconds,
        meanThinkSeconds);
  }
}
