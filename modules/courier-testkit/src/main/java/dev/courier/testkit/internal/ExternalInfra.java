package dev.courier.testkit.internal;

import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;
import dev.courier.testkit.PostgresServer;
import java.net.URI;

/**
 * A Kafka cluster and a PostgreSQL server run by someone else ({@code courier.infra=external}):
 * nothing is started or stopped, only connected to. The PostgreSQL user must be allowed to create
 * databases (and replication slots for the outbox).
 */
final class ExternalInfra {

  private ExternalInfra() {}

  static ManagedKafka kafka() {
    String bootstrap = required(InfraSettings.EXTERNAL_BOOTSTRAP);
    return new ManagedKafka() {
      @Override
      public String bootstrapServers() {
        return bootstrap;
      }

      @Override
      public String describe() {
        return "external Kafka at " + bootstrap;
      }

      @Override
      protected void stop() {}
    };
  }

  static PostgresServer postgres() {
    String url = required(InfraSettings.EXTERNAL_JDBC_URL);
    if (!url.startsWith("jdbc:postgresql://")) {
      throw new InfraStartupException(
          InfraSettings.EXTERNAL_JDBC_URL + "='" + url + "' is not a jdbc:postgresql:// URL");
    }
    URI uri = URI.create(url.substring("jdbc:".length()));
    String user = required(InfraSettings.EXTERNAL_JDBC_USER);
    String password = InfraSettings.lookup(InfraSettings.EXTERNAL_JDBC_PASSWORD);
    return new PostgresServer() {
      @Override
      public String host() {
        return uri.getHost();
      }

      @Override
      public int port() {
        return uri.getPort() < 0 ? 5432 : uri.getPort();
      }

      @Override
      public String username() {
        return user;
      }

      @Override
      public String password() {
        return password == null ? "" : password;
      }

      @Override
      public String describe() {
        return "external PostgreSQL at " + host() + ":" + port();
      }
    };
  }

  private static String required(String key) {
    String value = InfraSettings.lookup(key);
    if (value == null || value.isBlank()) {
      throw new InfraStartupException(
          InfraSettings.INFRA
              + "=external needs "
              + key
              + " (or "
              + key.toUpperCase(java.util.Locale.ROOT).replace('.', '_')
              + ")");
    }
    return value.trim();
  }
}
