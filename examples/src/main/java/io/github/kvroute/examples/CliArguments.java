package io.github.kvroute.examples;

import io.github.kvroute.sim.TelemetryProfile;
import io.github.kvroute.sim.trace.AzureTrace;
import io.github.kvroute.sim.trace.MooncakeTrace;
import io.github.kvroute.sim.trace.TraceFormatException;
import io.github.kvroute.sim.trace.TraceSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The option values several {@code kvroute-sim} commands take, parsed once: {@code --trace} and
 * {@code --telemetry}. Each failure is a {@link UserError} naming the option.
 *
 * <p>Thread-safety: stateless.
 */
final class CliArguments {
  private CliArguments() {}

  /**
   * {@return the trace {@code --trace KIND:PATH} names, read}
   *
   * @param spec {@code mooncake:PATH} or {@code azure:PATH}
   */
  static TraceSource trace(String spec) {
    int colon = spec.indexOf(':');
    String kind = colon < 0 ? "" : spec.substring(0, colon);
    if (colon < 0 || !(kind.equals("mooncake") || kind.equals("azure"))) {
      throw new UserError("--trace: " + spec + " (expected: mooncake:PATH or azure:PATH)");
    }
    Path path = Path.of(spec.substring(colon + 1));
    if (!Files.isRegularFile(path)) {
      throw new UserError("--trace: " + path + ": no such file");
    }
    try {
      return kind.equals("mooncake") ? MooncakeTrace.read(path) : AzureTrace.read(path);
    } catch (TraceFormatException e) {
      throw new UserError(e.getMessage());
    } catch (NoSuchFileException e) {
      throw new UserError("--trace: " + path + ": no such file");
    } catch (IOException e) {
      throw new UserError("--trace: " + path + ": " + e.getMessage());
    }
  }

  /**
   * {@return the profile {@code --telemetry NAME} names}
   *
   * @param name a profile's command-line name ({@code vllm}, {@code vllm-kv-events}, ...)
   */
  static TelemetryProfile telemetry(String name) {
    return TelemetryProfile.named(name).orElseThrow(() -> new UserError("--telemetry: " + name
        + " (expected: one of " + Arrays.stream(TelemetryProfile.values())
            .map(TelemetryProfile::cliName).toList() + ")"));
  }
}
