package dev.courier.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.courier.outbox.OutboxCapture;
import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxNotCapturedException;
import dev.courier.outbox.OutboxSchema;
import dev.courier.outbox.OutboxShards;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.TraceRecorder;
import dev.courier.testkit.UniqueNames;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
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
    relayApplication(prefix)
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

  /**
   * A first deploy on a fresh database: an order taken the moment the application is up, before its
   * relay streams, is published. The starter made the relay's slot and publication before the
   * application was up; without them that event was committed and never published.
   */
  @Test
  void onAFirstDeployAnOrderTakenAtOnceIsPublished() {
    String prefix = UniqueNames.topic("first");
    relayApplication(prefix)
        .withBean(ApplicationAvailabilityBean.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
              assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
                  .as("ready at once: the outbox is captured")
                  .isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
              new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                  .executeWithoutResult(
                      status -> context.getBean(TransactionalOutbox.class).write(event("f-1")));
              assertThat(kafka.readStrings(prefix + ".order", 1, TIMEOUT))
                  .extracting(ConsumerRecord::key)
                  .containsExactly("f-1");
            });
  }

  /**
   * An application whose role may not make the slot, with the relay elsewhere and not started yet:
   * it is not ready and its writer refuses orders (nothing is committed that would never be
   * published); once the slot and publication exist it is ready and takes them.
   */
  @Test
  void untilTheOutboxIsCapturedTheApplicationIsNotReadyAndItsWriterRefuses(CourierInfra infra) {
    String prefix = UniqueNames.topic("uncaptured");
    String id = prefix.replaceAll("[^a-z0-9_]", "_");
    // A database of its own: the class's holds the other tests' slots.
    TestDatabase db = infra.postgres().createDatabase("uncaptured");
    OutboxSchema.migrate(db.dataSource());
    Contexts.application()
        .withBean(ApplicationAvailabilityBean.class)
        .withPropertyValues(
            "spring.datasource.url=" + db.jdbcUrl(),
            "spring.datasource.username=" + db.username(),
            "spring.datasource.password=" + db.password(),
            "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            // The tables are there; nothing here may make the slot (as for a role without
            // REPLICATION).
            "courier.outbox.schema.migrate=false",
            "courier.outbox.topic.prefix=" + prefix,
            "courier.outbox.slot.name=" + id + "_slot",
            "courier.outbox.publication.name=" + id + "_pub")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
              ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
              assertThat(availability.getReadinessState())
                  .isEqualTo(ReadinessState.REFUSING_TRAFFIC);
              HealthIndicator capture =
                  context.getBean("courierOutboxCaptureHealthIndicator", HealthIndicator.class);
              assertThat(capture.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
              assertThat(String.valueOf(capture.health().getDetails().get("reason")))
                  .contains("replication slot " + id + "_slot does not exist");
              TransactionTemplate tx =
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
              assertThatThrownBy(
                      () ->
                          tx.executeWithoutResult(
                              status ->
                                  context.getBean(TransactionalOutbox.class).write(event("u-1"))))
                  .isInstanceOf(OutboxNotCapturedException.class)
                  .hasMessageContaining("would never be published");

              // The relay's start makes them (here by hand, with a role that may).
              OutboxSchema.prepareCapture(
                  db.dataSource(),
                  OutboxShards.SINGLE,
                  new OutboxCapture(id + "_slot", id + "_pub", false));
              await()
                  .atMost(TIMEOUT)
                  .until(
                      () -> availability.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
              assertThat(capture.health().getStatus()).isEqualTo(Status.UP);
              tx.executeWithoutResult(
                  status -> context.getBean(TransactionalOutbox.class).write(event("u-2")));
            });
  }

  @Test
  void ofTwoReplicasOfTheApplicationOneRelayStreamsAndTheOtherTakesOverWhenItStops() {
    String prefix = UniqueNames.topic("replicas");
    ApplicationContextRunner replica = relayApplication(prefix);
    replica.run(
        first ->
            replica.run(
                second -> {
                  HealthIndicator one = relayHealth(first);
                  HealthIndicator two = relayHealth(second);
                  await()
                      .atMost(TIMEOUT)
                      .until(() -> states(one, two).equals(Set.of("STREAMING", "STANDBY")));
                  assertThat(one.health().getStatus()).isEqualTo(Status.UP);
                  assertThat(two.health().getStatus()).isEqualTo(Status.UP);
                  ConfigurableApplicationContext leader =
                      state(one).equals("STREAMING") ? first : second;
                  ConfigurableApplicationContext standby = leader == first ? second : first;
                  leader.close(); // one replica stops, as in a rolling deploy
                  HealthIndicator survivor = relayHealth(standby);
                  await().atMost(TIMEOUT).until(() -> state(survivor).equals("STREAMING"));
                  new TransactionTemplate(standby.getBean(PlatformTransactionManager.class))
                      .executeWithoutResult(
                          status -> standby.getBean(TransactionalOutbox.class).write(event("r-1")));
                  assertThat(kafka.readStrings(prefix + ".order", 1, TIMEOUT))
                      .extracting(ConsumerRecord::key)
                      .containsExactly("r-1");
                }));
  }

  /**
   * With an {@code OpenTelemetry} bean (as Boot's OpenTelemetry starter makes one), the starter's
   * writer stores the transaction's trace and the relay in the application continues it.
   */
  @Test
  void withAnOpenTelemetryBeanTheEventContinuesTheRequestsTrace() {
    String prefix = UniqueNames.topic("traced");
    try (TraceRecorder traces = new TraceRecorder()) {
      relayApplication(prefix)
          .withBean(OpenTelemetry.class, traces::openTelemetry)
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                HealthIndicator health = relayHealth(context);
                await().atMost(TIMEOUT).until(() -> state(health).equals("STREAMING"));
                Span request =
                    traces
                        .openTelemetry()
                        .getTracer("test")
                        .spanBuilder("POST /orders")
                        .startSpan();
                try (Scope ignored = request.makeCurrent()) {
                  new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                      .executeWithoutResult(
                          status -> context.getBean(TransactionalOutbox.class).write(event("t-1")));
                } finally {
                  request.end();
                }
                ConsumerRecord<String, String> published =
                    kafka.readStrings(prefix + ".order", 1, TIMEOUT).get(0);
                String traceId = request.getSpanContext().getTraceId();
                assertThat(
                        new String(
                            published.headers().lastHeader("traceparent").value(),
                            java.nio.charset.StandardCharsets.UTF_8))
                    .contains(traceId);
                await()
                    .atMost(TIMEOUT)
                    .until(() -> traces.first(s -> s.getName().startsWith("publish ")).isPresent());
                assertThat(traces.first(s -> s.getName().startsWith("publish ")).get())
                    .satisfies(
                        s -> {
                          assertThat(s.getTraceId()).isEqualTo(traceId);
                          assertThat(s.getParentSpanId())
                              .isEqualTo(request.getSpanContext().getSpanId());
                        });
              });
    }
  }

  /**
   * An application on the testkit's PostgreSQL and Kafka with the relay in it, its names unique.
   */
  private ApplicationContextRunner relayApplication(String prefix) {
    String id = prefix.replaceAll("[^a-z0-9_]", "_");
    return Contexts.application()
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
            "courier.outbox.offset.storage.topic=" + prefix + ".offsets");
  }

  private static HealthIndicator relayHealth(ApplicationContext context) {
    return context.getBean("courierRelayHealthIndicator", HealthIndicator.class);
  }

  private static String state(HealthIndicator health) {
    return String.valueOf(health.health().getDetails().get("state"));
  }

  private static Set<String> states(HealthIndicator one, HealthIndicator two) {
    return Set.of(state(one), state(two)).size() == 2 ? Set.of(state(one), state(two)) : Set.of();
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
