package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CourierTracing;
import dev.courier.core.RenamedKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * Every link and every code reference in README.md, BENCHMARKS.md and docs/ points at something
 * that exists: a relative link at a file (and its anchor at a heading there), a class, test, member
 * or nested type named in backquotes at Courier's sources (or a library type listed below), a
 * setting at a configuration that declares it, a header at {@link CourierHeaders#ALL}, a metric at
 * what the components register.
 */
class DocsReferencesTest {

  private static final Path ROOT = Path.of("..", "..");
  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  private static final Pattern CODE = Pattern.compile("`([^`\\n]+)`");
  private static final Pattern TYPE = Pattern.compile("[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*");
  private static final Pattern MEMBER =
      Pattern.compile("([A-Z][A-Za-z0-9]*)[.#]([A-Za-z_][A-Za-z0-9_]*)(\\(.*\\))?");
  private static final Pattern SETTING =
      Pattern.compile(
          "(outbox|retry|idempotency|monitor|admission|database|audit|replay|kafka)\\.[a-z0-9.-]+");
  private static final Pattern HEADER = Pattern.compile("courier\\.[a-z.]+");
  private static final Pattern METRIC = Pattern.compile("courier_[a-z0-9_]+");

  /**
   * Types of Kafka, Debezium, Spring, Avro, Micrometer, Testcontainers, the JDK and PostgreSQL's
   * driver that the docs name; anything else in backquotes must be Courier's.
   */
  private static final Set<String> LIBRARY_TYPES =
      Set.of(
          "AbstractConfig",
          "Acknowledgment",
          "ActivateTracingSpan",
          "BatchSpanProcessor",
          "Context",
          "GlobalOpenTelemetry",
          "InMemorySpanExporter",
          "KafkaTemplate",
          "ObservationRegistry",
          "OpenTelemetry",
          "Properties",
          "Consumer",
          "DataAccessException",
          "DefaultErrorHandler",
          "JdbcConnectionDetails",
          "KafkaConnectionDetails",
          "NewTopic",
          "RecordInterceptor",
          "SpringApplicationShutdownHook",
          "UnexpectedRollbackException",
          "AlterConsumerGroupOffsets",
          "BinaryDecoder",
          "BinaryEncoder",
          "CommitFailedException",
          "ConfigDef",
          "ConfigException",
          "ConsumerGroupCommand",
          "ConsumerRebalanceListener",
          "DataException",
          "DeadLetterPublishingRecoverer",
          "DefaultDestinationTopicResolver",
          "DescribeGroups",
          "EventRouter",
          "IllegalArgumentException",
          "IllegalStateException",
          "IndexOutOfBoundsException",
          "KafkaClusterTestKit",
          "KafkaConnectUtil",
          "KafkaContainer",
          "KafkaStreams",
          "ListOffsets",
          "MeterRegistry",
          "Metrics",
          "NoClassDefFoundError",
          "NoSuchMethodError",
          "OffsetFetch",
          "OutOfMemoryError",
          "PostgreSQLContainer",
          "RebalanceInProgressException",
          "RecordDeserializationException",
          "RecordTooLargeException",
          "RetryTopicConfigurer",
          "SerializationException",
          "SpecificRecord",
          "TimestampType",
          "TopicNameStrategy",
          "RecordNameStrategy",
          "TopicRecordNameStrategy",
          "AvroRuntimeException",
          "IOException",
          "ThreadMXBean",
          "ThreadLocal",
          "ExportedEvent",
          "MultiGauge",
          "SimpleMeterRegistry",
          "PrometheusMeterRegistry",
          "Deserializer",
          "ByteBuffer",
          "OffsetAndMetadata",
          "ObjectMapper",
          "LinkedBlockingQueue",
          "TopicPartition",
          "BigInteger",
          "Clock",
          "Admin",
          "DataSource",
          "OutputStream",
          "Error",
          "ApplicationAvailability",
          "OffsetsMessageFormatter",
          // Debezium's internals that a profile found on the relay's path
          "CommonEventMeter",
          "StreamingMeter",
          "MeasurementCollector",
          "EventMetadataProvider",
          "LastEvent",
          "SchemaUtil",
          "JsonStringEncoder",
          // Kubernetes and Strimzi kinds
          "KafkaTopic",
          "RollingUpdate");

  /** Words in backquotes that look like types and are not: states, HTTP headers, attributes. */
  private static final Set<String> NOT_TYPES = Set.of("NaN", "Dead", "Allow", "Connected");

  private final Map<String, List<Path>> sources = sources();

  /** Alerts of deploy/prometheus, records of schemas/ and tables of the SQL migrations. */
  private final Set<String> names = declaredNames();

  @Test
  void everyRelativeLinkReachesAFileAndItsAnchorAHeading() {
    List<String> broken = new ArrayList<>();
    for (Path page : pages()) {
      Matcher m = LINK.matcher(read(page));
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("[a-z]+:.*")) {
          continue; // http, https, mailto
        }
        String[] parts = target.split("#", 2);
        Path file = parts[0].isEmpty() ? page : page.getParent().resolve(parts[0]).normalize();
        if (!Files.exists(file)) {
          broken.add(page + ": " + target + " (no such file)");
        } else if (parts.length == 2 && !anchors(file).contains(parts[1])) {
          broken.add(page + ": " + target + " (no heading #" + parts[1] + " in " + file + ")");
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void everyCodeReferenceExists() {
    Set<String> settings = settings();
    Set<String> headers = new HashSet<>();
    CourierHeaders.ALL.forEach(h -> headers.add(h.name()));
    Set<String> metrics = metrics();
    List<String> missing = new ArrayList<>();
    for (Path page : pages()) {
      boolean deprecations = page.endsWith("deprecations.md");
      if (GENERATED.contains(page.getFileName().toString())) {
        continue; // written from the code itself
      }
      Matcher m = CODE.matcher(read(page));
      while (m.find()) {
        String code = m.group(1).trim();
        if (code.contains("*") || code.contains("<") || code.contains(" ") || code.contains("|")) {
          continue; // a pattern, a placeholder or a command line, not one name
        }
        String problem = check(code, settings, headers, metrics, deprecations);
        if (problem != null) {
          missing.add(ROOT.relativize(page) + ": `" + code + "` " + problem);
        }
      }
    }
    assertThat(missing).isEmpty();
  }

  /** Why a reference does not hold, or null when it does or is nothing this test knows. */
  private String check(
      String code,
      Set<String> settings,
      Set<String> headers,
      Set<String> metrics,
      boolean deprecations) {
    if (SPAN_ATTRIBUTES.contains(code)) {
      return null; // a span attribute CourierTracing declares
    }
    Matcher member = MEMBER.matcher(code);
    if (TYPE.matcher(code).matches()) {
      return sources.containsKey(code)
              || LIBRARY_TYPES.contains(code)
              || NOT_TYPES.contains(code)
              || names.contains(code)
          ? null
          : "names no class of Courier's, alert or Avro record";
    }
    if (member.matches() && TYPE.matcher(member.group(1)).matches()) {
      String type = member.group(1);
      if (LIBRARY_TYPES.contains(type)) {
        return null;
      }
      if (!sources.containsKey(type)) {
        return "names no class of Courier's (" + type + ")";
      }
      String name = member.group(2);
      boolean found =
          sources.get(type).stream()
              .map(DocsReferencesTest::read)
              .anyMatch(text -> Pattern.compile("\\b" + name + "\\b").matcher(text).find());
      return found || deprecations ? null : "names nothing called " + name + " in " + type;
    }
    if (METRIC.matcher(code).matches()) {
      return metrics.contains(code) || names.contains(code) || deprecations
          ? null
          : "is no metric Courier registers and no table of its migrations";
    }
    if (SETTING.matcher(code).matches() && code.contains(".") && !code.endsWith(".")) {
      if (code.startsWith("kafka.")) {
        return isKafkaClientSetting(code.substring("kafka.".length()))
            ? null
            : "is no Kafka client setting";
      }
      return settings.contains(code) ? null : "is no setting any configuration declares";
    }
    if (HEADER.matcher(code).matches() && !code.endsWith(".jar")) {
      return headers.contains(code)
              || SYSTEM_PROPERTIES.contains(code)
              || SPRING_PROPERTIES.contains(code)
              || (code.startsWith("courier.kafka.")
                  && isKafkaClientSetting(code.substring("courier.kafka.".length())))
          ? null
          : "is no header in CourierHeaders, no testkit property and no property of the Spring"
              + " Boot starter";
    }
    return null;
  }

  private static final Set<String> GENERATED =
      Set.of("configuration.md", "headers.md", "metrics.md", "trace-attributes.md");

  private static final Set<String> SPAN_ATTRIBUTES =
      CourierTracing.ATTRIBUTES.stream()
          .map(a -> a.key().getKey())
          .collect(java.util.stream.Collectors.toSet());

  private static Set<String> declaredNames() {
    Set<String> found = new HashSet<>();
    Pattern alert = Pattern.compile("- (?:alert|record): (\\w+)");
    Pattern record = Pattern.compile("\"name\"\\s*:\\s*\"([A-Z]\\w*)\"");
    Pattern table =
        Pattern.compile("(?i)create (?:table|publication)(?: if not exists)? (courier_\\w+)");
    for (String dir : new String[] {"deploy/prometheus", "schemas", "modules"}) {
      try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
        files
            .filter(p -> !p.toString().contains("/target/"))
            .filter(p -> p.toString().matches(".*\\.(yml|avsc|sql)$"))
            .forEach(
                p -> {
                  for (Pattern pattern : List.of(alert, record, table)) {
                    Matcher m = pattern.matcher(read(p));
                    while (m.find()) {
                      found.add(m.group(1));
                    }
                  }
                });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return found;
  }

  private static boolean isKafkaClientSetting(String key) {
    return ProducerConfig.configNames().contains(key)
        || ConsumerConfig.configNames().contains(key)
        || AdminClientConfig.configNames().contains(key);
  }

  /** The Spring Boot starter's properties, as its generated configuration metadata lists them. */
  private static final Set<String> SPRING_PROPERTIES = springProperties();

  private static Set<String> springProperties() {
    Set<String> found = new TreeSet<>();
    Matcher m =
        Pattern.compile("\"name\"\\s*:\\s*\"(courier\\.[^\"]+)\"")
            .matcher(
                read(
                    ROOT.resolve(
                        "modules/courier-spring-boot-autoconfigure/src/main/resources/META-INF/"
                            + "spring-configuration-metadata.json")));
    while (m.find()) {
      found.add(m.group(1));
    }
    return found;
  }

  /** The testkit's and services' own system properties (not settings, not headers). */
  private static final Set<String> SYSTEM_PROPERTIES =
      Set.of(
          "courier.infra",
          "courier.image.kafka",
          "courier.image.postgres",
          "courier.image.schema.registry",
          "courier.postgres.port",
          "courier.testcontainers.pull",
          "courier.external.bootstrap.servers",
          "courier.external.jdbc.url",
          "courier.external.jdbc.user",
          "courier.external.jdbc.password",
          "courier.it.groups",
          "courier.cli.it.forks",
          "courier.test.jvm.options",
          "courier.worker.jvm.options",
          "courier.docs.write",
          "courier.debezium.log.level",
          "courier.log.level",
          "courier.kafka.log.level",
          "courier.root.log.level");

  private static Set<String> settings() {
    Set<String> keys = new TreeSet<>();
    for (ConfigurationReference.Section s : ConfigurationReference.SECTIONS) {
      keys.addAll(s.definition().names());
    }
    for (ConfigDef def : List.of(dev.courier.retry.DltReplayerConfig.configDef())) {
      keys.addAll(def.names());
    }
    for (ConfigurationReference.Renames r : ConfigurationReference.RENAMES) {
      r.keys().stream().map(RenamedKey::oldName).forEach(keys::add);
    }
    return keys;
  }

  /** Every family, with the series a summary, histogram or timer adds. */
  private static Set<String> metrics() {
    Set<String> names = new HashSet<>();
    for (String family : MetricsReference.families(MetricsReference.scrape()).keySet()) {
      names.add(family);
      for (String suffix : new String[] {"_count", "_sum", "_bucket", "_max"}) {
        names.add(family + suffix);
      }
    }
    return names;
  }

  private static List<Path> pages() {
    List<Path> pages =
        new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("BENCHMARKS.md")));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  /** Courier's types by simple name: top-level and nested, main and test, modules and examples. */
  private static Map<String, List<Path>> sources() {
    Map<String, List<Path>> types = new HashMap<>();
    Pattern declared = Pattern.compile("(?:class|interface|record|enum)\\s+([A-Z][A-Za-z0-9]*)");
    for (String dir : new String[] {"modules", "examples"}) {
      try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
        files
            .filter(p -> p.toString().endsWith(".java") && !p.toString().contains("/target/"))
            .forEach(
                p -> {
                  Matcher m = declared.matcher(read(p));
                  while (m.find()) {
                    types.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(p);
                  }
                });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return types;
  }

  /** GitHub's anchors of a page's headings. */
  private static Set<String> anchors(Path page) {
    Set<String> anchors = new HashSet<>();
    for (String line : read(page).split("\n")) {
      if (line.startsWith("#")) {
        String title = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT);
        anchors.add(title.replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
      }
    }
    return anchors;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
