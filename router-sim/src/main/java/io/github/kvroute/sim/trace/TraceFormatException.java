package io.github.kvroute.sim.trace;

/**
 * A trace file is not in the format its reader expects. The message is one line naming the file, the
 * line and what is wrong: {@code conversation_trace.jsonl:17: hash_ids has 3 entries (expected:
 * ceil(6758/512) = 14)}, so a command-line tool can print it as is.
 *
 * <p>Immutable and thread-safe.
 */
public final class TraceFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** The trace file's name, as the message gives it. */
  private final String file;
  /** The 1-based line at fault. */
  private final long line;

  /**
   * @param file the file's name
   * @param line the 1-based line number
   * @param problem what is wrong
   * @param expected what was expected there
   */
  public TraceFormatException(String file, long line, String problem, String expected) {
    super(file + ":" + line + ": " + oneLine(problem) + " (expected: " + oneLine(expected) + ")");
    this.file = file;
    this.line = line;
  }

  private static String oneLine(String s) {
    return s.replaceAll("\\s*[\\r\\n]+\\s*", " ");
  }

  /** {@return the file's name} */
  public String file() {
    return file;
  }

  /** {@return the 1-based line number} */
  public long line() {
    return line;
  }
}
