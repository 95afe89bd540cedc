package io.github.kvroute.telemetry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Reads the LoRA adapters out of an OpenAI-style {@code GET /v1/models} body as vLLM serves it: the
 * base model has {@code "parent": null}, each loaded adapter is an entry whose {@code parent} names the
 * base model. Stateless and thread-safe.
 */
final class ModelList {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ModelList() {}

  /**
   * The ids of the entries with a parent.
   *
   * @throws IllegalArgumentException if {@code body} is not a model list
   */
  static Set<String> adapters(String body) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("/v1/models: not JSON (expected: {\"data\": [...]})", e);
    }
    JsonNode data = root == null ? null : root.get("data");
    if (data == null || !data.isArray()) {
      throw new IllegalArgumentException("/v1/models: no data array (expected: {\"data\": [...]})");
    }
    Set<String> adapters = new LinkedHashSet<>();
    for (JsonNode entry : data) {
      JsonNode id = entry.get("id");
      JsonNode parent = entry.get("parent");
      if (id != null && id.isTextual() && parent != null && parent.isTextual()
          && !parent.asText().isBlank()) {
        adapters.add(id.asText());
      }
    }
    return adapters;
  }
}
