package dev.courier.testkit;

import dev.courier.testkit.internal.KafkaJarVersions;
import dev.courier.testkit.internal.TempDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * A Kafka broker (one KRaft node, broker and controller) in a JVM of its own, on a port that stays
 * the same across restarts, for tests where the broker itself is what fails: it can be started
 * after the service under test, killed, frozen with SIGSTOP, and started again on the same data.
 * Optionally its client listener is {@code SASL_PLAINTEXT} with SCRAM-SHA-256 and ACLs enforced
 * ({@code StandardAuthorizer}, nothing allowed without an ACL), with {@link #SUPER_USER} as the
 * only super user.
 */
public final class KafkaProcess implements AutoCloseable {

  public static final String SUPER_USER = "admin";
  public static final String SUPER_PASSWORD = "admin-secret";
  private static final String CLUSTER_ID = "5L6g3nShT-eMCtK--X86sw";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final int controllerPort;
  private final boolean sasl;

  /** Between the PROXIED listener and its clients, or null when the broker has no such listener. */
  private final TcpProxy proxy;

  private final List<Node> nodes = new ArrayList<>();
  private Admin admin;

  /** One node: its id, client port, properties file and process. */
  private static final class Node {
    final int id;
    final int port;
    final Path properties;
    WorkerProcess process;

    Node(int id, int port, Path properties) {
      this.id = id;
      this.port = port;
      this.properties = properties;
    }
  }

  /** The brokers' settings and data, removed on close. */
  private Path directory;

  private KafkaProcess(int port, int brokers, boolean sasl, Map<String, String> extra) {
    this(port, brokers, sasl, false, extra);
  }

  private KafkaProcess(
      int port, int brokers, boolean sasl, boolean proxied, Map<String, String> extra) {
    this.controllerPort = FreePorts.next();
    this.sasl = sasl;
    this.proxy = proxied ? TcpProxy.to(FreePorts.next()) : null;
    try {
      directory = Files.createTempDirectory("courier-kafka-process-");
      for (int id = 1; id <= brokers; id++) {
        int nodePort = id == 1 && port != 0 ? port : FreePorts.next();
        Path properties = directory.resolve("server-" + id + ".properties");
        StringBuilder text = new StringBuilder();
        KafkaNodeProperties.of(
                id,
                nodePort,
                directory.resolve("data-" + id),
                brokers,
                controllerPort,
                sasl,
                proxy,
                extra)
            .forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Files.writeString(properties, text.toString());
        nodes.add(new Node(id, nodePort, properties));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare a Kafka broker directory", e);
    }
    nodes.forEach(this::format);
  }

  /** A PLAINTEXT broker on a free port, not yet started. */
  public static KafkaProcess plaintext() {
    return new KafkaProcess(0, 1, false, Map.of());
  }

  /** A PLAINTEXT broker on this port (0: a free one), not yet started. */
  public static KafkaProcess plaintext(int port, Map<String, String> brokerSettings) {
    return new KafkaProcess(port, 1, false, brokerSettings);
  }

  /**
   * A PLAINTEXT cluster of {@code brokers} nodes (node 1 is also the controller), not yet started:
   * for tests where one broker, and the leadership of its partitions, goes away.
   */
  public static KafkaProcess cluster(int brokers) {
    return new KafkaProcess(0, brokers, false, Map.of());
  }

  /**
   * A PLAINTEXT broker, not yet started, with a second listener reached only through a {@link
   * TcpProxy}: clients given {@link #proxiedClientSettings()} can be {@linkplain #proxy()
   * partitioned} from it while others reach it directly, as when one node loses the network.
   */
  public static KafkaProcess withProxiedListener() {
    return withProxiedListener(Map.of());
  }

  /** As {@link #withProxiedListener()}, with these broker settings (an authorizer, say). */
  public static KafkaProcess withProxiedListener(Map<String, String> brokerSettings) {
    return new KafkaProcess(0, 1, false, true, brokerSettings);
  }

  /** A broker whose clients authenticate with SASL/SCRAM-SHA-256 and need ACLs, not started. */
  public static KafkaProcess scram() {
    return new KafkaProcess(0, 1, true, Map.of());
  }

  /** The JAAS line a client uses to log in with SCRAM. */
  public static String jaas(String user, String password) {
    return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
        + user
        + "\" password=\""
        + password
        + "\";";
  }

  /** Client settings (without the {@code kafka.} prefix) to log in as this user. */
  public Map<String, String> clientSettings(String user, String password) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("bootstrap.servers", bootstrapServers());
    if (sasl) {
      s.put("security.protocol", "SASL_PLAINTEXT");
      s.put("sasl.mechanism", "SCRAM-SHA-256");
      s.put("sasl.jaas.config", jaas(user, password));
    }
    return s;
  }

  private void format(Node node) {
    List<String> args =
        new ArrayList<>(List.of("format", "-t", CLUSTER_ID, "-c", node.properties.toString()));
    if (sasl) {
      args.add("--add-scram");
      args.add("SCRAM-SHA-256=[name=" + SUPER_USER + ",password=" + SUPER_PASSWORD + "]");
    }
    try (WorkerProcess storage =
        JvmWorker.of(kafka.tools.StorageTool.class)
            .name("kafka-storage")
            .args(args.toArray(String[]::new))
            .start()) {
      int status = storage.awaitExit(START_TIMEOUT);
      if (status != 0) {
        throw new InfraStartupException(
            "kafka-storage format failed (" + status + "):\n" + storage.output(), null);
      }
    }
  }

  /** Starts every node (again, on the same data and ports) and waits until all answer. */
  public KafkaProcess start() {
    // The child JVM runs on this classpath: one Kafka version, or a message naming the fix.
    KafkaJarVersions.requireOne(KafkaJarVersions.on(KafkaProcess.class.getClassLoader()));
    for (Node node : nodes) {
      if (node.process == null || !node.process.isAlive()) {
        start(node.id);
      }
    }
    return this;
  }

  /** Starts one node (again) and waits until the cluster sees it. */
  public KafkaProcess start(int id) {
    Node node = node(id);
    if (node.process != null && node.process.isAlive()) {
      throw new IllegalStateException("broker " + id + " is already running");
    }
    node.process =
        JvmWorker.of(kafka.Kafka.class)
            .name("kafka-" + id + "-" + node.port)
            .jvmOption("-Xmx384m")
            .args(node.properties.toString())
            .start();
    awaitReady(node);
    return this;
  }

  private void awaitReady(Node node) {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    RuntimeException last = null;
    while (System.nanoTime() < deadline) {
      if (!node.process.isAlive()) {
        throw new InfraStartupException(
            "the Kafka broker process exited:\n" + node.process.output(), null);
      }
      try {
        if (admin().describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
            .anyMatch(n -> n.id() == node.id)) {
          return;
        }
      } catch (Exception e) {
        last = new IllegalStateException(e.toString(), e);
      }
    }
    throw new InfraStartupException(
        "Kafka broker " + node.id + " did not answer within " + START_TIMEOUT + ": " + last, last);
  }

  private Node node(int id) {
    return nodes.stream()
        .filter(n -> n.id == id)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no broker " + id));
  }

  /** The proxy in front of the PROXIED listener ({@link #withProxiedListener()}). */
  public TcpProxy proxy() {
    if (proxy == null) {
      throw new IllegalStateException("this broker has no proxied listener");
    }
    return proxy;
  }

  /**
   * Client settings (without the {@code kafka.} prefix) that reach the broker through the proxy.
   */
  public Map<String, String> proxiedClientSettings() {
    return Map.of("bootstrap.servers", "localhost:" + proxy().port());
  }

  public String bootstrapServers() {
    return String.join(",", nodes.stream().map(n -> "localhost:" + n.port).toList());
  }

  /**
   * This broker as the testkit's {@link KafkaBroker} (plaintext only), for code written against the
   * shared broker: topics, client settings, a group's lag.
   */
  public KafkaBroker broker() {
    if (sasl) {
      throw new IllegalStateException("a SCRAM broker's clients need credentials");
    }
    return new KafkaBroker() {
      @Override
      public String bootstrapServers() {
        return KafkaProcess.this.bootstrapServers();
      }

      @Override
      public Admin admin() {
        return KafkaProcess.this.admin();
      }

      @Override
      public String describe() {
        return "Kafka in its own JVM at " + bootstrapServers();
      }
    };
  }

  /** The first node's client port. */
  public int port() {
    return nodes.get(0).port;
  }

  /** An Admin client with super-user rights, owned by this broker (do not close it). */
  public synchronized Admin admin() {
    if (admin == null) {
      Map<String, Object> settings = new HashMap<>(clientSettings(SUPER_USER, SUPER_PASSWORD));
      settings.put("default.api.timeout.ms", 10_000);
      settings.put("request.timeout.ms", 5_000);
      admin = Admin.create(settings);
    }
    return admin;
  }

  /** Creates a SCRAM-SHA-256 user. */
  public void addUser(String user, String password) {
    await(
        admin()
            .alterUserScramCredentials(
                List.of(
                    new UserScramCredentialUpsertion(
                        user,
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192),
                        password)))
            .all());
  }

  /** Allows a user these operations on resources whose names start with {@code prefix}. */
  public void allow(String user, ResourceType type, String prefix, AclOperation... operations) {
    List<AclBinding> acls = new ArrayList<>();
    for (AclOperation op : operations) {
      acls.add(
          new AclBinding(
              new ResourcePattern(
                  type, prefix, prefix.equals("*") ? PatternType.LITERAL : PatternType.PREFIXED),
              new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW)));
    }
    await(admin().createAcls(acls).all());
  }

  /** Creates a topic with one replica and waits until its partitions take requests. */
  public void createTopic(String name, int partitions) {
    NewTopics.create(
        admin(), new org.apache.kafka.clients.admin.NewTopic(name, partitions, (short) 1));
  }

  /**
   * The values of a topic from its start, read as the super user: at least {@code atLeast} of them,
   * and then whatever else arrives until nothing has for {@code quiet} (zero: return at once), or
   * what came within 90 s.
   */
  public List<String> readValues(String topic, int atLeast, Duration quiet) {
    return TopicValues.read(
        clientSettings(SUPER_USER, SUPER_PASSWORD), topic, atLeast, quiet, START_TIMEOUT);
  }

  /** SIGKILL to every node: the cluster dies with nothing flushed, as lost nodes do. */
  public void kill() {
    nodes.forEach(n -> n.process.kill());
  }

  /** SIGKILL to one node: its partitions lose their leader where it held the only replica. */
  public void kill(int id) {
    node(id).process.kill();
  }

  /** SIGSTOP to every node: connections stay open and nothing is answered. */
  public void freeze() {
    nodes.forEach(n -> n.process.freeze());
  }

  public void thaw() {
    nodes.forEach(n -> n.process.thaw());
  }

  /** The first node's process (its output, its pid). */
  public WorkerProcess process() {
    return nodes.get(0).process;
  }

  private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future) {
    try {
      return future.get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(2));
      admin = null;
    }
    for (Node n : nodes) {
      if (n.process != null) {
        n.process.close();
      }
    }
    if (proxy != null) {
      proxy.close();
    }
    TempDirectory.deleteQuietly(directory);
  }
}
