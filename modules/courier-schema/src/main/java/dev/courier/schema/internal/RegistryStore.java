package dev.courier.schema.internal;

import dev.courier.schema.CompatibilityLevel;
import dev.courier.schema.CompatibilityResult;
import dev.courier.schema.SchemaCompatibilityChecker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * The in-memory registry's state: schemas by global id, each subject's versions, compatibility
 * levels. Ids are global: the same schema under two subjects has one id, as in Confluent's.
 */
final class RegistryStore {

  /** One version of one subject. */
  record Version(String subject, int version, int id, Schema schema) {}

  private final List<Schema> schemasById = new ArrayList<>();
  private final Map<Schema, Integer> idsBySchema = new HashMap<>();
  private final Map<String, List<Integer>> subjects = new TreeMap<>();
  private final Map<String, CompatibilityLevel> subjectLevels = new HashMap<>();
  private CompatibilityLevel globalLevel;

  RegistryStore(CompatibilityLevel globalLevel) {
    this.globalLevel = globalLevel;
  }

  synchronized int register(String subject, String schemaText) {
    Schema schema = parse(schemaText);
    List<Integer> versions = subjects.getOrDefault(subject, List.of());
    for (int id : versions) {
      if (schemasById.get(id - 1).equals(schema)) {
        return id;
      }
    }
    CompatibilityResult result = check(subject, schema, versions);
    if (!result.compatible()) {
      throw RegistryError.incompatible(subject, result.messages());
    }
    int id =
        idsBySchema.computeIfAbsent(
            schema,
            s -> {
              schemasById.add(s);
              return schemasById.size();
            });
    subjects.computeIfAbsent(subject, s -> new ArrayList<>()).add(id);
    return id;
  }

  synchronized Version lookup(String subject, String schemaText) {
    Schema schema = parse(schemaText);
    List<Integer> versions = versionIds(subject);
    for (int i = 0; i < versions.size(); i++) {
      int id = versions.get(i);
      if (schemasById.get(id - 1).equals(schema)) {
        return new Version(subject, i + 1, id, schema);
      }
    }
    throw RegistryError.schemaNotFound("Schema");
  }

  synchronized Schema byId(int id) {
    if (id < 1 || id > schemasById.size()) {
      throw RegistryError.schemaNotFound("Schema " + id);
    }
    return schemasById.get(id - 1);
  }

  synchronized Version version(String subject, String version) {
    List<Integer> versions = versionIds(subject);
    int number;
    if (version.equals("latest") || version.equals("-1")) {
      number = versions.size();
    } else {
      try {
        number = Integer.parseInt(version);
      } catch (NumberFormatException e) {
        throw RegistryError.invalidVersion(version);
      }
      if (number < 1) {
        throw RegistryError.invalidVersion(version);
      }
      if (number > versions.size()) {
        throw RegistryError.versionNotFound(version);
      }
    }
    int id = versions.get(number - 1);
    return new Version(subject, number, id, schemasById.get(id - 1));
  }

  synchronized List<Integer> versionNumbers(String subject) {
    List<Integer> numbers = new ArrayList<>();
    for (int i = 1; i <= versionIds(subject).size(); i++) {
      numbers.add(i);
    }
    return numbers;
  }

  synchronized List<String> subjects() {
    return new ArrayList<>(subjects.keySet());
  }

  synchronized CompatibilityResult testCompatibility(
      String subject, String version, String schemaText) {
    Schema schema = parse(schemaText);
    List<Integer> versions = versionIds(subject);
    if (!version.equals("latest")) {
      Version pinned = version(subject, version);
      return SchemaCompatibilityChecker.check(level(subject), schema, List.of(pinned.schema()));
    }
    return check(subject, schema, versions);
  }

  synchronized CompatibilityLevel globalLevel() {
    return globalLevel;
  }

  synchronized Optional<CompatibilityLevel> subjectLevel(String subject) {
    return Optional.ofNullable(subjectLevels.get(subject));
  }

  synchronized void setLevel(String subject, CompatibilityLevel level) {
    if (subject == null) {
      globalLevel = level;
    } else {
      subjectLevels.put(subject, level);
    }
  }

  private CompatibilityLevel level(String subject) {
    return subjectLevels.getOrDefault(subject, globalLevel);
  }

  private CompatibilityResult check(String subject, Schema schema, List<Integer> versions) {
    List<Schema> existing = versions.stream().map(id -> schemasById.get(id - 1)).toList();
    return SchemaCompatibilityChecker.check(level(subject), schema, existing);
  }

  private List<Integer> versionIds(String subject) {
    List<Integer> versions = subjects.get(subject);
    if (versions == null) {
      throw RegistryError.subjectNotFound(subject);
    }
    return versions;
  }

  private static Schema parse(String text) {
    if (text == null || text.isBlank()) {
      throw RegistryError.invalidSchema("the request has no schema");
    }
    try {
      return new Schema.Parser().parse(text);
    } catch (SchemaParseException e) {
      throw RegistryError.invalidSchema(e.getMessage());
    }
  }
}
