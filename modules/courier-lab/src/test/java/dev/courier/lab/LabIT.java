package dev.courier.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code java -jar courier-lab.jar lab} as the README's first command runs it: its own embedded
 * stack, every step, inside the 1 GiB heap the lab is held to.
 */
class LabIT {

  @Test
  void everyStepPassesInOneGibibyte() throws IOException {
    Set<Path> workDirsBefore = replayWorkDirs();
    try (WorkerProcess lab =
        JvmWorker.of(CourierLab.class)
            .name("lab")
            .classpath(Path.of("target", "courier-lab.jar").toAbsolutePath().toString())
            .jvmOption("-Xmx1g")
            .args("lab")
            .start()) {
      int status = lab.awaitExit(Duration.ofMinutes(6));
      String output = lab.output();
      assertThat(status).as(output).isZero();
      assertThat(output)
          .contains("courier lab: 6 of 6 step(s) passed")
          .doesNotContain("[FAIL]")
          .contains("unguarded total after the restart: 20")
          .contains("guarded total after the restart: 10")
          .contains("op-4 in the DLT: reason: expired")
          .contains("admission refused because of: Optional[OLDEST_AGE]")
          .as("the clients' and servers' logs go to the lab's log file, not the terminal")
          .contains("warnings of the clients and servers go to")
          .doesNotContain("SLF4J")
          .doesNotContain("Bootstrap metadata")
          .doesNotContain("QuorumController");
    }
    assertThat(replayWorkDirs())
        .as("the replay step's undo files and Streams state go with the step")
        .isSubsetOf(workDirsBefore);
  }

  private static Set<Path> replayWorkDirs() throws IOException {
    try (Stream<Path> tmp = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return tmp.filter(p -> p.getFileName().toString().startsWith("courier-lab-replay"))
          .collect(Collectors.toSet());
    }
  }

  @Test
  void anUnknownStepIsRefusedBeforeAnythingStarts() {
    try (WorkerProcess lab =
        JvmWorker.of(CourierLab.class)
            .name("lab-step-9")
            .classpath(Path.of("target", "courier-lab.jar").toAbsolutePath().toString())
            .args("lab", "--step", "9")
            .start()) {
      assertThat(lab.awaitExit(Duration.ofSeconds(60))).isEqualTo(1);
      assertThat(lab.output())
          .contains("--step 9: steps are 1 to 6 or outbox, crash, replay, retry, overload, trace")
          .doesNotContain("starting")
          .as("the jar carries its logging provider: no SLF4J warnings come first")
          .doesNotContain("SLF4J");
    }
  }
}
