package io.github.kvroute.examples.emulator;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.telemetry.vllm.VllmKvEvent;
import io.github.kvroute.telemetry.vllm.VllmKvEventBatch;
import io.github.kvroute.telemetry.vllm.VllmKvEventPublisher;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One emulated vLLM engine: a continuous-batching scheduler over a prefix cache, in scaled-down wall
 * time (see {@link EngineModel}).
 *
 * <h2>Design notes</h2>
 * One scheduler thread runs steps, as vLLM's engine core does. A step admits waiting requests into
 * the running batch, first come first served (up to {@code maxRunning}, and only while their blocks
 * fit the cache: {@link KvBlocks} reuses each prompt's leading cached blocks and evicts others to make
 * room), then sleeps for the step's work: prefill of the new prompts' uncached tokens plus one decode
 * step when the batch holds any sequence. After the step, each newly admitted sequence has its first
 * token and its prompt's blocks are cached; every other running sequence has one more token. Sequences that reach their token limit leave the
 * batch. Output is handed to each request's {@link TokenSink} outside the lock.
 *
 * <p>Counters follow vLLM's metrics: prompt tokens are counted at the first token, prefix-cache queries
 * and hits in tokens at admission, TTFT and queue time summed per request.
 *
 * <p>Thread-safety: thread-safe. Submissions, metrics reads, pause/resume and close may come from any
 * thread; state is guarded by the engine's lock.
 */
final class EmulatedEngine implements AutoCloseable {
  private final EngineModel model;
  /** Where stored and evicted blocks are published; null when the engine publishes no KV events. */
  private final VllmKvEventPublisher kvEvents;
  private final Object lock = new Object();
  private final Thread scheduler;

  @GuardedBy("lock")
  private final ArrayDeque<Job> waiting = new ArrayDeque<>();
  @GuardedBy("lock")
  private final List<Job> running = new ArrayList<>();
  @GuardedBy("lock")
  private final KvBlocks kv;
  @GuardedBy("lock")
  private final EngineCounters counters = new EngineCounters();
  @GuardedBy("lock")
  private boolean paused;
  @GuardedBy("lock")
  private boolean closed;

  /** @param kvEvents where to publish KV events, or null for none */
  EmulatedEngine(EngineModel model, String name, VllmKvEventPublisher kvEvents) {
    this.model = model;
    this.kvEvents = kvEvents;
    this.kv = new KvBlocks(model.kvCacheBlocks(), model.blockSizeTokens());
    this.scheduler = new Thread(this::run, name + "-scheduler");
    this.scheduler.setDaemon(true);
    this.scheduler.start();
  }

  EngineModel model() {
    return model;
  }

  /**
   * Queues a request of {@code prompt} generating {@code maxTokens} tokens into {@code sink}.
   *
   * @return null when queued, else why it was refused: the engine is closed, its queue is full, or
   *     the request can never fit its cache
   */
  String submit(String prompt, int maxTokens, TokenSink sink) {
    checkArgument(maxTokens >= 1, "maxTokens: %s (expected: >= 1)", maxTokens);
    int promptTokens = EmulatedTokenizer.tokenCount(prompt, model.charsPerToken());
    long blocks = blocksFor((long) promptTokens + maxTokens);
    if (blocks > model.kvCacheBlocks()) {
      return "prompt of " + promptTokens + " tokens plus max_tokens " + maxTokens
          + " exceeds the KV cache of " + (long) model.kvCacheBlocks() * model.blockSizeTokens()
          + " tokens";
    }
    Job job = new Job(prompt, EmulatedTokenizer.blockHashes(prompt, model), promptTokens, maxTokens,
        (int) blocks, sink, System.nanoTime());
    synchronized (lock) {
      if (closed) {
        return "engine stopped";
      }
      if (waiting.size() >= model.maxWaiting()) {
        return "waiting queue full (" + model.maxWaiting() + " requests)";
      }
      waiting.add(job);
      lock.notifyAll();
    }
    return null;
  }

  /** Cancels a request the client no longer waits for; it frees its batch slot at the next step. */
  void cancel(TokenSink sink) {
    synchronized (lock) {
      waiting.removeIf(j -> j.sink == sink);
      for (Job j : running) {
        if (j.sink == sink) {
          j.cancelled = true;
        }
      }
    }
  }

