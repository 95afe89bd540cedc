package io.github.kvroute.sim;

import io.github.kvroute.api.CacheNamespace;
import io.github.kvroute.api.PromptKey;
import java.util.Arrays;

/**
 * Builds a prompt's prefix identity from shared <em>segments</em> without generating tokens.
 *
 * <h2>Design notes</h2>
 * A prompt is a path of segments (tenant system prompt, then document, then the unique question; or a
 * session's turns), each a content key and a length. Block {@code i}'s id is
 * {@code mix(path(s), i)}, where {@code s} is the segment holding the block's last token and
 * {@code path(s)} chains the keys of segments {@code 0..s}. Two prompts therefore get the same id for
 * block {@code i} exactly when they agree on every segment up to the one holding that block's last
 * token, i.e. when they share content through the whole block: what chained hashes of real tokens
 * would give (a segment key must always stand for the same content and length). Only full blocks get
 * ids, as engines cache only full blocks. The blocks of every segment but the last (the shared
 * prefix: a system prompt, a document) are copied from a bounded memo when a recent prompt had the
 * same path ({@link SegmentBlockIds}); the last one, usually unique to the request, is mixed.
 *
 * <p>Not thread-safe: one per request stream.
 */
final class PromptBuilder {
  private final int blockSize;
  private final CacheNamespace namespace;
  private long[] paths = new long[8];
  private long[] ends = new long[8];
  private int segments;
  private long tokens;
  private long[] ids = new long[64];
  /** The ids of the segments before the last, which later prompts often share (bounded there). */
  private final SegmentBlockIds shared = new SegmentBlockIds();

  PromptBuilder(int blockSize, CacheNamespace namespace) {
    this.blockSize = blockSize;
    this.namespace = namespace;
  }

  /** Starts a new prompt. */
  PromptBuilder reset() {
    segments = 0;
    tokens = 0;
    return this;
  }

  /** Appends a segment of {@code length} tokens whose content is identified by {@code key}. */
  PromptBuilder add(long key, int length) {
    if (length <= 0) {
      return this;
    }
    if (segments == paths.length) {
      paths = Arrays.copyOf(paths, segments * 2);
      ends = Arrays.copyOf(ends, segments * 2);
    }
    long parent = segments == 0 ? 0x5EED5EED5EEDL : paths[segments - 1];
    paths[segments] = mix(parent, key);
    tokens += length;
    ends[segments] = tokens;
    segments++;
    return this;
  }

  long tokens() {
    return tokens;
  }

  PromptKey build() {
    return build(namespace);
  }

  /** The prompt in {@code ns} (an adapter's namespace, say). */
  PromptKey build(CacheNamespace ns) {
    if (tokens < 1 || tokens > Integer.MAX_VALUE) {
      throw new IllegalStateException("prompt of " + tokens + " tokens (expected: 1 to 2^31 - 1)");
    }
    int blocks = (int) (tokens / blockSize);
    if (ids.length < blocks) {
      ids = new long[Math.max(blocks, ids.length * 2)];
    }
    // segment s holds the blocks whose last token it holds: [end of s - 1, end of s) / blockSize
    for (int s = 0, from = 0; s < segments && from < blocks; s++) {
      int to = (int) Math.min(blocks, ends[s] / blockSize);
      if (to == from) {
        continue;
      }
      if (s < segments - 1) {
        shared.fill(paths[s], from, to, ids);
      } else {
        for (int i = from; i < to; i++) {
          ids[i] = mix(paths[s], i);
        }
      }
      from = to;
    }
    return PromptKey.ofBlockHashes(Arrays.copyOf(ids, blocks), blockSize, (int) tokens, ns);
  }

  /** A 64-bit mix of two values (SplitMix64's finalizer over a multiply-add). */
  static long mix(long a, long b) {
    long z = a * 0x9E3779B97F4A7C15L + b + 0x632BE59BD9B4E019L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
