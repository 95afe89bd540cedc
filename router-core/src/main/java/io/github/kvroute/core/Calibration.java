package io.github.kvroute.core;

/**
 * What outcomes taught the router about one replica: its prefill cost per token (an EWMA of
 * {@code (ttft - queue - overhead) / computed tokens}) and how often its cache beliefs held (an EWMA of
 * reused over predicted matched tokens).
 *
 * <h2>Design notes</h2>
 * A prefill-rate sample needs enough computed tokens to dominate timing noise (at least
 * {@value #MIN_TOKENS_FOR_RATE}), and samples are clamped to {@code [1/20, 20]} times the model default
 * so one pathological outcome (a GC pause, a preemption) cannot swing the estimate by orders of
 * magnitude. The rate is used once {@value #MIN_SAMPLES} samples agree; before that, the default.
 *
 * <p>Thread-safety: synchronized.
 */
final class Calibration {
  static final int MIN_TOKENS_FOR_RATE = 64;
  static final int MIN_SAMPLES = 3;
  private static final double ALPHA = 0.2;

  private double msPerToken;
  private int rateSamples;
  private double reliability = 1.0;

  synchronized void recordPrefill(double prefillMillis, double overheadMillis, int computedTokens,
      double defaultMsPerToken) {
    if (computedTokens < MIN_TOKENS_FOR_RATE || prefillMillis < 0) {
      return;
    }
    double sample = Math.max(0, prefillMillis - overheadMillis) / computedTokens;
    sample = Math.max(defaultMsPerToken / 20, Math.min(defaultMsPerToken * 20, sample));
    msPerToken = rateSamples == 0 ? sample : msPerToken + ALPHA * (sample - msPerToken);
    rateSamples++;
  }

  synchronized void recordReuse(int predictedTokens, int reusedTokens) {
    if (predictedTokens <= 0) {
      return;
    }
    double sample = Math.min(1.0, (double) reusedTokens / predictedTokens);
    reliability += ALPHA * (sample - reliability);
  }

  /** The learnt cost per token, or {@code fallback} until enough samples agree. */
  synchronized double msPerToken(double fallback) {
    return rateSamples >= MIN_SAMPLES ? msPerToken : fallback;
  }

  synchronized double reliability() {
    return reliability;
  }

  /** A new process: its cache is new, but the hardware (and so the prefill rate) is the same. */
  synchronized void onRestart() {
    reliability = 1.0;
  }
}
