package dev.courier.schema.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.avro.Schema;

/**
 * Removes the {@code avro.java.string} properties that the Avro compiler adds to generated classes'
 * schemas ({@code stringType=String}), so what is registered equals the contract in {@code
 * schemas/}. Confluent's serializer does the same under {@code avro.remove.java.properties}.
 */
public final class JavaProperties {

  private static final String JAVA_STRING = "avro.java.string";

  private JavaProperties() {}

  public static Schema strip(Schema schema) {
    String json = schema.toString();
    if (!json.contains(JAVA_STRING)) {
      return schema;
    }
    JsonNode tree = RegistryJson.parse(json);
    return new Schema.Parser().parse(clean(tree).toString());
  }

  private static JsonNode clean(JsonNode node) {
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      object.remove(JAVA_STRING);
      // {"type": "string"} with nothing else left is the plain name "string".
      if (object.size() == 1 && object.has("type") && object.get("type").isTextual()) {
        return object.get("type");
      }
      object.properties().forEach(e -> e.setValue(clean(e.getValue())));
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        ((com.fasterxml.jackson.databind.node.ArrayNode) node).set(i, clean(node.get(i)));
      }
    }
    return node;
  }
}
