package dev.courier.retry;

import java.util.Objects;

/** A classifier's answer: the class, the rule that decided it, and the exception it matched. */
public record Classification(FailureClass failureClass, String rule, Throwable matched) {
  public Classification {
    Objects.requireNonNull(failureClass, "failureClass");
    Objects.requireNonNull(rule, "rule");
  }

  public boolean permanent() {
    return failureClass == FailureClass.PERMANENT;
  }
}
