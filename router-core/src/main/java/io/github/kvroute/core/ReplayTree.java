package io.github.kvroute.core;

import java.util.Arrays;

/**
 * The replay of a replica's unreported sends as a tree, so that changing one send's work costs
 * O(log n) instead of a walk over all of them.
 *
 * <h2>Design notes</h2>
 * Each send is one step of the single-server replay: after a gap of {@code g} ms the queue has
 * drained by {@code g}, then the send adds its work {@code w}: {@code q -> max(0, q - g) + w}, which
 * is {@code q -> max(w, q + (w - g))}. Functions of the form {@code q -> max(a, q + b)} are closed
 * under composition ({@code (a1, b1)} then {@code (a2, b2)} is {@code (max(a2, a1 + b2), b1 + b2)}),
 * so a segment tree whose nodes hold the composition of their leaves gives the whole replay at its
 * root. A send that leaves the replay (released, or its first token seen) keeps its leaf with no
 * work: it still stands for the time that passed, so the result stays exact. Unused leaves are the
 * identity {@code (-infinity, 0)}.
 *
 * <p>Not thread-safe: owned by one {@link DispatchLedger}, under its lock.
 */
final class ReplayTree {
  private static final int MIN_CAPACITY = 16;

  private int capacity;
  private int size;
  private double[] gaps;
  /** Node {@code n} composes leaves below it; leaves at {@code capacity + i}; root at 1. */
  private double[] a;
  private double[] b;

  ReplayTree() {
    reset(MIN_CAPACITY);
  }

  /** Empties the tree, with room for at least {@code leaves} leaves. */
  void reset(int leaves) {
    int c = MIN_CAPACITY;
    while (c < leaves) {
      c <<= 1;
    }
    if (c != capacity) {
      capacity = c;
      gaps = new double[c];
      a = new double[2 * c];
      b = new double[2 * c];
    }
    Arrays.fill(a, Double.NEGATIVE_INFINITY);
    Arrays.fill(b, 0);
    size = 0;
  }

  int size() {
    return size;
  }

  boolean isFull() {
    return size == capacity;
  }

  /** Adds a leaf (only valid when not full) and returns its index; O(log n). */
  int append(double work, double gapMillis) {
    int i = size++;
    put(i, work, gapMillis);
    for (int n = (capacity + i) >> 1; n >= 1; n >>= 1) {
      combine(n);
    }
    return i;
  }

  /** Adds a leaf without updating the nodes above it: call {@link #build} after the last. */
  int appendUnbuilt(double work, double gapMillis) {
    int i = size++;
    put(i, work, gapMillis);
    return i;
  }

  /** Recomputes every node: O(capacity). */
  void build() {
    for (int n = capacity - 1; n >= 1; n--) {
      combine(n);
    }
  }

  /** Changes leaf {@code i}'s work, keeping its gap; O(log n). */
  void setWork(int i, double work) {
    put(i, work, gaps[i]);
    for (int n = (capacity + i) >> 1; n >= 1; n >>= 1) {
      combine(n);
    }
  }

  /** The queue after every step, starting from {@code q}. */
  double apply(double q) {
    return Math.max(a[1], q + b[1]);
  }

  private void put(int i, double work, double gapMillis) {
    gaps[i] = gapMillis;
    a[capacity + i] = work;
    b[capacity + i] = work - gapMillis;
  }

  private void combine(int n) {
    int l = 2 * n;
    int r = l + 1;
    a[n] = Math.max(a[r], a[l] + b[r]);
    b[n] = b[l] + b[r];
  }
}
