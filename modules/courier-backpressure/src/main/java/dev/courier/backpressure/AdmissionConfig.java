package dev.courier.backpressure;

import dev.courier.core.Choice;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Admission control from settings, for services that configure it by key rather than in code: every
 * key with its default and doc in one place, checked when the service starts. Unset bounds never
 * refuse; {@link AdmissionController#builder()} {@code .config(...)} applies them.
 */
public final class AdmissionConfig extends AbstractConfig {

  public static final String GROUPS = "admission.groups";
  public static final String MONITOR_URL = "admission.monitor.url";
  public static final String MONITOR_CACHE_MS = "admission.monitor.cache.ms";
  public static final String MAX_OLDEST_AGE_MS = "admission.max.oldest.age.ms";
  public static final String MAX_LAG_GROWTH_RATE = "admission.max.lag.growth.rate";
  public static final String MAX_IN_FLIGHT = "admission.max.in.flight";
  public static final String MAX_IN_FLIGHT_BYTES = "admission.max.in.flight.bytes";
  public static final String ON_UNKNOWN = UnknownBacklog.KEY;
  public static final String STALE_AFTER_MS = "admission.stale.after.ms";

  private static final ConfigDef CONFIG =
      new ConfigDef()
          .define(
              GROUPS,
              Type.LIST,
              List.of(),
              Importance.HIGH,
              "Consumer groups that process the admitted work; their backlog gates admission.")
          .define(
              MONITOR_URL,
              Type.STRING,
              "",
              AdmissionConfig::url,
              Importance.HIGH,
              "Base URL of a courier monitor service (e.g. http://courier-monitor:9464) to read"
                  + " the groups' figures from; required when admission.groups is set.")
          .define(
              MONITOR_CACHE_MS,
              Type.LONG,
              1_000L,
              Range.atLeast(0),
              Importance.LOW,
              "How long one answer of the monitor is reused between decisions.")
          .define(
              MAX_OLDEST_AGE_MS,
              Type.LONG,
              0L,
              Range.atLeast(0),
              Importance.HIGH,
              "Refuse while a watched group's oldest unconsumed record is older than this (0: no"
                  + " bound).")
          .define(
              MAX_LAG_GROWTH_RATE,
              Type.DOUBLE,
              0.0,
              Range.atLeast(0),
              Importance.MEDIUM,
              "Refuse while a watched group's lag grows faster than this, in records per second"
                  + " over the monitor's window (0: no bound).")
          .define(
              MAX_IN_FLIGHT,
              Type.INT,
              0,
              Range.atLeast(0),
              Importance.MEDIUM,
              "Most admitted, unfinished units of work (0: no bound).")
          .define(
              MAX_IN_FLIGHT_BYTES,
              Type.LONG,
              0L,
              Range.atLeast(0),
              Importance.MEDIUM,
              "Most bytes of admitted, unfinished work (0: no bound).")
          .define(
              ON_UNKNOWN,
              Type.STRING,
              UnknownBacklog.ADMIT.value(),
              Choice.validator(UnknownBacklog.class),
              Importance.HIGH,
              "What to do when a watched group's backlog is unknown (not found, the monitor"
                  + " unreachable) or its figures are older than admission.stale.after.ms: 'admit'"
                  + " (a monitoring outage must not become a business outage; the in-flight bounds"
                  + " still hold) or 'refuse' (429 with Retry-After, for work whose unbounded"
                  + " backlog is worse than refused requests).")
          .define(
              STALE_AFTER_MS,
              Type.LONG,
              30_000L,
              Range.atLeast(1),
              Importance.MEDIUM,
              "Figures older than this count as unknown: admission never decides on an old"
                  + " snapshot. Match the monitor's monitor.stale.after.ms.");

  public AdmissionConfig(Map<String, ?> originals) {
    super(CONFIG, originals, false);
    if (!groups().isEmpty() && getString(MONITOR_URL).isEmpty()) {
      throw new ConfigException(MONITOR_URL, "", "required when " + GROUPS + " is set");
    }
    if (!groups().isEmpty() && maxOldestAgeMillis() == 0 && maxLagGrowthRate() == 0) {
      throw new ConfigException(
          GROUPS,
          groups(),
          "watched groups need a bound: set " + MAX_OLDEST_AGE_MS + " or " + MAX_LAG_GROWTH_RATE);
    }
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  private static void url(String name, Object value) {
    String s = (String) value;
    if (s.isEmpty()) {
      return;
    }
    try {
      URI uri = new URI(s);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        throw new ConfigException(name, value, "must be an http or https URL");
      }
    } catch (URISyntaxException e) {
      throw new ConfigException(name, value, "not a URL: " + e.getMessage());
    }
  }

  public List<String> groups() {
    return getList(GROUPS);
  }

  public URI monitorUrl() {
    return URI.create(getString(MONITOR_URL));
  }

  public Duration monitorCache() {
    return Duration.ofMillis(getLong(MONITOR_CACHE_MS));
  }

  long maxOldestAgeMillis() {
    return getLong(MAX_OLDEST_AGE_MS);
  }

  double maxLagGrowthRate() {
    return getDouble(MAX_LAG_GROWTH_RATE);
  }

  int maxInFlight() {
    return getInt(MAX_IN_FLIGHT);
  }

  long maxInFlightBytes() {
    return getLong(MAX_IN_FLIGHT_BYTES);
  }

  public UnknownBacklog onUnknown() {
    return UnknownBacklog.of(getString(ON_UNKNOWN));
  }

  public Duration staleAfter() {
    return Duration.ofMillis(getLong(STALE_AFTER_MS));
  }
}
