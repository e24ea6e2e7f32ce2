package dev.courier.spring;

import dev.courier.backpressure.GroupLag;
import dev.courier.backpressure.LagMonitor;
import dev.courier.backpressure.LagSnapshot;
import dev.courier.backpressure.PartitionLag;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@code /actuator/courier}, read-only: the consumer groups the in-application monitor watches
 * ({@code courier.monitor.*}), each with its status, lag and the age of its oldest unconsumed
 * record, as the monitor's last tick saw them; {@code /actuator/courier/{group}} adds its
 * partitions. Expose it like any endpoint ({@code management.endpoints.web.exposure.include}).
 */
@Endpoint(id = "courier")
public final class CourierGroupsEndpoint {

  private final LagMonitor monitor;

  public CourierGroupsEndpoint(LagMonitor monitor) {
    this.monitor = monitor;
  }

  @ReadOperation
  public Map<String, Object> groups() {
    LagSnapshot latest = monitor.latest();
    Map<String, Object> groups = new TreeMap<>();
    latest.groups().forEach((name, lag) -> groups.put(name, summary(lag)));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("observedAt", latest.at().toString());
    body.put("health", monitor.health().status());
    body.put("groups", groups);
    return body;
  }

  @ReadOperation
  public Map<String, Object> group(@Selector String group) {
    return monitor
        .latest()
        .group(group)
        .map(
            lag -> {
              Map<String, Object> body = summary(lag);
              List<Map<String, Object>> partitions = new ArrayList<>();
              for (PartitionLag p : lag.partitions()) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("topic", p.topic());
                row.put("partition", p.partition());
                row.put("committedOffset", p.committedOffset());
                row.put("logEndOffset", p.logEndOffset());
                row.put("lag", p.lag());
                row.put("oldestAgeSeconds", p.oldestAge().toMillis() / 1000.0);
                row.put("consumerId", p.consumerId());
                partitions.add(row);
              }
              body.put("partitions", partitions);
              return body;
            })
        .orElse(null); // Actuator answers 404
  }

  private static Map<String, Object> summary(GroupLag lag) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("state", lag.state());
    row.put("members", lag.members());
    row.put("status", lag.verdict().status().name());
    row.put("reason", lag.verdict().reason());
    row.put("sumLag", lag.sumLag());
    row.put("maxLag", lag.maxLag());
    row.put("maxOldestAgeSeconds", lag.maxOldestAge().toMillis() / 1000.0);
    row.put("observedAt", lag.observedAt().toString());
    return row;
  }
}
