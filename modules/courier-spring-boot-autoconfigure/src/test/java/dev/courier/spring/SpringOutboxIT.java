package dev.courier.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.courier.outbox.OutboxEvent;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox in a Spring application on real PostgreSQL and Kafka: the relay runs as a bean,
 * configured from spring.datasource.* and spring.kafka.* alone plus the topic prefix; an event
 * written in a Spring transaction is published when it commits and never when it rolls back; a
 * write with no transaction is refused.
 */
@CourierInfraTest
class SpringOutboxIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  private final KafkaBroker kafka;
  private final TestDatabase db;

  SpringOutboxIT(KafkaBroker kafka, TestDatabase db) {
    this.kafka = kafka;
    this.db = db;
  }

  @Test
  void anEventCommitsWithTheBusinessChangeOrNotAtAllAndTheRelayInTheApplicationPublishesIt() {
    String prefix = UniqueNames.topic("shop");
    String id = prefix.replaceAll("[^a-z0-9_]", "_");
    Contexts.application()
        .withPropertyValues(
            "spring.datasource.url=" + db.jdbcUrl(),
            "spring.datasource.username=" + db.username(),
            "spring.datasource.password=" + db.password(),
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "courier.outbox.relay.enabled=true",
            "courier.outbox.topic.prefix=" + prefix,
            "courier.outbox.relay.name=" + prefix + "-relay",
            "courier.outbox.slot.name=" + id + "_slot",
            "courier.outbox.publication.name=" + id + "_pub",
            "courier.outbox.offset.storage.topic=" + prefix + ".offsets")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
              jdbc.execute("CREATE TABLE orders (id text PRIMARY KEY, amount int)");
              TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              HealthIndicator health =
                  context.getBean("courierRelayHealthIndicator", HealthIndicator.class);
              await()
                  .atMost(TIMEOUT)
                  .until(() -> "STREAMING".equals(health.health().getDetails().get("state")));
              assertThat(health.health().getStatus()).isEqualTo(Status.UP);

              assertThatThrownBy(
                      () ->
                          tx.executeWithoutResult(
                              status -> {
                                jdbc.update("INSERT INTO orders VALUES ('o-1', 10)");
                                outbox.write(event("o-1"));
                                throw new IllegalStateException("payment declined");
                              }))
                  .hasMessage("payment declined");
              tx.executeWithoutResult(
                  status -> {
                    jdbc.update("INSERT INTO orders VALUES ('o-2', 20)");
                    outbox.write(event("o-2"));
                  });
              assertThatThrownBy(() -> outbox.write(event("o-3")))
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("none is active");

              List<ConsumerRecord<String, String>> published =
                  kafka.readStrings(prefix + ".order", 1, TIMEOUT);
              assertThat(published).extracting(ConsumerRecord::key).containsExactly("o-2");
              assertThat(jdbc.queryForList("SELECT id FROM orders", String.class))
                  .containsExactly("o-2");
              // Nothing of o-1 or o-3 comes after o-2: a marker written last arrives next.
              tx.executeWithoutResult(status -> outbox.write(event("o-4")));
              assertThat(kafka.readStrings(prefix + ".order", 2, TIMEOUT))
                  .extracting(ConsumerRecord::key)
                  .containsExactly("o-2", "o-4");
            });
  }

  private static OutboxEvent event(String orderId) {
    return OutboxEvent.builder()
        .operationKey("order-" + orderId + "-created")
        .aggregate("order", orderId)
        .eventType("OrderCreated")
        .json("{\"order\":\"" + orderId + "\"}")
        .build();
  }
}
