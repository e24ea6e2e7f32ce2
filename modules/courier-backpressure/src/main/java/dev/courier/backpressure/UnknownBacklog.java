package dev.courier.backpressure;

import dev.courier.core.Choice;

/**
 * What admission control does when it does not know a watched group's backlog: the monitor has no
 * figures for it (not found, not described), or they are older than the staleness bound (the
 * monitor lost Kafka, or is down). Configuration key {@code admission.on.unknown}.
 */
public enum UnknownBacklog implements Choice {
  /**
   * Admit (the default): a monitoring outage must not become a business outage. The in-flight
   * bounds still apply, the decision is counted with reason {@code unknown}, and the monitor's own
   * alerts say it is blind.
   */
  ADMIT,
  /**
   * Refuse, with reason {@code no_signal}: for work whose unbounded backlog is worse than refused
   * requests (the client retries after {@code Retry-After}).
   */
  REFUSE;

  /** The configuration key that names this choice ({@link AdmissionConfig}). */
  public static final String KEY = "admission.on.unknown";

  public static UnknownBacklog of(String value) {
    return Choice.of(UnknownBacklog.class, value);
  }
}
