package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.CourierHeaders;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class IdempotencyConfigTest {

  @Test
  void defaults() {
    IdempotencyConfig config =
        new IdempotencyConfig(Map.of("idempotency.consumer.name", "billing"));
    assertThat(config.consumerName()).isEqualTo("billing");
    assertThat(config.getString(IdempotencyConfig.OPERATION_KEY_HEADER))
        .isEqualTo(CourierHeaders.ID);
    assertThat(config.retention()).isEqualTo(Duration.ofDays(7));
    assertThat(config.getBoolean(IdempotencyConfig.BATCH_MODE)).isFalse();
  }

  @Test
  void badValuesNameTheKey() {
    assertThatThrownBy(() -> new IdempotencyConfig(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("idempotency.consumer.name");
    assertThatThrownBy(
            () ->
                new IdempotencyConfig(
                    Map.of("idempotency.consumer.name", "b", "idempotency.retention.ms", 0)))
        .hasMessageContaining("idempotency.retention.ms");
    assertThatThrownBy(
            () ->
                new IdempotencyConfig(
                    Map.of(
                        "idempotency.consumer.name", "b", "idempotency.purge.interval.ms", "soon")))
        .hasMessageContaining("idempotency.purge.interval.ms");
  }
}
