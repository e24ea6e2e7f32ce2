package dev.courier.retry;

import dev.courier.core.Choice;

/** Whether a failure may recover by trying again. */
public enum FailureClass implements Choice {
  /** May succeed later (timeouts, lost connections, a lock conflict): climb the ladder. */
  TRANSIENT,
  /** Will fail the same way every time (bad data, a rule broken): straight to the DLT. */
  PERMANENT;
}
