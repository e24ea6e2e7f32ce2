package dev.courier.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Steps are picked by number or id, and the help lists them from the steps themselves. */
class LabCommandTest {

  @Test
  void stepsArePickedByNumberOrIdInTheLabsOrder() {
    assertThat(LabCommand.chosen(List.of("retry", "2", "OUTBOX"))).containsExactly(1, 2, 4);
    assertThat(LabCommand.chosen(List.of())).isEmpty();
    assertThatThrownBy(() -> LabCommand.chosen(List.of("retries")))
        .hasMessage(
            "--step retries: steps are 1 to 6 or outbox, crash, replay, retry, overload, trace");
    assertThatThrownBy(() -> LabCommand.chosen(List.of("0"))).hasMessageContaining("--step 0");
  }

  @Test
  void helpListsEveryStepWithItsIdAndTitle() {
    StringWriter help = new StringWriter();
    CourierLab.commandLine().getSubcommands().get("lab").usage(new PrintWriter(help));
    for (int i = 0; i < LabCommand.STEPS.size(); i++) {
      LabStep step = LabCommand.STEPS.get(i);
      assertThat(help.toString()).contains((i + 1) + " " + step.id());
    }
    assertThat(help.toString()).contains("--verbose");
  }
}
