package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.SlotGapPolicy;
import org.apache.kafka.common.config.ConfigException;

/**
 * What the relay does with the slot it found, given its stored position's verdict and {@code
 * outbox.slot.gap.policy}: go on, go on past a gap it counts, or refuse to start naming the
 * setting. Pure.
 */
public final class SlotGapDecider {

  /** The decision, with what to log. */
  public sealed interface Decision {
    String message();
  }

  /** No gap: stream from the stored position. */
  public record Continue(String message) implements Decision {}

  /** A gap, accepted by the policy: counted and logged as a warning. */
  public record Accept(String message) implements Decision {}

  /** A gap the policy refuses: the relay stops with this error. */
  public record Refuse(ConfigException error) implements Decision {
    @Override
    public String message() {
      return error.getMessage();
    }
  }

  private SlotGapDecider() {}

  public static Decision decide(SlotIdentity.Verdict verdict, SlotGapPolicy policy) {
    if (!verdict.gap()) {
      return new Continue(verdict.description());
    }
    if (policy == SlotGapPolicy.FAIL) {
      return new Refuse(
          new ConfigException(
              OutboxRelayConfig.SLOT_GAP_POLICY,
              policy.value(),
              verdict.description()
                  + ". The relay will not follow the slot silently; set "
                  + OutboxRelayConfig.SLOT_GAP_POLICY
                  + "=accept to go on from the slot's position, knowing those events are lost"));
    }
    return new Accept(
        "accepting a gap ("
            + OutboxRelayConfig.SLOT_GAP_POLICY
            + "="
            + policy.value()
            + "): "
            + verdict.description());
  }
}
