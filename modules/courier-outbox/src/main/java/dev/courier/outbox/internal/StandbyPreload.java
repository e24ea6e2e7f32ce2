package dev.courier.outbox.internal;

import dev.courier.core.internal.ClassPreload;
import dev.courier.core.internal.ClassPreload.Loaded;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads and links, while this replica stands by, the classes a relay loaded between winning the
 * lock and relaying its first batch ({@code engine-classes.txt}, written by the benchmarks' {@code
 * EngineClassList} from a measured start): a standby that never ran an engine would read, define
 * and verify about a thousand classes of Debezium, Kafka Connect and the JDBC driver in its
 * takeover, after the leader is gone. No static initializer runs ({@code Class.forName} without
 * initializing; asking for the declared methods links the class), so nothing starts, connects or
 * registers ({@link ClassPreload}). A name that is not there any more (a later Debezium) is
 * skipped.
 */
final class StandbyPreload {

  private static final Logger LOG = LoggerFactory.getLogger(StandbyPreload.class);
  static final String RESOURCE = "engine-classes.txt";

  private final AtomicBoolean started = new AtomicBoolean();

  /** Starts the preload on a daemon thread of low priority, once per relay. */
  void startOnce() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    Thread t =
        new Thread(
            () -> {
              long begun = System.nanoTime();
              Loaded loaded = ClassPreload.load(names(), StandbyPreload.class.getClassLoader());
              LOG.info(
                  "standby preloaded {} of {} engine classes in {} ms",
                  loaded.linked(),
                  loaded.listed(),
                  (System.nanoTime() - begun) / 1_000_000);
            },
            "courier-outbox-standby-preload");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  static List<String> names() {
    return ClassPreload.names(StandbyPreload.class, RESOURCE);
  }
}
