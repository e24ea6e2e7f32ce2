package dev.courier.idempotency;

/** Counts of an {@link IdempotentConsumer}'s work so far. */
public record ConsumerProgress(
    long polls, long applied, long duplicates, long failed, long commits, long rejectedCommits) {

  /** Records handled in any way. */
  public long handled() {
    return applied + duplicates + failed;
  }
}
