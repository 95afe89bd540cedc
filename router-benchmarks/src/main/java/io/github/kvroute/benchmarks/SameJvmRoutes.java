package io.github.kvroute.benchmarks;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@link RouteBenchmark#routeAndComplete} of several builds of this jar in one JVM, each in a class
 * loader of its own, alternating in batches, so that the load of a shared machine (other builds and
 * simulations beside it) falls on every build alike: on 2 shared cores, separate JMH runs of one
 * build differ by more than the changes worth measuring, while the ratios here repeat. Each
 * operation is timed on its own ({@code System.nanoTime} around it, the same overhead for every
 * build); the first ten rounds are warm-up. Name a jar twice to see the spread between two copies
 * of one build. Prints one line per jar; not a JMH benchmark.
 *
 * <pre>java -cp router-benchmarks/target/benchmarks.jar io.github.kvroute.benchmarks.SameJvmRoutes
 *     [-Dreplicas=64] [-Drounds=40] [-Dbatch=10000] base.jar head.jar [base.jar head.jar]</pre>
 */
public final class SameJvmRoutes {
  private static final int WARMUP_ROUNDS = 10;

  private SameJvmRoutes() {}

  public static void main(String[] jars) throws Exception {
    int replicas = Integer.getInteger("replicas", 64);
    int rounds = Integer.getInteger("rounds", 40);
    int batch = Integer.getInteger("batch", 10_000);
    int n = jars.length;
    Object[] states = new Object[n];
    Method[] ops = new Method[n];
    for (int i = 0; i < n; i++) {
      URLClassLoader loader = new URLClassLoader(new URL[] {new File(jars[i]).toURI().toURL()},
          ClassLoader.getPlatformClassLoader());
      Class<?> c = loader.loadClass(RouteBenchmark.class.getName());
      Object state = c.getConstructor().newInstance();
      set(c, state, "replicas", replicas);
      set(c, state, "promptTokens", 8_192);
      set(c, state, "ranking", "default");
      c.getMethod("setUp").invoke(state);
      states[i] = state;
      ops[i] = c.getMethod("routeAndComplete");
    }
    long[][] nanos = new long[n][rounds * batch];
    int[] taken = new int[n];
    for (int round = 0; round < rounds + WARMUP_ROUNDS; round++) {
      for (int k = 0; k < n; k++) {
        // the order flips every round, so that no jar always runs right after the same one
        int i = round % 2 == 0 ? k : n - 1 - k;
        for (int b = 0; b < batch; b++) {
          long start = System.nanoTime();
          ops[i].invoke(states[i]);
          long took = System.nanoTime() - start;
          if (round >= WARMUP_ROUNDS) {
            nanos[i][taken[i]++] = took;
          }
        }
      }
    }
    for (int i = 0; i < n; i++) {
      long[] t = Arrays.copyOf(nanos[i], taken[i]);
      Arrays.sort(t);
      System.out.printf(Locale.ROOT, "%s replicas=%d: p50 %d ns  p90 %d ns  p99 %d ns%n", jars[i],
          replicas, t[t.length / 2], t[(int) (t.length * 0.9)], t[(int) (t.length * 0.99)]);
    }
  }

  private static void set(Class<?> c, Object state, String field, Object value) throws Exception {
    Field f = c.getDeclaredField(field);
    f.setAccessible(true);
    f.set(state, value);
  }
}
