package io.github.kvroute.examples.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An OpenAI {@code /v1/completions} or {@code /v1/chat/completions} request body, as the gateway and
 * the emulated replicas read it: the model, the prompt text the engine prefills, the output limit,
 * the streaming options and the service tier.
 *
 * <p>The prompt of a chat request is its messages rendered through a ChatML-style template
 * ({@code <|im_start|>role\ncontent<|im_end|>\n} per message, then {@code <|im_start|>assistant\n}),
 * which is what the emulated engine prefills, and so what a gateway in front of emulated replicas
 * tokenizes to predict their block hashes (a real model renders {@code json}'s messages with its own
 * template). Conversations that share a system prompt or a history share a prefix.
 *
 * <p>Immutable once parsed; {@code json} must not be changed after. Thread-safe.
 *
 * @param json the body as it came, to forward unchanged
 * @param chat whether it is a chat request ({@code messages}) rather than a completion ({@code prompt})
 * @param model {@code model}, non-blank
 * @param prompt the text the engine prefills (see above)
 * @param maxTokens {@code max_completion_tokens}, else {@code max_tokens}, else
 *     {@value #DEFAULT_MAX_TOKENS} (vLLM's default for completions)
 * @param stream {@code stream}
 * @param includeUsage {@code stream_options.include_usage}
 * @param serviceTier {@code service_tier}, or {@code ""} when absent
 */
public record OpenAiBody(ObjectNode json, boolean chat, String model, String prompt, int maxTokens,
    boolean stream, boolean includeUsage, String serviceTier) {
  /** The output limit of a request that gives none. */
  public static final int DEFAULT_MAX_TOKENS = 16;

  /**
   * Reads a request body of {@code /v1/chat/completions} ({@code chat}) or {@code /v1/completions}.
   *
   * @param node the body as parsed JSON
   * @param chat whether it came to {@code /v1/chat/completions}
   * @return what the body says
   * @throws IllegalArgumentException with an OpenAI-style message for the client when the body is not
   *     one: not an object, no model, no prompt or messages, a bad token limit
   */
  public static OpenAiBody parse(JsonNode node, boolean chat) {
    if (!(node instanceof ObjectNode body)) {
      throw new IllegalArgumentException("body: not a JSON object (expected: an OpenAI request)");
    }
    String model = body.path("model").asText("");
    if (model.isBlank()) {
      throw new IllegalArgumentException("model: missing (expected: a model name)");
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
    return new OpenAiBody(body, chat, model, prompt, maxTokens,
        body.path("stream").asBoolean(false),
        body.path("stream_options").path("include_usage").asBoolean(false),
        body.path("service_tier").asText(""));
  }

  private static String completionPrompt(JsonNode prompt) {
    if (prompt != null && prompt.isArray() && prompt.size() == 1 && prompt.get(0).isTextual()) {
      return prompt.get(0).asText();
    }
    if (prompt == null || !prompt.isTextual()) {
      throw new IllegalArgumentException("prompt: " + prompt
          + " (expected: a string, or an array of one string; no token ids or batches)");
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
  private static String content(JsonNode content) {
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
