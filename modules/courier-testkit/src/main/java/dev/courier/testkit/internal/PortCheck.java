package dev.courier.testkit.internal;

import dev.courier.testkit.InfraStartupException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Fails early, naming the port and the key, when a fixed port is already taken. */
final class PortCheck {

  private PortCheck() {}

  static void requireFree(int port, String key) {
    if (port == 0) {
      return;
    }
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
    } catch (IOException e) {
      throw new InfraStartupException(
          "port "
              + port
              + " ("
              + key
              + "="
              + port
              + ") is already in use by another process ("
              + e.getMessage()
              + "); stop that process or set "
              + key
              + "=0 to pick a free port");
    }
  }
}
