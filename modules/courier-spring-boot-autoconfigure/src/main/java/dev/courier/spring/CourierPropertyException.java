package dev.courier.spring;

import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;

/**
 * A {@code courier.*} property the application sets that Courier refuses at start: a key no Courier
 * setting has, or a value its setting does not allow. Named as the application wrote it, prefix
 * included; the start fails with it, and Spring Boot's failure analysis says what to change.
 */
public final class CourierPropertyException extends ConfigException {

  private static final long serialVersionUID = 1L;

  private final String property;
  private final String value;
  private final String allowed;

  /**
   * @param property the property as written, with its {@code courier.} prefix
   * @param value its value as written ({@code null} when not to be shown: a password)
   * @param problem what is wrong, in a sentence
   * @param allowed what the property takes, or for an unknown key the nearest known one
   */
  public CourierPropertyException(String property, String value, String problem, String allowed) {
    super(message(property, value, problem, allowed));
    this.property = property;
    this.value = value;
    this.allowed = allowed;
  }

  private static String message(String property, String value, String problem, String allowed) {
    return property
        + (value == null ? "" : "=" + value)
        + ": "
        + problem
        + (allowed == null || allowed.isBlank() ? "" : " (" + allowed + ")");
  }

  /** The property as written, with its {@code courier.} prefix. */
  public String property() {
    return property;
  }

  /** Its value as written; empty when it is a secret. */
  public Optional<String> value() {
    return Optional.ofNullable(value);
  }

  /** What the property takes, or the nearest known key for an unknown one. */
  public String allowed() {
    return allowed == null ? "" : allowed;
  }
}
