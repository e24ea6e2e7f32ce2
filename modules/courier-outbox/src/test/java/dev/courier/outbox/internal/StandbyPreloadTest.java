package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.internal.ClassPreload;
import java.util.List;
import org.junit.jupiter.api.Test;

class StandbyPreloadTest {

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

    ClassPreload.Loaded loaded = ClassPreload.load(ours, getClass().getClassLoader());

    assertThat(loaded.linked())
        .as(
            "a listed class is gone (a later Debezium or Kafka?): write the list again with"
                + " dev.courier.benchmarks.EngineClassList (docs/outbox/failover.md)")
        .isEqualTo(ours.size());
  }
}
