package io.github.kvroute.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The {@code replica} tag's bound holds, and an id keeps its tag. */
class ReplicaTagsTest {

  @Test
  void theFirstIdsKeepTheirOwnTag_laterOnesFold() {
    ReplicaTags tags = new ReplicaTags(2);

    assertThat(tags.of("a")).isEqualTo("a");
    assertThat(tags.of("b")).isEqualTo("b");
    assertThat(tags.of("c")).isEqualTo(ReplicaTags.OTHER);
    assertThat(tags.of("a")).isEqualTo("a");
    assertThat(new ReplicaTags(0).of("a")).isEqualTo(ReplicaTags.OTHER);
  }

  @Test
  void racingNewcomersNeverExceedTheBound() throws InterruptedException {
    ReplicaTags tags = new ReplicaTags(10);
    Set<String> values = ConcurrentHashMap.newKeySet();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (int i = 0; i < 1_000; i++) {
          values.add(tags.of("replica-" + (i % 50)));
        }
      });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }

    assertThat(tags.size()).isEqualTo(10);
    assertThat(values).hasSize(11).contains(ReplicaTags.OTHER);
  }
}
