package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.backpressure.AdmissionConfig;
import dev.courier.backpressure.MonitorConfig;
import dev.courier.idempotency.IdempotencyConfig;
import dev.courier.idempotency.IdempotentConsumerConfig;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.retry.DltReplayerConfig;
import dev.courier.retry.RetryConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * A setting's constant is named like its key, as Debezium's {@code Field} constants are: the key in
 * capitals with dots as underscores, the component's prefix ({@code retry.}, {@code outbox.}) left
 * out or kept, so one can find the key from the constant and back.
 */
class ConfigConstantNamesTest {

  record Config(Class<?> type, ConfigDef definition) {}

  private static final List<Config> CONFIGS =
      List.of(
          new Config(OutboxRelayConfig.class, OutboxRelayConfig.configDef()),
          new Config(RetryConfig.class, RetryConfig.configDef()),
          new Config(DltReplayerConfig.class, DltReplayerConfig.configDef()),
          new Config(IdempotencyConfig.class, IdempotencyConfig.configDef()),
          new Config(IdempotentConsumerConfig.class, IdempotentConsumerConfig.configDef()),
          new Config(MonitorConfig.class, MonitorConfig.configDef()),
          new Config(AdmissionConfig.class, AdmissionConfig.configDef()));

  @Test
  void everyKeyConstantIsNamedLikeItsKey() throws IllegalAccessException {
    for (Config config : CONFIGS) {
      Set<String> keys = config.definition().names();
      for (Field f : config.type().getDeclaredFields()) {
        int m = f.getModifiers();
        if (!Modifier.isPublic(m) || !Modifier.isStatic(m) || f.getType() != String.class) {
          continue;
        }
        String key = (String) f.get(null);
        if (!keys.contains(key)) {
          continue;
        }
        String whole = key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
        String withoutPrefix = whole.substring(whole.indexOf('_') + 1);
        assertThat(f.getName())
            .as(config.type().getSimpleName() + "." + f.getName() + " names " + key)
            .isIn(whole, withoutPrefix);
      }
    }
  }
}
