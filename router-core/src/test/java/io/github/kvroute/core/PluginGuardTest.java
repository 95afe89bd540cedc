package io.github.kvroute.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.github.kvroute.api.RouterListener;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** What a host reads when a plugin fails: which plugin, and the fallback used instead. */
class PluginGuardTest {
  private final Logger log = mock(Logger.class);

  @Test
  void theWarningNamesThePluginAndTheFallback_once_thenDebug() {
    when(log.isDebugEnabled()).thenReturn(true);
    PluginGuard guard = new PluginGuard(java.util.List.of(), log);
    IllegalStateException bug = new IllegalStateException("policy bug");

    guard.failed("policy p", "used the least-cost replica instead", bug);
    guard.failed("policy p", "used the least-cost replica instead", bug);

    verify(log).warn("kvroute plugin 'policy p' failed; used the least-cost replica instead"
        + " (logged at WARN once for this plugin and fallback, then at DEBUG)", bug);
    verify(log).debug("kvroute plugin 'policy p' failed; used the least-cost replica instead", bug);
    assertThat(guard.failures()).isEqualTo(2);
  }

  @Test
  void anotherFallbackOfTheSamePluginIsWarnedOfToo() {
    PluginGuard guard = new PluginGuard(java.util.List.of(), log);
    RuntimeException e = new RuntimeException("x");

    guard.failed("policy p", "used the least-cost replica instead", e);
    guard.failed("policy p", "applied the outcome without telling the policy", e);

    verify(log).warn("kvroute plugin 'policy p' failed; applied the outcome without telling the"
        + " policy (logged at WARN once for this plugin and fallback, then at DEBUG)", e);
    verify(log, times(2)).warn(anyString(), any(Throwable.class));
    verify(log, never()).debug(anyString(), any(Throwable.class));
  }

  @Test
  void aListenerThatThrowsOnTheFailureReportIsLoggedWithItsOwnFallback() {
    RouterListener listener = mock(RouterListener.class);
    RuntimeException listenerBug = new RuntimeException("listener bug");
    doThrow(listenerBug).when(listener).onPluginFailure(anyString(), any());
    PluginGuard guard = new PluginGuard(java.util.List.of(listener), log);

    guard.failed("admission", "used the policy's decision as it was instead",
        new RuntimeException("admission bug"));

    verify(log).warn("kvroute plugin '" + PluginGuard.listenerName(listener) + "' failed; "
        + PluginGuard.LISTENER_FALLBACK
        + " (logged at WARN once for this plugin and fallback, then at DEBUG)", listenerBug);
    assertThat(guard.failures()).isEqualTo(2);
  }
}
