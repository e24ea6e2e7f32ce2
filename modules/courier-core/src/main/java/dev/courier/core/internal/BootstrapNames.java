package dev.courier.core.internal;

import dev.courier.core.ClientSettings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.common.utils.Utils;

/**
 * Whether any name in {@code bootstrap.servers} resolves. Kafka's clients (4.3) refuse to be built
 * when none does ("No resolvable bootstrap urls"), so a service started before its broker's name
 * exists (a container not up yet, a headless service without ready pods) would exit. That is an
 * outage to wait out, like a broker that does not answer; a malformed address stays Kafka's to
 * refuse, as the wrong setting it is.
 */
public final class BootstrapNames {

  private BootstrapNames() {}

  /**
   * @return empty when at least one address resolves (or one is malformed, which Kafka refuses with
   *     its own message); otherwise why none does, in words
   */
  public static Optional<String> unresolved(ClientSettings clients) {
    return unresolved(clients.bootstrapServers(), BootstrapNames::resolves);
  }

  static Optional<String> unresolved(List<String> servers, Predicate<String> resolves) {
    List<String> unknown = new ArrayList<>();
    for (String server : servers) {
      String address = server.trim();
      if (address.isEmpty()) {
        continue;
      }
      String host = Utils.getHost(address);
      if (host == null || Utils.getPort(address) == null || resolves.test(host)) {
        return Optional.empty();
      }
      unknown.add(address);
    }
    if (unknown.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "no address in "
            + ClientSettings.BOOTSTRAP_SERVERS
            + " resolves yet ("
            + String.join(", ", unknown)
            + ": unknown host); waiting for the name to exist");
  }

  private static boolean resolves(String host) {
    try {
      InetAddress.getAllByName(host);
      return true;
    } catch (UnknownHostException | SecurityException e) {
      return false;
    }
  }
}
