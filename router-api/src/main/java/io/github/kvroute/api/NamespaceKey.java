package io.github.kvroute.api;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The host secret of a keyed {@link CacheNamespace}, reduced to a 128-bit SipHash-2-4 key.
 *
 * <h2>Design notes</h2>
 * The block chain of {@link BlockHashing} is fast but invertible: from one published block hash and a
 * guessed first block, anyone can walk the chain back to its seed. A secret mixed only into the seed
 * would therefore fall to a single correct guess. So a keyed namespace also passes every block key it
 * publishes through SipHash-2-4 (Aumasson and Bernstein's keyed pseudo-random function for short
 * inputs, the construction Guava's {@code Hashing.sipHash24} and Rust's default hasher implement):
 * without the key, a leaked index entry can neither be recomputed from a guessed prompt nor walked
 * back. Equal prefixes still give equal keys (the index needs that), so a leak still shows which
 * prompts share prefixes, never what they say.
 *
 * <p>The key is the first 128 bits of SHA-256 over a fixed label and the secret, so secrets of any
 * length (at least {@value #MIN_SECRET_BYTES} bytes) give independent keys. The secret itself is not
 * kept, and {@link #toString()} prints nothing of the key.
 *
 * <p>Immutable and thread-safe.
 */
final class NamespaceKey {
  /** 128 bits, SipHash's key size. */
  static final int MIN_SECRET_BYTES = 16;
  private static final byte[] LABEL = "kvroute cache-namespace key v1".getBytes(StandardCharsets.US_ASCII);

  private final long k0;
  private final long k1;

  private NamespaceKey(long k0, long k1) {
    this.k0 = k0;
    this.k1 = k1;
  }

  /** Derives the key; the caller's array is read, not kept. */
  static NamespaceKey fromSecret(byte[] secret) {
    Checks.notNull(secret, "secret");
    Checks.argument(secret.length >= MIN_SECRET_BYTES, "secret", secret.length + " bytes",
        "at least " + MIN_SECRET_BYTES + " bytes");
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256: missing (expected: every Java platform has it)", e);
    }
    sha256.update(LABEL);
    ByteBuffer digest = ByteBuffer.wrap(sha256.digest(secret)).order(ByteOrder.LITTLE_ENDIAN);
    return new NamespaceKey(digest.getLong(), digest.getLong());
  }

  /** SipHash-2-4 of one 64-bit word (eight little-endian bytes) under this key. */
  long mix(long word) {
    return sipHash24(k0, k1, word);
  }

  /** SipHash-2-4 of the eight little-endian bytes of {@code m}; locals only, no allocation. */
  static long sipHash24(long k0, long k1, long m) {
    long v0 = k0 ^ 0x736F6D6570736575L;
    long v1 = k1 ^ 0x646F72616E646F6DL;
    long v2 = k0 ^ 0x6C7967656E657261L;
    long v3 = k1 ^ 0x7465646279746573L;
    long last = 8L << 56; // the message length in the top byte, no trailing bytes
    v3 ^= m;
    // two compression rounds for m, two for the length block, then four finalisation rounds
    for (int round = 0; round < 8; round++) {
      if (round == 2) {
        v0 ^= m;
        v3 ^= last;
      } else if (round == 4) {
        v0 ^= last;
        v2 ^= 0xFF;
      }
      v0 += v1;
      v2 += v3;
      v1 = Long.rotateLeft(v1, 13);
      v3 = Long.rotateLeft(v3, 16);
      v1 ^= v0;
      v3 ^= v2;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v1;
      v0 += v3;
      v1 = Long.rotateLeft(v1, 17);
      v3 = Long.rotateLeft(v3, 21);
      v1 ^= v2;
      v3 ^= v0;
      v2 = Long.rotateLeft(v2, 32);
    }
    return v0 ^ v1 ^ v2 ^ v3;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NamespaceKey other && k0 == other.k0 && k1 == other.k1;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(mix(0)); // a function of the key that reveals nothing of it
  }

  @Override
  public String toString() {
    return "NamespaceKey{redacted}";
  }
}
