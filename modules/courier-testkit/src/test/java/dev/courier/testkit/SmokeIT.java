package dev.courier.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

@CourierInfraTest
@BackendMatrix
class SmokeIT {

  @Test
  void brokerAndLogicalReplicationAreReal(CourierInfra infra, TestDatabase database, Admin admin)
      throws Exception {
    SmokeReport report = SmokeScenario.run(infra, database);
    report.lines().forEach(line -> System.out.println("[smoke] " + line));

    // The backend that ran is reported, and is the one requested when one was.
    String requested = System.getProperty(InfraSettings.INFRA, "");
    if (!requested.isBlank() && !requested.equals("auto")) {
      assertThat(report.backend().id()).isEqualTo(requested);
    }
    assertThat(report.backendReason()).isNotBlank();

    // Kafka: everything produced came back through the group, whose offset the broker now holds.
    assertThat(report.consumed()).containsExactlyElementsOf(report.produced()).hasSize(5);
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets(report.group())
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
    assertThat(committed.get(new TopicPartition(report.topic(), 0)).offset()).isEqualTo(5);

    // PostgreSQL: the slot exists, uses pgoutput, and yielded the committed insert.
    try (Connection c = database.connection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT plugin, database FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, report.slot());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("slot %s exists", report.slot()).isTrue();
        assertThat(rs.getString("plugin")).isEqualTo("pgoutput");
        assertThat(rs.getString("database")).isEqualTo(database.name());
      }
    }
    assertThat(report.change())
        .isEqualTo(
            new LogicalChange(
                "public.smoke_note", "INSERT", Map.of("id", "1", "note", "hello from courier")));
    assertThat(report.passed()).isTrue();
  }

  @Test
  void serverRunsWithLogicalDecodingSettings(TestDatabase database) throws Exception {
    try (Connection c = database.connection();
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT current_setting('wal_level'),"
                        + " current_setting('server_version_num')::int")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("logical");
      assertThat(rs.getInt(2)).isGreaterThanOrEqualTo(150000);
    }
  }
}
