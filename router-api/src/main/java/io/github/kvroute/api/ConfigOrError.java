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

  /**
   * A successful result holding {@code value}.
   *
   * @param <T> the value's type
   * @param value the value; not null
   * @return the result, with no error
   */
  public static <T> ConfigOrError<T> of(T value) {
    return new ConfigOrError<>(Checks.notNull(value, "value"), null);
  }

  /**
   * An error, worded {@code key: value (expected: …)} where a key is at fault.
   *
   * @param <T> the type the value would have had
   * @param error the message; not blank
   * @return an error
   */
  public static <T> ConfigOrError<T> error(String error) {
    return new ConfigOrError<>(null, Checks.notBlank(error, "error"));
  }

  /** {@return whether this holds a value (and no error)} */
  public boolean isOk() {
    return error == null;
  }

  /**
   * {@return the value}
   *
   * @throws IllegalStateException carrying the error, if there is no value
   */
  public T value() {
    if (error != null) {
      throw new IllegalStateException(error);
    }
    return value;
  }

  /** {@return the error, or the empty string when there is a value} */
  public String error() {
    return error == null ? "" : error;
  }

  /**
   * Applies {@code f} to the value; an error passes through unchanged.
   *
   * @param <U> the mapped value's type
   * @param f the function applied to the value
   * @return the mapped value, or this error
   */
  public <U> ConfigOrError<U> map(Function<? super T, ? extends U> f) {
    return error == null ? ConfigOrError.of(f.apply(value)) : ConfigOrError.error(error);
  }

  @Override
  public String toString() {
    return error == null ? "ConfigOrError{" + value + "}" : "ConfigOrError{error=" + error + "}";
  }
}
