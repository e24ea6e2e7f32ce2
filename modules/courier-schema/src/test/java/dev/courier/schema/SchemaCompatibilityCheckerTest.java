package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.Test;

class SchemaCompatibilityCheckerTest {

  private static final Schema V1 =
      SchemaBuilder.record("Account").fields().requiredString("id").endRecord();
  private static final Schema V2_OPTIONAL =
      SchemaBuilder.record("Account")
          .fields()
          .requiredString("id")
          .optionalString("note")
          .endRecord();
  private static final Schema V2_REQUIRED =
      SchemaBuilder.record("Account")
          .fields()
          .requiredString("id")
          .requiredString("owner")
          .endRecord();
  private static final Schema EMPTY = SchemaBuilder.record("Account").fields().endRecord();

  @Test
  void addingAnOptionalFieldIsFullyCompatible() {
    for (CompatibilityLevel level : CompatibilityLevel.values()) {
      assertThat(SchemaCompatibilityChecker.check(level, V2_OPTIONAL, List.of(V1)).compatible())
          .as(level.name())
          .isTrue();
    }
  }

  @Test
  void addingARequiredFieldBreaksBackwardButNotForward() {
    CompatibilityResult backward =
        SchemaCompatibilityChecker.check(CompatibilityLevel.BACKWARD, V2_REQUIRED, List.of(V1));
    assertThat(backward.compatible()).isFalse();
    assertThat(backward.messages())
        .singleElement()
        .asString()
        .contains("BACKWARD: the new schema cannot read data written with version 1")
        .contains("READER_FIELD_MISSING_DEFAULT_VALUE")
        .contains("owner");
    assertThat(
            SchemaCompatibilityChecker.check(CompatibilityLevel.FORWARD, V2_REQUIRED, List.of(V1))
                .compatible())
        .isTrue();
    assertThat(
            SchemaCompatibilityChecker.check(CompatibilityLevel.NONE, V2_REQUIRED, List.of(V1))
                .compatible())
        .isTrue();
  }

  @Test
  void removingARequiredFieldBreaksForward() {
    CompatibilityResult forward =
        SchemaCompatibilityChecker.check(CompatibilityLevel.FORWARD, EMPTY, List.of(V1));
    assertThat(forward.messages())
        .singleElement()
        .asString()
        .contains("version 1 cannot read data written with the new schema")
        .contains("id");
    assertThat(
            SchemaCompatibilityChecker.check(CompatibilityLevel.FULL, EMPTY, List.of(V1))
                .compatible())
        .isFalse();
  }

  @Test
  void transitiveLevelsCheckEveryEarlierVersion() {
    // Version 1 required 'owner', version 2 dropped it. The candidate is fine against version 2,
    // but version 1 cannot read its data: only the transitive check looks that far back.
    List<Schema> history = List.of(V2_REQUIRED, V1);
    Schema candidate = V2_OPTIONAL;
    assertThat(
            SchemaCompatibilityChecker.check(CompatibilityLevel.BACKWARD, candidate, history)
                .compatible())
        .isTrue();
    CompatibilityResult transitive =
        SchemaCompatibilityChecker.check(CompatibilityLevel.FORWARD_TRANSITIVE, candidate, history);
    assertThat(transitive.compatible()).isFalse();
    assertThat(transitive.messages()).anyMatch(m -> m.contains("version 1") && m.contains("owner"));
    assertThat(
            SchemaCompatibilityChecker.check(CompatibilityLevel.FORWARD, candidate, history)
                .compatible())
        .isTrue();
  }
}
