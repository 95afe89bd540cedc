package io.github.kvroute.api;

import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The policies available by name: providers discovered through {@link ServiceLoader} plus any a host
 * registers by hand. Modelled on gRPC's {@code LoadBalancerRegistry}.
 *
 * <p>For each name the <em>effective</em> provider is the available one with the highest
 * {@linkplain RoutingPolicyProvider#priority() priority}; ties go to the provider whose class name sorts
 * first, so the choice does not depend on classpath order. A provider that fails to load, throws from
 * {@code isAvailable()}, or has an invalid name is skipped and recorded in {@link #loadErrors()}:
 * discovery never throws.
 *
 * <pre>{@code
 * ConfigOrError<RoutingPolicy> p = RoutingPolicyRegistry.defaultRegistry()
 *     .newPolicy("hybrid-cost", Map.of(), PolicyEnvironment.system());
 * }</pre>
 *
 * <p>Thread-safety: thread-safe. Lookups read an immutable map published on every change (no lock);
 * changes are serialised.
 */
public final class RoutingPolicyRegistry {
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");
  private static final System.Logger LOG = System.getLogger(RoutingPolicyRegistry.class.getName());
  private static final int MAX_CONSECUTIVE_LOAD_FAILURES = 32;
  private static RoutingPolicyRegistry defaultRegistry;

  /** Registered providers (identity) with the name validated when each was added, in order. */
  private final Map<RoutingPolicyProvider, String> all = new LinkedHashMap<>();
  private final Set<String> loadErrors = new LinkedHashSet<>();
  private volatile Map<String, RoutingPolicyProvider> effective = Map.of();

  private RoutingPolicyRegistry() {}

  /** {@return an empty registry (for hosts that want full control, and for tests)} */
  public static RoutingPolicyRegistry newRegistry() {
    return new RoutingPolicyRegistry();
  }

  /**
   * {@return the process-wide registry, loaded on first use from the class loader of this class
   * and, if different, the thread's context class loader}
   */
  public static synchronized RoutingPolicyRegistry defaultRegistry() {
    if (defaultRegistry == null) {
      RoutingPolicyRegistry r = new RoutingPolicyRegistry();
      Set<ClassLoader> loaders = new LinkedHashSet<>();
      loaders.add(RoutingPolicyRegistry.class.getClassLoader());
      ClassLoader context = Thread.currentThread().getContextClassLoader();
      if (context != null) {
        loaders.add(context);
      }
      for (ClassLoader loader : loaders) {
        r.loadFrom(loader);
      }
      defaultRegistry = r;
    }
    return defaultRegistry;
  }

  /**
   * A new registry holding the providers {@code loader} can see.
   *
   * @param loader the class loader searched for {@link RoutingPolicyProvider} services
   * @return the registry
   */
  public static RoutingPolicyRegistry load(ClassLoader loader) {
    RoutingPolicyRegistry r = new RoutingPolicyRegistry();
    r.loadFrom(Checks.notNull(loader, "loader"));
    return r;
  }

  private synchronized void loadFrom(ClassLoader loader) {
    Set<Class<?>> seen = new java.util.HashSet<>();
    for (RoutingPolicyProvider p : all.keySet()) {
      seen.add(p.getClass());
    }
    Iterator<RoutingPolicyProvider> it =
        ServiceLoader.load(RoutingPolicyProvider.class, loader).iterator();
    // A broken class loader can make the iterator fail without advancing; stop after a run of
    // failures rather than spin.
    int consecutiveFailures = 0;
    while (consecutiveFailures < MAX_CONSECUTIVE_LOAD_FAILURES) {
      RoutingPolicyProvider p;
      try {
        if (!it.hasNext()) {
          break;
        }
        p = it.next();
        consecutiveFailures = 0;
      } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
        recordError("provider failed to load: " + e);
        consecutiveFailures++;
        continue;
      }
      if (seen.add(p.getClass())) {
        addChecked(p);
      }
    }
    refresh();
  }

  /**
   * Adds a provider. An unavailable or invalid provider is kept out of the effective set (and recorded
   * in {@link #loadErrors()} when invalid), exactly as discovery would.
   *
   * @param provider the provider; not null
   */
  public synchronized void register(RoutingPolicyProvider provider) {
    Checks.notNull(provider, "provider");
    addChecked(provider);
    refresh();
  }

  /**
   * Removes a provider; the next best for its name, if any, becomes effective.
   *
   * @param provider the provider, as registered or loaded
   */
  public synchronized void deregister(RoutingPolicyProvider provider) {
    all.remove(Checks.notNull(provider, "provider"));
    refresh();
  }

  /**
   * The effective provider for {@code name}.
   *
   * @param name the policy's name
   * @return the provider of the highest priority among the available ones; empty when none
   */
  public Optional<RoutingPolicyProvider> provider(String name) {
    return Optional.ofNullable(effective.get(name));
  }

  /** {@return names with an effective provider, sorted} */
  public SortedSet<String> policyNames() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(effective.keySet()));
  }

  /** {@return effective providers, sorted by name} */
  public List<RoutingPolicyProvider> providers() {
    return List.copyOf(effective.values());
  }

  /**
   * Problems met while loading or registering providers, for diagnostics.
   *
   * @return the problems, oldest first; a copy
   */
  public synchronized List<String> loadErrors() {
    return List.copyOf(loadErrors);
  }

  /**
   * Creates the named policy. An unknown name, or a provider that throws, is an error value.
   *
   * @param name the policy's registered name
   * @param config the policy's options; keys and values not null
   * @param environment the router's clock, randomness and registry
   * @return the policy, or an error naming what is wrong
   */
  public ConfigOrError<RoutingPolicy> newPolicy(
      String name, Map<String, String> config, PolicyEnvironment environment) {
    Checks.notNull(name, "name");
    Checks.notNull(config, "config");
    Checks.notNull(environment, "environment");
    RoutingPolicyProvider p = effective.get(name);
    if (p == null) {
      return ConfigOrError.error("policy: " + name + " (expected: one of " + policyNames() + ")");
    }
    for (Map.Entry<String, String> e : config.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        return ConfigOrError.error("config[" + e.getKey() + "]: null (expected: non-null keys and"
            + " values)");
      }
    }
    Map<String, String> copy = Map.copyOf(config);
    try {
      ConfigOrError<RoutingPolicy> result = p.newPolicy(copy, environment);
      if (result == null) {
        return ConfigOrError.error("policy " + name + ": provider returned null");
      }
      return result;
    } catch (RuntimeException e) {
      return ConfigOrError.error("policy " + name + ": provider threw " + e);
    }
  }

  private void addChecked(RoutingPolicyProvider p) {
    String name;
    try {
      name = p.policyName();
    } catch (RuntimeException e) {
      recordError(p.getClass().getName() + ": policyName() threw " + e);
      return;
    }
    if (name == null || !NAME.matcher(name).matches()) {
      recordError(p.getClass().getName() + ": policyName " + name
          + " (expected: lower-case letters, digits and hyphens, starting with a letter)");
      return;
    }
    int priority;
    try {
      priority = p.priority();
    } catch (RuntimeException e) {
      recordError(p.getClass().getName() + ": priority() threw " + e);
      return;
    }
    if (priority < 0 || priority > 10) {
      recordError(p.getClass().getName() + ": priority " + priority + " (expected: in [0, 10])");
      return;
    }
    all.putIfAbsent(p, name);
  }

  /**
   * Recomputes the effective provider per name: highest priority, then class name, then registration
   * order (the map iterates in insertion order and {@code merge} keeps the earlier on a tie).
   */
  private void refresh() {
    Map<String, RoutingPolicyProvider> best = new TreeMap<>();
    Map<RoutingPolicyProvider, Integer> priorities = new java.util.IdentityHashMap<>();
    for (RoutingPolicyProvider p : all.keySet()) {
      priorities.put(p, safePriority(p));
    }
    Comparator<RoutingPolicyProvider> order =
        Comparator.comparingInt((RoutingPolicyProvider p) -> priorities.get(p)).reversed()
            .thenComparing(p -> p.getClass().getName());
    for (Map.Entry<RoutingPolicyProvider, String> e : all.entrySet()) {
      RoutingPolicyProvider p = e.getKey();
      if (!safeAvailable(p)) {
        continue;
      }
      best.merge(e.getValue(), p, (a, b) -> order.compare(a, b) <= 0 ? a : b);
    }
    effective = Collections.unmodifiableMap(best);
  }

  private static int safePriority(RoutingPolicyProvider p) {
    try {
      return p.priority();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private boolean safeAvailable(RoutingPolicyProvider p) {
    try {
      return p.isAvailable();
    } catch (RuntimeException e) {
      recordError(p.getClass().getName() + ": isAvailable() threw " + e);
      return false;
    }
  }

  private void recordError(String message) {
    loadErrors.add(message);
    LOG.log(System.Logger.Level.DEBUG, message);
  }
}
