package dev.courier.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxWriter;
import dev.courier.spring.autoconfigure.CourierAutoConfiguration;
import dev.courier.spring.autoconfigure.CourierOutboxAutoConfiguration;
import dev.courier.spring.internal.CourierSettings;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The auto-configuration as Spring Boot runs it, without Kafka or PostgreSQL: which beans appear,
 * which of the user's win, where settings come from, and how a bad one fails the start.
 */
class CourierAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      Contexts.application()
          // Hikari connects lazily, and without the schema's migration nothing opens a connection.
          .withPropertyValues(
              "courier.outbox.schema.migrate=false",
              "spring.datasource.url=jdbc:postgresql://db.example:6543/shop?sslmode=require",
              "spring.datasource.username=shop",
              "spring.datasource.password=secret",
              "spring.kafka.bootstrap-servers=kafka-1:9092,kafka-2:9092",
              "spring.kafka.properties.client.rack=zone-a");

  @Test
  void theOutboxAndTheStoreAreThereAndTheRelayIsNot() {
    runner.run(
        context -> {
          assertThat(context).hasSingleBean(OutboxWriter.class);
          assertThat(context).hasSingleBean(TransactionalOutbox.class);
          assertThat(context).hasSingleBean(TransactionalIdempotency.class);
          assertThat(context).doesNotHaveBean(OutboxRelayLifecycle.class);
        });
  }

  @Test
  void springsKafkaAndDataSourceSettingsReachTheRelayAndCourierKeysWin() {
    runner
        .withPropertyValues(
            "courier.outbox.topic.prefix=shop",
            "courier.database.port=5433",
            "courier.kafka.security.protocol=PLAINTEXT")
        .run(
            context -> {
              Map<String, Object> relay =
                  context
                      .getBean(CourierSettings.class)
                      .forComponent(OutboxRelayConfig.configDef(), true);
              assertThat(relay)
                  .containsEntry("bootstrap.servers", "kafka-1:9092,kafka-2:9092")
                  .containsEntry("kafka.client.rack", "zone-a")
                  .containsEntry("kafka.security.protocol", "PLAINTEXT")
                  .containsEntry("database.hostname", "db.example")
                  .containsEntry("database.port", "5433")
                  .containsEntry("database.dbname", "shop")
                  .containsEntry("database.sslmode", "require")
                  .containsEntry("database.user", "shop")
                  .containsEntry("database.password", "secret")
                  .containsEntry("outbox.topic.prefix", "shop");
            });
  }

  @Test
  void anUnknownCourierKeyFailsTheStartNamingIt() {
    runner
        .withPropertyValues("courier.outbox.slot.nmae=x")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("courier.outbox.slot.nmae"));
  }

  @Test
  void aBadValueFailsTheStartNamingTheKey() {
    runner
        .withPropertyValues("courier.outbox.shard.count=0")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("outbox.shard.count"));
  }

  @Test
  void theUsersOwnBeansWin() {
    runner
        .withUserConfiguration(OwnWriter.class)
        .run(
            context -> {
              assertThat(context.getBean(OutboxWriter.class)).isSameAs(OwnWriter.WRITER);
              assertThat(context.getBean(TransactionalOutbox.class)).isNotNull();
            });
  }

  @Test
  void eachPartCanBeSwitchedOff() {
    runner
        .withPropertyValues("courier.outbox.enabled=false", "courier.idempotency.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(OutboxWriter.class);
              assertThat(context).doesNotHaveBean(TransactionalOutbox.class);
              assertThat(context).doesNotHaveBean(TransactionalIdempotency.class);
            });
  }

  @Test
  void withoutADataSourceThereIsNothingToWriteThrough() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                CourierAutoConfiguration.class, CourierOutboxAutoConfiguration.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(OutboxWriter.class);
              assertThat(context).doesNotHaveBean(DataSource.class);
              assertThat(context).doesNotHaveBean(TransactionalOutbox.class);
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnWriter {
    static final OutboxWriter WRITER = OutboxWriter.builder().removeAfterInsert(false).build();

    @Bean
    OutboxWriter myWriter() {
      return WRITER;
    }
  }
}
