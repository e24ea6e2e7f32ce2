package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.schema.internal.JavaProperties;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The build's check over {@code schemas/}: every new version must be compatible with the previous
 * ones under its subject's mode. A failure here fails {@code mvn verify} with the reason.
 */
class SchemaEvolutionTest {

  private static Path schemasDir() {
    return Path.of(System.getProperty("courier.schemas.dir", "../../schemas"));
  }

  @Test
  void everySubjectInSchemasEvolvesCompatibly() {
    SchemaCatalog catalog = SchemaCatalog.load(schemasDir());
    List<String> violations = catalog.evolutionViolations();
    assertThat(violations)
        .as("incompatible schema versions in %s (see schemas/README.md)", schemasDir())
        .isEmpty();
    assertThat(catalog.subjects())
        .extracting(SchemaCatalog.Subject::name)
        .contains(
            "dev.courier.schema.credit.CreditRequested",
            "dev.courier.schema.order.OrderCreated",
            "dev.courier.schema.order.OrderPaid",
            "dev.courier.schema.order.OrderShipped");
  }

  @Test
  void generatedClassesFollowTheLatestVersion() {
    SchemaCatalog.Subject credit =
        SchemaCatalog.load(schemasDir()).subjects().stream()
            .filter(s -> s.name().equals("dev.courier.schema.credit.CreditRequested"))
            .findFirst()
            .orElseThrow();
    // The compiler adds avro.java.string properties; stripped, the class schema is the contract.
    assertThat(JavaProperties.strip(dev.courier.schema.credit.CreditRequested.getClassSchema()))
        .isEqualTo(credit.latest());
  }

  @Test
  void everyFieldHasDocs() {
    for (SchemaCatalog.Subject subject : SchemaCatalog.load(schemasDir()).subjects()) {
      assertThat(subject.latest().getNamespace()).as(subject.name()).startsWith("dev.courier.");
      subject
          .latest()
          .getFields()
          .forEach(
              f -> assertThat(f.doc()).as("doc of %s.%s", subject.name(), f.name()).isNotBlank());
    }
  }

  @Test
  void anIncompatibleVersionIsRefusedNamingFieldAndRule() {
    SchemaCatalog catalog =
        SchemaCatalog.load(Path.of("src/test/resources/evolution/incompatible"));
    assertThat(catalog.evolutionViolations())
        .singleElement()
        .asString()
        .startsWith("dev.courier.schema.credit.CreditRequested v3 is incompatible: BACKWARD:")
        .contains("READER_FIELD_MISSING_DEFAULT_VALUE")
        .contains("/fields/7")
        .contains("channel");
  }
}
