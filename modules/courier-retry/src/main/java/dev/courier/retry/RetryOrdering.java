package dev.courier.retry;

import dev.courier.core.Choice;

/** What order the ladder keeps for records of one key ({@code retry.ordering}). */
public enum RetryOrdering implements Choice {
  /**
   * None: a retried record waits at its tier while later records of its key are handled (the
   * ladder's behaviour before key ordering, and Spring Kafka's non-blocking retries').
   */
  NONE,
  /**
   * Per record key: while a record of a key is anywhere in the ladder, the key's later records from
   * the main topic wait behind it, in order; other keys flow.
   */
  KEY;
}
