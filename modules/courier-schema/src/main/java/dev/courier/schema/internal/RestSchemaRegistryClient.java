package dev.courier.schema.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.courier.schema.CompatibilityLevel;
import dev.courier.schema.CompatibilityResult;
import dev.courier.schema.RegisteredSchema;
import dev.courier.schema.SchemaRegistryClient;
import dev.courier.schema.SchemaRegistryClientConfig;
import dev.courier.schema.SchemaRegistryException;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/** {@link SchemaRegistryClient} over the registry's REST API, with id and schema caches. */
public final class RestSchemaRegistryClient implements SchemaRegistryClient {

  private final RegistryHttp http;
  private final int maxSchemasPerSubject;
  private final Map<Integer, Schema> schemasById = new ConcurrentHashMap<>();
  private final Map<String, Map<Schema, Integer>> idsBySubject = new ConcurrentHashMap<>();

  public RestSchemaRegistryClient(SchemaRegistryClientConfig config, MeterRegistry registry) {
    this(
        config, new RegistryHttp(config, new Random(), Thread::sleep, RegistryMeters.of(registry)));
  }

  RestSchemaRegistryClient(SchemaRegistryClientConfig config, RegistryHttp http) {
    this.http = http;
    this.maxSchemasPerSubject = config.getInt(SchemaRegistryClientConfig.MAX_SCHEMAS_PER_SUBJECT);
  }

  @Override
  public int register(String subject, Schema schema) {
    Map<Schema, Integer> ids = idsFor(subject);
    Integer cached = ids.get(schema);
    if (cached != null) {
      return cached;
    }
    int id =
        http.post(subjectPath(subject) + "/versions", RegistryJson.schemaRequest(schema.toString()))
            .path("id")
            .asInt();
    remember(subject, ids, schema, id);
    return id;
  }

  @Override
  public RegisteredSchema lookup(String subject, Schema schema) {
    JsonNode found = http.post(subjectPath(subject), RegistryJson.schemaRequest(schema.toString()));
    RegisteredSchema registered = toRegistered(found, subject);
    remember(subject, idsFor(subject), schema, registered.id());
    return registered;
  }

  @Override
  public Schema schemaById(int id) {
    Schema cached = schemasById.get(id);
    if (cached != null) {
      return cached;
    }
    Schema schema = parse(http.get("/schemas/ids/" + id).path("schema").asText());
    schemasById.putIfAbsent(id, schema);
    return schema;
  }

  @Override
  public RegisteredSchema latest(String subject) {
    return toRegistered(http.get(subjectPath(subject) + "/versions/latest"), subject);
  }

  @Override
  public RegisteredSchema version(String subject, int version) {
    return toRegistered(http.get(subjectPath(subject) + "/versions/" + version), subject);
  }

  @Override
  public List<Integer> versions(String subject) {
    List<Integer> versions = new ArrayList<>();
    http.get(subjectPath(subject) + "/versions").forEach(v -> versions.add(v.asInt()));
    return versions;
  }

  @Override
  public List<String> subjects() {
    List<String> subjects = new ArrayList<>();
    http.get("/subjects").forEach(s -> subjects.add(s.asText()));
    return subjects;
  }

  @Override
  public CompatibilityResult testCompatibility(String subject, Schema schema) {
    JsonNode answer;
    try {
      answer =
          http.post(
              "/compatibility" + subjectPath(subject) + "/versions/latest?verbose=true",
              RegistryJson.schemaRequest(schema.toString()));
    } catch (SchemaRegistryException.SubjectNotFoundException
        | SchemaRegistryException.VersionNotFoundException e) {
      // Nothing registered yet: any schema may become version 1.
      return CompatibilityResult.ok();
    }
    boolean compatible = answer.path("is_compatible").asBoolean();
    List<String> messages = new ArrayList<>();
    answer.path("messages").forEach(m -> messages.add(m.asText()));
    if (!compatible && messages.isEmpty()) {
      messages.add("the registry refused the schema without giving a reason");
    }
    return compatible ? CompatibilityResult.ok() : new CompatibilityResult(false, messages);
  }

  @Override
  public Optional<CompatibilityLevel> compatibility(String subject) {
    try {
      return Optional.of(level(http.get("/config/" + encoded(subject))));
    } catch (SchemaRegistryException e) {
      if (e.errorCode() == 40408 || e instanceof SchemaRegistryException.SubjectNotFoundException) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  public CompatibilityLevel globalCompatibility() {
    return level(http.get("/config"));
  }

  @Override
  public void setCompatibility(String subject, CompatibilityLevel level) {
    String path = subject == null ? "/config" : "/config/" + encoded(subject);
    http.put(path, RegistryJson.object().put("compatibility", level.name()).toString());
  }

  @Override
  public long requestsSent() {
    return http.requestsSent();
  }

  @Override
  public void close() {
    schemasById.clear();
    idsBySubject.clear();
  }

  private Map<Schema, Integer> idsFor(String subject) {
    return idsBySubject.computeIfAbsent(subject, s -> new ConcurrentHashMap<>());
  }

  private void remember(String subject, Map<Schema, Integer> ids, Schema schema, int id) {
    if (!ids.containsKey(schema) && ids.size() >= maxSchemasPerSubject) {
      throw new IllegalStateException(
          "more than "
              + maxSchemasPerSubject
              + " schemas for subject "
              + subject
              + " ("
              + SchemaRegistryClientConfig.MAX_SCHEMAS_PER_SUBJECT
              + "); a schema built per record defeats caching");
    }
    ids.put(schema, id);
    schemasById.putIfAbsent(id, schema);
  }

  private RegisteredSchema toRegistered(JsonNode node, String subject) {
    int id = node.path("id").asInt();
    Schema schema = schemasById.computeIfAbsent(id, k -> parse(node.path("schema").asText()));
    return new RegisteredSchema(
        node.path("subject").asText(subject), node.path("version").asInt(), id, schema);
  }

  private static CompatibilityLevel level(JsonNode config) {
    // GET answers compatibilityLevel; PUT echoes compatibility.
    String value = config.path("compatibilityLevel").asText(config.path("compatibility").asText());
    return CompatibilityLevel.parse(value);
  }

  private static Schema parse(String schema) {
    return new Schema.Parser().parse(schema);
  }

  private static String subjectPath(String subject) {
    return "/subjects/" + encoded(subject);
  }

  private static String encoded(String subject) {
    return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
