package dev.courier.spring.autoconfigure;

import dev.courier.backpressure.LagMonitor;
import dev.courier.backpressure.MonitorConfig;
import dev.courier.spring.CourierGroupsEndpoint;
import dev.courier.spring.CourierHealth;
import dev.courier.spring.internal.CourierSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The backpressure monitor inside the application ({@code courier.monitor.enabled=true}, off by
 * default; the {@code courier monitor} service is the usual place): a {@link LagMonitor} ticking
 * over {@code courier.monitor.groups}, its meters in the application's registry, its health
 * (figures fresh or stale), and the read-only {@code /actuator/courier} endpoint.
 */
@AutoConfiguration(
    after = CourierAutoConfiguration.class,
    afterName =
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(LagMonitor.class)
@ConditionalOnBooleanProperty(name = "courier.monitor.enabled")
public class CourierMonitorAutoConfiguration {

  @Bean(initMethod = "start", destroyMethod = "close")
  @ConditionalOnMissingBean
  LagMonitor courierLagMonitor(
      CourierSettings settings,
      ObjectProvider<MeterRegistry> registry,
      ObjectProvider<Clock> clock) {
    return LagMonitor.create(
        settings.forComponent(MonitorConfig.configDef(), false),
        registry.getIfAvailable(() -> Metrics.globalRegistry),
        clock.getIfAvailable(Clock::systemUTC));
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class MonitorHealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "courierMonitorHealthIndicator")
    HealthIndicator courierMonitorHealthIndicator(LagMonitor monitor) {
      return new CourierHealth(monitor::health);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Endpoint.class)
  static class GroupsEndpointConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CourierGroupsEndpoint courierGroupsEndpoint(LagMonitor monitor) {
      return new CourierGroupsEndpoint(monitor);
    }
  }
}
