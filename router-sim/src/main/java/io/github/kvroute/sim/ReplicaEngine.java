package io.github.kvroute.sim;

import io.github.kvroute.api.OutcomeStatus;
import io.github.kvroute.api.ReplicaRole;
import io.github.kvroute.api.ReplicaState;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated model server: a continuous-batching engine loop, one step at a time while it has work.
 *
 * <h2>Design notes</h2>
 * <b>A step</b> (vLLM's scheduler, simplified):
 * <ol>
 *   <li>admit waiting requests, highest priority class first and FIFO within a class, while the batch
 *       has room and their KV blocks fit ({@link KvCache#admit}); the head of the queue blocks the
 *       rest. A request needing an adapter that is not resident stalls the step for the load time;
 *   <li>every decoding sequence needs KV for its next token; when no block can be freed, the most
 *       recently admitted running sequence is preempted (recompute preemption: its blocks are released
 *       and it goes back to the front of its queue, to prefill its prompt and generated tokens again);
 *   <li>prefilling sequences take chunks of their remaining prompt, in admission order, up to
 *       {@link ReplicaModel#maxPrefillTokensPerStep()} in total;
 *   <li>the step lasts {@link ReplicaModel#stepMillis}: {@code decodeBase + perSequence x participants
 *       + overhead x prefillsStarting + perToken x prefillTokens + attention x pairs
 *       + kvRead x contextHeld (+ adapter loads)}, where a chunk of {@code c} prompt tokens after
 *       {@code p} computed ones attends {@code c p + c (c + 1) / 2} pairs and every participant reads
 *       the KV it holds ({@code p} for a chunk, prompt plus output so far minus one for a decoder);
 *   <li>at its end every decoding sequence emits a token, and a sequence whose prefill completed emits
 *       its first token, registering its prompt's blocks in the prefix cache. A sequence that has
 *       emitted its output length finishes and releases its blocks.
 * </ol>
 * A lone 1,000-token prompt on an idle replica with the defaults: one step of
 * {@code 8 + 0.06 x 1 + 20 + 0.035 x 1,000 = 63.06 ms}, then its first token.
 *
 * <p><b>Decode runs.</b> A step that only decodes, with nothing waiting, is followed by identical
 * steps until a sequence finishes or needs a new KV block, or a request arrives: nothing else can
 * change the batch. Such a run of {@code k} steps is one event ending after {@code k} step durations
 * (the same rounded duration each: the mean of the run's steps, whose KV reads grow by one token per
 * decoder a step, so the run lasts what its single steps would in total). An
 * arrival during the run cuts it at the end of the step in progress; a report during the run counts
 * the steps already over. Crashes and the time limit drop the run like any step.
 *
 * <p><b>Restart.</b> Every sequence fails (connection failed, retryable), the cache and adapters are
 * dropped, the epoch advances and the replica reports STARTING until its cold start is over. Requests
 * that reach it meanwhile, or that were routed to its previous epoch, fail the same way.
 *
 * <p>Not thread-safe: one simulation, one thread.
 */
final class ReplicaEngine {
  final int index;
  final String id;
  final ReplicaModel model;
  /** PREFILL replicas hand every prompt's KV on; DECODE replicas receive it; MIXED do both. */
  final ReplicaRole role;
  final KvCache kv;
  final AdapterSlots adapters;
  final EngineCounters counters = new EngineCounters();
  private final KvLog log;
  private final ReplicaHost host;
  private final int blockSize;

  private final WaitingQueue waiting = new WaitingQueue();
  private final ArrayList<Sequence> running = new ArrayList<>();

  private long epoch = 1;
  private ReplicaState state = ReplicaState.READY;
  /** Parked: a standby replica not yet started. */
  private boolean parked;
  private boolean busy;
  private long stepGeneration;
  /** The step or decode run in progress: start, duration of one step, number of steps. */
  private long runStart;
  private long runStepNanos;
  private int runSteps;

  private long requestsReceived;
  private long preemptions;
  private long steps;
  private long busyNanos;
  private double prefillMillis;
  private long prefillTokens;
  private long generatedTokens;

  ReplicaEngine(int index, ReplicaModel model, int blockSize, BlockRegistry registry,
      boolean kvEvents, ReplicaHost host) {
    this(index, model, ReplicaRole.MIXED, blockSize, registry, kvEvents, host);
  }

  ReplicaEngine(int index, ReplicaModel model, ReplicaRole role, int blockSize,
      BlockRegistry registry, boolean kvEvents, ReplicaHost host) {
    this.index = index;
    this.role = role;
    this.id = "replica-" + index;
    this.model = model;
    this.blockSize = blockSize;
    this.host = host;
    this.log = kvEvents ? new KvLog(id) : null;
    this.kv = new KvCache(index, registry, blockSize, model.kvCapacityTokens(), model.kvWatermark(),
        log);
    kv.epoch(epoch);
    this.adapters = new AdapterSlots(model.maxResidentAdapters());
  }

  /** A routed attempt reaches this replica now. */
  void receive(Sequence s) {
    if (s.cancelled) {
      return; // the host cancelled it on its way here
    }
    requestsReceived++;
    if (state != ReplicaState.READY || s.routedEpoch != epoch) {
      host.failed(this, s, OutcomeStatus.CONNECTION_FAILED,
          state != ReplicaState.READY ? "replica starting" : "replica restarted", true);
      return;
    }
    if (!kv.fits(s.promptTokens, s.outputTokens)) {
      host.failed(this, s, OutcomeStatus.CLIENT_ERROR, "prompt and output exceed the KV capacity",
          false);
      return;
    }
    s.enqueuedAtNanos = host.now();
    enqueue(s, false);
    if (busy && runSteps > 1) {
      cutRun(host.now());
    }
    wake();
  }

  /** Ends the decode run in progress at the end of the step in progress at {@code now}. */
  private void cutRun(long now) {
    long elapsed = now - runStart;
    int steps = (int) Math.max(1, (elapsed + runStepNanos - 1) / runStepNanos);
    if (steps < runSteps) {
      this.steps -= runSteps - steps;
      busyNanos -= (runSteps - steps) * runStepNanos;
      runSteps = steps;
      long generation = ++stepGeneration;
      host.schedule(runStart + steps * runStepNanos, () -> endStep(generation));
    }
  }

  private void enqueue(Sequence s, boolean front) {
    int hold = s.tokensToHold();
    s.estimatedUncached = hold - kv.cachedTokens(kv.leadingHits(s.prompt), s.promptTokens, hold);
    waiting.add(s, front);
  }

  /** Starts a step now (as an event, after whatever else happens at this instant) if idle. */
  private void wake() {
    if (!busy && state == ReplicaState.READY) {
      busy = true;
      long generation = stepGeneration;
      host.schedule(host.now(), () -> {
        if (generation == stepGeneration) {
          startStep();
        }
      });
    }
  }

  private void startStep() {
    busy = false;
    if (state != ReplicaState.READY) {
      return;
    }
    double stallMillis = admit(host.now());
    growDecoders();
    int participants = 0;
    int starts = 0;
    long chunked = 0;
    double pairs = 0;
    long context = 0;
    int budget = model.maxPrefillTokensPerStep();
    for (int i = 0, n = running.size(); i < n; i++) {
      Sequence s = running.get(i);
      if (s.prefillRemaining > 0) {
        if (budget == 0) {
          continue;
        }
        int c = Math.min(s.prefillRemaining, budget);
        int before = s.tokensToHold() - s.prefillRemaining;
        s.chunk = c;
        budget -= c;
        chunked += c;
        pairs += ReplicaModel.attentionPairs(before, c);
        context += before;
        participants++;
        if (!s.prefillStarted) {
          s.prefillStarted = true;
          starts++;
        }
      } else {
        s.decoding = true;
        context += s.tokensToHold() - 1;
        participants++;
      }
    }
    if (participants == 0) {
      if (!waiting.isEmpty()) {
        throw new IllegalStateException(id + ": " + waiting.size()
            + " waiting requests cannot be admitted on an idle replica");
      }
      return;
    }
    int run = starts == 0 && chunked == 0 && stallMillis == 0 && waiting.isEmpty()
        ? decodeRunLength() : 1;
    // a run's steps all last its mean step: each decoder's context grows by one token a step
    double meanContext = context + participants * (run - 1) / 2.0;
    double ms = model.stepMillis(participants, starts, chunked, pairs, 0)
        + model.kvReadMillisPerToken() * meanContext + stallMillis;
    long generation = ++stepGeneration;
    long duration = Math.max(1, Math.round(ms * 1e6));
    busy = true;
    runStart = host.now();
    runStepNanos = duration;
    runSteps = run;
    steps += run;
    busyNanos += duration * run;
    prefillMillis += model.prefillOverheadMillis() * starts + model.prefillMillisPerToken() * chunked
        + model.attentionMillisPerTokenPair() * pairs + stallMillis;
    host.schedule(runStart + duration * run, () -> endStep(generation));
  }

  /**
   * Identical decode steps the batch can take from now: until the first sequence emits its last token
   * or needs a KV block it does not hold (the first step's block is already there).
   */
  private int decodeRunLength() {
    long run = Long.MAX_VALUE;
    for (int i = 0, n = running.size(); i < n; i++) {
      Sequence s = running.get(i);
      run = Math.min(run, s.outputTokens - s.generated);
      run = Math.min(run, (long) s.blocksHeld() * blockSize - s.tokensToHold() + 1);
    }
    return (int) Math.max(1, Math.min(run, Integer.MAX_VALUE));
  }

  private double admit(long now) {
    double stall = 0;
    while (!waiting.isEmpty() && running.size() < model.maxRunningSequences()) {
      Sequence s = waiting.peek();
      String adapter = s.request.request.adapter().orElse(null);
      if (adapter != null && !adapters.canLoad(adapter)) {
        break;
      }
      int hits = kv.admit(s);
      if (hits < 0) {
        break;
      }
      waiting.remove(s);
      if (adapter != null) {
        if (!adapters.isResident(adapter)) {
          adapters.load(adapter);
          stall += model.adapterLoadMillis();
        }
        adapters.acquire(adapter);
      }
      startPass(s, hits, now);
      running.add(s);
    }
    counters.endAdmissions();
    return stall;
  }

  private void startPass(Sequence s, int hits, long now) {
    int hold = s.tokensToHold();
    // KV that arrived by transfer is held, not computed (until a preemption drops it)
    int cached = s.kvArrived ? hold : kv.cachedTokens(hits, s.promptTokens, hold);
    counters.admitted(hold, cached);
    s.prefillRemaining = hold - cached;
    s.prefillStarted = false;
    s.running = true;
    boolean first = s.firstAdmittedAtNanos < 0;
    if (first) {
      s.firstAdmittedAtNanos = now;
      s.firstCachedTokens = cached;
    }
    host.prefillStarted(s, cached, kv.startPrefill(s, cached), first);
  }

  /** Gives every decoding sequence KV for its next token, preempting from the back when full. */
  private void growDecoders() {
    for (int i = 0; i < running.size(); i++) {
      Sequence s = running.get(i);
      if (s.prefillRemaining > 0) {
        continue;
      }
      int need = KvCache.blocksFor(s.tokensToHold(), blockSize);
      while (s.blocksHeld() < need && !kv.grow(s)) {
        Sequence victim = running.get(running.size() - 1);
        preempt(victim);
        if (victim == s) {
          break;
        }
      }
    }
  }

  private void preempt(Sequence v) {
    running.remove(running.size() - 1);
    v.kvArrived = false; // recompute preemption: the transferred KV is gone too
    release(v);
    v.prefillRemaining = 0;
    v.prefillStarted = false;
    enqueue(v, true);
    preemptions++;
    counters.preemptions++;
  }

  private void release(Sequence s) {
    kv.release(s);
    s.running = false;
    s.chunk = 0;
    s.decoding = false;
    s.request.request.adapter().ifPresent(adapters::release);
  }

  private void endStep(long generation) {
    if (generation != stepGeneration) {
      return;
    }
    int run = runSteps;
    long work = 0;
    int kept = 0;
    List<Sequence> finished = null;
    List<Sequence> handedOff = null;
    for (int i = 0, n = running.size(); i < n; i++) {
      Sequence s = running.get(i);
      boolean emitted = false;
      if (s.chunk > 0) {
        s.prefillRemaining -= s.chunk;
        work += s.chunk;
        prefillTokens += s.chunk;
        s.chunk = 0;
        if (s.prefillRemaining == 0) {
          kv.register(s);
          emitted = true;
          if (s.handsOff()) {
            // the prefill half is done: its KV leaves for the decode replica
            if (handedOff == null) {
              handedOff = new ArrayList<>();
            }
            handedOff.add(s);
            continue;
          }
        }
      } else if (s.decoding) {
        s.decoding = false;
        emitted = true;
      }
      if (emitted) {
        s.generated += run;
        work += run;
        generatedTokens += run;
        counters.generatedTokens += run;
        if (s.firstTokenAtNanos < 0) {
          s.firstTokenAtNanos = host.now();
          counters.firstToken(s, host.now());
          host.firstToken(this, s);
          if (s.cancelled) {
            // a hedge of the same request answered first: the host cancels this attempt
            release(s);
            continue;
          }
        }
        if (s.generated >= s.outputTokens) {
          release(s);
          if (finished == null) {
            finished = new ArrayList<>();
          }
          finished.add(s);
          continue;
        }
      }
      running.set(kept++, s);
    }
    running.subList(kept, running.size()).clear();
    if (run == 1) {
      host.work(this, work, host.now());
    } else {
      for (int m = 1; m <= run; m++) {
        host.work(this, work / run, runStart + m * runStepNanos);
      }
    }
    if (handedOff != null) {
      for (Sequence s : handedOff) {
        release(s);
      }
    }
    flushKvEvents();
    if (handedOff != null) {
      for (Sequence s : handedOff) {
        host.prefilled(this, s);
      }
    }
    if (finished != null) {
      for (Sequence s : finished) {
        counters.finished(s);
        host.finished(this, s);
      }
    }
    busy = false;
    startStep();
  }

  private void flushKvEvents() {
    if (log != null) {
      var events = log.drain();
      if (!events.isEmpty()) {
        host.kvEvents(this, events);
      }
    }
  }

  /** Parks this (new, idle) replica: it reports {@code STARTING} and serves nothing until started. */
  void park() {
    parked = true;
    state = ReplicaState.STARTING;
  }

  boolean parked() {
    return parked;
  }

  /** Starts a parked replica: it serves after the engine's cold start. */
  void start() {
    if (!parked) {
      return;
    }
    parked = false;
    long startedEpoch = epoch;
    host.schedule(host.now() + model.coldStartMillis() * 1_000_000L, () -> {
      if (epoch == startedEpoch) {
        state = ReplicaState.READY;
        wake();
      }
    });
  }

  /** A crash: every sequence fails (retryable), the cache is lost, a cold start begins. */
  void restart() {
    List<Sequence> lost = dropAll();
    epoch++;
    kv.epoch(epoch);
    kv.clear();
    adapters.clear();
    counters.reset();
    if (log != null) {
      log.cleared(epoch);
      flushKvEvents();
    }
    state = ReplicaState.STARTING;
    for (Sequence s : lost) {
      host.failed(this, s, OutcomeStatus.CONNECTION_FAILED, "replica crashed", true);
    }
    long startedEpoch = epoch;
    host.schedule(host.now() + model.coldStartMillis() * 1_000_000L, () -> {
      if (epoch == startedEpoch) {
        state = ReplicaState.READY;
        wake();
      }
    });
  }

  /** Ends every sequence here as failed with {@code status}, without retry (the run is over). */
  void abortAll(OutcomeStatus status, String reason) {
    for (Sequence s : dropAll()) {
      host.failed(this, s, status, reason, false);
    }
  }

  private List<Sequence> dropAll() {
    List<Sequence> all = new ArrayList<>(running);
    for (Sequence s : running) {
      release(s);
    }
    running.clear();
    waiting.drainTo(all);
    stepGeneration++;
    busy = false;
    flushKvEvents();
    return all;
  }

  long epoch() {
    return epoch;
  }

  ReplicaState state() {
    return state;
  }

  int waitingCount() {
    return waiting.size();
  }

  int runningCount() {
    return running.size();
  }

  /** Prompt tokens still to prefill: waiting requests' uncached remainder plus prefills in progress. */
  long queuedPrefillTokens() {
    long sum = waiting.uncachedTokens();
    for (int i = 0, n = running.size(); i < n; i++) {
      sum += running.get(i).prefillRemaining;
    }
    return sum;
  }

  /**
   * The true duration of a decode step of the running batch now (at least one sequence), KV reads of
   * the context it holds included: what an engine patched to export it would report.
   */
  double decodeStepMillis() {
    long context = 0;
    for (int i = 0, n = running.size(); i < n; i++) {
      context += running.get(i).tokensToHold();
    }
    return model.decodeStepMillis(Math.max(1, running.size()), context);
  }

  /** Output tokens the running sequences have still to generate (steps of a run already over count). */
  long outstandingDecodeTokens() {
    long sum = 0;
    for (int i = 0, n = running.size(); i < n; i++) {
      Sequence s = running.get(i);
      sum += s.outputTokens - s.generated;
    }
    if (busy && runSteps > 1) {
      sum -= Math.min(runSteps - 1, (host.now() - runStart) / runStepNanos) * running.size();
    }
    return sum;
  }

  /** Tokens generated in this process (vLLM's counter), steps of a run already over included. */
  long generationTokensTotal() {
    long sum = counters.generatedTokens;
    if (busy && runSteps > 1) {
      sum += Math.min(runSteps - 1, (host.now() - runStart) / runStepNanos) * running.size();
    }
    return sum;
  }

  long requestsReceived() {
    return requestsReceived;
  }

  long preemptions() {
    return preemptions;
  }

  long steps() {
    return steps;
  }

  /** Virtual time spent in steps (a step cut short by a crash counts whole). */
  long busyNanos() {
    return busyNanos;
  }

  /** Virtual time spent on prefill (overheads, prompt tokens, adapter loads) within steps. */
  long prefillNanos() {
    return Math.round(prefillMillis * 1e6);
  }

  long prefillTokens() {
    return prefillTokens;
  }

  long generatedTokens() {
    return generatedTokens;
  }
}
