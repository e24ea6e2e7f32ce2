package dev.courier.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The testkit's own failing parts: brokers and databases a test can kill, crash and secure. A
 * {@link KafkaProcess} killed, restarted and frozen is every broker-fault test's first step ({@code
 * BrokerFaultsIT}, {@code ConsumerOutagesIT}, {@code MonitorOutageIT}), so it is not done here a
 * second time: each module waits for this one.
 */
class ProcessInfraIT {

  @Test
  void aScramBrokerLetsInOnlyKnownUsersAndEnforcesAcls() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.scram().start()) {
      kafka.addUser("alice", "alice-secret");
      kafka.createTopic("alice.events", 1);
      kafka.createTopic("bob.events", 1);
      kafka.allow("alice", ResourceType.TOPIC, "alice.", AclOperation.DESCRIBE);
      Map<String, Object> alice = new HashMap<>(kafka.clientSettings("alice", "alice-secret"));
      alice.put("default.api.timeout.ms", 10_000);
      alice.put("request.timeout.ms", 5_000);
      try (Admin admin = Admin.create(alice)) {
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
            .containsExactly("alice.events");
      }
      Map<String, Object> wrong = new HashMap<>(kafka.clientSettings("alice", "wrong"));
      wrong.put("default.api.timeout.ms", 10_000);
      wrong.put("request.timeout.ms", 5_000);
      try (Admin admin = Admin.create(wrong)) {
        assertThatThrownBy(() -> admin.listTopics().names().get(30, TimeUnit.SECONDS))
            .hasRootCauseInstanceOf(
                org.apache.kafka.common.errors.SaslAuthenticationException.class);
      }
    }
  }

  @Test
  void aDatabaseProcessRecoversFromACrashWithItsData() throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build().start()) {
      pg.execute("CREATE TABLE kept (n int)", "INSERT INTO kept VALUES (42)");
      pg.crash();
      assertThatThrownBy(() -> pg.dataSource("postgres").getConnection())
          .isInstanceOf(java.sql.SQLException.class);
      pg.start();
      try (Connection c = pg.dataSource("postgres").getConnection();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT n FROM kept")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
    }
  }

  @Test
  void aDatabaseThatRequiresTlsRefusesPlainConnectionsAndProvesItsName() throws Exception {
    TestCertificates certs = TestCertificates.create("pg");
    TestCertificates other = TestCertificates.create("other");
    try (PostgresProcess pg = PostgresProcess.builder().tls(certs).build().start()) {
      PGSimpleDataSource plain = pg.dataSource("postgres");
      plain.setSslMode("disable");
      assertThatThrownBy(plain::getConnection).hasMessageContaining("no encryption");
      PGSimpleDataSource verified = pg.dataSource("postgres");
      verified.setSslMode("verify-full");
      verified.setSslRootCert(certs.caCertificate().toString());
      try (Connection c = verified.getConnection();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getBoolean(1)).isTrue();
      }
      PGSimpleDataSource wrongCa = pg.dataSource("postgres");
      wrongCa.setSslMode("verify-full");
      wrongCa.setSslRootCert(other.caCertificate().toString());
      assertThatThrownBy(wrongCa::getConnection).hasMessageContaining("SSL");
    }
  }
}
