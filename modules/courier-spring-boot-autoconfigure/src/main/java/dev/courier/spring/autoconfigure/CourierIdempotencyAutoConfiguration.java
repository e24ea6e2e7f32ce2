package dev.courier.spring.autoconfigure;

import dev.courier.idempotency.IdempotencyConfig;
import dev.courier.spring.TransactionalIdempotency;
import dev.courier.spring.internal.CourierSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The idempotent store for Spring listeners ({@code courier.idempotency.enabled}, on by default): a
 * {@link TransactionalIdempotency} on the application's DataSource and transaction manager, with
 * the {@code courier.idempotency.*} settings.
 */
@AutoConfiguration(
    after = CourierAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
      "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass({IdempotencyConfig.class, DataSourceUtils.class})
@ConditionalOnBooleanProperty(name = "courier.idempotency.enabled", matchIfMissing = true)
public class CourierIdempotencyAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnSingleCandidate(DataSource.class)
  @ConditionalOnBean(PlatformTransactionManager.class)
  TransactionalIdempotency courierTransactionalIdempotency(
      CourierSettings settings,
      DataSource dataSource,
      PlatformTransactionManager transactionManager,
      ObjectProvider<MeterRegistry> registry) {
    return new TransactionalIdempotency(
        dataSource,
        transactionManager,
        settings.forComponent(IdempotencyConfig.configDef(), false),
        registry.getIfAvailable(() -> Metrics.globalRegistry));
  }
}
