package dev.courier.spring.internal;

import dev.courier.spring.CourierPropertyException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Spring Boot's report of a refused {@code courier.*} property: the property as written, its value
 * and what it takes, instead of the bean whose creation it broke.
 */
public final class CourierPropertyFailureAnalyzer
    extends AbstractFailureAnalyzer<CourierPropertyException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, CourierPropertyException cause) {
    String description =
        "Courier refused the property '"
            + cause.property()
            + "'"
            + cause.value().map(v -> " with value '" + v + "'").orElse("")
            + ":\n\n    "
            + cause.getMessage();
    String action =
        cause.allowed().isEmpty()
            ? "Correct '" + cause.property() + "' in the application's configuration."
            : "Correct '"
                + cause.property()
                + "' in the application's configuration: "
                + cause.allowed()
                + ". Every Courier setting is listed in docs/configuration.md (with the prefix"
                + " 'courier.'); Kafka client settings take 'courier.kafka.'.";
    return new FailureAnalysis(description, action, cause);
  }
}
