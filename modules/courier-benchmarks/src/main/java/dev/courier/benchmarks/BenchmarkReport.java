package dev.courier.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.utils.AppInfoParser;

/**
 * Writes a run's measurements and checks as JSON and as Markdown tables, with the machine it ran
 * on: every figure with its median and spread, every check with its target and whether the whole
 * spread clears it.
 */
final class BenchmarkReport {

  private BenchmarkReport() {}

  static String machine() {
    Runtime rt = Runtime.getRuntime();
    long memory =
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getTotalMemorySize();
    return String.format(
        Locale.ROOT,
        "%d cores, %.1f GiB RAM, %s %s, max heap %d MiB, Kafka %s",
        rt.availableProcessors(),
        memory / (1024.0 * 1024 * 1024),
        System.getProperty("java.vm.name"),
        System.getProperty("java.version"),
        rt.maxMemory() / (1024 * 1024),
        AppInfoParser.getVersion());
  }

  static void write(
      Path dir,
      String name,
      String unit,
      List<Measurement> rows,
      List<Check> checks,
      List<String> notes)
      throws IOException {
    Files.createDirectories(dir);
    StringBuilder md = new StringBuilder();
    md.append("# ").append(name).append("\n\n").append(machine()).append("\n\n");
    md.append("| pipeline | median ")
        .append(unit)
        .append(" | spread: min-max (IQR) | runs |\n|---|---|---|---|\n");
    StringBuilder json = new StringBuilder();
    json.append("{\"benchmark\":")
        .append(quote(name))
        .append(",\"machine\":")
        .append(quote(machine()))
        .append(",\"unit\":")
        .append(quote(unit))
        .append(",\"results\":[");
    for (int i = 0; i < rows.size(); i++) {
      Measurement m = rows.get(i);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f | %s | %d |%n",
              m.name(),
              m.median(),
              m.spread(0),
              m.runs()));
      json.append(i == 0 ? "" : ",").append(measurement(m));
    }
    json.append("],\"checks\":[");
    if (!checks.isEmpty()) {
      md.append("\n| check | median | spread: min-max (IQR) | runs | target | met |\n")
          .append("|---|---|---|---|---|---|\n");
    }
    for (int i = 0; i < checks.size(); i++) {
      Check c = checks.get(i);
      Measurement m = c.figure();
      int decimals = m.median() < 10 ? 2 : 0;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s%s | %s | %d | %s | %s |%n",
              m.name(),
              String.format(Locale.ROOT, "%,." + decimals + "f", m.median()),
              c.unit(),
              m.spread(decimals),
              m.runs(),
              c.targetText(),
              c.metText()));
      json.append(i == 0 ? "" : ",")
          .append("{\"figure\":")
          .append(measurement(m))
          .append(",\"unit\":")
          .append(quote(c.unit()))
          .append(",\"target\":")
          .append(quote(c.targetText()))
          .append(",\"met\":")
          .append(c.met())
          .append('}');
    }
    json.append("],\"notes\":[");
    for (int i = 0; i < notes.size(); i++) {
      json.append(i == 0 ? "" : ",").append(quote(notes.get(i)));
      md.append(i == 0 ? "\n" : "").append("- ").append(notes.get(i)).append('\n');
    }
    json.append("]}\n");
    Files.writeString(dir.resolve(name + ".md"), md.toString());
    Files.writeString(dir.resolve(name + ".json"), json.toString());
    System.out.print(md);
  }

  private static String measurement(Measurement m) {
    return String.format(
        Locale.ROOT,
        "{\"name\":%s,\"median\":%.3f,\"min\":%.3f,\"max\":%.3f,\"p25\":%.3f,\"p75\":%.3f,"
            + "\"runs\":%s}",
        quote(m.name()),
        m.median(),
        m.min(),
        m.max(),
        m.percentile(0.25),
        m.percentile(0.75),
        m.values());
  }

  private static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}
