package io.github.kvroute.examples.emulator;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the emulator reads from an OpenAI request body: the prompt (a completion's {@code prompt}, or
 * the chat {@code messages} rendered through a ChatML-style template), the token limit and the
 * streaming options.
 *
 * <p>Immutable and thread-safe.
 *
 * @param prompt the text the engine prefills
 * @param maxTokens {@code max_tokens} (or {@code max_completion_tokens}); 16 when absent, vLLM's
 *     default for completions
 * @param stream {@code stream}
 * @param includeUsage {@code stream_options.include_usage}
 */
record OpenAiBody(String model, String prompt, int maxTokens, boolean stream, boolean includeUsage) {
  static final int DEFAULT_MAX_TOKENS = 16;

  /**
   * Reads a request body of {@code /v1/completions} ({@code chat} false) or
   * {@code /v1/chat/completions}.
   *
   * @throws IllegalArgumentException with an OpenAI-style message when the body is not one
   */
  static OpenAiBody parse(JsonNode body, boolean chat) {
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("body: not a JSON object (expected: an OpenAI request)");
    }
    String model = body.path("model").asText("");
    if (model.isEmpty()) {
      throw new IllegalArgumentException("model: missing (expected: the served model name)");
    }
    String prompt = chat ? renderChat(body.get("messages")) : completionPrompt(body.get("prompt"));
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
    return new OpenAiBody(model, prompt, maxTokens, stream, includeUsage);
  }

  private static String completionPrompt(JsonNode prompt) {
    if (prompt != null && prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
      return prompt.get(0).asText();
    }
    if (prompt == null || !prompt.isTextual()) {
      throw new IllegalArgumentException(
          "prompt: " + prompt + " (expected: a string; the emulator takes no token ids or batches)");
    }
    return prompt.asText();
  }

  private static String renderChat(JsonNode messages) {
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      throw new IllegalArgumentException(
          "messages: " + messages + " (expected: a non-empty array of messages)");
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode m : messages) {
      text.append("<|im_start|>").append(m.path("role").asText("user")).append('\n')
          .append(content(m.get("content"))).append("<|im_end|>\n");
    }
    return text.append("<|im_start|>assistant\n").toString();
  }

  /** A message's content: a string, or the text parts of an array of content parts. */
  static String content(JsonNode content) {
    if (content == null || content.isNull()) {
      return "";
    }
    if (content.isTextual()) {
      return content.asText();
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode part : content) {
      text.append(part.path("text").asText(""));
    }
    return text.toString();
  }
}
