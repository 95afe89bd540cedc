package io.github.kvroute.examples;

/** A problem with what the user asked for: reported as one line on stderr, exit code 2. */
final class UserError extends RuntimeException {
  UserError(String message) {
    super(message, null, false, false);
  }
}
