package io.github.kvroute.core;

import io.github.kvroute.api.RejectReason;
import io.github.kvroute.api.UpdateResult;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The router's running totals (striped adders: cheap under contention). Thread-safe. */
final class RouterCounters {
  final LongAdder routed = new LongAdder();
  final LongAdder expired = new LongAdder();
  final LongAdder orphaned = new LongAdder();
  final LongAdder droppedKvEvents = new LongAdder();
  final LongAdder skewedReports = new LongAdder();
  final LongAdder kvEventGaps = new LongAdder();
  final LongAdder outOfOrderKvEvents = new LongAdder();
  private final EnumMap<RejectReason, LongAdder> rejected = new EnumMap<>(RejectReason.class);
  private final EnumMap<UpdateResult, LongAdder> outcomes = new EnumMap<>(UpdateResult.class);

  RouterCounters() {
    for (RejectReason r : RejectReason.values()) {
      rejected.put(r, new LongAdder());
    }
    for (UpdateResult r : UpdateResult.values()) {
      outcomes.put(r, new LongAdder());
    }
  }

  void rejected(RejectReason reason) {
    rejected.get(reason).increment();
  }

  void outcome(UpdateResult result) {
    outcomes.get(result).increment();
  }

  Map<RejectReason, Long> rejectedByReason() {
    EnumMap<RejectReason, Long> m = new EnumMap<>(RejectReason.class);
    rejected.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }

  Map<UpdateResult, Long> outcomesByResult() {
    EnumMap<UpdateResult, Long> m = new EnumMap<>(UpdateResult.class);
    outcomes.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }
}
