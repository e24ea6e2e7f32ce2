package dev.courier.outbox;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The relay in a child JVM for this module's crash tests ({@code key=value} arguments are its
 * settings). Services run it through {@code courier relay}, which lives in courier-cli and so is
 * not on this module's classpath.
 */
final class RelayMain {

  static final String STREAMING = "outbox relay streaming";

  private RelayMain() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> settings = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      settings.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    OutboxRelay relay = OutboxRelay.create(settings);
    Runtime.getRuntime().addShutdownHook(new Thread(relay::close, "relay-main-shutdown"));
    relay.awaitStreaming(Duration.ofMinutes(5));
    System.out.println(STREAMING);
    while (relay.failure() == null) {
      Thread.sleep(Duration.ofMillis(200).toMillis());
    }
    System.exit(1);
  }
}
