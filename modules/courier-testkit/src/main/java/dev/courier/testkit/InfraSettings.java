package dev.courier.testkit;

import java.util.Locale;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.utils.AppInfoParser;

/**
 * How the testkit starts its infrastructure. Every key is read from a system property first and
 * from the environment variable of the same name in upper case with dots as underscores second
 * ({@code courier.infra} / {@code COURIER_INFRA}).
 *
 * @param infra which backend to use; {@code auto} picks Testcontainers when a Docker engine answers
 * @param kafkaImage the Kafka image of the Testcontainers backend
 * @param postgresImage the PostgreSQL image of the Testcontainers backend
 * @param schemaRegistryImage the schema registry image of the Testcontainers backend, used only
 *     when already present locally
 * @param postgresPort fixed port of the embedded PostgreSQL, 0 for a free one
 * @param pullImages whether the Testcontainers backend may pull a missing Kafka or PostgreSQL image
 */
public record InfraSettings(
    Choice infra,
    String kafkaImage,
    String postgresImage,
    String schemaRegistryImage,
    int postgresPort,
    boolean pullImages) {

  public static final String INFRA = "courier.infra";
  public static final String KAFKA_IMAGE = "courier.image.kafka";
  public static final String POSTGRES_IMAGE = "courier.image.postgres";
  public static final String SCHEMA_REGISTRY_IMAGE = "courier.image.schema.registry";
  public static final String POSTGRES_PORT = "courier.postgres.port";
  public static final String PULL_IMAGES = "courier.testcontainers.pull";
  public static final String EXTERNAL_BOOTSTRAP = "courier.external.bootstrap.servers";
  public static final String EXTERNAL_JDBC_URL = "courier.external.jdbc.url";
  public static final String EXTERNAL_JDBC_USER = "courier.external.jdbc.user";
  public static final String EXTERNAL_JDBC_PASSWORD = "courier.external.jdbc.password";

  /**
   * The Kafka image follows the kafka-clients version on the classpath, which the parent POM pins
   * for the whole family, so broker and clients always match.
   */
  public static final String DEFAULT_KAFKA_IMAGE = "apache/kafka:" + AppInfoParser.getVersion();

  public static final String DEFAULT_POSTGRES_IMAGE = "postgres:16";
  public static final String DEFAULT_SCHEMA_REGISTRY_IMAGE =
      "confluentinc/cp-schema-registry:8.1.0";

  /** The backend a user asked for. */
  public enum Choice {
    AUTO,
    EMBEDDED,
    TESTCONTAINERS,
    EXTERNAL;

    static Choice parse(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      for (Choice c : values()) {
        if (c.name().toLowerCase(Locale.ROOT).equals(v)) {
          return c;
        }
      }
      throw new IllegalArgumentException(
          INFRA + "='" + value + "' is not one of auto, embedded, testcontainers, external");
    }
  }

  public InfraSettings {
    Objects.requireNonNull(infra, INFRA);
    requireText(kafkaImage, KAFKA_IMAGE);
    requireText(postgresImage, POSTGRES_IMAGE);
    requireText(schemaRegistryImage, SCHEMA_REGISTRY_IMAGE);
    if (postgresPort < 0 || postgresPort > 65_535) {
      throw new IllegalArgumentException(
          POSTGRES_PORT + "=" + postgresPort + " is not a port (0 picks a free one)");
    }
  }

  /** Defaults: {@code auto}, the pinned images, a free PostgreSQL port, pulling allowed. */
  public static InfraSettings defaults() {
    return new InfraSettings(
        Choice.AUTO,
        DEFAULT_KAFKA_IMAGE,
        DEFAULT_POSTGRES_IMAGE,
        DEFAULT_SCHEMA_REGISTRY_IMAGE,
        0,
        true);
  }

  /** Settings from system properties, then environment variables, then defaults. */
  public static InfraSettings fromEnvironment() {
    return from(InfraSettings::lookup);
  }

  /** Settings from any key lookup (system properties, a file, a map), then defaults. */
  public static InfraSettings from(UnaryOperator<String> source) {
    InfraSettings d = defaults();
    return new InfraSettings(
        Choice.parse(or(source.apply(INFRA), "auto")),
        or(source.apply(KAFKA_IMAGE), d.kafkaImage()),
        or(source.apply(POSTGRES_IMAGE), d.postgresImage()),
        or(source.apply(SCHEMA_REGISTRY_IMAGE), d.schemaRegistryImage()),
        parsePort(source.apply(POSTGRES_PORT)),
        parseBoolean(source.apply(PULL_IMAGES), PULL_IMAGES, true));
  }

  public InfraSettings withInfra(Choice choice) {
    return new InfraSettings(
        choice, kafkaImage, postgresImage, schemaRegistryImage, postgresPort, pullImages);
  }

  public InfraSettings withPostgresPort(int port) {
    return new InfraSettings(
        infra, kafkaImage, postgresImage, schemaRegistryImage, port, pullImages);
  }

  /** A key as {@link #fromEnvironment()} reads it: system property, then environment variable. */
  public static String lookup(String key) {
    String value = System.getProperty(key);
    if (value == null || value.isBlank()) {
      value = System.getenv(key.toUpperCase(Locale.ROOT).replace('.', '_'));
    }
    return value;
  }

  private static String or(String value, String fallback) {
    return value == null || value.isBlank() ? fallback : value.trim();
  }

  private static int parsePort(String value) {
    if (value == null || value.isBlank()) {
      return 0;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          POSTGRES_PORT + "='" + value + "' is not a port number (0 picks a free one)", e);
    }
  }

  private static boolean parseBoolean(String value, String key, boolean fallback) {
    if (value == null || value.isBlank()) {
      return fallback;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(key + "='" + value + "' must be true or false");
    };
  }

  private static void requireText(String value, String key) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(key + " must not be empty");
    }
  }
}