  /** Stalls the scheduler (a hung engine): requests queue, nothing runs until {@link #resume}. */
  void pause() {
    synchronized (lock) {
      paused = true;
    }
  }

  void resume() {
    synchronized (lock) {
      paused = false;
      lock.notifyAll();
    }
  }

  /** The engine's state now, for {@code /metrics}. */
  MetricsReading read() {
    synchronized (lock) {
      return new MetricsReading(running.size(), waiting.size(),
          (double) kv.usedBlocks() / model.kvCacheBlocks(), counters.copy());
    }
  }

  /** Stops the scheduler; every request not finished is aborted. Idempotent. */
  @Override
  public void close() {
    List<Job> dropped = new ArrayList<>();
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      dropped.addAll(running);
      dropped.addAll(waiting);
      running.clear();
      waiting.clear();
      kv.clear();
      lock.notifyAll();
    }
    scheduler.interrupt();
    for (Job j : dropped) {
      j.sink.aborted("engine stopped");
    }
  }

  private void run() {
    List<Runnable> output = new ArrayList<>();
    List<VllmKvEvent> events = new ArrayList<>();
    while (true) {
      long stepNanos;
      synchronized (lock) {
        while (!closed && (paused || (running.isEmpty() && waiting.isEmpty()))) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            if (closed) {
              return;
            }
          }
        }
        if (closed) {
          return;
        }
        stepNanos = planStep(System.nanoTime(), events);
      }
      sleep(stepNanos);
      synchronized (lock) {
        if (closed) {
          return;
        }
        finishStep(System.nanoTime(), output, events);
      }
      // before the tokens: a client never sees an answer whose blocks a subscriber could not know yet
      publish(events);
      events.clear();
      for (Runnable r : output) {
        r.run();
      }
      output.clear();
    }
  }

  /** Admits what fits (saying what it evicted) and returns the step's duration. */
  @GuardedBy("lock")
  private long planStep(long now, List<VllmKvEvent> events) {
    long prefillTokens = 0;
    List<Long> evicted = new ArrayList<>();
    while (!waiting.isEmpty() && running.size() < model.maxRunning()) {
      Job j = waiting.peek();
      int reused = kv.admit(j.hashes, j.promptTokens, j.blocks, evicted);
      if (reused < 0) {
        break; // first come, first served: the head waits for blocks to be freed
      }
      waiting.poll();
      if (!evicted.isEmpty() && kvEvents != null) {
        events.add(VllmKvEvent.removed(KvBlocks.toArray(evicted)));
      }
      evicted.clear();
      j.pinnedBlocks = reused;
      j.privateBlocks = j.blocks - reused;
      j.cachedTokens = reused * model.blockSizeTokens();
      j.prefilling = true;
      j.scheduledNanos = now;
      counters.prefixCacheQueries += j.promptTokens;
      counters.prefixCacheHits += j.cachedTokens;
      prefillTokens += j.promptTokens - j.cachedTokens;
      running.add(j);
    }
    return prefillTokens * model.prefillNanosPerToken()
        + (running.isEmpty() ? 0 : model.decodeStepNanos());
  }

  /** Hands out the step's tokens, caches prefilled prompts and retires finished sequences. */
  @GuardedBy("lock")
  private void finishStep(long now, List<Runnable> output, List<VllmKvEvent> events) {
    for (Iterator<Job> it = running.iterator(); it.hasNext(); ) {
      Job j = it.next();
      if (j.cancelled) {
        it.remove();
        kv.release(j.hashes, j.pinnedBlocks, j.privateBlocks);
        continue;
      }
      if (j.prefilling) {
        j.prefilling = false;
        store(j, events);
        counters.promptTokens += j.promptTokens;
        counters.ttftNanos += now - j.arrivalNanos;
        counters.queueNanos += j.scheduledNanos - j.arrivalNanos;
        counters.prefillNanos += now - j.scheduledNanos;
        counters.firstTokens++;
      }
      int index = j.generated++;
      counters.generationTokens++;
      TokenSink sink = j.sink;
      String text = tokenText(j, index);
      output.add(() -> sink.token(index, text));
      if (j.generated == j.maxTokens) {
        it.remove();
        kv.release(j.hashes, j.pinnedBlocks, j.privateBlocks);
        counters.finished++;
        TokenSink.Usage usage = new TokenSink.Usage(j.promptTokens, j.cachedTokens, j.generated);
        output.add(() -> sink.finished(usage));
      }
    }
  }

  /** Caches {@code j}'s prefilled prompt blocks and, with KV events on, says which are new. */
  @GuardedBy("lock")
  private void store(Job j, List<VllmKvEvent> events) {
    int firstNew = kv.register(j.hashes, j.pinnedBlocks);
    j.privateBlocks -= j.hashes.length - j.pinnedBlocks;
    j.pinnedBlocks = j.hashes.length;
    if (kvEvents != null && firstNew < j.hashes.length) {
      int block = model.blockSizeTokens();
      events.add(VllmKvEvent.stored(
          Arrays.copyOfRange(j.hashes, firstNew, j.hashes.length),
          firstNew == 0 ? OptionalLong.empty() : OptionalLong.of(j.hashes[firstNew - 1]),
          EmulatedTokenizer.tokenIds(j.prompt, model.charsPerToken(), firstNew * block,
              j.hashes.length * block),
          block));
    }
  }

  /** Publishes one step's events as one batch, as vLLM's engine core does; nothing when none. */
  private void publish(List<VllmKvEvent> events) {
    if (kvEvents == null || events.isEmpty()) {
      return;
    }
    try {
      kvEvents.publish(VllmKvEventBatch.of(System.currentTimeMillis() / 1000.0, List.copyOf(events)));
    } catch (IllegalStateException e) {
      // the replica is being killed and closed its publisher first: nobody listens any more
    }
  }

  /** Deterministic output: the same prompt generates the same text on every replica. */
  private static String tokenText(Job j, int index) {
    long seed = j.hashes.length == 0 ? j.promptTokens : j.hashes[j.hashes.length - 1];
    return String.format(Locale.ROOT, " w%x", (seed + index * 0x9E3779B97F4A7C15L) >>> 52);
  }

  private long blocksFor(long tokens) {
    return (tokens + model.blockSizeTokens() - 1) / model.blockSizeTokens();
  }

  private static void sleep(long nanos) {
    long deadline = System.nanoTime() + nanos;
    for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
      LockSupport.parkNanos(left);
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
    }
  }

  /** One request in the engine. Guarded by the engine's lock once submitted. */
  private static final class Job {
    final String prompt;
    final long[] hashes;
    final int promptTokens;
    final int maxTokens;
    final int blocks;
    final TokenSink sink;
    final long arrivalNanos;
    long scheduledNanos;
    int cachedTokens;
    /** Leading prompt blocks this sequence pins in the cache. */
    int pinnedBlocks;
    /** Blocks private to this sequence. */
    int privateBlocks;
    int generated;
    boolean prefilling;
    boolean cancelled;

    Job(String prompt, long[] hashes, int promptTokens, int maxTokens, int blocks, TokenSink sink,
        long arrivalNanos) {
      this.prompt = prompt;
      this.hashes = hashes;
      this.promptTokens = promptTokens;
      this.maxTokens = maxTokens;
      this.blocks = blocks;
      this.sink = sink;
      this.arrivalNanos = arrivalNanos;
    }
  }

  /** vLLM's cumulative counters. Not thread-safe: guarded by the engine's lock. */
  static final class EngineCounters {
    long promptTokens;
    long generationTokens;
    long prefixCacheQueries;
    long prefixCacheHits;
    long finished;
    long firstTokens;
    long ttftNanos;
    long queueNanos;
    long prefillNanos;

    EngineCounters copy() {
      EngineCounters c = new EngineCounters();
      c.promptTokens = promptTokens;
      c.generationTokens = generationTokens;
      c.prefixCacheQueries = prefixCacheQueries;
      c.prefixCacheHits = prefixCacheHits;
      c.finished = finished;
      c.firstTokens = firstTokens;
      c.ttftNanos = ttftNanos;
      c.queueNanos = queueNanos;
      c.prefillNanos = prefillNanos;
      return c;
    }
  }

  /**
   * One reading of the engine for {@code /metrics}.
   *
   * @param kvUsage fraction of KV blocks held by running sequences ({@code vllm:kv_cache_usage_perc}):
   *     evictable cached blocks count as free
   */
  record MetricsReading(int running, int waiting, double kvUsage, EngineCounters counters) {}
}
