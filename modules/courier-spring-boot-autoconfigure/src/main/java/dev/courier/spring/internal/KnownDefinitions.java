package dev.courier.spring.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigDef;
import org.springframework.util.ClassUtils;

/** The ConfigDefs of the Courier modules on the classpath: what a {@code courier.} key may name. */
public final class KnownDefinitions {

  private KnownDefinitions() {}

  public static List<ConfigDef> present() {
    List<ConfigDef> definitions = new ArrayList<>();
    ClassLoader loader = KnownDefinitions.class.getClassLoader();
    if (ClassUtils.isPresent("dev.courier.outbox.OutboxRelayConfig", loader)) {
      definitions.add(Outbox.DEFINITION.get());
    }
    if (ClassUtils.isPresent("dev.courier.idempotency.IdempotencyConfig", loader)) {
      definitions.add(Idempotency.DEFINITION.get());
    }
    if (ClassUtils.isPresent("dev.courier.retry.RetryConfig", loader)) {
      definitions.add(Retry.DEFINITION.get());
    }
    if (ClassUtils.isPresent("dev.courier.backpressure.MonitorConfig", loader)) {
      definitions.add(Monitor.DEFINITION.get());
    }
    return definitions;
  }

  // Holders, so a module's classes load only when it is present.
  private static final class Outbox {
    static final Supplier<ConfigDef> DEFINITION = dev.courier.outbox.OutboxRelayConfig::configDef;
  }

  private static final class Retry {
    static final Supplier<ConfigDef> DEFINITION = dev.courier.retry.RetryConfig::configDef;
  }

  private static final class Monitor {
    static final Supplier<ConfigDef> DEFINITION = dev.courier.backpressure.MonitorConfig::configDef;
  }

  private static final class Idempotency {
    static final Supplier<ConfigDef> DEFINITION =
        dev.courier.idempotency.IdempotencyConfig::configDef;
  }
}
