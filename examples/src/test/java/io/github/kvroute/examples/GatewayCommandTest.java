package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** {@code kvroute-sim gateway}'s help and its one-line errors (running it is the e2e test's job). */
class GatewayCommandTest {
  @Test
  void helpNamesEveryOption() {
    CliRun r = CliRun.of("gateway", "--help");
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("Usage: kvroute-sim gateway").contains("--emulate=N")
        .contains("--replica=ID=URL").contains("--port=PORT").contains("--policy=NAME")
        .contains("--kv-events");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "gateway|give either --emulate N or --replica ID=URL",
      "gateway --emulate 2 --replica a=http://127.0.0.1:1|give either --emulate N or --replica ID=URL",
      "gateway --emulate 0|--emulate: 0 (expected: 1 to 64)",
      "gateway --emulate 2 --port 70000|--port: 70000 (expected: 0 to 65535)",
      "gateway --replica nourl|--replica: nourl (expected: ID=URL",
      "gateway --replica a=http://h:1 --replica a=http://h:2|--replica: a=http://h:2 (expected: each id once)",
      "gateway --replica a=http://h:1 --kv-events|--kv-events: only with --emulate"})
  void badArgumentsAreOneLineAndExitCode2(String args, String expected) {
    CliRun r = CliRun.of(args.split(" "));
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).startsWith("kvroute-sim: ").contains(expected);
    assertThat(r.err().lines().count()).as(r.err()).isEqualTo(1);
  }
}
