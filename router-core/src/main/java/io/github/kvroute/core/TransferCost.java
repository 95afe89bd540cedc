package io.github.kvroute.core;

/**
 * The time to move a request's KV from its prefill replica to its decode replica: bytes (tokens x
 * KV bytes per token) over the pair's link bandwidth ({@link Topology}). A 6,000-token prompt of a
 * 70B model (320 KiB per token, 1.83 GiB) takes about 95 ms on the reference link, twice that within
 * a rack at the default ratios and eight times across racks: enough to outweigh a short prefill
 * queue, which is why the pair, not each side, is what the router chooses.
 *
 * <p>Thread-safety: stateless.
 */
public final class TransferCost {
  private TransferCost() {}

  /**
   * Milliseconds to move {@code tokens} tokens of {@code kvBytesPerToken} at
   * {@code bytesPerSecond}.
   *
   * @param tokens the tokens whose KV moves; 0 or fewer cost nothing
   * @param kvBytesPerToken KV bytes per token
   * @param bytesPerSecond the link's bandwidth
   * @return milliseconds
   */
  public static double millis(long tokens, long kvBytesPerToken, double bytesPerSecond) {
    if (tokens <= 0) {
      return 0;
    }
    return tokens * (double) kvBytesPerToken / bytesPerSecond * 1000.0;
  }

  /**
   * The move of {@code tokens} from {@code prefillId} to {@code decodeId} under the cost model.
   *
   * @param tokens the tokens whose KV moves
   * @param prefillId the prefill replica's id
   * @param decodeId the decode replica's id
   * @param topology the link classes and bandwidths
   * @param model the cost model, for bytes per token and the uniform bandwidth
   * @return milliseconds
   */
  public static double millis(long tokens, String prefillId, String decodeId, Topology topology,
      CostModel model) {
    return millis(tokens, model.kvBytesPerToken(),
        topology.bytesPerSecond(prefillId, decodeId, model.kvTransferBytesPerSecond()));
  }
}
