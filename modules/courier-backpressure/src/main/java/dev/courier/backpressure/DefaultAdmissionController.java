package dev.courier.backpressure;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds first checked against the backlog (refusing early is cheap), then reserved atomically
 * against the in-flight counters. Meters: {@code courier_admission_decisions_total{controller,
 * decision, reason}} and {@code courier_admission_in_flight{controller}}.
 */
final class DefaultAdmissionController implements AdmissionController {

  private final int maxInFlight;
  private final long maxBytes;
  private final List<String> groups;
  private final Duration maxAge;
  private final double maxGrowth;
  private final BacklogSignals signals;
  private final UnknownBacklog onUnknown;
  private final Duration staleAfter;
  private final java.time.Clock clock;
  private final Counter admittedUnknown;
  private final Duration retryAfter;
  private final Duration maxRetryAfter;
  private final AtomicInteger units = new AtomicInteger();
  private final AtomicLong bytes = new AtomicLong();
  private final Counter admittedCounter;
  private final Map<RejectReason, Counter> rejected = new EnumMap<>(RejectReason.class);

  DefaultAdmissionController(AdmissionController.Builder b) {
    this.maxInFlight = b.maxInFlight;
    this.maxBytes = b.maxInFlightBytes;
    this.groups = List.copyOf(b.groups);
    this.maxAge = b.maxOldestAge;
    this.maxGrowth = b.maxLagGrowthRate;
    this.signals = b.signals;
    this.onUnknown = b.onUnknown;
    this.staleAfter = b.staleAfter;
    this.clock = b.clock;
    this.retryAfter = b.retryAfter;
    this.maxRetryAfter = b.maxRetryAfter;
    this.admittedCounter = counter(b, "admitted", "none");
    this.admittedUnknown = counter(b, "admitted", "unknown");
    for (RejectReason reason : RejectReason.values()) {
      rejected.put(reason, counter(b, "rejected", reason.tag()));
    }
    Gauge.builder("courier.admission.in.flight", units, AtomicInteger::get)
        .tag("controller", b.name)
        .description("Admitted units not yet finished.")
        .register(b.registry);
  }

  private static Counter counter(AdmissionController.Builder b, String decision, String reason) {
    return Counter.builder("courier.admission.decisions")
        .tag("controller", b.name)
        .tag("decision", decision)
        .tag("reason", reason)
        .description("Admission decisions by outcome and reason.")
        .register(b.registry);
  }

  /** What the backlog says: a refusal, or go on (noting that some backlog was unknown). */
  private record BacklogCheck(Optional<Admission> refusal, boolean unknown) {}

  @Override
  public Admission tryAdmit(Work work) {
    BacklogCheck backlog = checkBacklog();
    if (backlog.refusal().isPresent()) {
      return count(backlog.refusal().get(), false);
    }
    int u = units.incrementAndGet();
    if (u > maxInFlight) {
      units.decrementAndGet();
      return count(
          Admission.rejected(
              RejectReason.IN_FLIGHT,
              "already " + (u - 1) + " units admitted and unfinished (limit " + maxInFlight + ")",
              retryAfter),
          false);
    }
    long b = bytes.addAndGet(work.bytes());
    if (b > maxBytes && b != work.bytes()) {
      // A single unit larger than the bound is still admitted alone, or it could never pass.
      bytes.addAndGet(-work.bytes());
      units.decrementAndGet();
      return count(
          Admission.rejected(
              RejectReason.BYTES,
              (b - work.bytes()) + " bytes admitted and unfinished (limit " + maxBytes + ")",
              retryAfter),
          false);
    }
    long size = work.bytes();
    return count(
        Admission.admitted(
            () -> {
              bytes.addAndGet(-size);
              units.decrementAndGet();
            }),
        backlog.unknown());
  }

  private BacklogCheck checkBacklog() {
    java.time.Instant now = clock.instant();
    boolean anyUnknown = false;
    for (String group : groups) {
      Optional<GroupLag> lag = signals.group(group);
      String unknown = null;
      if (lag.isEmpty()) {
        unknown = "no backlog figures for group " + group;
      } else if (lag.get().verdict().status() == Status.UNKNOWN) {
        unknown = "group " + group + " has no figures: " + lag.get().verdict().reason();
      } else if (lag.get().age(now).compareTo(staleAfter) > 0) {
        unknown =
            "the figures of group "
                + group
                + " are "
                + lag.get().age(now).toSeconds()
                + " s old (stale after "
                + staleAfter.toSeconds()
                + " s)";
      }
      if (unknown != null) {
        if (onUnknown == UnknownBacklog.REFUSE) {
          return new BacklogCheck(
              Optional.of(Admission.rejected(RejectReason.NO_SIGNAL, unknown, retryAfter)), true);
        }
        anyUnknown = true;
        continue;
      }
      GroupLag g = lag.get();
      if (maxAge != null && g.maxOldestAge().compareTo(maxAge) > 0) {
        return refuse(
            Admission.rejected(
                RejectReason.OLDEST_AGE,
                "group "
                    + group
                    + " has waited "
                    + g.maxOldestAge().toMillis()
                    + " ms on its oldest record (limit "
                    + maxAge.toMillis()
                    + " ms)",
                backlogRetryAfter(g, g.maxOldestAge().minus(maxAge))));
      }
      if (g.lagGrowthRate() > maxGrowth) {
        return refuse(
            Admission.rejected(
                RejectReason.LAG_GROWTH,
                String.format(
                    java.util.Locale.ROOT,
                    "group %s lag grows %.1f records/s (limit %.1f)",
                    group,
                    g.lagGrowthRate(),
                    maxGrowth),
                backlogRetryAfter(g, retryAfter)));
      }
    }
    return new BacklogCheck(Optional.empty(), anyUnknown);
  }

  private static BacklogCheck refuse(Admission refusal) {
    return new BacklogCheck(Optional.of(refusal), false);
  }

  /** The group's estimated time to drain when known, else the excess; within the bounds. */
  private Duration backlogRetryAfter(GroupLag g, Duration fallback) {
    Duration d = g.timeToDrain().orElse(fallback);
    if (d.compareTo(retryAfter) < 0) {
      return retryAfter;
    }
    return d.compareTo(maxRetryAfter) > 0 ? maxRetryAfter : d;
  }

  private Admission count(Admission admission, boolean unknownBacklog) {
    if (admission.admitted()) {
      (unknownBacklog ? admittedUnknown : admittedCounter).increment();
    } else {
      rejected.get(admission.reason().get()).increment();
    }
    return admission;
  }

  @Override
  public int inFlight() {
    return units.get();
  }
}
