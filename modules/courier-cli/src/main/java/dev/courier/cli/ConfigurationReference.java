package dev.courier.cli;

import dev.courier.backpressure.AdmissionConfig;
import dev.courier.backpressure.MonitorConfig;
import dev.courier.core.ClientSettings;
import dev.courier.core.RenamedKey;
import dev.courier.idempotency.IdempotencyConfig;
import dev.courier.idempotency.IdempotentConsumerConfig;
import dev.courier.retry.RetryConfig;
import dev.courier.schema.KafkaAvroSerdeConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;

/**
 * {@code docs/configuration.md}, generated from the definitions the services and libraries validate
 * against, so the reference cannot drift from what is checked at start. {@code
 * ConfigurationReferenceTest} fails when the file differs and rewrites it with {@code
 * -Dcourier.docs.write=true}.
 */
final class ConfigurationReference {

  /** One table: where the settings are read, and their definition. */
  record Section(String title, String where, ConfigDef definition) {}

  static final List<Section> SECTIONS =
      List.of(
          new Section(
              "courier relay",
              "The outbox relay service (`OutboxRelayConfig` in courier-outbox, plus the"
                  + " service's port).",
              RelayCommand.DEFINITION),
          new Section(
              "courier monitor",
              "The backpressure monitor service and `LagMonitor.create` (`MonitorConfig` in"
                  + " courier-backpressure).",
              MonitorConfig.configDef()),
          new Section(
              "courier retry-worker",
              "The retry worker service (`RetryConfig` in courier-retry, plus the worker's"
                  + " handler, endpoint and port).",
              RetryWorkerCommand.DEFINITION),
          new Section(
              "courier groups and courier dlt",
              "The operator commands.",
              OperatorSettings.DEFINITION),
          new Section(
              "AdmissionConfig",
              "Admission control configured by key (courier-backpressure).",
              AdmissionConfig.configDef()),
          new Section(
              "IdempotencyConfig",
              "The idempotent store: `IdempotentHandler` and `IdempotencyRetention`"
                  + " (courier-idempotency).",
              IdempotencyConfig.configDef()),
          new Section(
              "IdempotentConsumerConfig",
              "The consumer loop around an `IdempotentHandler` (courier-idempotency).",
              IdempotentConsumerConfig.configDef()),
          new Section(
              "KafkaAvroSerdeConfig",
              "The Avro serializer and deserializer and their registry client (courier-schema).",
              KafkaAvroSerdeConfig.serdeConfigDef()));

  /** Where old names are still accepted, and what they are now. */
  record Renames(String where, List<RenamedKey> keys) {}

  static final List<Renames> RENAMES =
      List.of(
          new Renames("courier retry-worker, `RetryConfig`", RetryConfig.renamedKeys()),
          new Renames("courier dlt", OperatorSettings.RENAMED),
          new Renames("`IdempotentConsumerConfig`", IdempotentConsumerConfig.renamedKeys()));

  private ConfigurationReference() {}

  static String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("# Configuration reference\n\n")
        .append("Generated from the `ConfigDef`s Courier validates at start (do not edit: run\n")
        .append("`mvn -pl modules/courier-cli test -Dtest=ConfigurationReferenceTest")
        .append(" -Dcourier.docs.write=true`).\n")
        .append("A service takes its settings from `--config FILE`, `COURIER_...` environment\n")
        .append("variables and `--set key=value`; a bad value or an unknown key fails at start")
        .append(" with exit 2,\nnaming the key.\n\n")
        .append("**Kafka clients.** Every configuration that talks to Kafka has")
        .append(" `bootstrap.servers`, and\nany key prefixed `kafka.` passes,")
        .append(" without the prefix, to every Kafka client of that\ncomponent")
        .append(" (`kafka.security.protocol=SASL_SSL`, `kafka.sasl.jaas.config=...`);")
        .append(" those keys\nare checked the way Kafka's clients check them.\n");
    renames(out);
    for (Section section : SECTIONS) {
      out.append("\n## ").append(section.title()).append("\n\n").append(section.where());
      out.append("\n\n| key | type | default | valid values | importance | description |\n");
      out.append("|---|---|---|---|---|---|\n");
      List<ConfigDef.ConfigKey> keys = new ArrayList<>(section.definition().configKeys().values());
      keys.sort(Comparator.comparing((ConfigDef.ConfigKey k) -> k.name));
      for (ConfigDef.ConfigKey key : keys) {
        out.append("| `")
            .append(key.name)
            .append("` | ")
            .append(key.type.name().toLowerCase(Locale.ROOT))
            .append(" | ")
            .append(defaultOf(key))
            .append(" | ")
            .append(cell(validValues(key)))
            .append(" | ")
            .append(key.importance.name().toLowerCase(Locale.ROOT))
            .append(" | ")
            .append(cell(key.documentation))
            .append(" |\n");
      }
    }
    return out.toString();
  }

  /** The old names, each once: a raw Kafka client key stands for all of them. */
  private static void renames(StringBuilder out) {
    out.append("\n## Renamed settings\n\n")
        .append("Accepted under their old names, with a warning naming the new one, until the")
        .append(" release given.\n\n| where | old name | now | removed in |\n|---|---|---|---|\n");
    for (Renames r : RENAMES) {
      boolean kafkaKeys = false;
      for (RenamedKey key : r.keys()) {
        if (key.newName() != null && key.newName().equals(ClientSettings.PREFIX + key.oldName())) {
          if (!kafkaKeys) {
            kafkaKeys = true;
            out.append("| ")
                .append(r.where())
                .append(" | any Kafka client key without `kafka.` | `kafka.<key>` | ")
                .append(key.removedIn())
                .append(" |\n");
          }
          continue;
        }
        out.append("| ")
            .append(r.where())
            .append(" | `")
            .append(key.oldName())
            .append("` | ")
            .append(key.newName() != null ? "`" + key.newName() + "`" : cell(key.note()))
            .append(" | ")
            .append(key.removedIn())
            .append(" |\n");
      }
    }
  }

  private static String defaultOf(ConfigDef.ConfigKey key) {
    if (!key.hasDefault()) {
      return "required";
    }
    if (key.defaultValue == null) {
      return "none";
    }
    if (key.type == ConfigDef.Type.PASSWORD) {
      return "(hidden)";
    }
    String value = ConfigDef.convertToString(key.defaultValue, key.type);
    return value.isEmpty() ? "\"\"" : "`" + cell(value) + "`";
  }

  /** What Kafka's validators say of themselves; a lambda says nothing useful, so nothing. */
  private static String validValues(ConfigDef.ConfigKey key) {
    if (key.validator == null) {
      return "";
    }
    String said = key.validator.toString();
    return said.contains("$$Lambda") || said.contains("$Lambda") || said.contains("@") ? "" : said;
  }

  private static String cell(String text) {
    return text == null ? "" : text.replace("|", "\\|").replace("\n", " ");
  }
}
