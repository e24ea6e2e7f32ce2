package dev.courier.backpressure.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.backpressure.GroupLag;
import dev.courier.backpressure.PartitionLag;
import dev.courier.backpressure.Status;
import dev.courier.backpressure.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The JSON of the monitor's HTTP API, both ways: durations in seconds (fractions allowed), rates
 * per second, a time to drain of null when the lag is not shrinking.
 */
public final class LagJson {

  public static final ObjectMapper MAPPER = new ObjectMapper();

  private LagJson() {}

  public static Map<String, Object> group(
      GroupLag g, boolean withPartitions, Instant now, Duration staleAfter) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("group", g.group());
    m.put("observedAt", g.observedAt().toString());
    m.put("ageSeconds", seconds(g.age(now)));
    m.put("stale", g.age(now).compareTo(staleAfter) > 0);
    m.put("state", g.state());
    m.put("members", g.members());
    m.put("status", g.verdict().status().name());
    m.put("reason", g.verdict().reason());
    m.put("sumLag", g.sumLag());
    m.put("maxLag", g.maxLag());
    m.put("maxOldestAgeSeconds", seconds(g.maxOldestAge()));
    m.put("lagGrowthRate", g.lagGrowthRate());
    m.put("commitRate", g.commitRate());
    m.put("timeToDrainSeconds", g.timeToDrain().map(LagJson::seconds).orElse(null));
    m.put("partitionCount", g.partitions().size());
    if (withPartitions) {
      List<Map<String, Object>> parts = new ArrayList<>();
      for (PartitionLag p : g.partitions()) {
        Map<String, Object> pm = new LinkedHashMap<>();
        pm.put("topic", p.topic());
        pm.put("partition", p.partition());
        pm.put("currentOffset", p.committedOffset() < 0 ? null : p.committedOffset());
        pm.put("logEndOffset", p.known() ? p.logEndOffset() : null);
        pm.put("lag", p.known() ? p.lag() : null);
        pm.put("oldestAgeSeconds", seconds(p.oldestAge()));
        pm.put("ageEstimated", p.ageEstimated());
        pm.put("consumerId", p.consumerId());
        pm.put("host", p.host());
        pm.put("clientId", p.clientId());
        pm.put("produceRate", p.rates().produceRate());
        pm.put("commitRate", p.rates().commitRate());
        pm.put("lagGrowthRate", p.rates().lagGrowthRate());
        pm.put("timeToDrainSeconds", p.rates().timeToDrain().map(LagJson::seconds).orElse(null));
        pm.put("status", p.verdict().status().name());
        pm.put("reason", p.verdict().reason());
        parts.add(pm);
      }
      m.put("partitions", parts);
    }
    return m;
  }

  /** The group's roll-up read back (partitions are not needed by admission control). */
  public static GroupLag readGroup(JsonNode n) {
    JsonNode drain = n.get("timeToDrainSeconds");
    return new GroupLag(
        n.get("group").asText(),
        n.get("state").asText(),
        n.get("members").asInt(),
        List.of(),
        n.get("sumLag").asLong(),
        n.get("maxLag").asLong(),
        duration(n.get("maxOldestAgeSeconds").asDouble()),
        n.get("lagGrowthRate").asDouble(),
        n.path("commitRate").asDouble(0),
        drain == null || drain.isNull()
            ? Optional.empty()
            : Optional.of(duration(drain.asDouble())),
        new Verdict(Status.valueOf(n.get("status").asText()), n.get("reason").asText()),
        n.hasNonNull("observedAt") ? Instant.parse(n.get("observedAt").asText()) : Instant.EPOCH);
  }

  private static double seconds(Duration d) {
    return d.toMillis() / 1000.0;
  }

  private static Duration duration(double seconds) {
    return Duration.ofMillis(Math.round(seconds * 1000));
  }
}
