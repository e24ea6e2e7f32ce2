package dev.courier.spring.autoconfigure;

import dev.courier.outbox.OutboxCapture;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxSchema;
import dev.courier.outbox.OutboxShards;
import dev.courier.outbox.OutboxWriter;
import dev.courier.spring.CourierHealth;
import dev.courier.spring.OutboxCaptureReadiness;
import dev.courier.spring.OutboxRelayLifecycle;
import dev.courier.spring.TransactionalOutbox;
import dev.courier.spring.internal.CourierSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The outbox ({@code courier.outbox.enabled}, on by default): an {@link OutboxWriter} with the
 * shards of {@code courier.outbox.shard.count}, and a {@link TransactionalOutbox} writing through
 * it in the caller's Spring transaction. The relay runs in the application only with {@code
 * courier.outbox.relay.enabled=true}; the separate {@code courier relay} service is the default.
 */
@AutoConfiguration(
    after = CourierAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass({OutboxWriter.class, DataSourceUtils.class})
@ConditionalOnBooleanProperty(name = "courier.outbox.enabled", matchIfMissing = true)
public class CourierOutboxAutoConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(CourierOutboxAutoConfiguration.class);

  @Bean
  @ConditionalOnMissingBean
  OutboxWriter courierOutboxWriter(
      CourierSettings settings,
      ObjectProvider<MeterRegistry> registry,
      ObjectProvider<OpenTelemetry> openTelemetry) {
    OutboxWriter.Builder writer =
        OutboxWriter.builder()
            .shards(shards(settings))
            .capture(capture(settings))
            .meterRegistry(registry.getIfAvailable(() -> Metrics.globalRegistry));
    // Boot's OpenTelemetry (spring-boot-starter-opentelemetry): rows carry the request's trace.
    openTelemetry.ifAvailable(writer::openTelemetry);
    return writer.build();
  }

  /**
   * The outbox tables, created or upgraded before anything can write to them, and the relay's slot
   * and publication made if this application's role may (else the relay makes them at its start,
   * and until then the writer refuses events and the application is not ready).
   */
  @Bean
  @ConditionalOnSingleCandidate(DataSource.class)
  @ConditionalOnBooleanProperty(name = "courier.outbox.schema.migrate", matchIfMissing = true)
  InitializingBean courierOutboxSchema(CourierSettings settings, DataSource dataSource) {
    OutboxShards shards = shards(settings);
    OutboxCapture capture = capture(settings);
    return () -> {
      OutboxSchema.migrate(dataSource, shards);
      try {
        OutboxSchema.prepareCapture(dataSource, shards, capture);
      } catch (IllegalStateException e) {
        LOG.warn(
            "{}; until the relay has made them the outbox writer refuses events and the"
                + " application is not ready",
            e.getMessage());
      }
    };
  }

  /**
   * Not ready while nothing captures the outbox: a first deploy's orders would be committed and
   * never published.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnSingleCandidate(DataSource.class)
  OutboxCaptureReadiness courierOutboxCaptureReadiness(
      CourierSettings settings, DataSource dataSource) {
    return new OutboxCaptureReadiness(dataSource, shards(settings), capture(settings));
  }

  /** The slot and publication of {@code courier.outbox.*}, as the relays are set. */
  private static OutboxCapture capture(CourierSettings settings) {
    return new OutboxCapture(
        (String) settings.value(OutboxRelayConfig.configDef(), OutboxRelayConfig.SLOT_NAME),
        (String) settings.value(OutboxRelayConfig.configDef(), OutboxRelayConfig.PUBLICATION_NAME),
        (Boolean) settings.value(OutboxRelayConfig.configDef(), OutboxRelayConfig.SLOT_FAILOVER));
  }

  private static OutboxShards shards(CourierSettings settings) {
    return OutboxShards.of(
        (Integer) settings.value(OutboxRelayConfig.configDef(), OutboxRelayConfig.SHARD_COUNT));
  }

  /** Whether the outbox is captured, with the reason when not. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class CaptureHealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "courierOutboxCaptureHealthIndicator")
    @ConditionalOnSingleCandidate(DataSource.class)
    HealthIndicator courierOutboxCaptureHealthIndicator(OutboxCaptureReadiness capture) {
      return () ->
          capture
              .missing()
              .map(why -> Health.outOfService().withDetail("reason", why).build())
              .orElseGet(() -> Health.up().build());
    }
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnSingleCandidate(DataSource.class)
  TransactionalOutbox courierTransactionalOutbox(OutboxWriter writer, DataSource dataSource) {
    return new TransactionalOutbox(writer, dataSource);
  }

  /** The relay in the application: off unless asked for. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBooleanProperty(name = "courier.outbox.relay.enabled")
  static class RelayConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OutboxRelayLifecycle courierOutboxRelay(
        CourierSettings settings,
        ObjectProvider<MeterRegistry> registry,
        ObjectProvider<Clock> clock,
        ObjectProvider<OpenTelemetry> openTelemetry) {
      return new OutboxRelayLifecycle(
          settings.forComponent(OutboxRelayConfig.configDef(), true),
          registry.getIfAvailable(() -> Metrics.globalRegistry),
          clock.getIfAvailable(Clock::systemUTC),
          openTelemetry.getIfAvailable());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class RelayHealthConfiguration {

      @Bean
      @ConditionalOnMissingBean(name = "courierRelayHealthIndicator")
      HealthIndicator courierRelayHealthIndicator(OutboxRelayLifecycle relay) {
        return new CourierHealth(relay::health);
      }
    }
  }
}
