package dev.courier.schema.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The JSON bodies of Confluent's REST API, shared by the client and the in-memory registry. */
public final class RegistryJson {

  /** Content type of the API's requests and answers. */
  public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

  static final ObjectMapper MAPPER = new ObjectMapper();

  private RegistryJson() {}

  public static JsonNode parse(String body) {
    try {
      return MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
  }

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** {@code {"schema": "..."}}, the body of register, lookup and compatibility requests. */
  public static String schemaRequest(String schema) {
    return object().put("schema", schema).toString();
  }

  /** {@code {"error_code": 40401, "message": "..."}}, the body of every error answer. */
  public static String error(int code, String message) {
    return object().put("error_code", code).put("message", message).toString();
  }
}
