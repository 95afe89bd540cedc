package io.github.kvroute.examples.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.kvroute.api.Priority;

/**
 * What the gateway reads from an OpenAI request body to route it: the model, the prompt text the
 * prefix key is built from (a completion's {@code prompt}; each chat message's role and text, in
 * order, so conversations sharing a system prompt or a history share a prefix), the output limit,
 * whether it streams, and the priority ({@code service_tier}: {@code flex} is
 * {@link Priority#BATCH}, {@code priority} is {@link Priority#INTERACTIVE}, anything else standard).
 *
 * <p>Immutable once parsed; the body node must not be changed after. Thread-safe.
 *
 * @param body the request body, forwarded as it came (streaming adds {@code include_usage})
 * @param maxTokens {@code max_completion_tokens} or {@code max_tokens}, else 16
 * @param includeUsage whether the client asked for the usage chunk of a stream
 */
record OpenAiRequest(ObjectNode body, boolean chat, String model, String promptText,
    int maxTokens, boolean stream, boolean includeUsage, Priority priority) {
  static final int DEFAULT_MAX_TOKENS = 16;

  /** @throws IllegalArgumentException with a message for the client when the body is not usable */
  static OpenAiRequest parse(JsonNode node, boolean chat) {
    if (!(node instanceof ObjectNode body)) {
      throw new IllegalArgumentException("body: not a JSON object (expected: an OpenAI request)");
    }
    String model = body.path("model").asText("");
    if (model.isBlank()) {
      throw new IllegalArgumentException("model: missing (expected: a model name)");
    }
    String text = chat ? chatText(body.get("messages")) : completionText(body.get("prompt"));
    JsonNode max = body.hasNonNull("max_completion_tokens")
        ? body.get("max_completion_tokens") : body.get("max_tokens");
    int maxTokens = DEFAULT_MAX_TOKENS;
    if (max != null && !max.isNull()) {
      if (!max.canConvertToInt() || max.asInt() < 1) {
        throw new IllegalArgumentException("max_tokens: " + max + " (expected: an integer >= 1)");
      }
      maxTokens = max.asInt();
    }
    boolean stream = body.path("stream").asBoolean(false);
    boolean includeUsage = body.path("stream_options").path("include_usage").asBoolean(false);
    Priority priority = switch (body.path("service_tier").asText("")) {
      case "flex" -> Priority.BATCH;
      case "priority" -> Priority.INTERACTIVE;
      default -> Priority.STANDARD;
    };
    return new OpenAiRequest(body, chat, model, text, maxTokens, stream, includeUsage, priority);
  }

  private static String completionText(JsonNode prompt) {
    if (prompt != null && prompt.isTextual()) {
      return prompt.asText();
    }
    if (prompt != null && prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
      return prompt.get(0).asText();
    }
    throw new IllegalArgumentException("prompt: " + prompt + " (expected: a string)");
  }

  private static String chatText(JsonNode messages) {
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      throw new IllegalArgumentException(
          "messages: " + messages + " (expected: a non-empty array of messages)");
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode m : messages) {
      text.append(m.path("role").asText("user")).append('\n');
      JsonNode content = m.get("content");
      if (content != null && content.isTextual()) {
        text.append(content.asText());
      } else if (content != null && content.isArray()) {
        content.forEach(part -> text.append(part.path("text").asText("")));
      }
      text.append('\n');
    }
    return text.toString();
  }
}
