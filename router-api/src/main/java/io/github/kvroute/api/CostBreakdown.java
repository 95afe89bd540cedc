package io.github.kvroute.api;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * A predicted time to first token in milliseconds, broken down by cost term ({@code queue},
 * {@code prefill}, {@code step}, {@code transfer}, {@code risk}, {@code kv_pressure}, or a host
 * scorer's name). Milliseconds make predictions checkable against outcomes, unlike unit-less scores.
 *
 * <p>What it is for: the router's estimate of a candidate ({@link RoutingContext#estimate}) and a
 * routed decision's prediction ({@link RoutingDecision#cost()}). Admission compares its
 * {@linkplain #totalMillis() total} with the request's deadline, outcomes calibrate the queue term
 * against the real wait, and hosts log it to explain a placement. It is never a policy's weighted
 * ranking score: a weight or an externality changes what a policy prefers, not how long the request
 * will take, and belongs in {@link RoutingDecision#score()}.
 *
 * <p>Immutable and thread-safe.
 */
public final class CostBreakdown {
  private static final CostBreakdown EMPTY = new CostBreakdown(new String[0], new double[0]);

  private final String[] terms;
  private final double[] millis;
  private final double total;

  private CostBreakdown(String[] terms, double[] millis) {
    this.terms = terms;
    this.millis = millis;
    double sum = 0;
    for (double m : millis) {
      sum += m;
    }
    this.total = sum;
  }

  /**
   * {@return the breakdown with no terms: the policy did not estimate a cost (the router fills in
   * its own estimate)}
   */
  public static CostBreakdown empty() {
    return EMPTY;
  }

  /**
   * A single-term breakdown.
   *
   * @param term the term's name; not blank
   * @param millis the term's cost in milliseconds; finite
   * @return the breakdown
   */
  public static CostBreakdown of(String term, double millis) {
    return newBuilder().add(term, millis).build();
  }

  /** {@return an empty builder, sized for four terms (it grows past them)} */
  public static Builder newBuilder() {
    return new Builder(4);
  }

  /**
   * A builder sized for {@code expectedTerms} terms (it still grows past them): with exactly that
   * many, building copies nothing.
   *
   * @param expectedTerms the number of terms expected; {@code >= 0}
   * @return an empty builder
   * @throws IllegalArgumentException if {@code expectedTerms < 0}
   */
  public static Builder newBuilder(int expectedTerms) {
    return new Builder(Checks.atLeast(expectedTerms, 0, "expectedTerms"));
  }

  /**
   * A builder sized for {@code sameTermsAs}'s terms that, while it is given exactly those terms in
   * that order, shares their names with it instead of copying them: for an estimate that breaks
   * every candidate down into the same terms, each breakdown then allocates only its values. Given
   * other terms, or more, it copies the names and goes on as {@link #newBuilder(int)}.
   *
   * @param sameTermsAs a breakdown with the terms expected; not null
   * @return an empty builder
   * @throws NullPointerException if {@code sameTermsAs} is null
   */
  public static Builder newBuilder(CostBreakdown sameTermsAs) {
    return new Builder(Checks.notNull(sameTermsAs, "sameTermsAs"));
  }

  /** {@return whether the breakdown has no terms, as {@link #empty()}} */
  public boolean isEmpty() {
    return terms.length == 0;
  }

  /** {@return sum of all terms, in milliseconds} */
  public double totalMillis() {
    return total;
  }

  /** {@return the number of terms} */
  public int size() {
    return terms.length;
  }

  /**
   * Name of term {@code index}.
   *
   * @param index the term's position, in {@code [0, size())}
   * @return the term's name
   */
  public String term(int index) {
    return terms[index];
  }

  /**
   * Milliseconds of term {@code index}.
   *
   * @param index the term's position, in {@code [0, size())}
   * @return the term's cost in milliseconds
   */
  public double millis(int index) {
    return millis[index];
  }

  /**
   * Milliseconds of the named term, if present.
   *
   * @param term the term's name
   * @return the term's cost in milliseconds; empty when the breakdown has no such term
   */
  public OptionalDouble millis(String term) {
    for (int i = 0; i < terms.length; i++) {
      if (terms[i].equals(term)) {
        return OptionalDouble.of(millis[i]);
      }
    }
    return OptionalDouble.empty();
  }

  /** {@return terms in order, as an unmodifiable map} */
  public Map<String, Double> asMap() {
    Map<String, Double> m = new LinkedHashMap<>();
    for (int i = 0; i < terms.length; i++) {
      m.put(terms[i], millis[i]);
    }
    return Collections.unmodifiableMap(m);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CostBreakdown other
        && Arrays.equals(terms, other.terms)
        && Arrays.equals(millis, other.millis);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(terms) + Arrays.hashCode(millis);
  }

  /** For example {@code 220.0 ms = queue 100.0 + prefill 120.0}. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%.1f ms", total));
    for (int i = 0; i < terms.length; i++) {
      s.append(i == 0 ? " = " : " + ").append(terms[i]).append(' ')
          .append(String.format(Locale.ROOT, "%.1f", millis[i]));
    }
    return s.toString();
  }

  /** Builds a {@link CostBreakdown}. Not thread-safe. */
  public static final class Builder {
    private String[] terms;
    private double[] millis;
    private int size;
    /**
     * {@link #terms} is another breakdown's (immutable) array, matched so far term by term: never
     * written, and copied before the first term that differs from it.
     */
    private boolean shared;

    private Builder(int capacity) {
      terms = new String[capacity];
      millis = new double[capacity];
    }

    private Builder(CostBreakdown sameTermsAs) {
      terms = sameTermsAs.terms;
      millis = new double[terms.length];
      shared = true;
    }

    /**
     * Appends a term.
     *
     * @param term the term's name; not blank
     * @param millis the term's cost in milliseconds; finite
     * @return this builder
     * @throws IllegalArgumentException if {@code millis} is NaN or infinite, or the term repeats
     */
    public Builder add(String term, double millis) {
      Checks.notBlank(term, "term");
      if (Double.isNaN(millis) || Double.isInfinite(millis)) {
        throw new IllegalArgumentException(term + ": " + millis + " (expected: finite milliseconds)");
      }
      for (int i = 0; i < size; i++) {
        Checks.argument(!terms[i].equals(term), "term", term, "each term once");
      }
      if (shared && (size == terms.length || !terms[size].equals(term))) {
        // leaves the shared names: from here on the names are this builder's own
        terms = Arrays.copyOf(terms, terms.length);
        shared = false;
      }
      if (size == terms.length) {
        terms = Arrays.copyOf(terms, Math.max(4, size * 2));
        this.millis = Arrays.copyOf(this.millis, Math.max(4, size * 2));
      }
      if (!shared) {
        terms[size] = term;
      }
      this.millis[size] = millis;
      size++;
      return this;
    }

    /**
     * {@return the breakdown of the terms added so far, in order; {@link CostBreakdown#empty()}
     * when none}
     */
    public CostBreakdown build() {
      if (size == 0) {
        return EMPTY;
      }
      if (size == terms.length) {
        // full: the breakdown takes the arrays as they are; a later add grows (copies) them first,
        // so it cannot change what was built
        return new CostBreakdown(terms, millis);
      }
      return new CostBreakdown(Arrays.copyOf(terms, size), Arrays.copyOf(millis, size));
    }
  }
}
