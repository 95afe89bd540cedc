package io.github.kvroute.core;

import io.github.kvroute.api.ReplicaSnapshot;
import io.github.kvroute.api.ReplicaState;
import io.github.kvroute.api.Request;

/**
 * Which known replicas may serve a request, before the breaker has its say: the rule of the
 * pipeline's candidate stage, kept here once so that an explanation names the same reason the
 * pipeline acted on. An enum, so that the request path allocates nothing for an ineligible replica.
 */
enum Eligibility {
  ELIGIBLE,
  NO_REPORT,
  REMOVED,
  NOT_READY,
  OTHER_MODEL,
  OTHER_VERSION,
  NO_ADAPTER;

  /** Whether {@code entry}, whose latest report is {@code snap}, may serve {@code request}. */
  static Eligibility of(ReplicaEntry entry, ReplicaSnapshot snap, Request request) {
    if (snap == null) {
      return NO_REPORT;
    }
    if (entry.removed) {
      return REMOVED;
    }
    if (snap.state() != ReplicaState.READY) {
      return NOT_READY;
    }
    if (!snap.model().equals(request.model())) {
      return OTHER_MODEL;
    }
    if (request.modelVersion().isPresent() && !request.modelVersion().equals(snap.modelVersion())) {
      return OTHER_VERSION;
    }
    if (request.adapter().isPresent() && !snap.canServeAdapter(request.adapter().get())) {
      return NO_ADAPTER;
    }
    return ELIGIBLE;
  }

  /** For explanations: the reason in words, with the values that decided it. */
  String describe(ReplicaSnapshot snap, Request request) {
    return switch (this) {
      case ELIGIBLE -> "";
      case NO_REPORT -> "no report yet";
      case REMOVED -> "removed";
      case NOT_READY -> "state " + snap.state();
      case OTHER_MODEL -> "serves model " + snap.model() + ", not " + request.model();
      case OTHER_VERSION -> "serves version " + snap.modelVersion().orElse("(none)") + ", not "
          + request.modelVersion().orElse("");
      case NO_ADAPTER -> "cannot serve adapter " + request.adapter().orElse("");
    };
  }
}
