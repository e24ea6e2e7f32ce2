package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/** docs/configuration.md is what the definitions say, key for key. */
class ConfigurationReferenceTest {

  private static final Path FILE = Path.of("..", "..", "docs", "configuration.md");

  @Test
  void theReferenceIsCurrent() throws Exception {
    String generated = ConfigurationReference.markdown();
    if (Boolean.getBoolean("courier.docs.write")) {
      Files.createDirectories(FILE.getParent());
      Files.writeString(FILE, generated, StandardCharsets.UTF_8);
    }
    assertThat(FILE).exists();
    assertThat(Files.readString(FILE, StandardCharsets.UTF_8))
        .as(
            "docs/configuration.md is out of date: run mvn -pl modules/courier-cli test"
                + " -Dtest=ConfigurationReferenceTest -Dcourier.docs.write=true")
        .isEqualTo(generated);
  }

  @Test
  void everyKeyIsDocumented() {
    for (ConfigurationReference.Section section : ConfigurationReference.SECTIONS) {
      for (ConfigDef.ConfigKey key : section.definition().configKeys().values()) {
        assertThat(key.documentation)
            .as(section.title() + ": " + key.name)
            .isNotBlank()
            .hasSizeGreaterThan(10);
      }
    }
  }
}
