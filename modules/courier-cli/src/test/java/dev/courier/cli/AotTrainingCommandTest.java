package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.internal.ClassPreload;
import java.util.List;
import org.junit.jupiter.api.Test;

class AotTrainingCommandTest {

  @Test
  void everyListedClassOfTheRelaysLibrariesLoadsFromTheServicesClassPath() {
    // The JDK's own classes are left out here: the list is recorded on the image's Java 25, and
    // some of its internals are not in the Java 17 this test may run on.
    List<String> ours =
        ClassPreload.names(AotTrainingCommand.class, AotTrainingCommand.RESOURCE).stream()
            .filter(
                n ->
                    !n.startsWith("java.")
                        && !n.startsWith("javax.")
                        && !n.startsWith("jdk.")
                        && !n.startsWith("sun.")
                        && !n.startsWith("com.sun.")
                        && !n.startsWith("org.w3c.")
                        && !n.startsWith("org.xml."))
            .toList();
    assertThat(ours).hasSizeGreaterThan(3_000);

    // Present, not necessarily linkable: Log4j's loader reads a few classes (CSV layouts, OSGi)
    // whose optional dependencies are not there, as the recorded run did.
    List<String> gone = ours.stream().filter(n -> !present(n)).toList();

    assertThat(gone)
        .as(
            "a listed class is gone (a later Debezium or Kafka?): record the list again with"
                + " dev.courier.benchmarks.RelayClassList (docs/operations/deploy.md)")
        .isEmpty();
  }

  @Test
  void theTrainingRunLoadsTheListConnectsToNothingAndExitsZero() {
    CourierCommandTest.Run run = CourierCommandTest.run("aot-training");

    assertThat(run.status()).isZero();
    assertThat(run.out()).containsPattern("courier aot-training: loaded and linked \\d+ of \\d+");
    assertThat(run.err()).isEmpty();
  }

  private boolean present(String name) {
    try {
      Class.forName(name, false, getClass().getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
