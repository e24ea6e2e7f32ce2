package dev.courier.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports for servers that must know their port before they start (a PostgreSQL, a broker in
 * a child process, a service's HTTP endpoint).
 *
 * <p>A port the kernel hands out for {@code bind(0)} comes from the ephemeral range, which is also
 * where every outgoing connection takes its local port: between closing the probe and the server's
 * own bind, a Kafka client's reconnect could take it ("could not bind IPv4 address: Address already
 * in use", seen in CI). These ports come from below that range ({@code 20000-32767}, under Linux's
 * default {@code 32768-60999}), which outgoing connections never use, and are never handed out
 * twice in one JVM, so a server restarted on the same port finds it still free.
 */
public final class FreePorts {

  static final int LOW = 20_000;
  static final int HIGH = 32_768;
  private static final int ATTEMPTS = 200;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  /** A port free on the loopback and the wildcard address, not handed out before in this JVM. */
  public static int next() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 0; i < ATTEMPTS; i++) {
      int port = random.nextInt(LOW, HIGH);
      if (!HANDED_OUT.contains(port) && free(port) && HANDED_OUT.add(port)) {
        return port;
      }
    }
    // A crowded machine: fall back to the kernel's choice rather than fail.
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }

  static boolean free(int port) {
    return bindable(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
        && bindable(new InetSocketAddress(port));
  }

  private static boolean bindable(InetSocketAddress address) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(address, 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
