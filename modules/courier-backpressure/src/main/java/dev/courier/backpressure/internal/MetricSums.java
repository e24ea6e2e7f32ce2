package dev.courier.backpressure.internal;

import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/** Reads a client's cumulative request count from its own metrics. */
public final class MetricSums {

  private MetricSums() {}

  /** The client's {@code request-total}: every request it sent, to any broker. */
  public static long requestTotal(Map<MetricName, ? extends Metric> metrics, String group) {
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      MetricName name = e.getKey();
      if (name.name().equals("request-total") && name.group().equals(group)) {
        return (long) ((Number) e.getValue().metricValue()).doubleValue();
      }
    }
    return 0;
  }
}
