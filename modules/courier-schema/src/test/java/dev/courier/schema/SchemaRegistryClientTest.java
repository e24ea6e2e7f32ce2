package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.schema.registry.LocalSchemaRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client against the in-memory registry over real HTTP. */
class SchemaRegistryClientTest {

  private static final Schema V1 =
      SchemaBuilder.record("Account").namespace("t").fields().requiredString("id").endRecord();
  private static final Schema V2 =
      SchemaBuilder.record("Account")
          .namespace("t")
          .fields()
          .requiredString("id")
          .optionalString("note")
          .endRecord();
  private static final Schema V3_INCOMPATIBLE =
      SchemaBuilder.record("Account")
          .namespace("t")
          .fields()
          .requiredString("id")
          .requiredString("owner")
          .endRecord();

  private LocalSchemaRegistry registry;
  private SchemaRegistryClient client;

  @BeforeEach
  void setUp() {
    registry = LocalSchemaRegistry.start();
    client = client(Map.of());
  }

  @AfterEach
  void tearDown() {
    client.close();
    registry.close();
  }

  private SchemaRegistryClient client(Map<String, Object> extra) {
    Map<String, Object> config = new HashMap<>();
    config.put("schema.registry.url", registry.url());
    config.put("retries.wait.ms", 1);
    config.putAll(extra);
    return SchemaRegistryClient.create(config);
  }

  @Test
  void registersLooksUpAndReadsVersions() {
    int id1 = client.register("accounts-value", V1);
    int id2 = client.register("accounts-value", V2);
    assertThat(id2).isNotEqualTo(id1);
    assertThat(client.register("other-value", V1)).as("ids are global per schema").isEqualTo(id1);

    assertThat(client.lookup("accounts-value", V2))
        .isEqualTo(new RegisteredSchema("accounts-value", 2, id2, V2));
    assertThat(client.latest("accounts-value").version()).isEqualTo(2);
    assertThat(client.version("accounts-value", 1).schema()).isEqualTo(V1);
    assertThat(client.versions("accounts-value")).containsExactly(1, 2);
    assertThat(client.subjects()).containsExactly("accounts-value", "other-value");
    assertThat(client.schemaById(id1)).isEqualTo(V1);
  }

  @Test
  void idsAndSchemasAreCached() {
    int id = client.register("accounts-value", V1);
    long afterRegister = client.requestsSent();
    for (int i = 0; i < 100; i++) {
      assertThat(client.register("accounts-value", V1)).isEqualTo(id);
      assertThat(client.schemaById(id)).isEqualTo(V1);
    }
    assertThat(afterRegister).isEqualTo(1);
    assertThat(client.requestsSent()).isEqualTo(1);
    assertThat(registry.requestCount()).isEqualTo(1);
  }

  @Test
  void confluentErrorCodesBecomeTypedExceptions() {
    client.register("accounts-value", V1);
    assertThatThrownBy(() -> client.latest("missing-value"))
        .isInstanceOf(SchemaRegistryException.SubjectNotFoundException.class)
        .hasMessageContaining("Subject 'missing-value' not found.")
        .hasMessageContaining("HTTP 404, error code 40401");
    assertThatThrownBy(() -> client.version("accounts-value", 7))
        .isInstanceOf(SchemaRegistryException.VersionNotFoundException.class)
        .hasMessageContaining("error code 40402");
    assertThatThrownBy(() -> client.schemaById(999))
        .isInstanceOf(SchemaRegistryException.SchemaNotFoundException.class)
        .hasMessageContaining("Schema 999 not found")
        .hasMessageContaining("error code 40403");
    assertThatThrownBy(() -> client.lookup("accounts-value", V2))
        .isInstanceOf(SchemaRegistryException.SchemaNotFoundException.class);
    assertThatThrownBy(() -> client.register("accounts-value", V3_INCOMPATIBLE))
        .isInstanceOfSatisfying(
            SchemaRegistryException.IncompatibleSchemaException.class,
            e -> {
              assertThat(e.status()).isEqualTo(409);
              assertThat(e.errorCode()).isEqualTo(409);
              assertThat(e.retriable()).isFalse();
            })
        .hasMessageContaining("incompatible with an earlier schema for subject \"accounts-value\"")
        .hasMessageContaining("READER_FIELD_MISSING_DEFAULT_VALUE")
        .hasMessageContaining("owner");
  }

