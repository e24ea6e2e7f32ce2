package dev.courier.cli;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Optional;

/**
 * Where Courier's services get their {@link OpenTelemetry}: the global one, when something set it
 * (OpenTelemetry's Java agent, {@code -javaagent:opentelemetry-javaagent.jar}, configured by its
 * {@code OTEL_*} variables). Unset, the services trace nothing and pass each record's {@code
 * traceparent} on as it came.
 */
final class ServiceTracing {

  private ServiceTracing() {}

  static Optional<OpenTelemetry> global() {
    try {
      // Not get(): with nothing set it would fix the global instance to a no-op for good.
      return GlobalOpenTelemetry.isSet()
          ? Optional.of(GlobalOpenTelemetry.get())
          : Optional.empty();
    } catch (NoSuchMethodError olderApi) {
      // isSet() is not in OpenTelemetry 1.55, what Spring Boot 4.0 manages: an application on
      // that API runs the commands untraced rather than fail.
      return Optional.empty();
    }
  }
}
