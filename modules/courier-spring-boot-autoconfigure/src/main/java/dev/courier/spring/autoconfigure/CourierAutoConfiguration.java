package dev.courier.spring.autoconfigure;

import dev.courier.spring.internal.CourierSettings;
import dev.courier.spring.internal.KnownDefinitions;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Courier's settings, read once at start from {@code courier.*} and, where those do not say, from
 * Spring's Kafka ({@code spring.kafka.*}, or a {@code @ServiceConnection}) and DataSource ({@code
 * spring.datasource.*}) settings. An unknown {@code courier.} key or a bad value fails the start,
 * naming the property (the failure analysis says what it takes).
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
    })
public class CourierAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  CourierSettings courierSettings(
      Environment environment,
      ObjectProvider<SpringKafkaSettings> kafka,
      ObjectProvider<SpringDatabaseSettings> database) {
    CourierSettings settings =
        new CourierSettings(
            CourierSettings.courierProperties(environment),
            kafka.getIfAvailable(() -> Map::of).settings(),
            database.getIfAvailable(() -> Map::of).settings());
    settings.check(CourierSettings.applicationKeys(environment), KnownDefinitions.present());
    return settings;
  }

  /** Spring's Kafka client settings in Courier's form. */
  @FunctionalInterface
  public interface SpringKafkaSettings {
    Map<String, Object> settings();
  }

  /** Spring's DataSource connection in the relay's {@code database.*} form. */
  @FunctionalInterface
  public interface SpringDatabaseSettings {
    Map<String, Object> settings();
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(KafkaProperties.class)
  static class SpringKafkaConfiguration {

    @Bean
    SpringKafkaSettings courierSpringKafkaSettings(
        ObjectProvider<KafkaProperties> properties,
        ObjectProvider<KafkaConnectionDetails> connection) {
      return () -> {
        KafkaProperties kafka = properties.getIfAvailable();
        if (kafka == null) {
          return Map.of();
        }
        Map<String, Object> clients = kafka.buildAdminProperties();
        KafkaConnectionDetails details = connection.getIfAvailable();
        List<String> servers =
            details == null
                ? kafka.getBootstrapServers()
                : details.getAdmin().getBootstrapServers();
        if (details != null && details.getAdmin().getSecurityProtocol() != null) {
          clients.put("security.protocol", details.getAdmin().getSecurityProtocol());
        }
        return CourierSettings.kafkaSettings(servers, clients);
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(JdbcConnectionDetails.class)
  static class SpringDatabaseConfiguration {

    @Bean
    SpringDatabaseSettings courierSpringDatabaseSettings(
        ObjectProvider<JdbcConnectionDetails> connection) {
      return () -> {
        JdbcConnectionDetails details = connection.getIfAvailable();
        if (details == null) {
          return Map.of();
        }
        String url;
        try {
          url = details.getJdbcUrl();
        } catch (RuntimeException e) {
          // Spring JDBC without a configured database (a consumer-only application): Courier's
          // parts that need one say which database.* key is missing when they start.
          return Map.of();
        }
        return CourierSettings.databaseSettings(url, details.getUsername(), details.getPassword());
      };
    }
  }
}
