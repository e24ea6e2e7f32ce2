package dev.courier.spring.autoconfigure;

import dev.courier.retry.FailureClassifier;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryingConsumer;
import dev.courier.spring.CourierLadderHealth;
import dev.courier.spring.CourierRetryContainerFactory;
import dev.courier.spring.OneLadderCheck;
import dev.courier.spring.internal.CourierSettings;
import dev.courier.spring.internal.Deserializers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.kafka.config.KafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;

/**
 * Courier's retry ladder for {@code @KafkaListener} methods ({@code courier.retry.enabled}, on by
 * default): a {@link CourierRetryContainerFactory} named {@value
 * CourierRetryContainerFactory#BEAN_NAME}, with the {@code courier.retry.*} settings, Spring's
 * Kafka connection and deserializers, and a {@link FailureClassifier} bean when there is one.
 */
@AutoConfiguration(
    after = CourierAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass({RetryingConsumer.class, KafkaListenerContainerFactory.class})
@ConditionalOnBooleanProperty(name = "courier.retry.enabled", matchIfMissing = true)
public class CourierRetryAutoConfiguration {

  @Bean(name = CourierRetryContainerFactory.BEAN_NAME)
  @ConditionalOnMissingBean(name = CourierRetryContainerFactory.BEAN_NAME)
  CourierRetryContainerFactory courierRetryContainerFactory(
      CourierSettings settings,
      ObjectProvider<ConsumerFactory<?, ?>> consumerFactory,
      ObjectProvider<FailureClassifier> classifier,
      ObjectProvider<MeterRegistry> registry,
      ObjectProvider<Clock> clock,
      ObjectProvider<OpenTelemetry> openTelemetry,
      Environment environment) {
    ConsumerFactory<?, ?> consumers = consumerFactory.getIfAvailable();
    Map<String, Object> consumerProperties =
        consumers == null ? Map.of() : consumers.getConfigurationProperties();
    CourierRetryContainerFactory factory =
        new CourierRetryContainerFactory(
            settings.forComponent(RetryConfig.configDef(), false),
            Deserializers.of(
                consumerProperties, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, true),
            Deserializers.of(
                consumerProperties, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, false),
            classifier.getIfAvailable(),
            registry.getIfAvailable(() -> Metrics.globalRegistry),
            clock.getIfAvailable(Clock::systemUTC),
            openTelemetry.getIfAvailable());
    // spring.kafka.listener.auto-startup=false stops Courier's ladder containers too.
    factory.setAutoStartup(
        environment.getProperty("spring.kafka.listener.auto-startup", Boolean.class, true));
    return factory;
  }

  @Bean
  static OneLadderCheck courierOneLadderCheck() {
    return new OneLadderCheck();
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class LadderHealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "courierRetryHealthIndicator")
    HealthIndicator courierRetryHealthIndicator(
        ObjectProvider<CourierRetryContainerFactory> factory) {
      return () -> {
        CourierRetryContainerFactory ladder = factory.getIfAvailable();
        return ladder == null
            ? org.springframework.boot.health.contributor.Health.unknown().build()
            : new CourierLadderHealth(ladder).health();
      };
    }
  }
}
