package dev.courier.outbox.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;

/**
 * The PostgreSQL connection settings ({@code database.*}, Debezium's names), defined once: the
 * relay's own connections and Debezium's use the same, TLS included, checked at start.
 */
public final class DatabaseSettings {

  public static final String HOSTNAME = "database.hostname";
  public static final String PORT = "database.port";
  public static final String DBNAME = "database.dbname";
  public static final String USER = "database.user";
  public static final String PASSWORD = "database.password";
  public static final String SSLMODE = "database.sslmode";
  public static final String SSLROOTCERT = "database.sslrootcert";
  public static final String SSLCERT = "database.sslcert";
  public static final String SSLKEY = "database.sslkey";
  public static final String SSLPASSWORD = "database.sslpassword";

  private DatabaseSettings() {}

  /** Declares the {@code database.*} settings in a definition. */
  public static ConfigDef define(ConfigDef definition) {
    return definition
        .define(
            HOSTNAME,
            Type.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            new ConfigDef.NonEmptyString(),
            Importance.HIGH,
            "PostgreSQL host of the outbox table.")
        .define(PORT, Type.INT, 5432, Range.between(1, 65535), Importance.HIGH, "PostgreSQL port.")
        .define(
            DBNAME,
            Type.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            new ConfigDef.NonEmptyString(),
            Importance.HIGH,
            "Database holding the outbox table.")
        .define(
            USER,
            Type.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            new ConfigDef.NonEmptyString(),
            Importance.HIGH,
            "User with the REPLICATION attribute (or a superuser).")
        .define(PASSWORD, Type.PASSWORD, "", Importance.HIGH, "Password of that user.")
        .define(
            SSLMODE,
            Type.STRING,
            "prefer",
            ValidString.in("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
            Importance.HIGH,
            "TLS to PostgreSQL, as libpq and pgjdbc name it: 'verify-full' checks the server's"
                + " certificate against database.sslrootcert and its host name.")
        .define(
            SSLROOTCERT,
            Type.STRING,
            null,
            Importance.MEDIUM,
            "CA certificate (PEM) that signed the server's certificate, for verify-ca and"
                + " verify-full.")
        .define(
            SSLCERT,
            Type.STRING,
            null,
            Importance.LOW,
            "Client certificate (PEM), when the server authenticates clients by certificate.")
        .define(
            SSLKEY,
            Type.STRING,
            null,
            Importance.LOW,
            "Client private key (PKCS#8 DER, .pk8, as pgjdbc reads it) for database.sslcert.")
        .define(
            SSLPASSWORD,
            Type.PASSWORD,
            null,
            Importance.LOW,
            "Password of database.sslkey, if it is encrypted.");
  }

  /**
   * What the definition cannot say alone: verify-ca and verify-full need a CA, and every file named
   * must be readable now rather than at the first connection.
   *
   * @throws ConfigException naming the key
   */
  public static void check(AbstractConfig config) {
    String mode = config.getString(SSLMODE);
    if ((mode.equals("verify-ca") || mode.equals("verify-full"))
        && config.getString(SSLROOTCERT) == null) {
      throw new ConfigException(
          SSLROOTCERT,
          null,
          "required with " + SSLMODE + "=" + mode + " (the CA to verify against)");
    }
    for (String file : new String[] {SSLROOTCERT, SSLCERT, SSLKEY}) {
      String path = config.getString(file);
      if (path != null && !Files.isReadable(Path.of(path))) {
        throw new ConfigException(file, path, "no readable file there");
      }
    }
  }

  /** {@code jdbc:postgresql://host:port/dbname} of these settings. */
  public static String jdbcUrl(AbstractConfig config) {
    return "jdbc:postgresql://"
        + config.getString(HOSTNAME)
        + ":"
        + config.getInt(PORT)
        + "/"
        + config.getString(DBNAME);
  }
}
