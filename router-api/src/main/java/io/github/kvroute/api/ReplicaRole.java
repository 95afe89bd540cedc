package io.github.kvroute.api;

/** Which stage of inference a replica serves (prefill/decode disaggregation, or both). */
public enum ReplicaRole {
  /** Computes prompts and hands the KV cache to a decode replica. */
  PREFILL,
  /** Generates tokens from a KV cache computed elsewhere. */
  DECODE,
  /** Serves whole requests: prefill and decode on the same replica. */
  MIXED
}
