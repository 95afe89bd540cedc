package io.github.kvroute.examples.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The one OpenAI body parser the gateway and the emulated replicas share. */
class OpenAiBodyTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  @Test
  void aChatIsRenderedThroughTheTemplateWithItsOptions() throws Exception {
    OpenAiBody body = OpenAiBody.parse(json("""
        {"model":"m","stream":true,"stream_options":{"include_usage":true},"service_tier":"flex",
         "max_tokens":5,"max_completion_tokens":7,
         "messages":[{"role":"system","content":"Be brief."},
                     {"role":"user","content":[{"type":"text","text":"Hi "},{"type":"text","text":"there"}]},
                     {"content":null}]}
        """), true);

    assertThat(body.prompt()).isEqualTo("<|im_start|>system\nBe brief.<|im_end|>\n"
        + "<|im_start|>user\nHi there<|im_end|>\n"
        + "<|im_start|>user\n<|im_end|>\n"
        + "<|im_start|>assistant\n");
    assertThat(body.chat()).isTrue();
    assertThat(body.model()).isEqualTo("m");
    assertThat(body.maxTokens()).as("max_completion_tokens wins").isEqualTo(7);
    assertThat(body.stream()).isTrue();
    assertThat(body.includeUsage()).isTrue();
    assertThat(body.serviceTier()).isEqualTo("flex");
    assertThat(body.json().path("messages").size()).as("the body as it came").isEqualTo(3);
  }

  @Test
  void aCompletionTakesAStringOrAnArrayOfOneAndDefaultsItsOptions() throws Exception {
    OpenAiBody plain = OpenAiBody.parse(json("{\"model\":\"m\",\"prompt\":\"abc\"}"), false);
    OpenAiBody array = OpenAiBody.parse(json("{\"model\":\"m\",\"prompt\":[\"abc\"]}"), false);

    assertThat(plain.prompt()).isEqualTo("abc").isEqualTo(array.prompt());
    assertThat(plain.maxTokens()).isEqualTo(OpenAiBody.DEFAULT_MAX_TOKENS);
    assertThat(plain.stream()).isFalse();
    assertThat(plain.includeUsage()).isFalse();
    assertThat(plain.serviceTier()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "[1]|false|body: not a JSON object (expected: an OpenAI request)",
      "{\"prompt\":\"x\"}|false|model: missing (expected: a model name)",
      "{\"model\":\" \",\"prompt\":\"x\"}|false|model: missing (expected: a model name)",
      "{\"model\":\"m\",\"prompt\":[1,2]}|false|prompt: [1,2] (expected: a string, or an array of one string; no token ids or batches)",
      "{\"model\":\"m\"}|true|messages: null (expected: a non-empty array of messages)",
      "{\"model\":\"m\",\"messages\":[]}|true|messages: [] (expected: a non-empty array of messages)",
      "{\"model\":\"m\",\"prompt\":\"x\",\"max_tokens\":0}|false|max_tokens: 0 (expected: an integer >= 1)",
      "{\"model\":\"m\",\"prompt\":\"x\",\"max_tokens\":\"lots\"}|false|max_tokens: \"lots\" (expected: an integer >= 1)"})
  void aBodyThatIsNotARequestIsNamed(String body, boolean chat, String message) {
    assertThatThrownBy(() -> OpenAiBody.parse(json(body), chat))
        .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }
}
