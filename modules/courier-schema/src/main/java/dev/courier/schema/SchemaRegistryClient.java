package dev.courier.schema;

import dev.courier.schema.internal.RestSchemaRegistryClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;

/**
 * Client of a Confluent-compatible schema registry (Confluent, Apicurio, Karapace, Redpanda): the
 * subset of REST API v7 that serializers and operators use. Ids and schemas are cached, since they
 * never change once assigned. Connection failures and 5xx answers are retried with capped, jittered
 * backoff; every other error is raised at once as a typed {@link SchemaRegistryException} with the
 * server's message.
 */
public interface SchemaRegistryClient extends AutoCloseable {

  /**
   * A client configured with Confluent's keys ({@code schema.registry.url}, {@code
   * basic.auth.credentials.source}, {@code basic.auth.user.info}, {@code bearer.auth.token}, {@code
   * max.retries}, ...): see {@link SchemaRegistryClientConfig}.
   */
  static SchemaRegistryClient create(Map<String, ?> configs) {
    return create(configs, Metrics.globalRegistry);
  }

  /**
   * As {@link #create(Map)}, counting requests in {@code
   * courier_schema_registry_requests_total{outcome}} of this registry.
   */
  static SchemaRegistryClient create(Map<String, ?> configs, MeterRegistry registry) {
    return new RestSchemaRegistryClient(new SchemaRegistryClientConfig(configs), registry);
  }

  /** Registers the schema under the subject (or finds it there) and returns its global id. */
  int register(String subject, Schema schema);

  /** Finds the schema under the subject without registering it. */
  RegisteredSchema lookup(String subject, Schema schema);

  /** The schema with this global id. */
  Schema schemaById(int id);

  /** The newest version of the subject. */
  RegisteredSchema latest(String subject);

  /** A given version of the subject. */
  RegisteredSchema version(String subject, int version);

  /** The subject's version numbers, oldest first. */
  List<Integer> versions(String subject);

  /** Every subject the registry holds. */
  List<String> subjects();

  /** Whether the schema could be registered under the subject now, and why not. */
  CompatibilityResult testCompatibility(String subject, Schema schema);

  /** The subject's own compatibility level, if it has one set. */
  Optional<CompatibilityLevel> compatibility(String subject);

  /** The registry's global compatibility level. */
  CompatibilityLevel globalCompatibility();

  /** Sets the subject's level ({@code null} subject: the global level). */
  void setCompatibility(String subject, CompatibilityLevel level);

  /** HTTP requests this client has sent, retries included: shows how well its caches work. */
  long requestsSent();

  @Override
  void close();
}
