package io.github.kvroute.core;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.api.RoutingPolicy;

/**
 * The host's pluggable parts of one router — the policy, the admission veto and the cost terms behind
 * the standard estimate — with the guard that contains their failures.
 */
record HostPlugins(RoutingPolicy policy, AdmissionController admission, StandardEstimate estimate,
    PluginGuard guard) {}
