package io.github.kvroute.telemetry.vllm;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.github.kvroute.api.TelemetrySink;
import io.github.kvroute.api.TelemetrySource;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Consumes vLLM's KV-event streams (ZeroMQ PUB/SUB, msgpack batches) and feeds the events to a
 * {@link TelemetrySink} (the router), numbered so the router detects lost events.
 *
 * <pre>{@code
 * VllmKvEventSubscriber events = VllmKvEventSubscriber.builder()
 *     .stream(KvEventStream.of("r0", "tcp://10.0.0.5:5557", CacheNamespace.of("llama-3-8b"))
 *         .withReplay("tcp://10.0.0.5:5558"))
 *     .epochs(poller::epoch)           // the epoch the replica's snapshots carry
 *     .build();
 * Router router = Router.newBuilder().telemetrySources(List.of(poller, events)).build();
 * }</pre>
 *
 * <p><b>Wire format</b> (vLLM {@code vllm/distributed/kv_events.py}, {@code ZmqEventPublisher}): each
 * message has three frames: the topic, the batch's sequence number as 8 bytes big-endian, and the
 * msgpack payload ({@link VllmKvEvents}). Sequence numbers count batches from 0 per engine process. The
 * optional replay socket is a ROUTER: a request carrying a start number (8 bytes big-endian) is
 * answered with every buffered batch from that number, as {@code (sequence, payload)} frame pairs,
 * ended by sequence {@code -1} with an empty payload.
 *
 * <p><b>Gaps.</b> When a live batch's number jumps, the subscriber asks the replay socket (when the
 * stream has one) for the missing batches, applies them in order, then the live one: the router never
 * sees the loss. Without a replay socket, or when replay cannot fill the gap within
 * {@link Builder#replayTimeout}, the next event skips a sequence number and the router marks the
 * replica's index degraded ({@link StreamSequencer} has the numbering rules). A stream's first live
 * batch counts as a jump from 0: the subscriber asks for every earlier batch the publisher still
 * buffers (vLLM keeps 10,000), so what the engine published before the subscription connected, or
 * before it started (ZeroMQ delivers nothing sent before a SUB socket has joined), still reaches the
 * router. Malformed messages are
 * skipped and counted ({@link KvStreamStatus}); an exception thrown by the sink is contained.
 *
 * <p><b>Threads.</b> {@link #subscribe} starts one daemon thread that owns every socket; closing the
 * returned handle (or {@link #close}) stops it and closes the sockets (linger 0). One subscription at
 * a time.
 *
 * <p><b>Limits.</b> One stream per replica: a data-parallel vLLM publishes one stream per rank (port +
 * rank), whose batch numbers are independent, so its ranks cannot share one replica's numbering.
 * Without a replay socket, events published before the subscription connected are not known to the
 * router, which trusts KV events from the first one on: subscribe before the replicas take traffic,
 * or restart them; with one, only batches older than the publisher's buffer are.
 *
 * <p>Thread-safety: thread-safe. {@link #status} may be read from any thread (it waits at most for the
 * batch being delivered).
 */
public final class VllmKvEventSubscriber implements TelemetrySource, AutoCloseable {
  /** Default time to wait for each replayed batch before giving up on the gap. */
  public static final Duration DEFAULT_REPLAY_TIMEOUT = Duration.ofMillis(500);
  /** The receive high-water mark of each SUB socket: messages buffered before ZeroMQ drops. */
  public static final int RECEIVE_HWM = 100_000;
  /** At most this many frames are read from one message; more make it malformed. */
  private static final int MAX_FRAMES = 8;
  /** Messages drained from one socket per wake-up, so that one busy stream cannot starve the others. */
  private static final int DRAIN_PER_WAKEUP = 1_000;
  private static final long POLL_MILLIS = 50;
  private static final byte[] NO_BYTES = new byte[0];

  private final Map<String, StreamSequencer> sequencers;
  private final Duration replayTimeout;
  /** The host's context, or null: then each subscription makes and closes its own. */
  private final ZContext sharedContext;
  private final Object lock = new Object();
  @GuardedBy("lock")
  private Loop running;
  @GuardedBy("lock")
  private boolean closed;

  private VllmKvEventSubscriber(Builder b) {
    Map<String, StreamSequencer> m = new LinkedHashMap<>();
    for (KvEventStream s : b.streams) {
      m.put(s.replicaId(), new StreamSequencer(s, b.epochs, b.group));
    }
    this.sequencers = m;
    this.replayTimeout = b.replayTimeout;
    this.sharedContext = b.context;
  }

  /** {@return a builder with no stream yet; streams and {@code epochs} are required} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Connects to every stream and delivers its events to {@code sink} from a thread of its own; closing
   * the returned handle disconnects (idempotent).
   *
   * @throws IllegalStateException if already subscribed, or closed
   */
  @Override
  public AutoCloseable subscribe(TelemetrySink sink) {
    Objects.requireNonNull(sink, "sink: null (expected: the router)");
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("subscriber: closed (expected: open to subscribe)");
      }
      if (running != null) {
        throw new IllegalStateException(
            "subscriber: already subscribed (expected: one subscription at a time)");
      }
      Loop loop = new Loop(sink);
      loop.thread.start();
      running = loop;
      return () -> stop(loop);
    }
  }

  /**
   * {@return the stream status of {@code replicaId}}
   *
   * @param replicaId a replica with a stream here
   * @throws IllegalArgumentException if the replica has no stream here
   */
  public KvStreamStatus status(String replicaId) {
    StreamSequencer s = sequencers.get(Objects.requireNonNull(replicaId, "replicaId"));
    if (s == null) {
      throw new IllegalArgumentException("replicaId: " + replicaId + " (expected: one of "
          + sequencers.keySet() + ")");
    }
    return s.status();
  }

  /** {@return every stream's status by replica id, in the order the streams were added} */
  public Map<String, KvStreamStatus> statuses() {
    Map<String, KvStreamStatus> m = new LinkedHashMap<>();
    sequencers.forEach((id, s) -> m.put(id, s.status()));
    return m;
  }

  /** Stops delivering and closes the sockets. Idempotent. */
  @Override
  public void close() {
    Loop loop;
    synchronized (lock) {
      closed = true;
      loop = running;
    }
    if (loop != null) {
      stop(loop);
    }
  }

  private void stop(Loop loop) {
    loop.stopping = true;
    try {
      loop.thread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (lock) {
      if (running == loop) {
        running = null;
      }
    }
  }

  /** The subscription's thread: it alone touches the sockets. */
  private final class Loop implements Runnable {
    private final TelemetrySink sink;
    private final Thread thread;
    private volatile boolean stopping;

    Loop(TelemetrySink sink) {
      this.sink = sink;
      this.thread = new Thread(this, "kvroute-vllm-kv-events");
      this.thread.setDaemon(true);
    }

    @Override
    public void run() {
      ZContext context = sharedContext != null ? sharedContext : new ZContext();
      try {
        loop(context);
      } catch (RuntimeException e) {
        // a socket error (an endpoint that cannot be resolved, a closed context): the subscription
        // ends, and every stream's status says why
        sequencers.values().forEach(s -> s.onReplayFailed("subscription stopped: " + e));
      } finally {
        if (sharedContext == null) {
          context.close();
        }
      }
    }

    private void loop(ZContext context) {
      List<StreamSequencer> streams = new ArrayList<>(sequencers.values());
      List<ZMQ.Socket> subs = new ArrayList<>();
      ZMQ.Poller poller = context.createPoller(streams.size());
      Replayer replayer = new Replayer(context);
      try {
        for (StreamSequencer s : streams) {
          ZMQ.Socket sub = context.createSocket(SocketType.SUB);
          subs.add(sub);
          sub.setLinger(0);
          sub.setRcvHWM(RECEIVE_HWM);
          sub.subscribe(s.stream().topic().getBytes(java.nio.charset.StandardCharsets.UTF_8));
          sub.connect(s.stream().endpoint());
          poller.register(sub, ZMQ.Poller.POLLIN);
        }
        while (!stopping) {
          if (poller.poll(POLL_MILLIS) <= 0) {
            continue;
          }
          for (int i = 0; i < streams.size() && !stopping; i++) {
            if (poller.pollin(i)) {
              drain(streams.get(i), subs.get(i), replayer);
            }
          }
        }
      } finally {
        replayer.close();
        poller.close();
        subs.forEach(ZMQ.Socket::close);
      }
    }

    private void drain(StreamSequencer s, ZMQ.Socket sub, Replayer replayer) {
      for (int n = 0; n < DRAIN_PER_WAKEUP && !stopping; n++) {
        byte[] first = sub.recv(ZMQ.DONTWAIT);
        if (first == null) {
          return;
        }
        List<byte[]> frames = new ArrayList<>(3);
        frames.add(first);
        while (sub.hasReceiveMore()) {
          byte[] more = sub.recv();
          if (frames.size() < MAX_FRAMES) {
            frames.add(more);
          }
        }
        if (frames.size() != 3 || frames.get(1).length != 8) {
          s.onMalformed("message: " + frames.size() + " frames, sequence frame of "
              + (frames.size() > 1 ? frames.get(1).length : 0)
              + " bytes (expected: topic, 8-byte sequence, payload)");
          continue;
        }
        long seq = ByteBuffer.wrap(frames.get(1)).getLong();
        OptionalLong missing = s.missingFrom(seq);
        if (missing.isPresent() && s.stream().replay().isPresent()) {
          replayer.fill(s, missing.getAsLong(), seq, sink);
        }
        s.onMessage(seq, frames.get(2), false, sink);
      }
    }
  }

  /**
   * Asks a stream's replay socket for missed batches. Uses a DEALER (vLLM's example uses REQ, which
   * would lock up after one lost reply): the request is an empty delimiter and the start number; each
   * reply an empty delimiter, a number and a payload. A socket whose replay did not end cleanly is
   * closed, so that late replies never mix into the next replay.
   */
  private final class Replayer {
    private final ZContext context;
    private final Map<String, ZMQ.Socket> dealers = new LinkedHashMap<>();

    Replayer(ZContext context) {
      this.context = context;
    }

    void fill(StreamSequencer s, long from, long until, TelemetrySink sink) {
      String id = s.stream().replicaId();
      ZMQ.Socket dealer = dealers.computeIfAbsent(id, k -> {
        ZMQ.Socket d = context.createSocket(SocketType.DEALER);
        d.setLinger(0);
        d.setReceiveTimeOut((int) Math.min(Integer.MAX_VALUE, replayTimeout.toMillis()));
        d.connect(s.stream().replay().orElseThrow());
        return d;
      });
      dealer.sendMore(NO_BYTES);
      dealer.send(ByteBuffer.allocate(8).putLong(from).array());
      while (true) {
        byte[] delimiter = dealer.recv();
        if (delimiter == null) {
          s.onReplayFailed("replay from " + from + ": no reply within " + replayTimeout);
          discard(id);
          return;
        }
        byte[] seqFrame = dealer.hasReceiveMore() ? dealer.recv() : null;
        byte[] payload = seqFrame != null && dealer.hasReceiveMore() ? dealer.recv() : null;
        while (dealer.hasReceiveMore()) {
          dealer.recv();
        }
        if (delimiter.length != 0 || seqFrame == null || seqFrame.length != 8 || payload == null) {
          s.onReplayFailed("replay from " + from + ": malformed reply");
          discard(id);
          return;
        }
        long seq = ByteBuffer.wrap(seqFrame).getLong();
        if (seq < 0) {
          return; // end of replay
        }
        if (seq < until) {
          s.onMessage(seq, payload, true, sink);
        }
      }
    }

    private void discard(String id) {
      ZMQ.Socket d = dealers.remove(id);
      if (d != null) {
        d.close();
      }
    }

    void close() {
      dealers.values().forEach(ZMQ.Socket::close);
      dealers.clear();
    }
  }

  /** Builds a {@link VllmKvEventSubscriber}. Not thread-safe. */
  public static final class Builder {
    private final List<KvEventStream> streams = new ArrayList<>();
    private EpochSource epochs;
    private int group;
    private Duration replayTimeout = DEFAULT_REPLAY_TIMEOUT;
    private ZContext context;

    private Builder() {}

    /**
     * A ZeroMQ context of the host's to create the sockets in; the subscriber closes its sockets, never
     * the context. Default: a context of its own per subscription, closed with it.
     *
     * @param context where the sockets are created (one context per process is ZeroMQ's advice)
     * @return this builder
     */
    public Builder context(ZContext context) {
      this.context = Objects.requireNonNull(context, "context: null (expected: a ZContext)");
      return this;
    }

    /**
     * Adds a replica's stream.
     *
     * @param stream where the replica publishes, and the namespace its hashes are keyed in
     * @return this builder
     * @throws IllegalArgumentException if the replica already has one
     */
    public Builder stream(KvEventStream stream) {
      Objects.requireNonNull(stream, "stream: null (expected: a KvEventStream)");
      for (KvEventStream s : streams) {
        if (s.replicaId().equals(stream.replicaId())) {
          throw new IllegalArgumentException("replicaId: " + stream.replicaId()
              + " (expected: one stream per replica)");
        }
      }
      streams.add(stream);
      return this;
    }

    /**
     * Required: the epoch each replica's snapshots carry, e.g. {@code poller::epoch}.
     *
     * @param epochs stamps each event; the router drops events of another epoch than the replica's
     * @return this builder
     */
    public Builder epochs(EpochSource epochs) {
      this.epochs = Objects.requireNonNull(epochs, "epochs: null (expected: e.g. poller::epoch)");
      return this;
    }

    /**
     * The KV-cache group whose events are applied ({@code group_idx}; events without one always are).
     * Default 0.
     *
     * @param group a KV-cache group index, {@code >= 0}
     * @return this builder
     * @throws IllegalArgumentException if {@code group < 0}
     */
    public Builder group(int group) {
      if (group < 0) {
        throw new IllegalArgumentException("group: " + group + " (expected: >= 0)");
      }
      this.group = group;
      return this;
    }

    /**
     * How long to wait for each replayed batch; default {@link #DEFAULT_REPLAY_TIMEOUT}.
     *
     * @param timeout positive; past it the gap stays and the router sees it
     * @return this builder
     */
    public Builder replayTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "replayTimeout: null (expected: a positive duration)");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("replayTimeout: " + timeout + " (expected: > 0)");
      }
      this.replayTimeout = timeout;
      return this;
    }

    /**
     * Builds the subscriber; nothing connects until {@link VllmKvEventSubscriber#subscribe}.
     *
     * @return the subscriber
     * @throws IllegalStateException if no stream was added or {@link #epochs} is unset
     */
    public VllmKvEventSubscriber build() {
      if (streams.isEmpty()) {
        throw new IllegalStateException("streams: none (expected: at least one stream(...))");
      }
      if (epochs == null) {
        throw new IllegalStateException(
            "epochs: unset (expected: epochs(poller::epoch) or epochs(EpochSource.fixed(e)))");
      }
      return new VllmKvEventSubscriber(this);
    }
  }
}
