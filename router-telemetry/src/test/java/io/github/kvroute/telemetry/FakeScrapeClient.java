package io.github.kvroute.telemetry;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Answers GETs from a table of path to response or failure; records what was asked. Thread-safe. */
final class FakeScrapeClient implements ScrapeClient {
  private final Map<String, Object> answers = new ConcurrentHashMap<>();
  final List<String> asked = java.util.Collections.synchronizedList(new ArrayList<>());

  FakeScrapeClient answer(String path, int status, String body) {
    answers.put(path, new Response(status, body));
    return this;
  }

  FakeScrapeClient fail(String path, IOException failure) {
    answers.put(path, failure);
    return this;
  }

  @Override
  public Response get(URI uri, Duration timeout) throws IOException {
    asked.add(uri.getPath());
    Object a = answers.get(uri.getPath());
    if (a == null) {
      return new Response(404, "");
    }
    if (a instanceof IOException e) {
      throw e;
    }
    return (Response) a;
  }
}
