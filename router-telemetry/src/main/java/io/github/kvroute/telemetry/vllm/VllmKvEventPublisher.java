package io.github.kvroute.telemetry.vllm;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Publishes KV-event batches the way vLLM's {@code ZmqEventPublisher} does, for emulated engines and
 * tests: a PUB socket sending {@code (topic, 8-byte big-endian sequence, msgpack payload)}, sequence
 * numbers from 0, the last {@link Builder#bufferSteps} payloads kept, and, when a replay endpoint is
 * given, a ROUTER socket answering a start number with every buffered batch from it and the end marker
 * (sequence {@code -1}, empty payload). {@link VllmKvEventSubscriber} is its consumer.
 *
 * <pre>{@code
 * try (VllmKvEventPublisher pub = VllmKvEventPublisher.builder()
 *     .endpoint("tcp://127.0.0.1:*").replayEndpoint("tcp://127.0.0.1:*").topic("kv-events").build()) {
 *   String endpoint = pub.endpoint();                 // the port actually bound
 *   pub.publish(VllmKvEventBatch.of(now, List.of(VllmKvEvent.stored(hashes, parent, tokens, 16))));
 * }
 * }</pre>
 *
 * <p>Thread-safety: thread-safe; {@link #publish} calls are serialised (one PUB socket). The replay
 * socket is served by a daemon thread of its own, stopped by {@link #close}.
 */
public final class VllmKvEventPublisher implements AutoCloseable {
  /** vLLM's default replay buffer: the last 10,000 batches. */
  public static final int DEFAULT_BUFFER_STEPS = 10_000;
  private static final byte[] END = ByteBuffer.allocate(8).putLong(-1).array();

  private final ZContext context;
  private final boolean ownsContext;
  private final byte[] topic;
  private final VllmKvEvents.Layout layout;
  private final int bufferSteps;
  private final ZMQ.Socket pub;
  private final String endpoint;
  private final Thread replayThread;
  private final String replayEndpoint;
  private volatile boolean closed;

  @GuardedBy("this")
  private long nextSequence;
  @GuardedBy("buffer")
  private final Deque<Buffered> buffer = new ArrayDeque<>();

  private record Buffered(long sequence, byte[] payload) {}

  private VllmKvEventPublisher(Builder b) {
    this.ownsContext = b.context == null;
    this.context = ownsContext ? new ZContext() : b.context;
    this.topic = b.topic.getBytes(StandardCharsets.UTF_8);
    this.layout = b.layout;
    this.bufferSteps = b.bufferSteps;
    this.pub = context.createSocket(SocketType.PUB);
    pub.setLinger(0);
    pub.setSndHWM(100_000);
    pub.bind(b.endpoint);
    this.endpoint = pub.getLastEndpoint();
    if (b.replayEndpoint != null) {
      ZMQ.Socket router = context.createSocket(SocketType.ROUTER);
      router.setLinger(0);
      router.setReceiveTimeOut(50);
      router.bind(b.replayEndpoint);
      this.replayEndpoint = router.getLastEndpoint();
      this.replayThread = new Thread(() -> serveReplay(router), "kvroute-vllm-kv-replay");
      replayThread.setDaemon(true);
      replayThread.start();
    } else {
      this.replayEndpoint = null;
      this.replayThread = null;
    }
  }

  /** {@return a builder: loopback, a free port, no replay socket, topic {@code ""}} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the PUB endpoint bound, with the port the system chose for {@code *}} */
  public String endpoint() {
    return endpoint;
  }

  /** {@return the replay endpoint bound, or null without one} */
  public String replayEndpoint() {
    return replayEndpoint;
  }

  /**
   * Encodes and sends {@code batch} with the next sequence number, and keeps it for replay.
   *
   * @param batch one engine step's events
   * @return the batch's sequence number
   * @throws IllegalStateException if closed
   */
  public synchronized long publish(VllmKvEventBatch batch) {
    Objects.requireNonNull(batch, "batch");
    if (closed) {
      throw new IllegalStateException("publisher: closed (expected: open to publish)");
    }
    long seq = nextSequence++;
    byte[] payload = VllmKvEvents.encode(batch, layout);
    keep(seq, payload);
    pub.sendMore(topic);
    pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
    pub.send(payload);
    return seq;
  }

  /**
   * Takes the next sequence number without sending: the batch is lost on the way, as a dropped PUB
   * message is, but kept for replay. For tests of gap handling.
   *
   * @param batch the events a subscriber will only get through replay
   * @return the lost batch's sequence number
   */
  public synchronized long publishLost(VllmKvEventBatch batch) {
    Objects.requireNonNull(batch, "batch");
    long seq = nextSequence++;
    byte[] payload = VllmKvEvents.encode(batch, layout);
    keep(seq, payload);
    return seq;
  }

  private void keep(long seq, byte[] payload) {
    synchronized (buffer) {
      buffer.addLast(new Buffered(seq, payload));
      if (buffer.size() > bufferSteps) {
        buffer.removeFirst();
      }
    }
  }

  private void serveReplay(ZMQ.Socket router) {
    try {
      while (!closed) {
        byte[] identity = router.recv();
        if (identity == null) {
          continue;
        }
        List<byte[]> frames = new ArrayList<>();
        while (router.hasReceiveMore()) {
          frames.add(router.recv());
        }
        if (frames.size() != 2 || frames.get(1).length != 8) {
          continue; // vLLM logs and ignores an invalid request
        }
        long start = ByteBuffer.wrap(frames.get(1)).getLong();
        List<Buffered> answer = new ArrayList<>();
        synchronized (buffer) {
          for (Buffered b : buffer) {
            if (b.sequence >= start) {
              answer.add(b);
            }
          }
        }
        for (Buffered b : answer) {
          router.sendMore(identity);
          router.sendMore(new byte[0]);
          router.sendMore(ByteBuffer.allocate(8).putLong(b.sequence).array());
          router.send(b.payload);
        }
        router.sendMore(identity);
        router.sendMore(new byte[0]);
        router.sendMore(END);
        router.send(new byte[0]);
      }
    } catch (RuntimeException e) {
      // the context was closed under the thread: nothing left to serve
    } finally {
      router.close();
    }
  }

  /** Stops the replay thread and closes the sockets (and the context when it is the publisher's). */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    if (replayThread != null) {
      try {
        replayThread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    pub.close();
    if (ownsContext) {
      context.close();
    }
  }

  /** Builds a {@link VllmKvEventPublisher}. Not thread-safe. */
  public static final class Builder {
    private String endpoint = "tcp://127.0.0.1:*";
    private String replayEndpoint;
    private String topic = "";
    private int bufferSteps = DEFAULT_BUFFER_STEPS;
    private VllmKvEvents.Layout layout = VllmKvEvents.Layout.EVENT_MAPS;
    private ZContext context;

    private Builder() {}

    /**
     * Where the PUB socket binds; default {@code tcp://127.0.0.1:*} (a free port).
     *
     * @param endpoint a ZeroMQ bind address, {@code *} for a free port
     * @return this builder
     */
    public Builder endpoint(String endpoint) {
      this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
      return this;
    }

    /**
     * Where the ROUTER replay socket binds; default none.
     *
     * @param replayEndpoint a ZeroMQ bind address, {@code *} for a free port
     * @return this builder
     */
    public Builder replayEndpoint(String replayEndpoint) {
      this.replayEndpoint = Objects.requireNonNull(replayEndpoint, "replayEndpoint");
      return this;
    }

    /**
     * The topic frame; default {@code ""} (vLLM's default).
     *
     * @param topic sent as the first frame of every message
     * @return this builder
     */
    public Builder topic(String topic) {
      this.topic = Objects.requireNonNull(topic, "topic");
      return this;
    }

    /**
     * Batches kept for replay; default {@value #DEFAULT_BUFFER_STEPS}.
     *
     * @param steps the last batches kept, {@code >= 1}
     * @return this builder
     * @throws IllegalArgumentException if {@code steps < 1}
     */
    public Builder bufferSteps(int steps) {
      if (steps < 1) {
        throw new IllegalArgumentException("bufferSteps: " + steps + " (expected: >= 1)");
      }
      this.bufferSteps = steps;
      return this;
    }

    /**
     * The payload layout; default {@link VllmKvEvents.Layout#EVENT_MAPS} (vLLM 0.26).
     *
     * @param layout which vLLM release's layout to write
     * @return this builder
     */
    public Builder layout(VllmKvEvents.Layout layout) {
      this.layout = Objects.requireNonNull(layout, "layout");
      return this;
    }

    /**
     * A context of the host's (never closed by the publisher); default one of its own.
     *
     * @param context where the sockets are created (one context per process is ZeroMQ's advice)
     * @return this builder
     */
    public Builder context(ZContext context) {
      this.context = Objects.requireNonNull(context, "context");
      return this;
    }

    /**
     * Binds the sockets and starts the replay thread when there is a replay endpoint.
     *
     * @return the publisher, sending from sequence number 0
     */
    public VllmKvEventPublisher build() {
      return new VllmKvEventPublisher(this);
    }
  }
}
