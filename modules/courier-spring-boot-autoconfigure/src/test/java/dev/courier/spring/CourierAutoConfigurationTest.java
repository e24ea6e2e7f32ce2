package dev.courier.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxWriter;
import dev.courier.spring.autoconfigure.CourierAutoConfiguration;
import dev.courier.spring.autoconfigure.CourierOutboxAutoConfiguration;
import dev.courier.spring.internal.CourierPropertyFailureAnalyzer;
import dev.courier.spring.internal.CourierSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
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
  void anUnknownCourierKeyFailsTheStartNamingItAndTheNearestKnownOne() {
    refusal("courier.outbox.slot.nmae=x")
        .hasMessage(
            "courier.outbox.slot.nmae=x: no such Courier setting"
                + " (did you mean courier.outbox.slot.name?)");
  }

  @Test
  void aBadValueFailsTheStartNamingThePropertyAsWrittenAndWhatItTakes() {
    refusal("courier.outbox.shard.count=0")
        .hasMessageStartingWith("courier.outbox.shard.count=0: ")
        .hasMessageContaining("takes int [1,")
        .hasMessageNotContaining("Invalid value");
  }

  /**
   * A bad retry value fails the start of an application that has no ladder listener yet; before, it
   * was found only when a container on courierRetryContainerFactory was built.
   */
  @Test
  void aBadRetryValueFailsTheStartWithoutAnyListener() {
    refusal("courier.retry.max.attempts=three")
        .hasMessage(
            "courier.retry.max.attempts=three: Not a number of type INT"
                + " (takes int [1,...,20]; default 4)");
  }

  @Test
  void aMistypedSecretKeepsItsValueOutOfTheError() {
    refusal("courier.database.pasword=hunter2")
        .hasMessage(
            "courier.database.pasword: no such Courier setting"
                + " (did you mean courier.database.password?)")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void aSwitchTakesOnlyTrueOrFalse() {
    refusal("courier.outbox.enabled=maybe")
        .hasMessage("courier.outbox.enabled=maybe: not a boolean (true or false)");
  }

  /**
   * Spring Boot's failure analysis, found as Boot finds it (spring.factories), reports the property
   * instead of the bean it broke.
   */
  @Test
  void theFailureAnalysisNamesThePropertyItsValueAndWhatItTakes() throws IOException {
    assertThat(failureAnalyzersDeclared()).contains(CourierPropertyFailureAnalyzer.class.getName());
    runner
        .withPropertyValues("courier.retry.max.attempts=three")
        .run(
            context -> {
              FailureAnalysis analysis =
                  new CourierPropertyFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis.getDescription())
                  .contains("'courier.retry.max.attempts' with value 'three'");
              assertThat(analysis.getAction())
                  .contains("Correct 'courier.retry.max.attempts'")
                  .contains("takes int");
            });
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

  /** The root cause of the start with {@code property}: Courier's refusal of it. */
  private AbstractThrowableAssert<?, ? extends Throwable> refusal(String property) {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    runner.withPropertyValues(property).run(context -> failure.set(context.getStartupFailure()));
    return assertThat(failure.get())
        .isNotNull()
        .rootCause()
        .isInstanceOf(CourierPropertyException.class);
  }

  /** Every FailureAnalyzer the classpath's spring.factories declare, as Boot reads them. */
  private static List<String> failureAnalyzersDeclared() throws IOException {
    List<String> names = new ArrayList<>();
    for (URL url :
        Collections.list(
            CourierAutoConfigurationTest.class
                .getClassLoader()
                .getResources("META-INF/spring.factories"))) {
      Properties factories = new Properties();
      try (InputStream in = url.openStream()) {
        factories.load(in);
      }
      String declared = factories.getProperty(FailureAnalyzer.class.getName(), "");
      for (String name : declared.split(",")) {
        names.add(name.trim());
      }
    }
    return names;
  }
}
