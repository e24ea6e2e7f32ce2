package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/** docs/configuration.md is what the definitions say, key for key. */
class ConfigurationReferenceTest {

  @Test
  void theReferenceIsCurrent() throws Exception {
    GeneratedDoc.assertCurrent(
        "configuration.md",
        ConfigurationReference.markdown(),
        ConfigurationReferenceTest.class.getSimpleName());
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
