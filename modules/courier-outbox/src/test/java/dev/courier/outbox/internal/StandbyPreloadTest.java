package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class StandbyPreloadTest {

  /** Set by {@link Initialized}'s static initializer, which the preload must not run. */
  static final AtomicBoolean INITIALIZED = new AtomicBoolean();

  static final class Initialized {
    static {
      INITIALIZED.set(true);
    }

    void method() {}
  }

  @Test
  void everyListedClassOfDebeziumKafkaTheDriverAndCourierLoadsFromTheRelaysClassPath() {
    List<String> names = StandbyPreload.names();
    // Log4j's classes (the CLI's logging) are not on a library's class path and are skipped there.
    List<String> ours =
        names.stream()
            .filter(
                n ->
                    n.startsWith("io.debezium.")
                        || n.startsWith("org.apache.kafka.")
                        || n.startsWith("org.postgresql.")
                        || n.startsWith("dev.courier.outbox.")
                        || n.startsWith("dev.courier.core."))
            .toList();
    assertThat(ours).hasSizeGreaterThan(500);

    StandbyPreload.Loaded loaded = StandbyPreload.load(ours, getClass().getClassLoader());

    assertThat(loaded.linked())
        .as(
            "a listed class is gone (a later Debezium or Kafka?): write the list again with"
                + " dev.courier.benchmarks.EngineClassList (docs/outbox/failover.md)")
        .isEqualTo(ours.size());
  }

  @Test
  void loadsAndLinksWithoutRunningStaticInitializersAndSkipsWhatIsNotThere() {
    StandbyPreload.Loaded loaded =
        StandbyPreload.load(
            List.of("no.such.Engine", Initialized.class.getName()), getClass().getClassLoader());

    assertThat(loaded).isEqualTo(new StandbyPreload.Loaded(1, 2));
    assertThat(INITIALIZED).isFalse();
  }
}
