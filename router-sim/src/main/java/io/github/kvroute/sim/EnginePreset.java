package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkNotNull;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A real engine: one model served by vLLM on a number of GPUs (tensor parallel), with every
 * {@link ReplicaModel} constant derived from the model's size and the GPUs' specification, plus one
 * fixed per-step overhead fitted to a published measurement. {@code docs/engines.md} shows the table
 * and the arithmetic.
 *
 * <h2>Design notes</h2>
 * <ul>
 *   <li><b>Weights</b> are read once per step: {@code parameters x 2 bytes / (gpus x bandwidth)}; with
 *       the fitted overhead this is the step's fixed cost ({@link ReplicaModel#decodeBaseMillis()}).
 *   <li><b>Linear layers</b> cost {@code 2 x parameters} FLOPs per token, prompt or generated, at
 *       {@link #GEMM_EFFICIENCY} of the GPUs' dense BF16 peak.
 *   <li><b>Attention</b> in a prefill costs {@code 4 x layers x attentionWidth} FLOPs per (query, key)
 *       pair (QK^T and AV), a causal prompt of {@code n} tokens has about {@code n^2 / 2} pairs, at
 *       {@link #ATTENTION_EFFICIENCY} of peak.
 *   <li><b>KV reads</b>: every step reads the KV its sequences hold, {@code layers x kvHeads x headDim
 *       x 2 (K and V) x 2 bytes} per token, at the GPUs' bandwidth.
 *   <li><b>KV capacity</b>: vLLM's default {@code gpu_memory_utilization} of 0.9 of each GPU's memory,
 *       less a runtime reserve per GPU (activations, CUDA graphs), less the weights, over the KV bytes
 *       per token, in whole 16-token blocks.
 *   <li><b>Batch limits</b>: vLLM V1's defaults for the OpenAI server on GPUs of 70 GiB or more
 *       ({@code EngineArgs.get_batch_defaults}): {@code max_num_seqs} 1,024 and
 *       {@code max_num_batched_tokens} (the prefill chunk budget of a step) 8,192.
 * </ul>
 * Not modelled: the attention FLOPs of decoding (memory-bound, covered by the KV reads), overlap of
 * compute with memory traffic (the terms add), and prefill starts' own overhead (0).
 *
 * <p>Immutable and thread-safe.
 */
public final class EnginePreset {
  /** The engine the CLI and the named scenarios use unless told otherwise. */
  public static final String DEFAULT_NAME = "llama3-8b-h100";

  /** H100 SXM: 80 GB HBM3 (NVIDIA H100 datasheet). */
  static final double H100_MEMORY_BYTES = 80e9;
  /** H100 SXM: 3.35 TB/s HBM3 bandwidth (NVIDIA H100 datasheet). */
  static final double H100_BANDWIDTH_BYTES_PER_SECOND = 3.35e12;
  /** H100 SXM: ~989 TFLOPS dense BF16 (NVIDIA H100 datasheet, without sparsity). */
  static final double H100_DENSE_BF16_FLOPS = 989e12;
  /**
   * Share of dense peak the linear layers sustain in a prefill (an assumption, cross-checked: NVIDIA's
   * GH200 NVL32 post measures a 472 ms TTFT for a 32,768-token Llama 3.1 70B prompt on 32 GPUs, 40% of
   * peak with 32-way parallelism).
   */
  static final double GEMM_EFFICIENCY = 0.5;
  /** Share of dense peak causal attention sustains (FlashAttention-3 measures 60-75% on H100). */
  static final double ATTENTION_EFFICIENCY = 0.6;
  /** vLLM's default {@code gpu_memory_utilization}. */
  static final double GPU_MEMORY_UTILIZATION = 0.9;
  /** Per GPU: activations of an 8,192-token step, CUDA graphs and the CUDA context (an estimate). */
  static final double RUNTIME_RESERVE_BYTES = 2e9;
  static final int MAX_NUM_SEQS = 1_024;
  static final int MAX_NUM_BATCHED_TOKENS = 8_192;
  private static final int BLOCK = 16;

  private static final EnginePreset LLAMA3_8B_H100 = new EnginePreset("llama3-8b-h100",
      "Llama-3-8B (BF16) on one H100 SXM, vLLM defaults", 8.03e9, 32, 4_096, 8, 128, 1, 2.645);
  private static final EnginePreset LLAMA3_70B_TP4_H100 = new EnginePreset("llama3-70b-tp4-h100",
      "Llama-3-70B (BF16) on four H100 SXM, tensor parallel, vLLM defaults", 70.6e9, 80, 8_192, 8, 128,
      4, 7.828);
  private static final ImmutableList<EnginePreset> ALL =
      ImmutableList.of(LLAMA3_8B_H100, LLAMA3_70B_TP4_H100);

  private final String name;
  private final String description;
  private final double parameters;
  private final int layers;
  private final int attentionWidth;
  private final int kvHeads;
  private final int headDim;
  private final int gpus;
  private final double stepOverheadMillis;
  private final ReplicaModel replicaModel;

  /**
   * @param stepOverheadMillis what a step costs beyond the arithmetic (scheduling, kernel launches,
   *     tensor-parallel all-reduces), fitted so that vLLM's latency benchmark (batch 8, 32 prompt and
   *     128 output tokens) takes what vLLM's performance dashboard measured on H100
   */
  private EnginePreset(String name, String description, double parameters, int layers,
      int attentionWidth, int kvHeads, int headDim, int gpus, double stepOverheadMillis) {
    this.name = name;
    this.description = description;
    this.parameters = parameters;
    this.layers = layers;
    this.attentionWidth = attentionWidth;
    this.kvHeads = kvHeads;
    this.headDim = headDim;
    this.gpus = gpus;
    this.stepOverheadMillis = stepOverheadMillis;
    this.replicaModel = derive();
  }

  private ReplicaModel derive() {
    double flops = gpus * H100_DENSE_BF16_FLOPS;
    double bandwidth = gpus * H100_BANDWIDTH_BYTES_PER_SECOND;
    double linearMillisPerToken = 2 * parameters / (flops * GEMM_EFFICIENCY) * 1e3;
    return ReplicaModel.newBuilder()
        .prefillOverheadMillis(0)
        .prefillMillisPerToken(linearMillisPerToken)
        .attentionMillisPerTokenPair(4.0 * layers * attentionWidth / (flops * ATTENTION_EFFICIENCY) * 1e3)
        .maxPrefillTokensPerStep(MAX_NUM_BATCHED_TOKENS)
        .decodeBaseMillis(stepOverheadMillis + weightBytes() / bandwidth * 1e3)
        .decodePerSequenceMillis(linearMillisPerToken)
        .kvReadMillisPerToken(kvBytesPerToken() / bandwidth * 1e3)
        .maxRunningSequences(MAX_NUM_SEQS)
        .kvCapacityTokens(kvCapacityTokens())
        .kvBytesPerToken(kvBytesPerToken())
        .build();
  }

  /** {@return every preset, the default first} */
  public static List<EnginePreset> all() {
    return ALL;
  }

  /**
   * The preset called {@code name}, if there is one.
   *
   * @param name the preset's name, such as {@code llama3-8b-h100}
   * @return the preset; empty when none has that name
   */
  public static Optional<EnginePreset> named(String name) {
    checkNotNull(name, "name: null (expected: an engine name)");
    return ALL.stream().filter(p -> p.name.equals(name)).findFirst();
  }

  /** {@return {@value #DEFAULT_NAME}} */
  public static EnginePreset defaultPreset() {
    return LLAMA3_8B_H100;
  }

  /** {@return the preset's name, as {@link #named} and the command line take it} */
  public String name() {
    return name;
  }

  /** {@return one line} */
  public String description() {
    return description;
  }

  /** {@return GPUs serving one replica (tensor parallel)} */
  public int gpus() {
    return gpus;
  }

  /** {@return BF16 weights: 2 bytes per parameter} */
  public double weightBytes() {
    return parameters * 2;
  }

  /** {@return {@code layers x kvHeads x headDim x 2 (K and V) x 2 bytes}} */
  public long kvBytesPerToken() {
    return (long) layers * kvHeads * headDim * 2 * 2;
  }

  /**
   * {@return the GPUs' memory vLLM leaves to KV, in tokens, rounded down to whole 16-token blocks}
   */
  public long kvCapacityTokens() {
    double free = gpus * (GPU_MEMORY_UTILIZATION * H100_MEMORY_BYTES - RUNTIME_RESERVE_BYTES)
        - weightBytes();
    return (long) (free / kvBytesPerToken()) / BLOCK * BLOCK;
  }

  /** {@return the fitted per-step overhead, in milliseconds} */
  public double stepOverheadMillis() {
    return stepOverheadMillis;
  }

  /** {@return the simulated replica's constants} */
  public ReplicaModel replicaModel() {
    return replicaModel;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "EnginePreset{%s, %d GPU(s), %s}", name, gpus, replicaModel);
  }
}
