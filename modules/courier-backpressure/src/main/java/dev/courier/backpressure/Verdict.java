package dev.courier.backpressure;

import java.util.Objects;

/** A status and the reason for it in words, e.g. {@code lag grew from 40 to 210 in 60 s}. */
public record Verdict(Status status, String reason) {
  public Verdict {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(reason, "reason");
  }
}
