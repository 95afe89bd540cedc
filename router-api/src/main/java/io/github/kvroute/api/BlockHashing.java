package io.github.kvroute.api;

/**
 * The chained block hash behind {@link PromptKey}.
 *
 * <h2>Design notes</h2>
 * A block's key is {@code h_i = H(h_{i-1}, tokens of block i)} with {@code h_{-1}} the namespace seed,
 * so one 64-bit key stands for the whole prefix up to and including its block (as vLLM's and Dynamo's
 * block hashes do). The round function is an xxHash64-style lane step (multiply by a 64-bit prime,
 * rotate, multiply) that consumes two 32-bit token ids per step, followed by the MurmurHash3 64-bit
 * finaliser per block; both are public-domain constructions (Yann Collet's xxHash; Austin Appleby's
 * MurmurHash3). The loop works on primitives in place: no allocation per block or token.
 *
 * <p>Why not Guava's {@code Hashing}: router-api depends on the JDK only, and a {@code Hasher} is an
 * object per block, which the design's "no allocation per block" rule excludes on the request path.
 *
 * <p>Collisions: two different prefixes share a key with probability about {@code n^2 / 2^65} for
 * {@code n} distinct blocks; a collision costs one wrong cache guess, never a wrong answer, because the
 * engine owns the real cache.
 */
final class BlockHashing {
  private BlockHashing() {}

  static final long P1 = 0x9E3779B185EBCA87L;
  static final long P2 = 0xC2B2AE3D27D4EB4FL;
  static final long P3 = 0x165667B19E3779F9L;
  static final long P4 = 0x85EBCA77C2B2AE63L;

  /** MurmurHash3's fmix64: a bijection with full avalanche. */
  static long finish(long h) {
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return h;
  }

  private static long round(long h, long lane) {
    h ^= Long.rotateLeft(lane * P2, 31) * P1;
    return Long.rotateLeft(h, 27) * P1 + P4;
  }

  /** Hashes {@code length} token ids starting at {@code from}, chained onto {@code previous}. */
  static long tokens(long previous, int[] tokens, int from, int length) {
    long h = previous + P3;
    int i = from;
    int end = from + length;
    for (; i + 1 < end; i += 2) {
      h = round(h, (tokens[i] & 0xFFFFFFFFL) | ((long) tokens[i + 1] << 32));
    }
    if (i < end) {
      h = round(h, tokens[i] & 0xFFFFFFFFL);
    }
    return finish(h ^ length);
  }

  /** Hashes {@code length} chars starting at {@code from}, chained onto {@code previous}. */
  static long chars(long previous, CharSequence text, int from, int length) {
    long h = previous + P3;
    int i = from;
    int end = from + length;
    for (; i + 3 < end; i += 4) {
      long lane = text.charAt(i)
          | ((long) text.charAt(i + 1) << 16)
          | ((long) text.charAt(i + 2) << 32)
          | ((long) text.charAt(i + 3) << 48);
      h = round(h, lane);
    }
    for (; i < end; i++) {
      h = round(h, text.charAt(i));
    }
    return finish(h ^ length);
  }

  /**
   * Maps a block hash computed elsewhere (an engine, a tokenizer sidecar, a trace) into a namespace.
   * A bijection for a fixed namespace, so distinct foreign hashes stay distinct.
   */
  static long foreign(long namespaceSeed, long foreignHash) {
    return finish((foreignHash * P1) ^ namespaceSeed);
  }

  /** A 64-bit hash of a string, stable across JVMs and runs (unlike identity hashes). */
  static long string(long previous, String s) {
    return chars(previous, s, 0, s.length());
  }
}
