package dev.courier.outbox.internal;

import dev.courier.core.ClientSettings;
import dev.courier.core.internal.BootstrapNames;
import dev.courier.core.internal.Failures;
import dev.courier.core.internal.KafkaReachability;
import dev.courier.outbox.OutboxRelayConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What must hold in Kafka before the relay streams: the cluster answers with these credentials, and
 * the offset topic exists compacted (created with the configured partitions and replication when it
 * does not). Kafka not answering is an outage; refused credentials or rights are settings.
 */
public final class KafkaChecks {

  private static final Duration TIMEOUT = Duration.ofSeconds(15);

  private KafkaChecks() {}

  /**
   * @throws Outage when Kafka does not answer now
   * @throws ConfigException naming the key when credentials, rights or the offset topic are wrong
   */
  public static void verify(OutboxRelayConfig config) throws Outage {
    ClientSettings clients = config.clients();
    Optional<String> unresolved = BootstrapNames.unresolved(clients);
    if (unresolved.isPresent()) {
      throw new Outage(unresolved.get(), null);
    }
    Map<String, Object> settings = clients.admin();
    settings.putIfAbsent("request.timeout.ms", (int) TIMEOUT.toMillis());
    settings.putIfAbsent("default.api.timeout.ms", (int) TIMEOUT.toMillis());
    settings.put("client.id", config.getString(OutboxRelayConfig.RELAY_NAME) + "-checks");
    String topic = config.getString(OutboxRelayConfig.OFFSET_STORAGE_TOPIC);
    try (Admin admin = Admin.create(settings)) {
      try {
        get(admin.describeCluster().clusterId(), clients);
      } catch (UnknownTopic e) {
        throw new IllegalStateException("describing the cluster named a topic", e);
      }
      Optional<Config> existing = describe(admin, topic, clients);
      if (existing.isEmpty()) {
        create(admin, config, topic, clients);
      } else {
        String policy = existing.get().get(TopicConfig.CLEANUP_POLICY_CONFIG).value();
        if (!policy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
          throw new ConfigException(
              OutboxRelayConfig.OFFSET_STORAGE_TOPIC,
              topic,
              "the offset topic has cleanup.policy="
                  + policy
                  + "; it must be compacted, or retention deletes the relay's position and a"
                  + " restart starts from wherever the slot is (alter it to compact, or name a"
                  + " new topic)");
        }
      }
    }
  }

  private static Optional<Config> describe(Admin admin, String topic, ClientSettings clients)
      throws Outage {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try {
      return Optional.of(
          get(admin.describeConfigs(List.of(resource)).all(), clients).get(resource));
    } catch (UnknownTopic e) {
      return Optional.empty();
    }
  }

  private static void create(
      Admin admin, OutboxRelayConfig config, String topic, ClientSettings clients) throws Outage {
    short replication = config.getShort(OutboxRelayConfig.OFFSET_STORAGE_REPLICATION_FACTOR);
    NewTopic newTopic =
        new NewTopic(
                topic,
                Optional.of(config.getInt(OutboxRelayConfig.OFFSET_STORAGE_PARTITIONS)),
                replication < 0 ? Optional.empty() : Optional.of(replication))
            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
    try {
      get(admin.createTopics(List.of(newTopic)).all(), clients);
    } catch (UnknownTopic e) {
      throw new IllegalStateException("unexpected while creating " + topic, e);
    } catch (IllegalStateException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new ConfigException(
            OutboxRelayConfig.OFFSET_STORAGE_TOPIC,
            topic,
            "cannot create the offset topic: " + e.getMessage());
      }
    }
  }

  /** Marks a topic that does not exist, which is not an error here. */
  private static final class UnknownTopic extends Exception {
    private static final long serialVersionUID = 1L;
  }

  private static <T> T get(KafkaFuture<T> future, ClientSettings clients)
      throws Outage, UnknownTopic {
    try {
      return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Outage("interrupted while asking Kafka", e);
    } catch (TimeoutException e) {
      throw new Outage(
          "Kafka at " + clients.bootstrapServersValue() + " does not answer within " + TIMEOUT, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof UnknownTopicOrPartitionException) {
        throw new UnknownTopic();
      }
      if (cause instanceof AuthenticationException auth) {
        throw KafkaReachability.refused(clients, auth);
      }
      if (cause instanceof AuthorizationException) {
        throw new ConfigException(
            "The relay's Kafka principal lacks a right it needs ("
                + cause.getMessage()
                + "): it must describe and create its offset topic and write its event topics");
      }
      if (cause instanceof org.apache.kafka.common.errors.RetriableException
          || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw new Outage(
            "Kafka at "
                + clients.bootstrapServersValue()
                + " is not available: "
                + Failures.describe(cause),
            cause);
      }
      throw new IllegalStateException(cause.getMessage(), cause);
    }
  }
}
