package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetryTopicsTest {

  private final RetryTopics billing = new RetryTopics("orders", "billing", 3);

  @Test
  void eachGroupHasLadderTopicsOfItsOwn() {
    assertThat(billing.all())
        .containsExactly(
            "orders",
            "orders.billing.retry.1",
            "orders.billing.retry.2",
            "orders.billing.retry.3",
            "orders.billing.dlt");
    assertThat(billing.blocked()).isEqualTo("orders.billing.retry.blocked");
    assertThat(new RetryTopics("orders", "shipping", 3).all())
        .doesNotContainAnyElementsOf(billing.all().subList(1, 5));
    assertThatThrownBy(() -> billing.tier(4)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void tierOfKnowsTheGroupsOwnTiersAndTheSharedOnesButNotAnotherGroups() {
    assertThat(billing.tierOf("orders")).isZero();
    assertThat(billing.tierOf("orders.billing.retry.2")).isEqualTo(2);
    assertThat(billing.tierOf("orders.billing.retry.5")).as("above the cap: drained").isEqualTo(5);
    assertThat(billing.tierOf("orders.retry.1")).as("shared, of before").isEqualTo(1);
    assertThat(billing.shared("orders.retry.1")).isTrue();
    assertThat(billing.shared("orders.billing.retry.1")).isFalse();
    assertThat(billing.tierOf("orders.shipping.retry.1")).isEqualTo(-1);
    assertThat(billing.tierOf("orders.billing.retry.blocked")).isEqualTo(-1);
    assertThat(billing.tierOf("orders.billing.dlt")).isEqualTo(-1);
    assertThat(billing.tierOf("orders.retry.0")).isEqualTo(-1);
  }

  @Test
  void theSharedLaddersNamesAreThoseOfBefore() {
    assertThat(billing.sharedTier(2)).isEqualTo("orders.retry.2");
    assertThat(billing.sharedDeadLetter()).isEqualTo("orders.dlt");
    assertThat(billing.sharedBlocked()).isEqualTo("orders.retry.blocked");
  }

  @Test
  void aGroupThatCannotNameATopicIsUnusable() {
    assertThat(billing.unusable()).isNull();
    assertThat(new RetryTopics("orders", "billing team", 3).unusable())
        .contains("as a Kafka topic name does");
    assertThat(new RetryTopics("orders", "billing/eu", 3).unusable()).isNotNull();
    assertThat(new RetryTopics("orders", "b".repeat(240), 3).unusable())
        .contains("longer than Kafka's 249 characters");
  }
}
