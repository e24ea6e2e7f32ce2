package dev.courier.cli;

import dev.courier.core.ClientSettings;
import dev.courier.core.RenamedKey;
import dev.courier.retry.DltReplayerConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.postgresql.ds.PGSimpleDataSource;

/** What the operator commands connect to: the cluster, and the database holding the audit log. */
final class OperatorSettings extends AbstractConfig {

  static final String AUDIT_JDBC_URL = "audit.jdbc.url";
  static final String AUDIT_JDBC_USER = "audit.jdbc.user";
  static final String AUDIT_JDBC_PASSWORD = "audit.jdbc.password";
  static final String UNDO_DIRECTORY = "replay.undo.directory";
  static final String REPLAY_RATE = DltReplayerConfig.REPLAY_RATE_PER_SECOND;

  static final List<RenamedKey> RENAMED =
      List.of(RenamedKey.renamed("dlt.replay.rate.per.second", REPLAY_RATE));

  /** The replayer's settings (client settings and the rate, declared there) plus the audit log. */
  static final ConfigDef DEFINITION =
      DltReplayerConfig.configDef()
          .define(
              AUDIT_JDBC_URL,
              Type.STRING,
              null,
              Importance.HIGH,
              "PostgreSQL holding the audit log of resets and DLT replays"
                  + " (jdbc:postgresql://host:5432/db); required by every command that changes"
                  + " something.")
          .define(AUDIT_JDBC_USER, Type.STRING, null, Importance.HIGH, "Audit database user.")
          .define(
              AUDIT_JDBC_PASSWORD, Type.PASSWORD, null, Importance.HIGH, "Audit database password.")
          .define(
              UNDO_DIRECTORY,
              Type.STRING,
              "courier-undo",
              Importance.MEDIUM,
              "Where a reset writes the offsets it replaces, in kafka-consumer-groups' CSV format.");

  private final ClientSettings clients;

  private OperatorSettings(Map<String, String> settings) {
    super(DEFINITION, settings, false);
    this.clients = ClientSettings.of(this);
  }

  static OperatorSettings resolve(SettingsOptions options) {
    return new OperatorSettings(
        options.resolve(DEFINITION, List.of(ClientSettings.PREFIX), RENAMED, System.err));
  }

  ClientSettings clients() {
    return clients;
  }

  Admin admin() {
    return Admin.create(clients.admin());
  }

  Path undoDirectory() {
    return Path.of(getString(UNDO_DIRECTORY));
  }

  double replayRate() {
    return getDouble(REPLAY_RATE);
  }

  /**
   * @throws ConfigException naming {@value #AUDIT_JDBC_URL} when it is not set
   */
  DataSource auditDatabase() {
    return auditDatabaseIfSet()
        .orElseThrow(
            () ->
                new ConfigException(
                    AUDIT_JDBC_URL,
                    getString(AUDIT_JDBC_URL),
                    "required: every change an operator makes is audited"));
  }

  /**
   * The audit database when {@value #AUDIT_JDBC_URL} is set: read-only commands use it for what
   * only it knows (parked dead letters) and do without it.
   *
   * @throws ConfigException naming {@value #AUDIT_JDBC_URL} when it is not a PostgreSQL URL
   */
  Optional<DataSource> auditDatabaseIfSet() {
    String url = getString(AUDIT_JDBC_URL);
    if (url == null || url.isBlank()) {
      return Optional.empty();
    }
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new ConfigException(AUDIT_JDBC_URL, url, "not a jdbc:postgresql: URL");
    }
    PGSimpleDataSource db = new PGSimpleDataSource();
    db.setURL(url);
    if (getString(AUDIT_JDBC_USER) != null) {
      db.setUser(getString(AUDIT_JDBC_USER));
    }
    if (getPassword(AUDIT_JDBC_PASSWORD) != null) {
      db.setPassword(getPassword(AUDIT_JDBC_PASSWORD).value());
    }
    return Optional.of(db);
  }
}
