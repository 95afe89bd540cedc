package io.github.kvroute.examples.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.Value;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/** The emulated replica's KV-event stream, read as a vLLM subscriber reads it. */
class KvEventStreamTest {
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
  /** 20 blocks of 64 characters (16 tokens of 4). */
  private static final String SHARED = "0123456789abcdef".repeat(80);

  @Test
  void storedBlocksChainOnTheirParentAndEvictionsAreRemoved() throws Exception {
    // 45 blocks: a 640-token prompt and its output token take 41, so the second prompt's 21 new
    // blocks evict what the probes left and the tail of the first prompt
    EngineModel small = EngineModel.scaledDown().withKvCacheBlocks(45);
    EmulatedReplica replica = EmulatedReplica.start("kv-events", "m", small, 0, true);
    try (ZContext context = new ZContext()) {
      // JeroMQ 0.6.0 with two contexts in one JVM now and then leaves a loopback connect
      // unestablished: a fresh socket (up to 3) rather than a flaky test
      ZMQ.Socket sub = null;
      long[] joined = null;
      for (int attempt = 0; attempt < 3 && joined == null; attempt++) {
        if (sub != null) {
          sub.close();
        }
        sub = context.createSocket(SocketType.SUB);
        sub.connect(replica.kvEventsEndpoint().orElseThrow());
        sub.subscribe(new byte[0]);
        sub.setReceiveTimeOut(200);
        joined = awaitSubscription(replica, sub, 100 * attempt);
      }
      assertThat(joined).as("a KV event within 100 probes, on one of 3 sockets").isNotNull();
      long last = joined[0];
      int probes = (int) joined[1]; // all sent, on every socket tried; each leaves one cached block, evictable once it finished

      complete(replica.uri(), SHARED + "x".repeat(1_280));    // 40 blocks, the first 20 shared
      Message first = receive(sub);
      complete(replica.uri(), SHARED + "y".repeat(1_280));    // 20 more blocks, 35 evicted
      Message second = receive(sub);

      assertThat(first.sequence).isEqualTo(last + 1);
      assertThat(second.sequence).isEqualTo(last + 2);
      int probesCached = Math.min(45, probes);
      int evictedFirst = Math.max(0, probesCached - 4); // 41 needed, 45 - probesCached free
      assertThat(first.events).hasSize(evictedFirst > 0 ? 2 : 1);
      Map<String, Value> stored = first.events.get(first.events.size() - 1);
      assertThat(stored.get("type").asStringValue().asString()).isEqualTo("BlockStored");
      assertThat(stored.get("block_hashes").asArrayValue().size()).isEqualTo(40);
      assertThat(stored.get("parent_block_hash").isNilValue()).isTrue();
      assertThat(stored.get("token_ids").asArrayValue().size()).isEqualTo(640);
      assertThat(stored.get("block_size").asIntegerValue().toInt()).isEqualTo(16);
      assertThat(stored.get("medium").asStringValue().asString()).isEqualTo("GPU");

      // the eviction comes first (the probes left, then the first prompt's tail: freed deepest
      // first), then the new blocks, chained on the last shared block; 20 blocks reused, 21 needed,
      // 5 - probesLeft free
      int probesLeft = probesCached - evictedFirst;
      int evictedSecond = 16 + probesLeft;
      assertThat(second.events).hasSize(2);
      assertThat(second.events.get(0).get("type").asStringValue().asString())
          .isEqualTo("BlockRemoved");
      assertThat(second.events.get(0).get("block_hashes").asArrayValue().size())
          .isEqualTo(evictedSecond);
      List<Value> firstHashes = stored.get("block_hashes").asArrayValue().list();
      assertThat(second.events.get(0).get("block_hashes").asArrayValue().list())
          .doesNotContainAnyElementsOf(firstHashes.subList(0, 24))
          .containsAll(firstHashes.subList(24, 40));
      Map<String, Value> more = second.events.get(1);
      assertThat(more.get("block_hashes").asArrayValue().size()).isEqualTo(20);
      assertThat(more.get("parent_block_hash"))
          .isEqualTo(stored.get("block_hashes").asArrayValue().get(19));
      assertThat(more.get("token_ids").asArrayValue().get(0))
          .isNotEqualTo(stored.get("token_ids").asArrayValue().get(320));
    } finally {
      replica.kill();
    }
  }

  /**
   * A SUB socket misses what is published before it has joined (ZeroMQ's slow joiner): send distinct
   * one-block prompts until one's event arrives, drain, and return the last sequence number seen and
   * the number of probes sent in all (distinct prompts, counting {@code sent} before); null when
   * none arrived within 100 probes.
   */
  private static long[] awaitSubscription(EmulatedReplica replica, ZMQ.Socket sub, int sent)
      throws Exception {
    long last = -1;
    int probes = sent;
    for (int i = sent; i < sent + 100 && last < 0; i++) {
      complete(replica.uri(), "probe " + i + " ".repeat(64));
      probes++;
      byte[][] frames = frames(sub);
      if (frames != null) {
        last = ByteBuffer.wrap(frames[1]).getLong();
      }
    }
    if (last < 0) {
      return null;
    }
    for (byte[][] more = frames(sub); more != null; more = frames(sub)) {
      last = ByteBuffer.wrap(more[1]).getLong();
    }
    return new long[] {last, probes};
  }

  private static Message receive(ZMQ.Socket sub) throws Exception {
    for (int tries = 0; tries < 50; tries++) {
      byte[][] frames = frames(sub);
      if (frames != null) {
        assertThat(frames[0]).isEmpty();
        return new Message(ByteBuffer.wrap(frames[1]).getLong(), decode(frames[2]));
      }
    }
    throw new AssertionError("no KV event within 10 s");
  }

  /** The three frames of one message, or null if none arrived within the receive timeout. */
  private static byte[][] frames(ZMQ.Socket sub) {
    byte[] topic = sub.recv();
    if (topic == null) {
      return null;
    }
    assertThat(sub.hasReceiveMore()).isTrue();
    byte[] sequence = sub.recv();
    assertThat(sub.hasReceiveMore()).isTrue();
    byte[] payload = sub.recv();
    assertThat(sub.hasReceiveMore()).isFalse();
    return new byte[][] {topic, sequence, payload};
  }

  private static List<Map<String, Value>> decode(byte[] payload) throws Exception {
    try (MessageUnpacker in = MessagePack.newDefaultUnpacker(payload)) {
      Value batch = in.unpackValue();
      assertThat(batch.asArrayValue().size()).isEqualTo(2);
      assertThat(batch.asArrayValue().get(0).isFloatValue()).isTrue();
      List<Map<String, Value>> events = new ArrayList<>();
      for (Value e : batch.asArrayValue().get(1).asArrayValue()) {
        Map<String, Value> fields = new HashMap<>();
        e.asMapValue().map().forEach((k, v) -> fields.put(k.asStringValue().asString(), v));
        events.add(fields);
      }
      return events;
    }
  }

  private static void complete(URI base, String prompt) throws Exception {
    String body = "{\"model\":\"m\",\"max_tokens\":1,\"prompt\":\"" + prompt + "\"}";
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(base.resolve("/v1/completions"))
        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  private record Message(long sequence, List<Map<String, Value>> events) {}
}
