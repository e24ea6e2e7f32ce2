package dev.courier.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  @Test
  void portsComeFromBelowTheEphemeralRangeAndAreNeverHandedOutTwice() {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      int port = FreePorts.next();
      assertThat(port).isBetween(FreePorts.LOW, FreePorts.HIGH - 1);
      assertThat(ports.add(port)).as("port %d handed out twice", port).isTrue();
    }
  }

  @Test
  void aPortInUseIsNotFree() throws IOException {
    int port = FreePorts.next();
    assertThat(FreePorts.free(port)).isTrue();
    try (ServerSocket taken = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(FreePorts.free(taken.getLocalPort())).isFalse();
    }
  }
}
