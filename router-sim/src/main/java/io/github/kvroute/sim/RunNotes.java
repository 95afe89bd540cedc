package io.github.kvroute.sim;

import com.google.common.collect.ImmutableList;
import java.util.Locale;

/**
 * The lines a run adds below its table row: figures that only some scenarios produce.
 *
 * <p>Thread-safety: stateless.
 */
final class RunNotes {
  private RunNotes() {}

  static ImmutableList<String> of(Measurements m) {
    ImmutableList.Builder<String> out = ImmutableList.builder();
    if (m.transfers > 0) {
      out.add(String.format(Locale.ROOT,
          "kv transfers %d, mean %.1f ms from prefill end to decode arrival (link waits included)",
          m.transfers, m.transferNanos / 1e6 / m.transfers));
    }
    if (m.classNotes && m.interactiveOffered > 0) {
      out.add(String.format(Locale.ROOT,
          "interactive: %d offered, TTFT p99 %.1f ms, SLO attainment %.4f",
          m.interactiveOffered, m.interactiveTtftMicros.getTotalCount() == 0 ? Double.NaN
              : m.interactiveTtftMicros.getValueAtPercentile(99) / 1000.0,
          (double) m.interactiveWithinSlo / m.interactiveOffered));
    }
    if (m.classNotes && m.tenantOfferedTokens.size() > 1) {
      long offered = m.tenantOfferedTokens.values().stream().mapToLong(Long::longValue).sum();
      long done = m.tenantCompletedTokens.values().stream().mapToLong(Long::longValue).sum();
      StringBuilder b = new StringBuilder("completed prompt tokens by tenant (offered):");
      m.tenantOfferedTokens.forEach((tenant, o) -> b.append(String.format(Locale.ROOT,
          " %s %.1f%% (%.1f%%)", tenant.isEmpty() ? "-" : tenant,
          done == 0 ? 0 : 100.0 * m.tenantCompletedTokens.getOrDefault(tenant, 0L) / done,
          100.0 * o / offered)));
      out.add(b.toString());
    }
    if (m.hedgeNotes && m.admitted > 0) {
      out.add(String.format(Locale.ROOT,
          "hedges %d (%.2f per 100 admitted), duplicate prefill %d prompt tokens (%.2f%% of admitted),"
              + " %d on the first attempt's replica",
          m.hedges, 100.0 * m.hedges / m.admitted, m.hedgePrefillTokens,
          m.admittedPromptTokens == 0 ? 0 : 100.0 * m.hedgePrefillTokens / m.admittedPromptTokens,
          m.hedgesOnFirstReplica));
    }
    return out.build();
  }
}
