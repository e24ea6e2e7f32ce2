package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The builder keeps every setting given, in whatever order; nothing here touches a database. */
class IdempotentHandlerBuilderTest {

  private static IdempotentHandler.Builder<String, String> builder() {
    return IdempotentHandler.<String, String>builder()
        .dataSource(new PGSimpleDataSource()) // never connected: migrate(false)
        .migrate(false)
        .effect((c, r) -> {});
  }

  @Test
  void theConsumerNameAfterConfigKeepsTheConfig() {
    IdempotentHandler<String, String> handler =
        builder()
            .config(Map.of(IdempotencyConfig.BATCH_MODE, true))
            .consumerName("billing")
            .build();
    assertThat(handler.consumerName()).isEqualTo("billing");
    assertThat(handler.batchMode()).as("idempotency.batch.mode set before the name").isTrue();
  }

  @Test
  void configAfterTheConsumerNameKeepsTheName() {
    IdempotentHandler<String, String> handler =
        builder()
            .consumerName("billing")
            .config(Map.of(IdempotencyConfig.BATCH_MODE, true))
            .build();
    assertThat(handler.consumerName()).isEqualTo("billing");
    assertThat(handler.batchMode()).isTrue();
  }

  @Test
  void aMissingNameFailsAtBuildNamingTheKey() {
    assertThatThrownBy(() -> builder().build())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(IdempotencyConfig.CONSUMER_NAME);
  }
}
