package dev.courier.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.testkit.Backend;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The external backend connects to servers someone else runs (here: the shared embedded ones). */
@CourierInfraTest
class ExternalInfraIT {

  private static final List<String> KEYS =
      List.of(
          InfraSettings.EXTERNAL_BOOTSTRAP,
          InfraSettings.EXTERNAL_JDBC_URL,
          InfraSettings.EXTERNAL_JDBC_USER,
          InfraSettings.EXTERNAL_JDBC_PASSWORD);

  @AfterEach
  void clear() {
    KEYS.forEach(System::clearProperty);
  }

  @Test
  void usesAndLeavesRunningTheServersItIsGiven(CourierInfra shared) throws Exception {
    System.setProperty(InfraSettings.EXTERNAL_BOOTSTRAP, shared.kafka().bootstrapServers());
    System.setProperty(InfraSettings.EXTERNAL_JDBC_URL, shared.postgres().jdbcUrl("postgres"));
    System.setProperty(InfraSettings.EXTERNAL_JDBC_USER, shared.postgres().username());
    System.setProperty(InfraSettings.EXTERNAL_JDBC_PASSWORD, shared.postgres().password());
    String topic = UniqueNames.topic("external");
    try (CourierInfra external =
        CourierInfra.start(InfraSettings.defaults().withInfra(InfraSettings.Choice.EXTERNAL))) {
      assertThat(external.backend()).isEqualTo(Backend.EXTERNAL);
      assertThat(external.describe()).contains("external Kafka").contains("external PostgreSQL");
      external.kafka().createTopic(topic, 1);
      try (TestDatabase db = external.postgres().createDatabase("external");
          Connection c = db.connection()) {
        assertThat(c.isValid(5)).isTrue();
      }
    }
    // Closing the external infrastructure stopped nothing.
    assertThat(shared.kafka().admin().listTopics().names().get()).contains(topic);
  }

  @Test
  void aMissingKeyIsNamed() {
    assertThatThrownBy(
            () ->
                CourierInfra.start(
                    InfraSettings.defaults().withInfra(InfraSettings.Choice.EXTERNAL)))
        .isInstanceOf(InfraStartupException.class)
        .hasMessageContaining(InfraSettings.EXTERNAL_BOOTSTRAP);
  }
}
