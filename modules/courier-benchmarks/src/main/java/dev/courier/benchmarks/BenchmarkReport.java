package dev.courier.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.utils.AppInfoParser;

/** Writes a run's measurements as JSON and as a Markdown table, with the machine it ran on. */
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

  static void write(Path dir, String name, String unit, List<Measurement> rows, List<String> notes)
      throws IOException {
    Files.createDirectories(dir);
    StringBuilder md = new StringBuilder();
    md.append("# ").append(name).append("\n\n").append(machine()).append("\n\n");
    md.append("| pipeline | median ")
        .append(unit)
        .append(" | min | max | runs |\n|---|---|---|---|---|\n");
    StringBuilder json = new StringBuilder();
    json.append("{\"benchmark\":\"")
        .append(name)
        .append("\",\"machine\":\"")
        .append(machine())
        .append("\",\"unit\":\"")
        .append(unit)
        .append("\",\"results\":[");
    for (int i = 0; i < rows.size(); i++) {
      Measurement m = rows.get(i);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.0f | %.0f | %d |%n",
              m.name(),
              m.median(),
              m.min(),
              m.max(),
              m.perSecond().size()));
      json.append(i == 0 ? "" : ",")
          .append(
              String.format(
                  Locale.ROOT,
                  "{\"name\":\"%s\",\"median\":%.1f,\"min\":%.1f,\"max\":%.1f,\"runs\":%s}",
                  m.name(),
                  m.median(),
                  m.min(),
                  m.max(),
                  m.perSecond()));
    }
    json.append("],\"notes\":[");
    for (int i = 0; i < notes.size(); i++) {
      json.append(i == 0 ? "" : ",")
          .append('"')
          .append(notes.get(i).replace("\"", "'"))
          .append('"');
      md.append(i == 0 ? "\n" : "").append("- ").append(notes.get(i)).append('\n');
    }
    json.append("]}\n");
    Files.writeString(dir.resolve(name + ".md"), md.toString());
    Files.writeString(dir.resolve(name + ".json"), json.toString());
    System.out.print(md);
  }
}
