package dev.courier.retry.internal;

import org.apache.kafka.common.TopicPartition;

/** A forward that was neither delivered nor parked: its record is not done. */
public record Undelivered(TopicPartition source, long offset, String target, Throwable cause) {
  public String describe() {
    return "cannot forward "
        + source
        + "@"
        + offset
        + " to "
        + target
        + " ("
        + cause
        + "); it is not committed and comes again";
  }
}
