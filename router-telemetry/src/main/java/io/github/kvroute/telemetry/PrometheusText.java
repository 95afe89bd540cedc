package io.github.kvroute.telemetry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4, what vLLM's and SGLang's
 * {@code prometheus_client} serve on {@code /metrics}).
 *
 * <h2>Design notes</h2>
 * Why hand-written: the Prometheus Java client ({@code io.prometheus:prometheus-metrics-*}) writes the
 * format but has no parser, and no maintained Java parser of it is published; the grammar is small.
 *
 * <p>What is accepted, line by line: blank lines; comments ({@code # HELP}, {@code # TYPE}, any other
 * {@code #} line, OpenMetrics' {@code # EOF}), which carry no sample and are skipped; and samples
 * {@code name[{label="value",...}] value [timestamp]} where the name matches
 * {@code [a-zA-Z_:][a-zA-Z0-9_:]*}, label names {@code [a-zA-Z_][a-zA-Z0-9_]*}, label values are
 * double-quoted with the escapes {@code \\}, {@code \"} and {@code \n}, a trailing comma before
 * {@code }} is allowed, the value is a decimal float or {@code NaN}, {@code +Inf}, {@code -Inf}, and
 * the optional timestamp is an integer (milliseconds; validated, not kept).
 *
 * <p>What is not fatal: any other line (a truncated sample, an unquoted label value, a value such as
 * {@code 1.0.0} or Java's {@code Infinity}, a duplicate label) is skipped and counted in
 * {@link Exposition#malformedLines()}; the first {@value #MAX_PROBLEMS_KEPT} are described in
 * {@link Exposition#problems()}. One bad line never loses the rest of a scrape.
 *
 * <p>Stateless and thread-safe.
 */
public final class PrometheusText {
  /** How many malformed lines are described in {@link Exposition#problems()}; the rest are counted. */
  public static final int MAX_PROBLEMS_KEPT = 8;

  private static final Pattern DECIMAL =
      Pattern.compile("[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?");
  private static final Pattern TIMESTAMP = Pattern.compile("-?\\d+");

  private PrometheusText() {}

  /**
   * Parses {@code text}; never throws on content.
   *
   * @param text a Prometheus text exposition (format 0.0.4), as {@code /metrics} answers
   * @return its samples, with the malformed lines skipped and counted
   * @throws NullPointerException if {@code text} is null
   */
  public static Exposition parse(String text) {
    if (text == null) {
      throw new NullPointerException("text: null (expected: an exposition, possibly empty)");
    }
    List<Sample> samples = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int malformed = 0;
    int lineNo = 0;
    int start = 0;
    int n = text.length();
    while (start <= n) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = n;
      }
      lineNo++;
      String line = text.substring(start, end);
      if (line.endsWith("\r")) {
        line = line.substring(0, line.length() - 1);
      }
      String trimmed = line.strip();
      if (!trimmed.isEmpty() && trimmed.charAt(0) != '#') {
        try {
          samples.add(new LineParser(trimmed).sample());
        } catch (MalformedLine e) {
          malformed++;
          if (problems.size() < MAX_PROBLEMS_KEPT) {
            problems.add("line " + lineNo + ": " + e.getMessage());
          }
        }
      }
      start = end + 1;
    }
    return new Exposition(samples, malformed, problems);
  }

  /** Parses one value token as the format spells it. */
  static double parseValue(String token) throws MalformedLine {
    switch (token) {
      case "NaN":
        return Double.NaN;
      case "+Inf":
      case "Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      default:
        if (!DECIMAL.matcher(token).matches()) {
          throw new MalformedLine("value: " + abbreviate(token)
              + " (expected: a decimal float, NaN, +Inf or -Inf)");
        }
        return Double.parseDouble(token);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }

  /** A line that is not a valid sample; caught per line. */
  static final class MalformedLine extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedLine(String message) {
      super(message, null, false, false);
    }
  }

  /** A cursor over one sample line. */
  private static final class LineParser {
    private final String s;
    private int i;

    LineParser(String s) {
      this.s = s;
    }

    Sample sample() throws MalformedLine {
      String name = name(true);
      Map<String, String> labels = Map.of();
      if (i < s.length() && s.charAt(i) == '{') {
        labels = labels();
      }
      if (i >= s.length() || !isBlank(s.charAt(i))) {
        throw new MalformedLine(i >= s.length() ? "no value after " + name
            : "unexpected '" + s.charAt(i) + "' at column " + (i + 1));
      }
      String[] rest = s.substring(i).strip().split("[ \t]+");
      if (rest.length > 2) {
        throw new MalformedLine("trailing text after the value of " + name);
      }
      double value = parseValue(rest[0]);
      if (rest.length == 2 && !TIMESTAMP.matcher(rest[1]).matches()) {
        throw new MalformedLine("timestamp: " + abbreviate(rest[1]) + " (expected: integer milliseconds)");
      }
      return new Sample(name, labels, value);
    }

    private String name(boolean metric) throws MalformedLine {
      int from = i;
      while (i < s.length()) {
        char c = s.charAt(i);
        boolean ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (metric && c == ':') || (i > from && c >= '0' && c <= '9');
        if (!ok) {
          break;
        }
        i++;
      }
      if (i == from) {
        throw new MalformedLine((metric ? "metric" : "label") + " name expected at column " + (from + 1));
      }
      return s.substring(from, i);
    }

    private Map<String, String> labels() throws MalformedLine {
      i++; // '{'
      Map<String, String> labels = new HashMap<>();
      while (true) {
        skipBlanks();
        if (peek() == '}') {
          i++;
          return labels;
        }
        String label = name(false);
        skipBlanks();
        expect('=');
        skipBlanks();
        expect('"');
        String value = quoted();
        if (labels.put(label, value) != null) {
          throw new MalformedLine("duplicate label " + label);
        }
        skipBlanks();
        char c = peek();
        if (c == ',') {
          i++;
        } else if (c != '}') {
          throw new MalformedLine("',' or '}' expected at column " + (i + 1));
        }
      }
    }

    private String quoted() throws MalformedLine {
      StringBuilder b = new StringBuilder();
      while (i < s.length()) {
        char c = s.charAt(i++);
        if (c == '"') {
          return b.toString();
        }
        if (c == '\\') {
          if (i >= s.length()) {
            break;
          }
          char e = s.charAt(i++);
          switch (e) {
            case '\\' -> b.append('\\');
            case '"' -> b.append('"');
            case 'n' -> b.append('\n');
            default -> throw new MalformedLine("unknown escape \\" + e + " in a label value");
          }
        } else {
          b.append(c);
        }
      }
      throw new MalformedLine("unterminated label value");
    }

    private char peek() throws MalformedLine {
      if (i >= s.length()) {
        throw new MalformedLine("unterminated label set");
      }
      return s.charAt(i);
    }

    private void expect(char c) throws MalformedLine {
      if (peek() != c) {
        throw new MalformedLine("'" + c + "' expected at column " + (i + 1));
      }
      i++;
    }

    private void skipBlanks() {
      while (i < s.length() && isBlank(s.charAt(i))) {
        i++;
      }
    }

    private static boolean isBlank(char c) {
      return c == ' ' || c == '\t';
    }
  }
}
