package io.github.kvroute.api;

import java.util.Map;

/**
 * Routing-policy providers for the registry tests. The public ones with a public no-argument
 * constructor are also listed in {@code META-INF/services} for the discovery test.
 */
public final class TestPolicyProviders {
  private TestPolicyProviders() {}

  /** A policy that declines everything; only its name matters to the registry tests. */
  record NamedPolicy(String name, double weight) implements RoutingPolicy {
    @Override
    public RoutingDecision route(RoutingContext context) {
      return RoutingDecision.rejected(RejectReason.POLICY, name, null);
    }
  }

  /** A provider with a fixed name, priority and availability that parses one option, "weight". */
  abstract static class Fixed extends RoutingPolicyProvider {
    private final String name;
    private final int priority;
    private final boolean available;

    Fixed(String name, int priority, boolean available) {
      this.name = name;
      this.priority = priority;
      this.available = available;
    }

    @Override
    public String policyName() {
      return name;
    }

    @Override
    public int priority() {
      return priority;
    }

    @Override
    public boolean isAvailable() {
      return available;
    }

    @Override
    public ConfigOrError<RoutingPolicy> newPolicy(
        Map<String, String> config, PolicyEnvironment environment) {
      PolicyConfig c = PolicyConfig.of(config);
      double weight = c.doubleIn("weight", 1.0, 0, 100);
      return c.finish(() -> new NamedPolicy(name, weight));
    }
  }

  /** Sorts before {@link Zzz}: wins ties. */
  static final class Aaa extends Fixed {
    Aaa(String name, int priority) {
      super(name, priority, true);
    }
  }

  static final class Zzz extends Fixed {
    Zzz(String name, int priority) {
      super(name, priority, true);
    }
  }

  static final class Unavailable extends Fixed {
    Unavailable(String name, int priority) {
      super(name, priority, false);
    }
  }

  static final class AvailabilityThrows extends Fixed {
    AvailabilityThrows(String name) {
      super(name, 10, true);
    }

    @Override
    public boolean isAvailable() {
      throw new IllegalStateException("probe failed");
    }
  }

  static final class NameThrows extends Fixed {
    NameThrows() {
      super("unused", 5, true);
    }

    @Override
    public String policyName() {
      throw new IllegalStateException("no name");
    }
  }

  static final class NewPolicyThrows extends Fixed {
    NewPolicyThrows(String name) {
      super(name, 5, true);
    }

    @Override
    public ConfigOrError<RoutingPolicy> newPolicy(
        Map<String, String> config, PolicyEnvironment environment) {
      throw new UnsupportedOperationException("boom");
    }
  }

  static final class NewPolicyNull extends Fixed {
    NewPolicyNull(String name) {
      super(name, 5, true);
    }

    @Override
    public ConfigOrError<RoutingPolicy> newPolicy(
        Map<String, String> config, PolicyEnvironment environment) {
      return null;
    }
  }

  /** Listed in META-INF/services. */
  public static final class DiscoverableAlpha extends Fixed {
    public DiscoverableAlpha() {
      super("test-alpha", 5, true);
    }
  }

  /** Listed in META-INF/services. */
  public static final class DiscoverableBeta extends Fixed {
    public DiscoverableBeta() {
      super("test-beta", 5, true);
    }
  }

  /** Listed in META-INF/services; its constructor throws, which discovery must contain. */
  public static final class ExplodingConstructor extends Fixed {
    public ExplodingConstructor() {
      super("test-exploding", 5, true);
      throw new IllegalStateException("constructor exploded");
    }
  }
}
