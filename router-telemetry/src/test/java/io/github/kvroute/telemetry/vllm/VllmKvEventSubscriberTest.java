package io.github.kvroute.telemetry.vllm;

import static io.github.kvroute.telemetry.vllm.StreamSequencerTest.NS;
import static io.github.kvroute.telemetry.vllm.StreamSequencerTest.batch;
import static io.github.kvroute.telemetry.vllm.StreamSequencerTest.stored;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.kvroute.api.ManualTicker;
import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.core.Router;
import io.github.kvroute.telemetry.FirstCandidatePolicy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The publisher and the subscriber share one ZeroMQ context: with two jeromq 0.6.0 contexts in one JVM,
 * a bare PUB/SUB pair on loopback TCP failed to connect in about 1 of 20 tries on the build machine
 * (no listener left on the port), which is jeromq's, not the subscriber's.
 *
 * <p>An in-process vLLM-style publisher (PUB with the topic, 8-byte sequence and msgpack frames, and a
 * ROUTER replay socket as vLLM's ZmqEventPublisher serves it) on loopback TCP, and the subscriber
 * feeding a real router.
 */
class VllmKvEventSubscriberTest {
  private static final String TOPIC = "kv-events";
  private final ZContext context = new ZContext();
  private final ZMQ.Socket pub = context.createSocket(SocketType.PUB);
  private final int pubPort = pub.bindToRandomPort("tcp://127.0.0.1");
  /** What the publisher has sent, for replay. */
  private final Map<Long, byte[]> buffer = new ConcurrentSkipListMap<>();
  private final Router router = Router.newBuilder().policy(new FirstCandidatePolicy())
      .ticker(new ManualTicker()).build();
  private Thread replayThread;
  private volatile boolean stopping;

  VllmKvEventSubscriberTest() {
    router.onSnapshot(ReplicaSnapshot.newBuilder().replicaId("r0").model("qwen").epoch(7).build());
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    stopping = true;
    if (replayThread != null) {
      replayThread.join(10_000);
    }
    router.close();
    context.close();
  }

  private void publish(long seq, byte[] payload) {
    buffer.put(seq, payload);
    pub.sendMore(TOPIC);
    pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
    pub.send(payload);
  }

  /** Publishes batch 0 until the subscriber has it: PUB/SUB drops what is sent before it connects. */
  private void warmUp(VllmKvEventSubscriber s) {
    byte[] first = batch(stored(100));
    awaitStatus(s, st -> {
      publish(0, first);
      return st.batches() >= 1;
    });
  }

  private static KvStreamStatus awaitStatus(VllmKvEventSubscriber s, Predicate<KvStreamStatus> done) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      KvStreamStatus st = s.status("r0");
      if (done.test(st)) {
        return st;
      }
      if (System.nanoTime() > deadline) {
        StringBuilder threads = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
          if (t.getName().startsWith("kvroute")) {
            threads.append('\n').append(t).append(' ').append(t.getState());
            for (StackTraceElement e : stack) {
              threads.append("\n  ").append(e);
            }
          }
        });
        throw new AssertionError("not reached in 30 s: " + st + threads);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  private VllmKvEventSubscriber subscriber(KvEventStream stream) {
    return VllmKvEventSubscriber.builder().stream(stream).epochs(EpochSource.fixed(7)).context(context)
        .build();
  }

  private KvEventStream stream() {
    return KvEventStream.of("r0", "tcp://127.0.0.1:" + pubPort, NS).withTopic(TOPIC);
  }

  @Test
  void liveBatchesReachTheRouterInOrder() throws Exception {
    try (VllmKvEventSubscriber s = subscriber(stream())) {
      AutoCloseable handle = s.subscribe(router);
      warmUp(s);
      publish(1, batch(stored(1, 2), stored(3)));
      publish(2, batch(VllmKvEvent.removed(1), VllmKvEvent.allCleared()));
      KvStreamStatus st = awaitStatus(s, x -> x.lastSequence().orElse(-1) == 2);

      assertThat(st.delivered()).isEqualTo(5);
      assertThat(st.applied()).isEqualTo(5);
      assertThat(st.gaps()).isZero();
      assertThat(router.stats().kvEventGaps()).isZero();
      assertThat(router.replicas().get(0).exactIndex()).isTrue();
      handle.close();
      handle.close();
    }
  }

  @Test
  void malformedFramesAreCountedAndTheirLossSurfacesAsAGap() {
    try (VllmKvEventSubscriber s = subscriber(stream())) {
      s.subscribe(router);
      warmUp(s);
      pub.sendMore(TOPIC);
      pub.send("two frames only");
      pub.sendMore(TOPIC);
      pub.sendMore(new byte[] {0, 0, 0, 1});
      pub.send(batch(stored(5)));
      publish(1, "not msgpack".getBytes(StandardCharsets.UTF_8));
      publish(2, batch(stored(6)));
      KvStreamStatus st = awaitStatus(s, x -> x.lastSequence().orElse(-1) == 2);

      assertThat(st.malformedMessages()).isEqualTo(3);
      assertThat(st.delivered()).isEqualTo(2);
      assertThat(router.stats().kvEventGaps()).as("batch 1's events were lost").isEqualTo(1);
    }
  }

  @Test
  void withoutReplayAJumpInSequenceIsAGapTheRouterSees() {
    try (VllmKvEventSubscriber s = subscriber(stream())) {
      s.subscribe(router);
      warmUp(s);
      publish(4, batch(stored(7)));
      KvStreamStatus st = awaitStatus(s, x -> x.lastSequence().orElse(-1) == 4);
      assertThat(st.gaps()).isEqualTo(1);
      assertThat(st.missedBatches()).isEqualTo(3);
      assertThat(router.stats().kvEventGaps()).isEqualTo(1);
      assertThat(router.replicas().get(0).degradedIndex()).isTrue();
    }
  }

  @Test
  void theReplaySocketFillsAGapSoTheRouterSeesNone() {
    ZMQ.Socket replay = context.createSocket(SocketType.ROUTER);
    int replayPort = replay.bindToRandomPort("tcp://127.0.0.1");
    replay.setReceiveTimeOut(50);
    replayThread = new Thread(() -> serveReplay(replay));
    replayThread.start();
    // a generous timeout: this checks the protocol, not how fast a loaded machine answers
    try (VllmKvEventSubscriber s = VllmKvEventSubscriber.builder()
        .stream(stream().withReplay("tcp://127.0.0.1:" + replayPort))
        .epochs(EpochSource.fixed(7)).replayTimeout(Duration.ofSeconds(20)).context(context).build()) {
      s.subscribe(router);
      warmUp(s);
      buffer.put(1L, batch(stored(11)));              // published while the subscriber missed them
      buffer.put(2L, batch(stored(12), stored(13)));
      publish(3, batch(stored(14)));
      KvStreamStatus st = awaitStatus(s, x -> x.lastSequence().orElse(-1) == 3);

      assertThat(st.replayedBatches()).as(st.toString()).isEqualTo(2);
      assertThat(st.gaps()).isZero();
      assertThat(st.delivered()).isEqualTo(5);
      assertThat(st.applied()).isEqualTo(5);
      assertThat(router.stats().kvEventGaps()).isZero();
      assertThat(router.replicas().get(0).degradedIndex()).isFalse();
    }
  }

  /** vLLM's _service_replay: [identity, "", start] in; every buffered batch from start, then -1. */
  private void serveReplay(ZMQ.Socket replay) {
    while (!stopping) {
      byte[] identity = replay.recv();
      if (identity == null) {
        continue;
      }
      replay.recv(); // empty delimiter
      long start = ByteBuffer.wrap(replay.recv()).getLong();
      buffer.forEach((seq, payload) -> {
        if (seq >= start) {
          replay.sendMore(identity);
          replay.sendMore(new byte[0]);
          replay.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
          replay.send(payload);
        }
      });
      replay.sendMore(identity);
      replay.sendMore(new byte[0]);
      replay.sendMore(ByteBuffer.allocate(8).putLong(-1).array());
      replay.send(new byte[0]);
    }
  }

  /** A vLLM-style publisher with a replay socket, on loopback. */
  private VllmKvEventPublisher replayingPublisher() {
    return VllmKvEventPublisher.builder().topic(TOPIC).replayEndpoint("tcp://127.0.0.1:*")
        .context(context).build();
  }

  /** A subscriber of {@code publisher}'s stream and replay socket, with a generous replay timeout. */
  private VllmKvEventSubscriber subscriberWithReplay(VllmKvEventPublisher publisher) {
    return VllmKvEventSubscriber.builder()
        .stream(KvEventStream.of("r0", publisher.endpoint(), NS).withTopic(TOPIC)
            .withReplay(publisher.replayEndpoint()))
        .epochs(EpochSource.fixed(7)).replayTimeout(Duration.ofSeconds(20)).context(context).build();
  }

  @Test
  void thePublisherAndTheSubscriberAgreeOnLiveAndReplayedBatches() {
    try (VllmKvEventPublisher publisher = replayingPublisher();
        VllmKvEventSubscriber s = subscriberWithReplay(publisher)) {
      s.subscribe(router);
      // the first batches may go out before the subscription is connected: replay recovers them
      // once a batch arrives, so keep publishing until one does
      awaitStatus(s, st -> {
        publisher.publish(VllmKvEventBatch.of(1.0, java.util.List.of(stored(1))));
        return st.batches() >= 1;
      });
      long lost = publisher.publishLost(VllmKvEventBatch.of(2.0, java.util.List.of(stored(2))));
      long last = publisher.publish(VllmKvEventBatch.of(3.0, java.util.List.of(stored(3))));
      KvStreamStatus st = awaitStatus(s, x -> x.lastSequence().orElse(-1) == last);

      assertThat(st.replayedBatches()).isGreaterThanOrEqualTo(1);
      assertThat(st.gaps()).isZero();
      assertThat(st.lastError()).isEmpty();
      assertThat(router.stats().kvEventGaps()).isZero();
      assertThat(lost).isEqualTo(last - 1);
    }
  }

  @Test
  void aSubscriberThatJoinsLateCatchesUpThroughReplay() {
    try (VllmKvEventPublisher publisher = replayingPublisher();
        VllmKvEventSubscriber s = subscriberWithReplay(publisher)) {
      // the engine served traffic before the gateway subscribed: nobody received these
      publisher.publish(VllmKvEventBatch.of(1.0, java.util.List.of(stored(21))));
      publisher.publish(VllmKvEventBatch.of(2.0, java.util.List.of(stored(22))));
      publisher.publish(VllmKvEventBatch.of(3.0, java.util.List.of(stored(23))));
      s.subscribe(router);
      awaitStatus(s, st -> {
        publisher.publish(VllmKvEventBatch.of(4.0, java.util.List.of(stored(24))));
        return st.batches() >= 1;
      });
      KvStreamStatus st = awaitStatus(s, x -> x.replayedBatches() >= 3);

      assertThat(st.gaps()).isZero();
      assertThat(st.lastError()).isEmpty();
      assertThat(router.stats().kvEventGaps()).isZero();
      assertThat(router.replicas().get(0).indexEntries())
          .as("the three early blocks and the live one").isEqualTo(4);
    }
  }

  @Test
  void anEndpointThatCannotBeUsedEndsTheSubscriptionWithAStatusNotACrash() {
    try (VllmKvEventSubscriber s = subscriber(KvEventStream.of("r0", "tcp://no-such-host.invalid:5557", NS))) {
      s.subscribe(router);
      KvStreamStatus st = awaitStatus(s, x -> x.lastError().isPresent());
      assertThat(st.lastError().orElseThrow()).startsWith("subscription stopped: ");
    }
  }

  @Test
  void configurationErrorsAreNamed() {
    assertThatThrownBy(() -> VllmKvEventSubscriber.builder().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("streams: none");
    assertThatThrownBy(() -> VllmKvEventSubscriber.builder().stream(stream()).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("epochs: unset");
    assertThatThrownBy(() -> VllmKvEventSubscriber.builder().stream(stream()).stream(stream()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicaId: r0");
    assertThatThrownBy(() -> KvEventStream.of("r0", "localhost:5557", NS))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("endpoint: localhost:5557");
    assertThatThrownBy(() -> KvEventStream.of("r0", "tcp://h:1", NS.keyed(new byte[16])))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expected: unkeyed");
    VllmKvEventSubscriber s = subscriber(stream());
    s.subscribe(router);
    assertThatThrownBy(() -> s.subscribe(router)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already subscribed");
    s.close();
    assertThatThrownBy(() -> s.subscribe(router)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> s.status("r9")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replicaId: r9 (expected: one of [r0])");
  }
}
