package dev.courier.schema;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Settings of {@link SchemaRegistryClient}, under the key names of Confluent's client, so a
 * configuration moves between the two unchanged. Validated when constructed: a missing or bad value
 * fails with a {@link ConfigException} naming the key.
 */
public class SchemaRegistryClientConfig extends AbstractConfig {

  public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
  public static final String BASIC_AUTH_CREDENTIALS_SOURCE = "basic.auth.credentials.source";
  public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";
  public static final String BEARER_AUTH_CREDENTIALS_SOURCE = "bearer.auth.credentials.source";
  public static final String BEARER_AUTH_TOKEN = "bearer.auth.token";
  public static final String MAX_RETRIES = "max.retries";
  public static final String RETRIES_WAIT_MS = "retries.wait.ms";
  public static final String RETRIES_MAX_WAIT_MS = "retries.max.wait.ms";
  public static final String HTTP_CONNECT_TIMEOUT_MS = "http.connect.timeout.ms";
  public static final String HTTP_READ_TIMEOUT_MS = "http.read.timeout.ms";
  public static final String MAX_SCHEMAS_PER_SUBJECT = "max.schemas.per.subject";

  /** Prefix of extra HTTP headers sent with every request, e.g. {@code request.header.X-Tenant}. */
  public static final String REQUEST_HEADER_PREFIX = "request.header.";

  static ConfigDef clientConfigDef() {
    return new ConfigDef()
        .define(
            SCHEMA_REGISTRY_URL,
            Type.LIST,
            ConfigDef.NO_DEFAULT_VALUE,
            new ConfigDef.NonEmptyString() {
              @Override
              public void ensureValid(String name, Object value) {
                if (value == null || ((List<?>) value).isEmpty()) {
                  throw new ConfigException(name, value, "at least one registry URL is required");
                }
                for (Object url : (List<?>) value) {
                  String s = url.toString();
                  if (!s.startsWith("http://") && !s.startsWith("https://")) {
                    throw new ConfigException(name, value, "'" + s + "' is not an http(s) URL");
                  }
                }
              }
            },
            Importance.HIGH,
            "Comma-separated URLs of schema registry instances; requests fail over between them.")
        .define(
            BASIC_AUTH_CREDENTIALS_SOURCE,
            Type.STRING,
            "URL",
            ValidString.in("URL", "USER_INFO"),
            Importance.MEDIUM,
            "Where Basic auth credentials come from: URL (user:password@ in the registry URL) or"
                + " USER_INFO (basic.auth.user.info).")
        .define(
            BASIC_AUTH_USER_INFO,
            Type.PASSWORD,
            "",
            Importance.MEDIUM,
            "Basic auth credentials as user:password, used when the source is USER_INFO.")
        .define(
            BEARER_AUTH_CREDENTIALS_SOURCE,
            Type.STRING,
            "STATIC_TOKEN",
            ValidString.in("STATIC_TOKEN"),
            Importance.MEDIUM,
            "Where the Bearer token comes from: STATIC_TOKEN (bearer.auth.token).")
        .define(
            BEARER_AUTH_TOKEN,
            Type.PASSWORD,
            "",
            Importance.MEDIUM,
            "Bearer token sent as Authorization: Bearer; takes precedence over Basic auth.")
        .define(
            MAX_RETRIES,
            Type.INT,
            3,
            Range.atLeast(0),
            Importance.LOW,
            "Retries of a request after a connection failure or a 5xx answer.")
        .define(
            RETRIES_WAIT_MS,
            Type.INT,
            1000,
            Range.atLeast(0),
            Importance.LOW,
            "Base of the exponential backoff between retries; each wait is random (full jitter).")
        .define(
            RETRIES_MAX_WAIT_MS,
            Type.INT,
            20000,
            Range.atLeast(0),
            Importance.LOW,
            "Cap of the backoff between retries.")
        .define(
            HTTP_CONNECT_TIMEOUT_MS,
            Type.INT,
            60000,
            Range.atLeast(1),
            Importance.LOW,
            "Connection timeout of registry requests.")
        .define(
            HTTP_READ_TIMEOUT_MS,
            Type.INT,
            60000,
            Range.atLeast(1),
            Importance.LOW,
            "Timeout of a whole registry request once connected.")
        .define(
            MAX_SCHEMAS_PER_SUBJECT,
            Type.INT,
            1000,
            Range.atLeast(1),
            Importance.LOW,
            "Most schemas cached (and registered) per subject by one client.");
  }

  private static final ConfigDef CONFIG = clientConfigDef();

  public SchemaRegistryClientConfig(Map<String, ?> originals) {
    this(CONFIG, originals);
  }

  protected SchemaRegistryClientConfig(ConfigDef definition, Map<String, ?> originals) {
    super(definition, originals, false);
    if (getString(BASIC_AUTH_CREDENTIALS_SOURCE).equals("USER_INFO")
        && !getPassword(BASIC_AUTH_USER_INFO).value().contains(":")) {
      throw new ConfigException(
          BASIC_AUTH_USER_INFO, "[hidden]", "must be user:password when the source is USER_INFO");
    }
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public List<String> urls() {
    return getList(SCHEMA_REGISTRY_URL);
  }

  public Password userInfo() {
    return getPassword(BASIC_AUTH_USER_INFO);
  }

  public Map<String, Object> requestHeaders() {
    return originalsWithPrefix(REQUEST_HEADER_PREFIX);
  }
}
