package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.testkit.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AdmissionControllerTest {

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
  private final Map<String, GroupLag> figures = new HashMap<>();
  private final BacklogSignals signals = g -> Optional.ofNullable(figures.get(g));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private GroupLag group(Duration age, double growth, Optional<Duration> drain) {
    return new GroupLag(
        "billing",
        "Stable",
        1,
        List.of(),
        100,
        100,
        age,
        growth,
        0,
        drain,
        new Verdict(Status.WARN, "test"),
        clock.instant());
  }

  @Test
  void boundsUnitsInFlightUntilTheyAreClosed() {
    AdmissionController c =
        AdmissionController.builder().maxInFlight(2).meterRegistry(registry).build();
    Admission a = c.tryAdmit(Work.ofBytes(1));
    Admission b = c.tryAdmit(Work.ofBytes(1));
    Admission refused = c.tryAdmit(Work.ofBytes(1));
    assertThat(a.admitted()).isTrue();
    assertThat(b.admitted()).isTrue();
    assertThat(refused.reason()).contains(RejectReason.IN_FLIGHT);
    assertThat(refused.httpStatus()).isEqualTo(429);
    assertThat(refused.retryAfterHeader()).isEqualTo("1");
    a.close();
    a.close(); // closing twice releases once
    assertThat(c.inFlight()).isEqualTo(1);
    assertThat(c.tryAdmit(Work.ofBytes(1)).admitted()).isTrue();
    assertThat(
            registry
                .get("courier.admission.decisions")
                .tag("reason", "in_flight")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(
            registry
                .get("courier.admission.decisions")
                .tag("decision", "admitted")
                .tag("reason", "none")
                .counter()
                .count())
        .isEqualTo(3);
  }

  @Test
  void boundsBytesButAdmitsOneOversizedUnitAlone() {
    AdmissionController c = AdmissionController.builder().maxInFlightBytes(100).build();
    try (Admission big = c.tryAdmit(Work.ofBytes(500))) {
      assertThat(big.admitted()).isTrue();
      assertThat(c.tryAdmit(Work.ofBytes(1)).reason()).contains(RejectReason.BYTES);
    }
    Admission sixty = c.tryAdmit(Work.ofBytes(60));
    assertThat(c.tryAdmit(Work.ofBytes(60)).reason()).contains(RejectReason.BYTES);
    assertThat(c.tryAdmit(Work.ofBytes(40)).admitted()).isTrue();
    sixty.close();
  }

  @Test
  void refusesWhenTheOldestRecordIsTooOldAndSaysWhenToRetry() {
    AdmissionController c =
        AdmissionController.builder()
            .watch(signals, "billing")
            .maxOldestAge(Duration.ofSeconds(30))
            .retryAfter(Duration.ofSeconds(1), Duration.ofSeconds(60))
            .clock(clock)
            .build();
    figures.put("billing", group(Duration.ofSeconds(10), 0, Optional.of(Duration.ZERO)));
    assertThat(c.tryAdmit(Work.ofBytes(1)).admitted()).isTrue();

    figures.put("billing", group(Duration.ofSeconds(45), 5, Optional.of(Duration.ofSeconds(12))));
    Admission refused = c.tryAdmit(Work.ofBytes(1));
    assertThat(refused.reason()).contains(RejectReason.OLDEST_AGE);
    assertThat(refused.message()).contains("billing").contains("45000 ms").contains("30000 ms");
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(12));

    figures.put("billing", group(Duration.ofSeconds(45), 5, Optional.empty()));
    assertThat(c.tryAdmit(Work.ofBytes(1)).retryAfter()).isEqualTo(Duration.ofSeconds(15));
    figures.put("billing", group(Duration.ofHours(2), 5, Optional.empty()));
    assertThat(c.tryAdmit(Work.ofBytes(1)).retryAfter()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void refusesWhenLagGrowsTooFast() {
    AdmissionController c =
        AdmissionController.builder()
            .watch(signals, "billing")
            .maxLagGrowthRate(10)
            .clock(clock)
            .build();
    figures.put("billing", group(Duration.ZERO, 20.5, Optional.empty()));
    Admission refused = c.tryAdmit(Work.ofBytes(1));
    assertThat(refused.reason()).contains(RejectReason.LAG_GROWTH);
    assertThat(refused.message()).isEqualTo("group billing lag grows 20.5 records/s (limit 10.0)");
  }

  @Test
  void unknownStaleOrFigurelessGroupsFollowThePolicyAdmitByDefault() {
    var open =
        AdmissionController.builder()
            .watch(signals, "billing")
            .maxLagGrowthRate(1)
            .clock(clock)
            .meterRegistry(registry)
            .build();
    var closed =
        AdmissionController.builder()
            .watch(signals, "billing")
            .maxLagGrowthRate(1)
            .onUnknown(UnknownBacklog.REFUSE)
            .staleAfter(Duration.ofSeconds(30))
            .clock(clock)
            .build();
    // Not seen at all.
    assertThat(open.tryAdmit(Work.ofBytes(1)).admitted()).isTrue();
    Admission refused = closed.tryAdmit(Work.ofBytes(1));
    assertThat(refused.reason()).contains(RejectReason.NO_SIGNAL);
    assertThat(refused.message()).contains("no backlog figures for group billing");
    // Seen, with a growth that would refuse, but an hour ago: the figure is not used either way.
    figures.put("billing", group(Duration.ZERO, 50, Optional.empty()));
    clock.advance(Duration.ofHours(1));
    assertThat(open.tryAdmit(Work.ofBytes(1)).admitted()).isTrue();
    assertThat(closed.tryAdmit(Work.ofBytes(1)).message()).contains("3600 s old");
    // Seen, fresh, without figures (not found).
    figures.put(
        "billing",
        GroupLag.unknown("billing", "NotFound", "not found: no such group", clock.instant()));
    assertThat(open.tryAdmit(Work.ofBytes(1)).admitted()).isTrue();
    assertThat(closed.tryAdmit(Work.ofBytes(1)).message()).contains("not found");
    assertThat(
            registry
                .get("courier.admission.decisions")
                .tag("decision", "admitted")
                .tag("reason", "unknown")
                .counter()
                .count())
        .isEqualTo(3);
    // Fresh figures decide again.
    figures.put("billing", group(Duration.ZERO, 50, Optional.empty()));
    assertThat(open.tryAdmit(Work.ofBytes(1)).reason()).contains(RejectReason.LAG_GROWTH);
  }

  @Test
  void watchingWithoutALimitIsAMistake() {
    assertThatThrownBy(() -> AdmissionController.builder().watch(signals, "billing").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("neither maxOldestAge nor maxLagGrowthRate");
  }
}
