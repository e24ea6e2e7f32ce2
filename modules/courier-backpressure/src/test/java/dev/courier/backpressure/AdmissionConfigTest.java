package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class AdmissionConfigTest {

  @Test
  void defaultsAdmitOnUnknownAndBoundNothing() {
    AdmissionConfig config = new AdmissionConfig(Map.of());
    assertThat(config.onUnknown()).isEqualTo(UnknownBacklog.ADMIT);
    AdmissionController c = AdmissionController.builder().config(config).build();
    for (int i = 0; i < 1000; i++) {
      assertThat(c.tryAdmit(Work.ofBytes(1 << 20)).admitted()).isTrue();
    }
  }

  @Test
  void badSettingsFailNamingTheKey() {
    assertThatThrownBy(() -> new AdmissionConfig(Map.of(AdmissionConfig.ON_UNKNOWN, "maybe")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("admission.on.unknown");
    assertThatThrownBy(() -> new AdmissionConfig(Map.of(AdmissionConfig.GROUPS, "billing")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("admission.monitor.url");
    assertThatThrownBy(
            () ->
                new AdmissionConfig(
                    Map.of(
                        AdmissionConfig.GROUPS,
                        "billing",
                        AdmissionConfig.MONITOR_URL,
                        "http://monitor:9464")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("admission.max.oldest.age.ms");
    assertThatThrownBy(
            () -> new AdmissionConfig(Map.of(AdmissionConfig.MONITOR_URL, "ftp://monitor")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("admission.monitor.url");
  }

  @Test
  void anUnreachableMonitorFollowsThePolicy() throws IOException {
    String url = "http://localhost:" + closedPort();
    Map<String, Object> settings =
        Map.of(
            AdmissionConfig.GROUPS, "billing",
            AdmissionConfig.MONITOR_URL, url,
            AdmissionConfig.MAX_OLDEST_AGE_MS, "30000",
            AdmissionConfig.MAX_IN_FLIGHT, "2");
    AdmissionController admitting =
        AdmissionController.builder().config(new AdmissionConfig(settings)).build();
    Admission a = admitting.tryAdmit(Work.ofBytes(1));
    Admission b = admitting.tryAdmit(Work.ofBytes(1));
    assertThat(a.admitted()).isTrue();
    assertThat(b.admitted()).isTrue();
    // The in-flight bound still holds while the backlog is unknown.
    assertThat(admitting.tryAdmit(Work.ofBytes(1)).reason()).contains(RejectReason.IN_FLIGHT);

    Map<String, Object> refusing = new java.util.HashMap<>(settings);
    refusing.put(AdmissionConfig.ON_UNKNOWN, "refuse");
    Admission refused =
        AdmissionController.builder()
            .config(new AdmissionConfig(refusing))
            .build()
            .tryAdmit(Work.ofBytes(1));
    assertThat(refused.reason()).contains(RejectReason.NO_SIGNAL);
    assertThat(refused.httpStatus()).isEqualTo(429);
    assertThat(refused.retryAfterHeader()).isNotEmpty();
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
