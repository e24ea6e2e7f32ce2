package dev.courier.schema;

import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;

/**
 * Decides whether a new schema version may follow the existing ones under a {@link
 * CompatibilityLevel}, with Avro's own {@link SchemaCompatibility} doing the reader/writer
 * analysis. Used by the build check over {@code schemas/} and by the in-memory registry, so both
 * refuse exactly the same changes with the same words.
 */
public final class SchemaCompatibilityChecker {

  private SchemaCompatibilityChecker() {}

  /**
   * Checks {@code candidate} against the existing versions.
   *
   * @param existing earlier versions, oldest first; version numbers in messages count from 1
   */
  public static CompatibilityResult check(
      CompatibilityLevel level, Schema candidate, List<Schema> existing) {
    if (level == CompatibilityLevel.NONE || existing.isEmpty()) {
      return CompatibilityResult.ok();
    }
    int first = level.transitive() ? 0 : existing.size() - 1;
    List<String> messages = new ArrayList<>();
    for (int i = existing.size() - 1; i >= first; i--) {
      Schema previous = existing.get(i);
      int version = i + 1;
      if (level.backward()) {
        describe(
            level,
            "the new schema cannot read data written with version " + version,
            SchemaCompatibility.checkReaderWriterCompatibility(candidate, previous),
            messages);
      }
      if (level.forward()) {
        describe(
            level,
            "version " + version + " cannot read data written with the new schema",
            SchemaCompatibility.checkReaderWriterCompatibility(previous, candidate),
            messages);
      }
    }
    return messages.isEmpty() ? CompatibilityResult.ok() : new CompatibilityResult(false, messages);
  }

  private static void describe(
      CompatibilityLevel level,
      String direction,
      SchemaCompatibility.SchemaPairCompatibility pair,
      List<String> messages) {
    if (pair.getType() == SchemaCompatibilityType.COMPATIBLE) {
      return;
    }
    for (Incompatibility incompatibility : pair.getResult().getIncompatibilities()) {
      messages.add(
          level
              + ": "
              + direction
              + ": "
              + incompatibility.getType()
              + " at "
              + incompatibility.getLocation()
              + " ("
              + incompatibility.getMessage()
              + ")");
    }
  }
}
