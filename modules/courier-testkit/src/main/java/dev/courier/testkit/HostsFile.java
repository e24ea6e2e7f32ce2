package dev.courier.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The names a child JVM can resolve, from a file of the test's ({@code jdk.net.hosts.file}, with
 * failed lookups not cached): that JVM resolves what the file lists and nothing else, so a test can
 * start a service before its broker's name exists and make the name exist midway.
 *
 * <pre>{@code
 * HostsFile hosts = HostsFile.create(dir, "localhost", brokerHost);
 * WorkerProcess service = hosts.applyTo(JvmWorker.of(Main.class)).start();
 * hosts.alias("courier-broker.invalid", brokerHost);   // the name resolves from now on
 * }</pre>
 */
public final class HostsFile {

  private final Path file;
  private final Path security;

  private HostsFile(Path file, Path security) {
    this.file = file;
    this.security = security;
  }

  /**
   * A file in {@code dir} listing these hosts (as this JVM resolves them), localhost and this
   * machine's own name, which Kafka's and PostgreSQL's clients look up.
   */
  public static HostsFile create(Path dir, String... hosts) {
    try {
      StringBuilder lines = new StringBuilder("127.0.0.1 localhost\n::1 localhost\n");
      for (String host : hosts) {
        lines.append(address(host)).append(' ').append(host).append('\n');
      }
      lines.append("127.0.0.1 ").append(InetAddress.getLocalHost().getHostName()).append('\n');
      Path file = dir.resolve("hosts");
      Files.writeString(file, lines);
      Path security = dir.resolve("dns.security");
      Files.writeString(security, "networkaddress.cache.negative.ttl=0\n");
      return new HostsFile(file, security);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The worker, reading its names from this file. */
  public JvmWorker applyTo(JvmWorker worker) {
    return worker
        .jvmOption("-Djdk.net.hosts.file=" + file)
        .jvmOption("-Djava.security.properties=" + security);
  }

  /** Makes {@code name} resolve, from now on, to the address {@code host} has here. */
  public void alias(String name, String host) {
    try {
      Files.writeString(file, address(host) + " " + name + "\n", StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String address(String host) throws IOException {
    return InetAddress.getByName(host).getHostAddress();
  }
}
