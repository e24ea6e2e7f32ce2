package dev.courier.testkit;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** One node's server.properties for {@link KafkaProcess}: KRaft, fast to restart, small. */
final class KafkaNodeProperties {

  private KafkaNodeProperties() {}

  static Map<String, String> of(
      int id,
      int port,
      Path data,
      int brokers,
      int controllerPort,
      boolean sasl,
      TcpProxy proxy,
      Map<String, String> extra) {
    String protocol = sasl ? "SASL_PLAINTEXT" : "PLAINTEXT";
    Map<String, String> p = new LinkedHashMap<>();
    p.put("process.roles", id == 1 ? "broker,controller" : "broker");
    p.put("node.id", String.valueOf(id));
    p.put("controller.quorum.voters", "1@localhost:" + controllerPort);
    String proxied = proxy == null ? "" : ",PROXIED://localhost:" + proxy.target();
    p.put(
        "listeners",
        "CLIENT://localhost:"
            + port
            + proxied
            + (id == 1 ? ",CONTROLLER://localhost:" + controllerPort : ""));
    // Clients of the proxied listener are told the proxy's address, so all they send crosses it.
    p.put(
        "advertised.listeners",
        "CLIENT://localhost:"
            + port
            + (proxy == null ? "" : ",PROXIED://localhost:" + proxy.port()));
    p.put(
        "listener.security.protocol.map",
        "CLIENT:"
            + protocol
            + ",CONTROLLER:PLAINTEXT"
            + (proxy == null ? "" : ",PROXIED:PLAINTEXT"));
    p.put("inter.broker.listener.name", "CLIENT");
    p.put("controller.listener.names", "CONTROLLER");
    p.put("log.dirs", data.toString());
    p.put("default.replication.factor", "1");
    // Group coordinators fail over with the broker: a group's offsets outlive any one node.
    p.put("offsets.topic.replication.factor", String.valueOf(brokers));
    p.put("offsets.topic.num.partitions", "4");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    // A broker restarted after a kill re-registers only once the controller has expired its old
    // session: 9 s by default, on top of every restart a test does.
    p.put("broker.session.timeout.ms", "3000");
    p.put("broker.heartbeat.interval.ms", "500");
    if (sasl) {
      p.put("sasl.enabled.mechanisms", "SCRAM-SHA-256");
      p.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-256");
      p.put(
          "listener.name.client.scram-sha-256.sasl.jaas.config",
          KafkaProcess.jaas(KafkaProcess.SUPER_USER, KafkaProcess.SUPER_PASSWORD));
      p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
      // The controller listener is the broker's own, inside this process: it connects as ANONYMOUS.
      p.put("super.users", "User:" + KafkaProcess.SUPER_USER + ";User:ANONYMOUS");
      p.put("allow.everyone.if.no.acl.found", "false");
    }
    p.putAll(extra);
    return p;
  }
}