  @Test
  void compatibilityCheckAndConfig() {
    client.register("accounts-value", V1);
    assertThat(client.testCompatibility("accounts-value", V2).compatible()).isTrue();
    CompatibilityResult refused = client.testCompatibility("accounts-value", V3_INCOMPATIBLE);
    assertThat(refused.compatible()).isFalse();
    assertThat(refused.messages()).singleElement().asString().contains("owner");
    assertThat(client.testCompatibility("new-subject", V3_INCOMPATIBLE).compatible()).isTrue();

    assertThat(client.globalCompatibility()).isEqualTo(CompatibilityLevel.BACKWARD);
    assertThat(client.compatibility("accounts-value")).isEmpty();
    client.setCompatibility("accounts-value", CompatibilityLevel.NONE);
    assertThat(client.compatibility("accounts-value")).contains(CompatibilityLevel.NONE);
    assertThat(client.register("accounts-value", V3_INCOMPATIBLE)).isPositive();
    client.setCompatibility(null, CompatibilityLevel.FULL_TRANSITIVE);
    assertThat(client.globalCompatibility()).isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
  }

  @Test
  void retriesConnectionFailuresAndServerErrorsOnly() {
    registry.failNextRequests(2, 503);
    assertThat(client.register("accounts-value", V1)).isPositive();
    assertThat(client.requestsSent()).isEqualTo(3);

    registry.failNextRequests(10, 500);
    SchemaRegistryClient twoRetries = client(Map.of("max.retries", 2));
    assertThatThrownBy(() -> twoRetries.schemaById(1))
        .isInstanceOfSatisfying(
            SchemaRegistryException.class, e -> assertThat(e.retriable()).isTrue())
        .hasMessageContaining("gave up after 3 attempts");
    assertThat(twoRetries.requestsSent()).isEqualTo(3);

    registry.failNextRequests(1, 422);
    SchemaRegistryClient once = client(Map.of());
    assertThatThrownBy(() -> once.schemaById(1))
        .isInstanceOf(SchemaRegistryException.InvalidSchemaException.class);
    assertThat(once.requestsSent()).as("4xx answers are not retried").isEqualTo(1);
  }

  @Test
  void failsOverToTheNextUrl() throws IOException {
    int deadPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      deadPort = socket.getLocalPort();
    }
    SchemaRegistryClient failover =
        client(
            Map.of("schema.registry.url", "http://127.0.0.1:" + deadPort + "," + registry.url()));
    assertThat(failover.register("accounts-value", V1)).isPositive();
    assertThat(failover.subjects()).containsExactly("accounts-value");
    assertThat(failover.requestsSent())
        .as("the dead URL is tried once, then the live one is preferred")
        .isEqualTo(3);
  }

  @Test
  void basicAuthFromUserInfoOrUrl() {
    try (LocalSchemaRegistry secured =
        LocalSchemaRegistry.builder().basicAuth("svc", "s3cret").start()) {
      SchemaRegistryClient anonymous =
          SchemaRegistryClient.create(Map.of("schema.registry.url", secured.url()));
      assertThatThrownBy(anonymous::subjects)
          .isInstanceOf(SchemaRegistryException.SchemaRegistryAuthenticationException.class)
          .hasMessageContaining("HTTP 401");

      SchemaRegistryClient userInfo =
          SchemaRegistryClient.create(
              Map.of(
                  "schema.registry.url", secured.url(),
                  "basic.auth.credentials.source", "USER_INFO",
                  "basic.auth.user.info", "svc:s3cret"));
      assertThat(userInfo.subjects()).isEmpty();

      SchemaRegistryClient inUrl =
          SchemaRegistryClient.create(
              Map.of(
                  "schema.registry.url", secured.url().replace("http://", "http://svc:s3cret@")));
      assertThat(inUrl.subjects()).isEmpty();
    }
  }

  @Test
  void bearerToken() {
    try (LocalSchemaRegistry secured = LocalSchemaRegistry.builder().bearerAuth("tok-1").start()) {
      SchemaRegistryClient bearer =
          SchemaRegistryClient.create(
              Map.of("schema.registry.url", secured.url(), "bearer.auth.token", "tok-1"));
      assertThat(bearer.subjects()).isEqualTo(List.of());
    }
  }
}
