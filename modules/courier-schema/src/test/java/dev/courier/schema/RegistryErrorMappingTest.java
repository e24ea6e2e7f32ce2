package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.courier.schema.SchemaRegistryException.IncompatibleSchemaException;
import dev.courier.schema.SchemaRegistryException.InvalidSchemaException;
import dev.courier.schema.SchemaRegistryException.SchemaNotFoundException;
import dev.courier.schema.SchemaRegistryException.SchemaRegistryAuthenticationException;
import dev.courier.schema.SchemaRegistryException.SubjectNotFoundException;
import dev.courier.schema.SchemaRegistryException.VersionNotFoundException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Error answers in the styles of the registries Courier meets, over real HTTP: Confluent's (a
 * specific {@code error_code}), Karapace's (the same codes), Apicurio's Confluent-compatible API
 * ({@code error_code} 0) and a proxy's HTML. The client raises the same exception type for each.
 */
class RegistryErrorMappingTest {

  private static final Schema SCHEMA =
      SchemaBuilder.record("Account").namespace("t").fields().requiredString("id").endRecord();

  private HttpServer server;
  private volatile int status;
  private volatile String contentType;
  private volatile String body;
  private SchemaRegistryClient client;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", contentType);
          exchange.sendResponseHeaders(status, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    server.start();
    client =
        SchemaRegistryClient.create(
            Map.of(
                SchemaRegistryClientConfig.SCHEMA_REGISTRY_URL,
                "http://localhost:" + server.getAddress().getPort(),
                SchemaRegistryClientConfig.RETRIES_WAIT_MS,
                1));
  }

  @AfterEach
  void stop() {
    client.close();
    server.stop(0);
  }

  private void answer(int status, String json) {
    this.status = status;
    this.contentType = "application/vnd.schemaregistry.v1+json";
    this.body = json;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        // Confluent
        "{\"error_code\":409,\"message\":\"Schema being registered is incompatible with an"
            + " earlier schema for subject \\\"a-value\\\"\"}",
        // Karapace
        "{\"error_code\":409,\"message\":\"Incompatible schema, compatibility_mode=BACKWARD\"}",
        // Apicurio (Confluent-compatible API)
        "{\"error_code\":0,\"message\":\"Incompatible artifact: a-value [AVRO], num of"
            + " incompatible diffs: {1}\"}",
        // No error_code at all
        "{\"message\":\"incompatible\"}"
      })
  void anIncompatibleSchemaIsIncompatibleWhateverTheRegistry(String json) {
    answer(409, json);
    assertThatThrownBy(() -> client.register("a-value", SCHEMA))
        .isInstanceOf(IncompatibleSchemaException.class)
        .hasMessageContaining("HTTP 409");
  }

  @Test
  void aGeneric404IsTypedByWhatThePathAsksFor() {
    answer(404, "{\"error_code\":0,\"message\":\"No artifact with ID 'a-value' was found.\"}");
    assertThatThrownBy(() -> client.schemaById(7)).isInstanceOf(SchemaNotFoundException.class);
    assertThatThrownBy(() -> client.version("a-value", 3))
        .isInstanceOf(VersionNotFoundException.class);
    assertThatThrownBy(() -> client.versions("a-value"))
        .isInstanceOf(SubjectNotFoundException.class);
    assertThatThrownBy(() -> client.lookup("a-value", SCHEMA))
        .isInstanceOf(SubjectNotFoundException.class);
    assertThat(client.compatibility("a-value")).as("no subject-level setting").isEmpty();
    assertThat(client.testCompatibility("a-value", SCHEMA).compatible())
        .as("nothing registered yet: anything may be version 1")
        .isTrue();
  }

  @Test
  void confluentAndKarapaceCodesWinOverThePath() {
    answer(404, "{\"error_code\":40403,\"message\":\"Schema not found\"}");
    assertThatThrownBy(() -> client.lookup("a-value", SCHEMA))
        .isInstanceOf(SchemaNotFoundException.class)
        .hasMessageContaining("error code 40403");
    answer(404, "{\"error_code\":40401,\"message\":\"Subject 'a-value' not found.\"}");
    assertThatThrownBy(() -> client.version("a-value", 1))
        .isInstanceOf(SubjectNotFoundException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"error_code\":42201,\"message\":\"Invalid AVRO schema. Error: no type\"}",
        "{\"error_code\":0,\"message\":\"Syntax violation for Avro artifact.\"}",
        "{\"message\":\"unprocessable\"}"
      })
  void anUnprocessableSchemaIsInvalid(String json) {
    answer(422, json);
    assertThatThrownBy(() -> client.register("a-value", SCHEMA))
        .isInstanceOf(InvalidSchemaException.class);
  }

  @ParameterizedTest
  @ValueSource(ints = {401, 403})
  void refusedCredentialsAreAuthenticationFailuresEvenInHtml(int code) {
    status = code;
    contentType = "text/html";
    body = "<html><body><h1>" + code + "</h1>nginx</body></html>";
    assertThatThrownBy(() -> client.subjects())
        .isInstanceOf(SchemaRegistryAuthenticationException.class)
        .hasMessageContaining("HTTP " + code)
        .satisfies(e -> assertThat(((SchemaRegistryException) e).retriable()).isFalse());
    answer(code, "{\"error_code\":0,\"message\":\"Unauthorized\"}");
    assertThatThrownBy(() -> client.register("a-value", SCHEMA))
        .isInstanceOf(SchemaRegistryAuthenticationException.class);
  }
}
