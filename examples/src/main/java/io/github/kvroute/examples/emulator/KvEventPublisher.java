package io.github.kvroute.examples.emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * An emulated engine's KV-event stream, on vLLM's wire format ({@code vllm/distributed/kv_events.py},
 * {@code ZmqEventPublisher}): a ZeroMQ PUB socket on loopback; each message has three frames, the
 * topic (empty), the batch's sequence number as 8 bytes big-endian (counting from 0 per process), and
 * the msgpack batch {@code [ts, [events]]} whose events are maps tagged by {@code "type"}, as vLLM 0.26
 * writes them: {@code BlockStored} ({@code block_hashes}, {@code parent_block_hash},
 * {@code token_ids}, {@code block_size}, {@code lora_id}, {@code medium}, {@code lora_name}) and
 * {@code BlockRemoved} ({@code block_hashes}, {@code medium}). Hashes are unsigned 64-bit integers.
 *
 * <h2>Design notes</h2>
 * The engine thread hands each step's events over through a queue of at most {@value #QUEUE_BATCHES}
 * batches; the publisher's own thread owns the socket (ZeroMQ sockets are single-threaded). A batch
 * that finds the queue full is dropped with its sequence number, so subscribers see the gap, as they
 * would when vLLM's own publisher queue overflows.
 *
 * <p>Thread-safety: thread-safe; {@link #publish} may be called from any thread.
 */
final class KvEventPublisher implements AutoCloseable {
  /** Batches waiting to be sent, at most. */
  static final int QUEUE_BATCHES = 4_096;
  private static final Batch STOP = new Batch(-1, List.of());

  private final ZContext context = new ZContext();
  private final ZMQ.Socket socket;
  private final int port;
  private final BlockingQueue<Batch> queue = new ArrayBlockingQueue<>(QUEUE_BATCHES);
  private final AtomicLong nextSequence = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final Thread thread;

  KvEventPublisher(String name) {
    socket = context.createSocket(SocketType.PUB);
    socket.setLinger(0);
    port = socket.bindToRandomPort("tcp://127.0.0.1");
    thread = new Thread(this::run, name + "-kv-events");
    thread.setDaemon(true);
    thread.start();
  }

  /** The endpoint subscribers connect to, {@code tcp://127.0.0.1:PORT}. */
  String endpoint() {
    return "tcp://127.0.0.1:" + port;
  }

  /** Batches dropped because the queue was full. */
  long dropped() {
    return dropped.get();
  }

  /** Queues one batch of events (nothing when empty). */
  void publish(List<Event> events) {
    if (events.isEmpty()) {
      return;
    }
    Batch batch = new Batch(nextSequence.getAndIncrement(), events);
    if (!queue.offer(batch)) {
      dropped.incrementAndGet();
    }
  }

  @Override
  public void close() {
    queue.clear();
    queue.offer(STOP);
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    context.close();
  }

  private void run() {
    while (true) {
      Batch b;
      try {
        b = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (b == STOP) {
        return;
      }
      socket.sendMore(new byte[0]);
      socket.sendMore(ByteBuffer.allocate(Long.BYTES).putLong(b.sequence).array());
      socket.send(encode(System.currentTimeMillis() / 1000.0, b.events));
    }
  }

  /** One batch in vLLM's layout; see the class notes. */
  static byte[] encode(double timestamp, List<Event> events) {
    try (MessageBufferPacker out = MessagePack.newDefaultBufferPacker()) {
      out.packArrayHeader(2);
      out.packDouble(timestamp);
      out.packArrayHeader(events.size());
      for (Event e : events) {
        if (e.stored()) {
          out.packMapHeader(8);
          out.packString("type").packString("BlockStored");
          out.packString("block_hashes");
          hashes(out, e.hashes());
          out.packString("parent_block_hash");
          if (e.parent() == null) {
            out.packNil();
          } else {
            unsigned(out, e.parent());
          }
          out.packString("token_ids").packArrayHeader(e.tokenIds().length);
          for (int t : e.tokenIds()) {
            out.packInt(t);
          }
          out.packString("block_size").packInt(e.blockSize());
          out.packString("lora_id").packNil();
          out.packString("medium").packString("GPU");
          out.packString("lora_name").packNil();
        } else {
          out.packMapHeader(3);
          out.packString("type").packString("BlockRemoved");
          out.packString("block_hashes");
          hashes(out, e.hashes());
          out.packString("medium").packString("GPU");
        }
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void hashes(MessageBufferPacker out, long[] hashes) throws IOException {
    out.packArrayHeader(hashes.length);
    for (long h : hashes) {
      unsigned(out, h);
    }
  }

  private static void unsigned(MessageBufferPacker out, long h) throws IOException {
    if (h >= 0) {
      out.packLong(h);
    } else {
      out.packBigInteger(new BigInteger(Long.toUnsignedString(h)));
    }
  }

  /**
   * A {@code BlockStored} ({@code stored}) or {@code BlockRemoved} event.
   *
   * @param parent the hash of the block before the first stored one; null for a prompt's first block
   *     and for removals
   */
  record Event(boolean stored, long[] hashes, Long parent, int[] tokenIds, int blockSize) {
    static Event stored(long[] hashes, Long parent, int[] tokenIds, int blockSize) {
      return new Event(true, hashes, parent, tokenIds, blockSize);
    }

    static Event removed(long[] hashes) {
      return new Event(false, hashes, null, new int[0], 0);
    }
  }

  private record Batch(long sequence, List<Event> events) {}
}
