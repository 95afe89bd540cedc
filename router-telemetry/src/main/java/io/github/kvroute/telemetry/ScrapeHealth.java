package io.github.kvroute.telemetry;

/** Whether a replica's scrapes succeed, as the poller last saw it. Immutable and thread-safe. */
public enum ScrapeHealth {
  /** Not scraped yet. */
  UNKNOWN,
  /** The last scrape succeeded. */
  UP,
  /** The last scrape failed (connection, timeout, HTTP status, or a body with no sample). */
  FAILING
}
