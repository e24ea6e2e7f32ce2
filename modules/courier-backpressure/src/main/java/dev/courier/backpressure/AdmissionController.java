package dev.courier.backpressure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Refuses work before the backlog becomes unbounded: bounds on admitted-but-unfinished units and
 * bytes, and limits on the oldest-record age and lag growth of the consumer groups that will
 * process the work, read from a {@link BacklogSignals} (the local monitor or its HTTP API).
 */
public interface AdmissionController {

  /** ADMIT (close the result when the work is done) or REJECT with a reason and a retry-after. */
  Admission tryAdmit(Work work);

  /** Units admitted and not yet closed. */
  int inFlight();

  static Builder builder() {
    return new Builder();
  }

  /** Builds a controller; every bound is optional, unset bounds never reject. */
  final class Builder {
    int maxInFlight = Integer.MAX_VALUE;
    long maxInFlightBytes = Long.MAX_VALUE;
    final List<String> groups = new ArrayList<>();
    Duration maxOldestAge;
    double maxLagGrowthRate = Double.POSITIVE_INFINITY;
    BacklogSignals signals;
    UnknownBacklog onUnknown = UnknownBacklog.ADMIT;
    Duration staleAfter = Duration.ofSeconds(30);
    java.time.Clock clock = java.time.Clock.systemUTC();
    Duration retryAfter = Duration.ofSeconds(1);
    Duration maxRetryAfter = Duration.ofMinutes(5);
    MeterRegistry registry = Metrics.globalRegistry;
    String name = "default";

    private Builder() {}

    /** Names the controller in its metrics ({@code controller} tag). */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    public Builder maxInFlight(int units) {
      if (units < 1) {
        throw new IllegalArgumentException("maxInFlight must be >= 1, got " + units);
      }
      this.maxInFlight = units;
      return this;
    }

    public Builder maxInFlightBytes(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxInFlightBytes must be >= 1, got " + bytes);
      }
      this.maxInFlightBytes = bytes;
      return this;
    }

    /** Consumer groups that will process the admitted work; their backlog gates admission. */
    public Builder watch(BacklogSignals signals, String... groups) {
      this.signals = Objects.requireNonNull(signals, "signals");
      this.groups.addAll(List.of(groups));
      return this;
    }

    public Builder maxOldestAge(Duration age) {
      if (age.isNegative() || age.isZero()) {
        throw new IllegalArgumentException("maxOldestAge must be positive, got " + age);
      }
      this.maxOldestAge = age;
      return this;
    }

    /**
     * Records per second of lag growth (summed over the group's partitions) above which to refuse.
     */
    public Builder maxLagGrowthRate(double recordsPerSecond) {
      if (!(recordsPerSecond >= 0)) {
        throw new IllegalArgumentException(
            "maxLagGrowthRate must be >= 0, got " + recordsPerSecond);
      }
      this.maxLagGrowthRate = recordsPerSecond;
      return this;
    }

    /**
     * What to do when a watched group's backlog is unknown or stale (default {@link
     * UnknownBacklog#ADMIT}: a monitoring outage must not stop the business; see {@link
     * UnknownBacklog}).
     */
    public Builder onUnknown(UnknownBacklog policy) {
      this.onUnknown = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Figures older than this count as unknown (default 30 s, the monitor's own {@code
     * monitor.stale.after.ms} default): admission never decides on an old snapshot.
     */
    public Builder staleAfter(Duration staleAfter) {
      if (staleAfter.isNegative() || staleAfter.isZero()) {
        throw new IllegalArgumentException("staleAfter must be positive, got " + staleAfter);
      }
      this.staleAfter = staleAfter;
      return this;
    }

    /** The clock staleness is measured with. */
    public Builder clock(java.time.Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Retry-after for in-flight refusals, and the floor of backlog refusals. */
    public Builder retryAfter(Duration retryAfter, Duration max) {
      if (retryAfter.isNegative() || max.compareTo(retryAfter) < 0) {
        throw new IllegalArgumentException("need 0 <= retryAfter <= max");
      }
      this.retryAfter = retryAfter;
      this.maxRetryAfter = max;
      return this;
    }

    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * Applies every setting of {@code config}; watched groups are read from the monitor service at
     * {@code admission.monitor.url}.
     */
    public Builder config(AdmissionConfig config) {
      if (config.maxInFlight() > 0) {
        maxInFlight(config.maxInFlight());
      }
      if (config.maxInFlightBytes() > 0) {
        maxInFlightBytes(config.maxInFlightBytes());
      }
      if (config.maxOldestAgeMillis() > 0) {
        maxOldestAge(Duration.ofMillis(config.maxOldestAgeMillis()));
      }
      if (config.maxLagGrowthRate() > 0) {
        maxLagGrowthRate(config.maxLagGrowthRate());
      }
      if (!config.groups().isEmpty()) {
        watch(
            BacklogSignals.http(config.monitorUrl(), config.monitorCache()),
            config.groups().toArray(String[]::new));
      }
      onUnknown(config.onUnknown());
      return staleAfter(config.staleAfter());
    }

    public AdmissionController build() {
      if (!groups.isEmpty()
          && maxOldestAge == null
          && maxLagGrowthRate == Double.POSITIVE_INFINITY) {
        throw new IllegalStateException(
            "watched groups " + groups + " but neither maxOldestAge nor maxLagGrowthRate is set");
      }
      return new DefaultAdmissionController(this);
    }
  }
}
