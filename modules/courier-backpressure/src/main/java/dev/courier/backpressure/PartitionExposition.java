package dev.courier.backpressure;

import dev.courier.backpressure.internal.MonitorMetrics;
import java.io.IOException;
import java.io.Writer;

/**
 * The per-partition series in Prometheus' text format, written from a snapshot on each scrape: the
 * same names and labels as the meters of {@link MonitorMetrics}, without a meter object per
 * partition-group pair.
 */
final class PartitionExposition {

  private PartitionExposition() {}

  /** Writes the series to {@code out}, row by row: at 100,000 pairs a single String is 40 MB. */
  static void write(LagSnapshot snapshot, String method, Writer out) throws IOException {
    family(out, "courier_monitor_group_lag", MonitorMetrics.PARTITION_HELP[0]);
    for (GroupLag g : snapshot.groups().values()) {
      for (PartitionLag p : g.partitions()) {
        if (p.known()) {
          line(out, "courier_monitor_group_lag", p, null, p.lag());
        }
      }
    }
    family(out, "courier_monitor_group_lag_seconds", MonitorMetrics.PARTITION_HELP[1]);
    for (GroupLag g : snapshot.groups().values()) {
      for (PartitionLag p : g.partitions()) {
        if (p.known()) {
          line(out, "courier_monitor_group_lag_seconds", p, method, p.oldestAge().toNanos() / 1e9);
        }
      }
    }
    family(out, "courier_monitor_group_offset", MonitorMetrics.PARTITION_HELP[2]);
    for (GroupLag g : snapshot.groups().values()) {
      for (PartitionLag p : g.partitions()) {
        line(out, "courier_monitor_group_offset", p, null, p.committedOffset());
      }
    }
    family(out, "courier_monitor_group_status", MonitorMetrics.PARTITION_HELP[3]);
    for (GroupLag g : snapshot.groups().values()) {
      for (PartitionLag p : g.partitions()) {
        line(out, "courier_monitor_group_status", p, null, p.verdict().status().code());
      }
    }
  }

  private static void family(Writer out, String name, String help) throws IOException {
    out.write("# HELP " + name + " " + help + "\n# TYPE " + name + " gauge\n");
  }

  /** Labels sorted by name, as Micrometer writes them. */
  private static void line(Writer out, String name, PartitionLag p, String method, double value)
      throws IOException {
    out.write(name);
    out.write("{group=\"");
    out.write(escape(p.group()));
    if (method != null) {
      out.write("\",method=\"");
      out.write(method);
    }
    out.write("\",partition=\"");
    out.write(Integer.toString(p.partition()));
    out.write("\",topic=\"");
    out.write(escape(p.topic()));
    out.write("\"} ");
    out.write(Double.toString(value));
    out.write('\n');
  }

  private static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
