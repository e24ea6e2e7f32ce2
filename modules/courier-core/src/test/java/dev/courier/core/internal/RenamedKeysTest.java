package dev.courier.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.RenamedKey;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class RenamedKeysTest {

  private static final List<RenamedKey> RENAMED =
      List.of(
          RenamedKey.renamed("group.id", "retry.group.id"),
          RenamedKey.retired("retry.deadline.header", "read from courier.deadline"));

  @Test
  void anOldNameMovesToItsNewOne() {
    assertThat(RenamedKeys.apply(Map.of("group.id", "billing", "x", 1), RENAMED))
        .containsExactlyInAnyOrderEntriesOf(Map.of("retry.group.id", "billing", "x", 1));
  }

  @Test
  void bothNamesWithOneValueAreFineAndTwoValuesAreRefusedNamingBoth() {
    assertThat(
            RenamedKeys.apply(Map.of("group.id", "billing", "retry.group.id", "billing"), RENAMED))
        .containsExactlyEntriesOf(Map.of("retry.group.id", "billing"));
    assertThatThrownBy(
            () ->
                RenamedKeys.apply(
                    Map.of("group.id", "billing", "retry.group.id", "payments"), RENAMED))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("retry.group.id")
        .hasMessageContaining("'group.id'");
  }

  @Test
  void aRetiredNameStaysForItsConfigurationToReadAndTheWarningSaysWhatReplacesIt() {
    assertThat(RenamedKeys.apply(Map.of("retry.deadline.header", "due"), RENAMED))
        .containsExactlyEntriesOf(Map.of("retry.deadline.header", "due"));
    assertThat(RENAMED.get(1).warning())
        .contains("'retry.deadline.header' is deprecated")
        .contains(RenamedKey.NEXT_BREAKING_RELEASE)
        .contains("read from courier.deadline");
    assertThat(RENAMED.get(0).warning()).contains("use 'retry.group.id'");
  }
}
