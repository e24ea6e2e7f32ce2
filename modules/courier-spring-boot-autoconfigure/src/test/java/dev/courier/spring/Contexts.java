package dev.courier.spring;

import dev.courier.spring.autoconfigure.CourierAutoConfiguration;
import dev.courier.spring.autoconfigure.CourierIdempotencyAutoConfiguration;
import dev.courier.spring.autoconfigure.CourierMonitorAutoConfiguration;
import dev.courier.spring.autoconfigure.CourierOutboxAutoConfiguration;
import dev.courier.spring.autoconfigure.CourierRetryAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** An application context as Spring Boot builds it: its DataSource and Kafka, then Courier's. */
final class Contexts {

  private Contexts() {}

  static ApplicationContextRunner application() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                DataSourceTransactionManagerAutoConfiguration.class,
                KafkaAutoConfiguration.class,
                CourierAutoConfiguration.class,
                CourierOutboxAutoConfiguration.class,
                CourierIdempotencyAutoConfiguration.class,
                CourierRetryAutoConfiguration.class,
                CourierMonitorAutoConfiguration.class));
  }

  /** A consumer-only application: Kafka and Courier's ladder, no DataSource to configure. */
  static ApplicationContextRunner kafkaOnly() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                KafkaAutoConfiguration.class,
                CourierAutoConfiguration.class,
                CourierRetryAutoConfiguration.class));
  }
}
