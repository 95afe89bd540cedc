package io.github.kvroute.api;

import java.util.function.Function;

/**
 * A parsed configuration value, or the error that prevented it. Host configuration often comes from
 * files or a control plane; a bad value is reported as a value naming the key and the expected range,
 * never thrown from class loading or service discovery.
 *
 * <p>Immutable and thread-safe if the value is.
 */
public final class ConfigOrError<T> {
  private final T value;
  private final String error;

  private ConfigOrError(T value, String error) {
    this.value = value;
    this.error = error;
  }

  public static <T> ConfigOrError<T> of(T value) {
    return new ConfigOrError<>(Checks.notNull(value, "value"), null);
  }

  /** An error, worded {@code key: value (expected: …)} where a key is at fault. */
  public static <T> ConfigOrError<T> error(String error) {
    return new ConfigOrError<>(null, Checks.notBlank(error, "error"));
  }

  public boolean isOk() {
    return error == null;
  }

  /**
   * The value.
   *
   * @throws IllegalStateException carrying the error, if there is no value
   */
  public T value() {
    if (error != null) {
      throw new IllegalStateException(error);
    }
    return value;
  }

  /** The error, or the empty string when there is a value. */
  public String error() {
    return error == null ? "" : error;
  }

  /** Applies {@code f} to the value; an error passes through unchanged. */
  public <U> ConfigOrError<U> map(Function<? super T, ? extends U> f) {
    return error == null ? ConfigOrError.of(f.apply(value)) : ConfigOrError.error(error);
  }

  @Override
  public String toString() {
    return error == null ? "ConfigOrError{" + value + "}" : "ConfigOrError{error=" + error + "}";
  }
}
