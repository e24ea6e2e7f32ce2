package dev.courier.backpressure;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A {@link MonitorService} in a JVM of its own, for a test that needs the JVM's name lookups set up
 * before they start: {@code key=value} settings as arguments; prints its port and serves until
 * killed.
 */
public final class MonitorServiceMain {

  private MonitorServiceMain() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, Object> settings = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      settings.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    MonitorService service = MonitorService.create(settings, Clock.systemUTC());
    System.out.println("port " + service.port());
    new CountDownLatch(1).await();
  }
}
