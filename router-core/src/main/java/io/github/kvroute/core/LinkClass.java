package io.github.kvroute.core;

/**
 * How a prefill replica and a decode replica are connected, for pricing the move of a request's KV
 * between them: the classes a host's {@link Topology} tells apart.
 */
public enum LinkClass {
  /** Both replicas on one machine (a GPU interconnect such as NVLink). */
  SAME_NODE,
  /** Different machines under one top-of-rack switch (an RDMA NIC). */
  SAME_RACK,
  /** Different racks: the transfer crosses the spine, the slowest and most shared path. */
  CROSS_RACK
}
