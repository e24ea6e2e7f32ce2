package dev.courier.testkit.internal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.testkit.InfraStartupException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Start failures of the embedded PostgreSQL name their cause. */
class EmbeddedPostgresServerIT {

  @Test
  void portClashNamesThePortAndTheKey() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertThatThrownBy(() -> EmbeddedPostgresServer.start(port))
          .isInstanceOf(InfraStartupException.class)
          .hasMessageStartingWith("port " + port + " (courier.postgres.port=" + port + ")")
          .hasMessageContaining("already in use")
          .hasMessageContaining("courier.postgres.port=0");
    }
  }

  @Test
  void failedStartQuotesTheServerLog() {
    assertThatThrownBy(() -> EmbeddedPostgresServer.start(0, Map.of("max_connections", "many")))
        .isInstanceOf(InfraStartupException.class)
        .hasMessageStartingWith("embedded PostgreSQL failed to start")
        .hasMessageContaining("invalid value for parameter \"max_connections\": \"many\"");
  }
}
