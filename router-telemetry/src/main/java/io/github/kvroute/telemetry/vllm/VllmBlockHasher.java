package io.github.kvroute.telemetry.vllm;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * vLLM's prefix-cache block hashes, computed in Java, for gateways that key requests with the hashes
 * vLLM publishes in its KV events (exact mode; docs/kv-events.md).
 *
 * <h2>Design notes</h2>
 * vLLM hashes each full block as {@code H((parent, tokens, extra_keys))} where {@code parent} is the
 * previous block's hash (for the first block, {@code NONE_HASH}), {@code tokens} the block's token ids
 * and {@code extra_keys} a tuple of the request's LoRA name, multimodal identifiers, its
 * {@code cache_salt} (first block only) and prompt-embedding hashes, or {@code None} when there are none
 * ({@code vllm/v1/core/kv_cache_utils.py}: {@code hash_block_tokens},
 * {@code generate_block_hash_extra_keys}). With {@code --prefix-caching-hash-algo sha256_cbor},
 * {@code H(x) = SHA-256(CBOR(x))} with canonical CBOR ({@code vllm/utils/hashing.py}), which any
 * language can reproduce; and {@code NONE_HASH = H(PYTHONHASHSEED)} when that variable is set, random
 * per process otherwise ({@code init_none_hash}). The KV events carry the low 64 bits of each hash
 * ({@code maybe_convert_block_hash}). This class reproduces that for text-only requests: tokens, the
 * LoRA name and the cache salt; multimodal and prompt-embedding requests are not covered.
 *
 * <p>Not reproducible, so exact mode cannot match requests, when vLLM runs with the default
 * {@code sha256} algorithm (Python pickle), an {@code xxhash} one, or without {@code PYTHONHASHSEED}.
 *
 * <p>Immutable and thread-safe.
 */
public final class VllmBlockHasher {
  private final int blockSize;
  private final byte[] noneHash;

  private VllmBlockHasher(int blockSize, byte[] noneHash) {
    this.blockSize = blockSize;
    this.noneHash = noneHash;
  }

  /**
   * The hasher of a vLLM started with {@code --prefix-caching-hash-algo sha256_cbor},
   * {@code --block-size blockSize} and {@code PYTHONHASHSEED=pythonHashSeed}.
   *
   * @param blockSize the engine's {@code --block-size}, in tokens
   * @param pythonHashSeed the engine's {@code PYTHONHASHSEED}, the same on every replica
   * @return the hasher
   * @throws IllegalArgumentException if {@code blockSize < 1}
   * @throws NullPointerException if {@code pythonHashSeed} is null (without it vLLM's hashes are random)
   */
  public static VllmBlockHasher sha256Cbor(int blockSize, String pythonHashSeed) {
    if (blockSize < 1) {
      throw new IllegalArgumentException("blockSize: " + blockSize + " (expected: >= 1)");
    }
    Objects.requireNonNull(pythonHashSeed,
        "pythonHashSeed: null (expected: the engine's PYTHONHASHSEED; unset, its hashes are random)");
    Cbor seed = new Cbor();
    seed.text(pythonHashSeed);
    return new VllmBlockHasher(blockSize, sha256(seed.bytes()));
  }

  /** {@return the tokens per block, the engine's {@code --block-size}} */
  public int blockSize() {
    return blockSize;
  }

  /**
   * The 64-bit hashes vLLM publishes for the full blocks of a prompt of {@code tokenIds}, without LoRA
   * and salt; a partial last block has none.
   *
   * @param tokenIds the prompt's token ids as the engine sees them (chat template applied)
   * @return one hash per full block, in order
   */
  public long[] blockHashes(int[] tokenIds) {
    return blockHashes(tokenIds, null, null);
  }

  /**
   * The 64-bit hashes vLLM publishes for the full blocks of a prompt of {@code tokenIds} sent with LoRA
   * adapter {@code loraName} and {@code cacheSalt} (each null when absent).
   *
   * @param tokenIds the prompt's token ids as the engine sees them (chat template applied)
   * @param loraName the request's LoRA adapter name, or null
   * @param cacheSalt the request's {@code cache_salt}, or null (it enters the first block only)
   * @return one hash per full block, in order
   */
  public long[] blockHashes(int[] tokenIds, String loraName, String cacheSalt) {
    Objects.requireNonNull(tokenIds, "tokenIds");
    int blocks = tokenIds.length / blockSize;
    long[] out = new long[blocks];
    byte[] parent = noneHash;
    for (int b = 0; b < blocks; b++) {
      List<String> extra = new ArrayList<>(2);
      if (loraName != null) {
        extra.add(loraName);
      }
      if (b == 0 && cacheSalt != null && !cacheSalt.isEmpty()) {
        extra.add(cacheSalt);
      }
      Cbor c = new Cbor();
      c.arrayHeader(3);
      c.byteString(parent);
      c.arrayHeader(blockSize);
      for (int i = b * blockSize; i < (b + 1) * blockSize; i++) {
        c.integer(tokenIds[i]);
      }
      if (extra.isEmpty()) {
        c.nil();
      } else {
        c.arrayHeader(extra.size());
        extra.forEach(c::text);
      }
      parent = sha256(c.bytes());
      out[b] = low64(parent);
    }
    return out;
  }

  /** The last eight bytes, big-endian: vLLM's {@code int.from_bytes(h, "big") & (2**64 - 1)}. */
  static long low64(byte[] hash) {
    long v = 0;
    for (int i = hash.length - 8; i < hash.length; i++) {
      v = (v << 8) | (hash[i] & 0xFF);
    }
    return v;
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256: unavailable (expected: in every JDK)", e);
    }
  }

  /** The canonical CBOR (RFC 8949) of the few types vLLM's block keys hold. */
  private static final class Cbor {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);

    void arrayHeader(int n) {
      head(4, n);
    }

    void byteString(byte[] b) {
      head(2, b.length);
      out.write(b, 0, b.length);
    }

    void text(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      head(3, b.length);
      out.write(b, 0, b.length);
    }

    void integer(long v) {
      if (v >= 0) {
        head(0, v);
      } else {
        head(1, -1 - v);
      }
    }

    void nil() {
      out.write(0xF6);
    }

    /** A major type with its argument in the shortest form. */
    private void head(int major, long v) {
      int m = major << 5;
      if (v < 24) {
        out.write(m | (int) v);
      } else if (v < 0x100) {
        out.write(m | 24);
        out.write((int) v);
      } else if (v < 0x10000) {
        out.write(m | 25);
        bigEndian(v, 2);
      } else if (v < 0x100000000L) {
        out.write(m | 26);
        bigEndian(v, 4);
      } else {
        out.write(m | 27);
        bigEndian(v, 8);
      }
    }

    private void bigEndian(long v, int bytes) {
      for (int i = bytes - 1; i >= 0; i--) {
        out.write((int) (v >>> (8 * i)) & 0xFF);
      }
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }
}
