package dev.courier.retry;

/** Whether a failure may recover by trying again. */
public enum FailureClass {
  /** May succeed later (timeouts, lost connections, a lock conflict): climb the ladder. */
  TRANSIENT,
  /** Will fail the same way every time (bad data, a rule broken): straight to the DLT. */
  PERMANENT
}
