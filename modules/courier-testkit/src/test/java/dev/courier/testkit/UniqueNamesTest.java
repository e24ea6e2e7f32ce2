package dev.courier.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UniqueNamesTest {

  @Test
  void topicsKeepTheirPrefixAndDiffer() {
    String a = UniqueNames.topic("orders");
    String b = UniqueNames.topic("orders");
    assertThat(a).startsWith("orders-").isNotEqualTo(b);
  }

  @Test
  void postgresIdentifiersAreLowerCaseAndFitTheLimit() {
    String slot = UniqueNames.slot("Outbox Relay-Slot");
    assertThat(slot).matches("outbox_relay_slot_[0-9a-f]{8}");
    String longName = UniqueNames.database("x".repeat(100));
    assertThat(longName).hasSize(63).matches("[a-z][a-z0-9_]*");
    assertThat(UniqueNames.database("9lives")).startsWith("t_9lives_");
  }
}
