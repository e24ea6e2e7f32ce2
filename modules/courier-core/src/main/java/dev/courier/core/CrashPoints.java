package dev.courier.core;

/**
 * The process boundaries every Courier pipeline is tested at. Modules reach these where the
 * boundary lies in their own code; the names are the ones tests and the lab use.
 */
public final class CrashPoints {

  /** The consumer's database transaction committed; the Kafka offset is not yet committed. */
  public static final CrashPoint AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT =
      CrashPoint.named("after-db-commit-before-offset-commit");

  /** A relay's record is acknowledged by Kafka; its source offset is not yet committed. */
  public static final CrashPoint AFTER_KAFKA_SEND_BEFORE_SOURCE_OFFSET_COMMIT =
      CrashPoint.named("after-kafka-send-before-source-offset-commit");

  /** A retry tier produced the record to its next topic; the tier's offset is not yet committed. */
  public static final CrashPoint AFTER_FORWARD_BEFORE_OFFSET_COMMIT =
      CrashPoint.named("after-forward-before-offset-commit");

  private CrashPoints() {}
}
